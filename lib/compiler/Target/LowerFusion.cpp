//===- LowerFusion.cpp - fused ops, gradient buckets and in-place updates -===//
//
// The ops the fusion passes write (lib/compiler/Fusion), coalesce_tensor and
// fused_slices (distc-fuse-all-reduce) without copies, and the in-place
// reuse of a Temp whose value nothing reads afterwards.
//
// A bucket is one Temp buffer. Coalescing does not copy a gradient into it:
// the storage the backward kernels wrote the gradient to (a Temp, maybe
// seen through views) becomes a view of the bucket at the gradient's
// offset, so those kernels write straight into the bucket. That needs the
// storage to hold nothing else that is read after the coalesce_tensor;
// otherwise (and for gradients in persistent or feed storage, or of
// dynamic size) the gradient is copied into its slice. The scale and the
// all-reduce then update the bucket in place, and the optimizer reads the
// reduced gradients as views of it at their offsets.
//
//===----------------------------------------------------------------------===//

#include "ProgramLowering.h"

#include "distc/Artifact/ElementwiseLoop.h"
#include "distc/Dialect/Pd/PdOps.h"

using namespace mlir;

namespace distc::target {

int32_t ProgramLowering::storageRootOf(int32_t buffer) const {
  while (state.desc.buffers[buffer].kind == BufferKind::View)
    buffer = state.desc.buffers[buffer].aliasOf;
  return buffer;
}

bool ProgramLowering::storageFreeAfter(int32_t root, Operation *op) const {
  if (state.desc.buffers[root].kind != BufferKind::Temp)
    return false;
  auto values = valuesByRoot.find(root);
  if (values == valuesByRoot.end())
    return true;
  for (Value value : values->second) {
    if (storageRootOf(bufferOf(value)) != root)
      continue; // bound again since
    for (Operation *user : value.getUsers())
      if (user != op && (user->getBlock() != op->getBlock() || op->isBeforeInBlock(user)))
        return false;
  }
  return true;
}

FailureOr<int32_t> ProgramLowering::defineInPlace(Value result, Value input, SymShape dims) {
  Operation *op = result.getDefiningOp();
  int32_t in = bufferOf(input);
  const artifact::BufferDesc &source = state.desc.buffers[in];
  FailureOr<artifact::DType> dtype =
      toArtifactDType(cast<RankedTensorType>(result.getType()).getElementType());
  // A result that goes straight into a persistable is computed there.
  bool written =
      result.hasOneUse() && result.getUsers().begin()->getName().getStringRef() == "pd.write_var";
  if (written || failed(dtype) || *dtype != source.dtype || dims.size() != source.dims.size() ||
      !std::equal(dims.begin(), dims.end(), source.dims.begin(), sameDim) ||
      !storageFreeAfter(storageRootOf(in), op))
    return defineResult(result, std::move(dims));
  return defineView(result, in, std::move(dims));
}

FailureOr<int32_t> ProgramLowering::defineElementwiseResult(Value result, Value input,
                                                            SymShape dims) {
  if (!state.options.inplace)
    return defineResult(result, std::move(dims));
  // Another operand in the input's storage would be read after the kernel
  // wrote over it (a slice of the same bucket, say); the input itself may
  // be every operand (x * x), each element is read before it is written.
  Operation *op = result.getDefiningOp();
  const int32_t root = storageRootOf(bufferOf(input));
  for (Value operand : op->getOperands())
    if (operand != input && storageRootOf(bufferOf(operand)) == root)
      return defineResult(result, std::move(dims));
  return defineInPlace(result, input, std::move(dims));
}

int32_t ProgramLowering::sliceView(int32_t base, int64_t offset, SymShape dims, std::string name) {
  const artifact::BufferDesc &source = state.desc.buffers[base];
  if (offset == 0)
    if (std::optional<DimDesc> count = product(dims), baseCount = product(source.dims);
        count && baseCount && sameDim(*count, *baseCount))
      return view(base, std::move(dims));
  artifact::DType dtype = source.dtype;
  int32_t slice = addBuffer(std::move(name), dtype, std::move(dims), BufferKind::View, base);
  state.desc.buffers[slice].offset = offset;
  return slice;
}

/// The static dims of `type`, or nullopt.
static std::optional<SymShape> staticDims(Type type) {
  auto tensor = cast<RankedTensorType>(type);
  if (!tensor.hasStaticShape())
    return std::nullopt;
  SymShape dims;
  for (int64_t d : tensor.getShape())
    dims.push_back(DimDesc::fixed(d));
  return dims;
}

LogicalResult ProgramLowering::lowerCoalesceTensor(Operation *op) {
  auto coalesce = cast<pd::CoalesceTensorOp>(op);
  Value fused = coalesce.getFusedOutput();
  pd::OpAttributes attrs(op);

  // The layout: every Output right after the previous one (distc pads
  // nothing, whatever use_align says: only the collectives read the bucket
  // as a whole, element by element).
  std::vector<int64_t> offsets;
  std::vector<SymShape> dims;
  int64_t total = 0;
  for (Value input : coalesce.getInput()) {
    std::optional<SymShape> d = staticDims(input.getType());
    if (!d)
      return error(op) << "input " << nameOf(input) << " of type " << input.getType()
                       << " has no static size; only static tensors can be coalesced";
    offsets.push_back(total);
    total += cast<RankedTensorType>(input.getType()).getNumElements();
    dims.push_back(std::move(*d));
  }
  auto fusedType = cast<RankedTensorType>(fused.getType());
  if (!fusedType.isDynamicDim(0))
    total = std::max(total, fusedType.getDimSize(0)); // room for Paddle's padding
  FailureOr<int32_t> bucket = defineResult(fused, {DimDesc::fixed(total)});
  if (failed(bucket))
    return failure();

  if (attrs.getBool("set_constant") && !attrs.getBool("copy_data")) {
    emit("fill", {}, {*bucket}, {AttrDesc::ofFloat("value", attrs.getFloat("constant"))});
    for (auto [i, output] : llvm::enumerate(coalesce.getOutput()))
      bind(output, sliceView(*bucket, offsets[i], dims[i], nameOf(output)));
    return success();
  }
  // Paddle leaves the Outputs undefined without copy_data or set_constant;
  // distc gives them the Inputs' values either way.
  bool bucketIsTemp = state.desc.buffers[*bucket].kind == BufferKind::Temp;
  for (auto [i, pair] : llvm::enumerate(llvm::zip(coalesce.getInput(), coalesce.getOutput()))) {
    auto [input, output] = pair;
    int32_t in = bufferOf(input);
    int32_t root = storageRootOf(in);
    artifact::BufferDesc &storage = state.desc.buffers[root];
    std::optional<DimDesc> count = product(storage.dims);
    bool placed = bucketIsTemp && root != *bucket &&
                  storage.dtype == state.desc.buffers[*bucket].dtype && count &&
                  count->isStatic() &&
                  count->value == cast<RankedTensorType>(input.getType()).getNumElements() &&
                  storageFreeAfter(root, op);
    if (placed) {
      // The kernels that computed the gradient wrote it into the bucket.
      storage.kind = BufferKind::View;
      storage.aliasOf = *bucket;
      storage.offset = offsets[i];
      if (auto moved = valuesByRoot.find(root); moved != valuesByRoot.end()) {
        SmallVector<Value, 2> values = std::move(moved->second);
        valuesByRoot.erase(moved);
        llvm::append_range(valuesByRoot[*bucket], values);
      }
      bind(output, view(in, dims[i]));
      continue;
    }
    int32_t slice = sliceView(*bucket, offsets[i], dims[i], nameOf(output));
    emit("copy", {in}, {slice});
    bind(output, slice);
  }
  return success();
}

LogicalResult ProgramLowering::lowerFusionGroup(Operation *op) {
  auto group = cast<pd::FusionGroupOp>(op);
  // The loop's dims, with their symbols, are those of an input of the
  // results' shape (the verifier ensures there is one); the other inputs
  // are trailing parts of it, which the kernel broadcasts.
  auto shape = cast<RankedTensorType>(group.getOuts().front().getType());
  Value full;
  std::vector<int32_t> inputs;
  for (Value input : group.getInputs()) {
    if (!full && cast<RankedTensorType>(input.getType()).getShape() == shape.getShape())
      full = input;
    inputs.push_back(bufferOf(input));
  }
  SymShape dims = dimsOf(full);
  for (Value input : group.getInputs()) {
    SymShape inputDims = dimsOf(input);
    // Equal static types with unknown dims: the same symbols at run time,
    // as the element-wise ops the group replaced required.
    if (inputDims.size() == dims.size())
      for (size_t d = 0; d < dims.size(); ++d)
        if (cast<RankedTensorType>(input.getType()).getDimSize(d) == shape.getDimSize(d))
          unify(inputDims[d], dims[d]);
  }
  std::vector<int32_t> outputs;
  for (auto [i, result] : llvm::enumerate(group.getOuts())) {
    // The first result may take over the full input's storage.
    FailureOr<int32_t> buffer =
        i == 0 ? defineElementwiseResult(result, full, dims) : defineResult(result, dims);
    if (failed(buffer))
      return failure();
    outputs.push_back(*buffer);
  }
  std::vector<int64_t> code(group.getCode().begin(), group.getCode().end());
  std::vector<double> imms(group.getImms().begin(), group.getImms().end());
  std::vector<int64_t> registers(group.getOutputs().begin(), group.getOutputs().end());
  emitLoop(std::move(inputs), std::move(outputs), std::move(code), std::move(imms),
           std::move(registers));
  return success();
}

void ProgramLowering::emitLoop(std::vector<int32_t> inputs, std::vector<int32_t> outputs,
                               std::vector<int64_t> code, std::vector<double> imms,
                               std::vector<int64_t> registers) {
  emit("fused_elementwise", std::move(inputs), std::move(outputs),
       {AttrDesc::ofInts("code", std::move(code)), AttrDesc::ofFloats("imms", std::move(imms)),
        AttrDesc::ofInts("outputs", std::move(registers))});
}

LogicalResult ProgramLowering::lowerFusedElemwiseActivation(Operation *op) {
  auto fused = cast<pd::FusedElemwiseAddActivationOp>(op);
  std::vector<std::string> functors = pd::OpAttributes(op).getStrings("functor_list");
  const bool addFirst = functors[0] == "elementwise_add"; // X + act(Y)
  const int64_t act = int64_t(artifact::findLoopOp(functors[addFirst ? 1 : 0])->op);
  const int64_t add = int64_t(artifact::LoopOp::Add);
  Value x = fused.getX(), y = fused.getY();
  SymShape dims = dimsOf(x), yDims = dimsOf(y);
  // The loop broadcasts Y over X's leading dims: Paddle's axis must align
  // it at the end.
  int64_t axis = pd::OpAttributes(op).getInt("axis");
  if (yDims.size() < dims.size() && axis != -1 && axis != int64_t(dims.size() - yDims.size()))
    return error(op) << "Y " << describe(yDims) << " is aligned at axis " << axis << " of X "
                     << describe(dims) << "; only a trailing part of X broadcasts";
  for (size_t i = 0; i < yDims.size(); ++i)
    unify(yDims[yDims.size() - 1 - i], dims[dims.size() - 1 - i]);
  // Registers: x 0, y 1; then the inner result 2 (IntermediateOut) and Out 3.
  std::vector<int64_t> code = addFirst ? std::vector<int64_t>{act, 1, -1, -1, add, 0, 2, -1}
                                       : std::vector<int64_t>{add, 0, 1, -1, act, 2, -1, -1};
  FailureOr<int32_t> out = defineElementwiseResult(fused.getOut(), x, dims);
  if (failed(out))
    return failure();
  std::vector<int32_t> outputs = {*out};
  std::vector<int64_t> registers = {3};
  if (isNeeded(fused.getIntermediateOut())) {
    FailureOr<int32_t> inter = defineResult(fused.getIntermediateOut(), addFirst ? yDims : dims);
    if (failed(inter))
      return failure();
    outputs.push_back(*inter);
    registers.push_back(2);
  }
  emitLoop({bufferOf(x), bufferOf(y)}, std::move(outputs), std::move(code), {},
           std::move(registers));
  return success();
}

/// The GEMM shape of fused_gemm_epilogue(_grad) `op`: X's rows, its
/// contraction size and Y's columns, or failure (reported).
struct GemmDims {
  DimDesc m, k, n;
};
static FailureOr<GemmDims> gemmDimsOf(ProgramLowering &l, Operation *op, Value x, Value y) {
  pd::OpAttributes attrs(op);
  SymShape xd = l.dimsOf(x), yd = l.dimsOf(y);
  bool transX = attrs.getBool("trans_x"), transY = attrs.getBool("trans_y");
  std::optional<DimDesc> rows = transX ? std::optional<DimDesc>(xd[1])
                                       : product(SymShape(xd.begin(), xd.end() - 1));
  if (!rows) {
    l.error(op) << "cannot flatten the rows of X " << l.describe(xd)
                << ": more than one unknown dim";
    return failure();
  }
  DimDesc k = transX ? xd[0] : xd.back();
  l.unify(k, transY ? yd[1] : yd[0]);
  return GemmDims{*rows, k, transY ? yd[0] : yd[1]};
}

LogicalResult ProgramLowering::lowerFusedGemmEpilogue(Operation *op) {
  auto gemm = cast<pd::FusedGemmEpilogueOp>(op);
  pd::OpAttributes attrs(op);
  FailureOr<GemmDims> g = gemmDimsOf(*this, op, gemm.getX(), gemm.getY());
  if (failed(g))
    return failure();
  SymShape outDims = dimsOf(gemm.getX());
  if (attrs.getBool("trans_x"))
    outDims = {g->m};
  outDims.back() = g->n;
  FailureOr<int32_t> out = defineResult(gemm.getOut(), outDims);
  if (failed(out))
    return failure();
  int32_t reserve = -1;
  if (isNeeded(gemm.getReserveSpace())) {
    FailureOr<int32_t> pre = defineResult(gemm.getReserveSpace(), outDims);
    if (failed(pre))
      return failure();
    reserve = view(*pre, {g->m, g->n});
  }
  SymShape xView = attrs.getBool("trans_x") ? SymShape{g->k, g->m} : SymShape{g->m, g->k};
  emit("gemm_epilogue",
       {view(bufferOf(gemm.getX()), xView), bufferOf(gemm.getY()), bufferOf(gemm.getBias())},
       {view(*out, {g->m, g->n}), reserve},
       {AttrDesc::ofString("activation", attrs.getString("activation")),
        AttrDesc::ofInt("trans_x", attrs.getBool("trans_x")),
        AttrDesc::ofInt("trans_y", attrs.getBool("trans_y"))});
  return success();
}

LogicalResult ProgramLowering::lowerFusedGemmEpilogueGrad(Operation *op) {
  auto grad = cast<pd::FusedGemmEpilogueGradOp>(op);
  pd::OpAttributes attrs(op);
  FailureOr<GemmDims> g = gemmDimsOf(*this, op, grad.getX(), grad.getY());
  if (failed(g))
    return failure();
  SymShape xView = attrs.getBool("trans_x") ? SymShape{g->k, g->m} : SymShape{g->m, g->k};
  auto defineIfNeeded = [&](Value result, SymShape dims, SymShape asView) -> FailureOr<int32_t> {
    if (!isNeeded(result))
      return -1;
    FailureOr<int32_t> b = defineResult(result, std::move(dims));
    if (failed(b))
      return failure();
    return view(*b, std::move(asView));
  };
  FailureOr<int32_t> dx = defineIfNeeded(grad.getDX(), dimsOf(grad.getX()), xView);
  FailureOr<int32_t> dy = defineIfNeeded(grad.getDY(), dimsOf(grad.getY()), dimsOf(grad.getY()));
  FailureOr<int32_t> dbias = defineIfNeeded(grad.getDBias(), {g->n}, {g->n});
  if (failed(dx) || failed(dy) || failed(dbias))
    return failure();
  // The kernels' activation names: relu_grad -> relu, ...
  std::string activation = attrs.getString("activation_grad");
  if (StringRef(activation).ends_with("_grad"))
    activation.resize(activation.size() - 5);
  int32_t actInput = grad.getReserveSpace() ? view(bufferOf(grad.getReserveSpace()), {g->m, g->n})
                                            : -1;
  // The activation's gradient goes to a planned temporary, which the
  // bias gradient and both GEMMs read.
  int32_t dout = view(bufferOf(grad.getDOut()), {g->m, g->n});
  int32_t dact =
      activation == "none" ? -1 : temp(nameOf(grad.getDOut()) + ".act_grad", dout, {g->m, g->n});
  emit("gemm_epilogue_grad",
       {dout, view(bufferOf(grad.getX()), xView), bufferOf(grad.getY()), actInput},
       {*dx, *dy, *dbias, dact},
       {AttrDesc::ofString("activation", activation),
        AttrDesc::ofInt("trans_x", attrs.getBool("trans_x")),
        AttrDesc::ofInt("trans_y", attrs.getBool("trans_y"))});
  return success();
}

LogicalResult ProgramLowering::lowerFusedSlices(Operation *op) {
  auto slices = cast<pd::FusedSlicesOp>(op);
  int32_t base = bufferOf(slices.getFused());
  for (auto [slice, offset] : llvm::zip(slices.getSlices(), slices.getOffsets())) {
    std::optional<SymShape> dims = staticDims(slice.getType());
    if (!dims)
      return error(op) << "slice " << nameOf(slice) << " has no static type";
    bind(slice, sliceView(base, offset, std::move(*dims), nameOf(slice)));
  }
  return success();
}

} // namespace distc::target
