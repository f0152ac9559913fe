//===- LowerMath.cpp - arithmetic, matmul and reduction lowering ----------===//
//
// Paddle's broadcasting (`axis`), mul's flattening (`x_num_col_dims`) and
// matmul_v2's 1-D promotion become views, so the kernels only see NumPy
// semantics over equal-rank buffers.
//
//===----------------------------------------------------------------------===//

#include "ProgramLowering.h"

#include "distc/Dialect/Pd/PdDialect.h"

#include <algorithm>

using namespace mlir;

namespace distc::target {

/// Pads `dims` with size-1 dims: `before` in front, up to `rank` in total.
static SymShape padded(const SymShape &dims, size_t before, size_t rank) {
  SymShape out(before, DimDesc::fixed(1));
  out.insert(out.end(), dims.begin(), dims.end());
  out.resize(std::max(rank, out.size()), DimDesc::fixed(1));
  return out;
}

/// The broadcast of two aligned dims, unifying two unknown dims that must
/// be equal. nullopt when they cannot broadcast.
static std::optional<DimDesc> broadcastDim(ProgramLowering &pl, const DimDesc &a,
                                           const DimDesc &b) {
  if (isOne(a))
    return b;
  if (isOne(b))
    return a;
  if (a.isStatic() && b.isStatic())
    return a.value == b.value ? std::optional(a) : std::nullopt;
  if (!a.isStatic() && !b.isStatic()) {
    pl.unify(a, b);
    return a;
  }
  // One static, one unknown: the static size is what the runtime must see.
  return a.isStatic() ? a : b;
}

LogicalResult ProgramLowering::lowerElementwise(Operation *op, StringRef binaryOp) {
  Value x = op->getOperand(0), y = op->getOperand(1);
  const SymShape &xd = dimsOf(x), &yd = dimsOf(y);
  int64_t axis = pd::OpAttributes(op).getInt("axis");
  bool xBigger = xd.size() >= yd.size();
  const SymShape &big = xBigger ? xd : yd, &small = xBigger ? yd : xd;
  size_t rank = big.size();
  int64_t start = axis == -1 ? static_cast<int64_t>(rank - small.size()) : axis;
  if (start < 0 || start + small.size() > rank)
    return error(op) << "axis " << axis << " cannot align " << describe(small) << " into "
                     << describe(big);
  SymShape smallAligned = padded(small, start, rank);
  SymShape xv = xBigger ? big : smallAligned, yv = xBigger ? smallAligned : big;
  SymShape out;
  for (size_t i = 0; i < rank; ++i) {
    auto d = broadcastDim(*this, xv[i], yv[i]);
    if (!d)
      return error(op) << "X " << describe(xd) << " and Y " << describe(yd)
                       << " do not broadcast (axis " << axis << ")";
    out.push_back(*d);
  }
  FailureOr<int32_t> result = defineElementwiseResult(op->getResult(0), x, out);
  if (failed(result))
    return failure();
  emit("binary", {view(bufferOf(x), xv), view(bufferOf(y), yv)}, {*result},
       {AttrDesc::ofString("op", binaryOp.str())});
  return success();
}

LogicalResult ProgramLowering::lowerUnary(Operation *op, StringRef unaryOp) {
  Value x = op->getOperand(0);
  FailureOr<int32_t> result = defineElementwiseResult(op->getResult(0), x, dimsOf(x));
  if (failed(result))
    return failure();
  emit("unary", {bufferOf(x)}, {*result}, {AttrDesc::ofString("op", unaryOp.str())});
  return success();
}

LogicalResult ProgramLowering::lowerElementwiseKernel(Operation *op, StringRef kernel,
                                                      ArrayRef<StringRef> floatAttrs) {
  if (!isNeeded(op->getResult(0)))
    return success();
  std::optional<DimDesc> count = product(dimsOf(op->getOperand(0)));
  std::vector<int32_t> inputs;
  for (Value operand : op->getOperands()) {
    std::optional<DimDesc> operandCount = product(dimsOf(operand));
    if (count && operandCount && !sameDim(*count, *operandCount))
      return error(op) << "operand " << nameOf(operand) << " has shape "
                       << describe(dimsOf(operand)) << " but the kernel '" << kernel
                       << "' maps it element by element onto "
                       << describe(dimsOf(op->getOperand(0)));
    inputs.push_back(bufferOf(operand));
  }
  FailureOr<int32_t> result = defineResult(op->getResult(0), dimsOf(op->getOperand(0)));
  if (failed(result))
    return failure();
  pd::OpAttributes attrs(op);
  std::vector<AttrDesc> kernelAttrs;
  for (StringRef name : floatAttrs)
    kernelAttrs.push_back(AttrDesc::ofFloat(name.str(), attrs.getFloat(name)));
  emit(kernel, std::move(inputs), {*result}, std::move(kernelAttrs));
  return success();
}

LogicalResult ProgramLowering::lowerScale(Operation *op) {
  Value x = op->getOperand(0);
  if (isRowSparse(x) && pd::isSelectedRows(op->getResult(0).getType()))
    return lowerSparseScale(op);
  if (failed(densifyOperands(op)))
    return failure();
  pd::OpAttributes attrs(op);
  // In place when nothing reads x afterwards (a gradient scaled for its
  // all-reduce, a fused bucket).
  FailureOr<int32_t> result = defineInPlace(op->getResult(0), x, dimsOf(x));
  if (failed(result))
    return failure();
  emit("scale", {bufferOf(x)}, {*result},
       {AttrDesc::ofFloat("scale", attrs.getFloat("scale")),
        AttrDesc::ofFloat("bias", attrs.getFloat("bias")),
        AttrDesc::ofInt("bias_after_scale", attrs.getBool("bias_after_scale"))});
  return success();
}

LogicalResult ProgramLowering::lowerCast(Operation *op) {
  Value x = op->getOperand(0);
  FailureOr<int32_t> result = defineResult(op->getResult(0), dimsOf(x));
  if (failed(result))
    return failure();
  bool same = state.desc.buffers[*result].dtype == state.desc.buffers[bufferOf(x)].dtype;
  emit(same ? "copy" : "cast", {bufferOf(x)}, {*result});
  return success();
}

LogicalResult ProgramLowering::lowerAssign(Operation *op) {
  Value x = op->getOperand(0);
  FailureOr<int32_t> result = defineResult(op->getResult(0), dimsOf(x));
  if (failed(result))
    return failure();
  emit("copy", {bufferOf(x)}, {*result});
  return success();
}

LogicalResult ProgramLowering::lowerMul(Operation *op) {
  Value x = op->getOperand(0), y = op->getOperand(1);
  const SymShape &xd = dimsOf(x), &yd = dimsOf(y);
  pd::OpAttributes attrs(op);
  int64_t xn = attrs.getInt("x_num_col_dims"), yn = attrs.getInt("y_num_col_dims");
  if (xn < 1 || xn >= static_cast<int64_t>(xd.size()) || yn < 1 ||
      yn >= static_cast<int64_t>(yd.size()))
    return error(op) << "x_num_col_dims " << xn << " / y_num_col_dims " << yn
                     << " out of range for X " << describe(xd) << " and Y " << describe(yd);
  SymShape xRows(xd.begin(), xd.begin() + xn), xCols(xd.begin() + xn, xd.end());
  SymShape yRows(yd.begin(), yd.begin() + yn), yCols(yd.begin() + yn, yd.end());
  auto m = product(xRows), k = product(xCols), k2 = product(yRows), n = product(yCols);
  if (!m || !k || !k2 || !n)
    return error(op) << "cannot flatten X " << describe(xd) << " or Y " << describe(yd)
                     << ": more than one unknown dim in a flattened group";
  if (k->isStatic() && k2->isStatic() && k->value != k2->value)
    return error(op) << "X " << describe(xd) << " flattens to " << describe({*m, *k})
                     << " but Y " << describe(yd) << " to " << describe({*k2, *n});
  unify(*k, *k2);
  SymShape out = xRows;
  out.insert(out.end(), yCols.begin(), yCols.end());
  FailureOr<int32_t> result = defineResult(op->getResult(0), out);
  if (failed(result))
    return failure();
  emit("matmul", {view(bufferOf(x), {*m, *k}), view(bufferOf(y), {*k2, *n})},
       {view(*result, {*m, *n})},
       {AttrDesc::ofInt("trans_a", 0), AttrDesc::ofInt("trans_b", 0)});
  return success();
}

LogicalResult ProgramLowering::lowerMatmul(Operation *op) {
  pd::OpAttributes attrs(op);
  return lowerMatmulAs(op, attrs.getBool("trans_x"), attrs.getBool("trans_y"));
}

LogicalResult ProgramLowering::lowerMatmulAs(Operation *op, bool transX, bool transY) {
  Value x = op->getOperand(0), y = op->getOperand(1);
  SymShape xd = dimsOf(x), yd = dimsOf(y);
  if (xd.empty() || yd.empty())
    return error(op) << "matmul_v2 needs operands of rank >= 1";
  bool xVector = xd.size() == 1, yVector = yd.size() == 1;
  // NumPy promotion: a 1-D X is a row, a 1-D Y a column; trans is moot.
  if (xVector) {
    xd.insert(xd.begin(), DimDesc::fixed(1));
    transX = false;
  }
  if (yVector) {
    yd.push_back(DimDesc::fixed(1));
    transY = false;
  }
  size_t rank = std::max(xd.size(), yd.size());
  xd = padded(xd, rank - xd.size(), rank);
  yd = padded(yd, rank - yd.size(), rank);
  DimDesc m = transX ? xd[rank - 1] : xd[rank - 2];
  DimDesc kx = transX ? xd[rank - 2] : xd[rank - 1];
  DimDesc ky = transY ? yd[rank - 1] : yd[rank - 2];
  DimDesc n = transY ? yd[rank - 2] : yd[rank - 1];
  if (kx.isStatic() && ky.isStatic() && kx.value != ky.value)
    return error(op) << "contraction sizes differ: X " << describe(dimsOf(x)) << " and Y "
                     << describe(dimsOf(y)) << " (trans_x " << transX << ", trans_y " << transY
                     << ")";
  unify(kx, ky);
  SymShape batch;
  for (size_t i = 0; i + 2 < rank; ++i) {
    auto d = broadcastDim(*this, xd[i], yd[i]);
    if (!d)
      return error(op) << "batch dims of X " << describe(dimsOf(x)) << " and Y "
                       << describe(dimsOf(y)) << " do not broadcast";
    batch.push_back(*d);
  }
  SymShape full = batch;
  full.push_back(m);
  full.push_back(n);
  SymShape out = batch;
  if (!xVector)
    out.push_back(m);
  if (!yVector)
    out.push_back(n);
  FailureOr<int32_t> result = defineResult(op->getResult(0), out);
  if (failed(result))
    return failure();
  emit("matmul", {view(bufferOf(x), xd), view(bufferOf(y), yd)}, {view(*result, full)},
       {AttrDesc::ofInt("trans_a", transX), AttrDesc::ofInt("trans_b", transY)});
  return success();
}

LogicalResult ProgramLowering::lowerSoftmax(Operation *op) {
  Value x = op->getOperand(0);
  int64_t rank = static_cast<int64_t>(dimsOf(x).size());
  auto axis = normalizeAxis(pd::OpAttributes(op).getInt("axis"), rank);
  if (!axis)
    return error(op) << "axis out of range for rank " << rank;
  FailureOr<int32_t> result = defineResult(op->getResult(0), dimsOf(x));
  if (failed(result))
    return failure();
  emit("softmax", {bufferOf(x)}, {*result}, {AttrDesc::ofInt("axis", *axis)});
  return success();
}

/// Emits `reduce` of x over `axes` into `result`, through a buffer of x's
/// dtype and a cast when the result's dtype differs (reduce_sum out_dtype).
static LogicalResult emitReduce(ProgramLowering &pl, Operation *op, StringRef reduceOp,
                                std::vector<int64_t> axes, bool keepDim) {
  Value x = op->getOperand(0);
  const SymShape &xd = pl.dimsOf(x);
  SymShape out;
  for (size_t i = 0; i < xd.size(); ++i) {
    bool reduced = std::find(axes.begin(), axes.end(), static_cast<int64_t>(i)) != axes.end();
    if (!reduced)
      out.push_back(xd[i]);
    else if (keepDim)
      out.push_back(DimDesc::fixed(1));
  }
  FailureOr<int32_t> result = pl.defineResult(op->getResult(0), out);
  if (failed(result))
    return failure();
  std::vector<AttrDesc> attrs = {AttrDesc::ofString("op", reduceOp.str()),
                                 AttrDesc::ofInts("axes", axes)};
  int32_t xBuffer = pl.bufferOf(x);
  auto &buffers = pl.artifactBuffers();
  if (buffers[*result].dtype == buffers[xBuffer].dtype) {
    pl.emit("reduce", {xBuffer}, {*result}, attrs);
    return success();
  }
  int32_t partial = pl.addBuffer(buffers[*result].name + ".acc", buffers[xBuffer].dtype,
                                 buffers[*result].dims, BufferKind::Temp);
  pl.emit("reduce", {xBuffer}, {partial}, attrs);
  pl.emit("cast", {partial}, {*result});
  return success();
}

LogicalResult ProgramLowering::lowerReduce(Operation *op, StringRef reduceOp) {
  pd::OpAttributes attrs(op);
  int64_t rank = static_cast<int64_t>(dimsOf(op->getOperand(0)).size());
  std::vector<int64_t> axes;
  if (!attrs.getBool("reduce_all"))
    for (int64_t d : attrs.getInts("dim")) {
      auto axis = normalizeAxis(d, rank);
      if (!axis)
        return error(op) << "reduce dim " << d << " out of range for rank " << rank;
      axes.push_back(*axis);
    }
  if (axes.empty()) // reduce_all, or no dims: every axis
    for (int64_t i = 0; i < rank; ++i)
      axes.push_back(i);
  std::sort(axes.begin(), axes.end());
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  return emitReduce(*this, op, reduceOp, axes, attrs.getBool("keep_dim"));
}

LogicalResult ProgramLowering::lowerMean(Operation *op) {
  int64_t rank = static_cast<int64_t>(dimsOf(op->getOperand(0)).size());
  std::vector<int64_t> axes;
  for (int64_t i = 0; i < rank; ++i)
    axes.push_back(i);
  return emitReduce(*this, op, "mean", axes, /*keepDim=*/false);
}

/// squared_l2_norm (global-norm clipping): sum of squares over every
/// element, as a `square` into a temporary and a full `reduce` sum.
LogicalResult ProgramLowering::lowerSquaredL2Norm(Operation *op) {
  Value x = op->getOperand(0);
  const SymShape &xd = dimsOf(x);
  std::vector<int64_t> axes;
  for (int64_t i = 0; i < static_cast<int64_t>(xd.size()); ++i)
    axes.push_back(i);
  FailureOr<int32_t> result = defineResult(op->getResult(0), {});
  if (failed(result))
    return failure();
  int32_t squares = temp(nameOf(op->getResult(0)) + ".squares", bufferOf(x), xd);
  emit("unary", {bufferOf(x)}, {squares}, {AttrDesc::ofString("op", "square")});
  emit("reduce", {squares}, {*result},
       {AttrDesc::ofString("op", "sum"), AttrDesc::ofInts("axes", axes)});
  return success();
}

} // namespace distc::target
