//===- LowerToArtifact.cpp - pd programs to kernel-call lists -------------===//
//
// Driver of the lowering: walks each mode program, binds SSA values to
// buffers, and handles the structural ops (feed, fetch, read_var,
// write_var). Op families live in LowerMath/LowerShape/LowerNn.cpp.
//
//===----------------------------------------------------------------------===//

#include "ProgramLowering.h"

#include "distc/Target/PlanArenas.h"

#include "distc/Dialect/Pd/OpCatalog.h"
#include "distc/Dialect/Pd/PdDialect.h"
#include "distc/Dialect/Pd/PdOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringMap.h"

#include <cstdlib>
#include <numeric>

using namespace mlir;

namespace distc::target {

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

FailureOr<artifact::DType> toArtifactDType(Type type) {
  using artifact::DType;
  if (type.isF32())
    return DType::Float32;
  if (type.isF64())
    return DType::Float64;
  if (type.isF16())
    return DType::Float16;
  if (type.isBF16())
    return DType::BFloat16;
  if (type.isInteger(1))
    return DType::Bool;
  if (type.isUnsignedInteger(8))
    return DType::UInt8;
  if (type.isInteger(8))
    return DType::Int8;
  if (type.isInteger(16))
    return DType::Int16;
  if (type.isInteger(32))
    return DType::Int32;
  if (type.isInteger(64))
    return DType::Int64;
  return failure();
}

std::optional<int64_t> normalizeAxis(int64_t axis, int64_t rank) {
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis >= std::max<int64_t>(rank, 1))
    return std::nullopt;
  return axis;
}

static StringRef opType(Operation *op) {
  StringRef name = op->getName().getStringRef();
  name.consume_front("pd.");
  return name;
}

//===----------------------------------------------------------------------===//
// ProgramLowering: buffers
//===----------------------------------------------------------------------===//

int32_t ProgramLowering::addBuffer(std::string name, artifact::DType dtype, SymShape dims,
                                   BufferKind kind, int32_t aliasOf) {
  artifact::BufferDesc buffer;
  buffer.name = std::move(name);
  buffer.dtype = dtype;
  for (DimDesc &d : dims)
    d = normalize(d);
  buffer.dims = std::move(dims);
  buffer.kind = kind;
  buffer.aliasOf = aliasOf;
  state.desc.buffers.push_back(std::move(buffer));
  return static_cast<int32_t>(state.desc.buffers.size() - 1);
}

int32_t ProgramLowering::stepCounter() {
  if (state.stepCounter < 0)
    state.stepCounter = addBuffer(kStepCounterName, artifact::DType::Int64, {DimDesc::fixed(1)},
                                  BufferKind::Persistent);
  return state.stepCounter;
}

int32_t ProgramLowering::view(int32_t buffer, SymShape dims) {
  const artifact::BufferDesc &source = state.desc.buffers[buffer];
  if (source.dims.size() == dims.size() &&
      std::equal(dims.begin(), dims.end(), source.dims.begin(), sameDim))
    return buffer;
  return addBuffer(source.name, source.dtype, std::move(dims), BufferKind::View, buffer);
}

std::string ProgramLowering::nameOf(Value value) const {
  if (Operation *def = value.getDefiningOp()) {
    if (auto names = def->getAttrOfType<ArrayAttr>(pd::kOutNamesAttr.data())) {
      unsigned index = cast<OpResult>(value).getResultNumber();
      if (index < names.size())
        if (auto name = dyn_cast<StringAttr>(names[index]); name && !name.getValue().empty())
          return name.getValue().str();
    }
    if (auto sym = def->getAttrOfType<FlatSymbolRefAttr>("var"))
      return sym.getValue().str();
  }
  return "tmp_" + std::to_string(state.desc.buffers.size());
}

void ProgramLowering::bind(Value value, int32_t buffer) {
  buffers[value] = buffer;
  valuesByRoot[storageRootOf(buffer)].push_back(value);
}

InFlightDiagnostic ProgramLowering::error(Operation *op) const {
  std::string label = "'" + opType(op).str() + "'";
  if (op->getNumResults() > 0)
    label += " (output " + nameOf(op->getResult(0)) + ")";
  InFlightDiagnostic diag = op->emitError();
  // An imported op's location already reads "op #N 'type' (output x)"; ops
  // the compiler made (gradients, optimizer updates) carry their forward
  // op's location and need their own label.
  auto named = dyn_cast<NameLoc>(op->getLoc());
  if (!named || !named.getName().getValue().ends_with(label))
    diag << label << ": ";
  return diag;
}

/// Returns the persistent buffer `result` may be computed into directly: its
/// only use writes a persistable variable of the same type, and the op reads
/// no persistable storage it could alias.
static std::optional<StringRef> writtenVariable(Value result) {
  if (!result.hasOneUse())
    return std::nullopt;
  Operation *user = *result.getUsers().begin();
  if (user->getName().getStringRef() != "pd.write_var")
    return std::nullopt;
  if (auto sym = user->getAttrOfType<FlatSymbolRefAttr>("var"))
    return sym.getValue();
  return std::nullopt;
}

FailureOr<int32_t> ProgramLowering::defineResult(Value result, SymShape dims,
                                                 bool elementwiseInPlace) {
  auto type = cast<RankedTensorType>(result.getType());
  Operation *op = result.getDefiningOp();
  if (static_cast<int64_t>(dims.size()) != type.getRank()) {
    // Scalars are 0-D in Paddle >= 2.5 and [1] before; any static type with
    // the element count the op computes is the same buffer.
    std::optional<DimDesc> count = product(dims);
    if (!type.hasStaticShape() || !count || !count->isStatic() ||
        count->value != type.getNumElements()) {
      error(op) << "lowered shape " << describe(dims) << " of " << nameOf(result)
                << " disagrees with its type " << type;
      return failure();
    }
    dims.assign(type.getRank(), DimDesc::fixed(1));
  }
  for (auto [i, d] : llvm::enumerate(dims)) {
    if (type.isDynamicDim(i))
      continue;
    if (d.isStatic() && d.value != type.getDimSize(i)) {
      error(op) << "dim " << i << " of " << nameOf(result) << " is " << d.value
                << " but its type says " << type;
      return failure();
    }
    // A size computed from a fed dim changes with every batch; a program
    // that declares it static (a fixed batch, 0, a typo) would fail on the
    // first batch of another size, so it is refused here, not at run time.
    if (!d.isStatic()) {
      error(op) << "dim " << i << " of " << nameOf(result) << " is declared "
                << type.getDimSize(i) << " but it is " << toString(d, state.desc.symbols)
                << ", which follows the fed batch; declare it -1";
      return failure();
    }
  }
  FailureOr<artifact::DType> dtype = toArtifactDType(type.getElementType());
  if (failed(dtype)) {
    error(op) << "element type " << type.getElementType() << " of " << nameOf(result)
              << " has no runtime dtype";
    return failure();
  }
  int32_t buffer = -1;
  if (auto var = writtenVariable(result)) {
    auto it = state.persistentBuffers.find(*var);
    bool readsIt = !elementwiseInPlace && it != state.persistentBuffers.end() &&
                   llvm::any_of(op->getOperands(), [&](Value v) {
                     return buffers.lookup(v) == it->second;
                   });
    if (it != state.persistentBuffers.end() && !readsIt &&
        state.desc.buffers[it->second].dtype == *dtype &&
        state.desc.buffers[it->second].dims.size() == dims.size() &&
        std::equal(dims.begin(), dims.end(), state.desc.buffers[it->second].dims.begin(), sameDim))
      buffer = it->second;
  }
  if (buffer < 0)
    buffer = addBuffer(nameOf(result), *dtype, std::move(dims), BufferKind::Temp);
  bind(result, buffer);
  return buffer;
}

FailureOr<int32_t> ProgramLowering::defineView(Value result, int32_t source, SymShape dims) {
  auto type = cast<RankedTensorType>(result.getType());
  if (static_cast<int64_t>(dims.size()) != type.getRank() && type.hasStaticShape()) {
    dims.clear(); // a 0-D result declared as [1], or the reverse
    for (int64_t d : type.getShape())
      dims.push_back(DimDesc::fixed(d));
  }
  for (auto [i, d] : llvm::enumerate(dims))
    if (i < static_cast<size_t>(type.getRank()) && !type.isDynamicDim(i))
      d = DimDesc::fixed(type.getDimSize(i));
  int32_t buffer = view(source, std::move(dims));
  bind(result, buffer);
  return buffer;
}

void ProgramLowering::emit(StringRef kernel, std::vector<int32_t> inputs,
                           std::vector<int32_t> outputs, std::vector<AttrDesc> attrs) {
  artifact::KernelCallDesc call;
  call.kernel = kernel.str();
  call.inputs = std::move(inputs);
  call.outputs = std::move(outputs);
  call.attrs = std::move(attrs);
  call.origin = origin;
  call.rank = ownerRank;
  program.calls.push_back(std::move(call));
}

//===----------------------------------------------------------------------===//
// ProgramLowering: structural ops
//===----------------------------------------------------------------------===//

LogicalResult ProgramLowering::lowerFeed(Operation *op) {
  Value result = op->getResult(0);
  auto type = cast<RankedTensorType>(result.getType());
  std::string name = nameOf(result);
  SymShape dims;
  for (int64_t i = 0; i < type.getRank(); ++i) {
    if (!type.isDynamicDim(i)) {
      dims.push_back(DimDesc::fixed(type.getDimSize(i)));
      continue;
    }
    state.desc.symbols.push_back(name + ".dim" + std::to_string(i));
    state.symbolParent.push_back(static_cast<int32_t>(state.symbolParent.size()));
    dims.push_back(DimDesc::symbolic(static_cast<int32_t>(state.desc.symbols.size() - 1)));
  }
  FailureOr<artifact::DType> dtype = toArtifactDType(type.getElementType());
  if (failed(dtype))
    return error(op) << "feed element type " << type.getElementType() << " is not supported";
  int32_t buffer = addBuffer(name, *dtype, std::move(dims), BufferKind::Feed);
  bind(result, buffer);
  program.feeds.push_back({name, buffer});
  return success();
}

LogicalResult ProgramLowering::lowerFetch(Operation *op) {
  Value value = op->getOperand(0);
  auto name = op->getAttrOfType<StringAttr>(pd::kFetchNameAttr);
  program.fetches.push_back({name ? name.str() : nameOf(value), bufferOf(value)});
  return success();
}

static FlatSymbolRefAttr variableRef(Operation *op) {
  return op->getAttrOfType<FlatSymbolRefAttr>("var");
}

LogicalResult ProgramLowering::lowerReadVar(Operation *op) {
  FlatSymbolRefAttr ref = variableRef(op);
  auto it = ref ? state.persistentBuffers.find(ref.getValue()) : state.persistentBuffers.end();
  if (it == state.persistentBuffers.end())
    return op->emitError("read of an undeclared persistable variable");
  // A row-sparse variable (a server's received sparse gradient block): its
  // values and the row ids beside them.
  if (pd::isSelectedRows(op->getResult(0).getType())) {
    auto rows = state.persistentBuffers.find((ref.getValue() + kRowIdsSuffix).str());
    if (rows == state.persistentBuffers.end())
      return op->emitError("row-sparse variable without its row ids");
    bindRows(op->getResult(0), {{rows->second, it->second, /*merged=*/false}});
    return success();
  }
  bind(op->getResult(0), it->second);
  return success();
}

LogicalResult ProgramLowering::lowerWriteVar(Operation *op) {
  FlatSymbolRefAttr ref = variableRef(op);
  auto it = ref ? state.persistentBuffers.find(ref.getValue()) : state.persistentBuffers.end();
  if (it == state.persistentBuffers.end())
    return op->emitError("write of an undeclared persistable variable");
  int32_t source = bufferOf(op->getOperand(0));
  if (source != it->second)
    emit("copy", {source}, {it->second});
  return success();
}

/// Collectives become kernels over the session's communicator of their
/// ring. c_allreduce_* and c_reduce_sum start the collective and let the
/// computation go on (the gradients' all-reduces overlap the backward
/// pass); c_sync_comm_stream waits for them (c_wait) and c_sync_calc_stream,
/// which orders CUDA streams, is a view. A reshard all-reduce
/// (`use_calc_stream`) is waited for at once: the next op reads it. The
/// reshard collectives of partitioned programs (c_allgather,
/// c_reducescatter, alltoall, c_split, c_root_only) complete before the
/// next call.
LogicalResult ProgramLowering::lowerCollective(Operation *op) {
  StringRef type = opType(op);
  Value x = op->getOperand(0);
  if (type == "c_sync_calc_stream")
    return failed(defineView(op->getResult(0), bufferOf(x), dimsOf(x))) ? failure() : success();
  if (type == "c_sync_comm_stream") {
    // The collectives started before complete here (the runtime overlaps
    // them with the computation in between); the result is x itself.
    FailureOr<int32_t> view = defineView(op->getResult(0), bufferOf(x), dimsOf(x));
    if (failed(view))
      return failure();
    emit("c_wait", {bufferOf(x)}, {*view});
    return success();
  }
  FailureOr<int64_t> ring = ringOf(op);
  if (failed(ring))
    return failure();
  pd::OpAttributes attrs(op);
  AttrDesc ringAttr = AttrDesc::ofInt("ring_id", *ring);
  const int64_t n = state.ringSizes[*ring];
  const int64_t rank = static_cast<int64_t>(dimsOf(x).size());
  auto axisOf = [&](StringRef name) -> FailureOr<int64_t> {
    std::optional<int64_t> axis = normalizeAxis(attrs.getInt(name), rank);
    if (!axis)
      return error(op) << "attribute '" << name << "' = " << attrs.getInt(name)
                       << " is not an axis of a rank-" << rank << " tensor";
    return *axis;
  };
  // X's dims with one axis multiplied or divided by the ring's group size.
  auto resized = [&](int64_t axis, bool grow) {
    SymShape dims = dimsOf(x);
    DimDesc &d = dims[axis];
    if (d.isStatic()) {
      d.value = grow ? d.value * n : d.value / n;
    } else {
      (grow ? d.value : d.div) *= n;
      int64_t g = std::gcd(d.value, d.div);
      d.value /= g;
      d.div /= g;
    }
    return dims;
  };

  if (type.starts_with("c_allreduce_") || type == "c_reduce_sum") {
    std::string reduction = type == "c_reduce_sum" ? "sum" : type.drop_front(12).str();
    // In place when nothing reads the input afterwards (a reduce leaves the
    // other ranks' buffers as they were).
    FailureOr<int32_t> out = defineInPlace(op->getResult(0), x, dimsOf(x));
    if (failed(out))
      return failure();
    std::vector<AttrDesc> callAttrs = {AttrDesc::ofString("op", reduction)};
    if (*ring != 0)
      callAttrs.push_back(ringAttr);
    if (type == "c_reduce_sum") {
      callAttrs.push_back(AttrDesc::ofInt("root", attrs.getInt("root_id")));
      emit("c_reduce", {bufferOf(x)}, {*out}, callAttrs);
      return success();
    }
    emit("c_allreduce", {bufferOf(x)}, {*out}, callAttrs);
    if (attrs.getBool("use_calc_stream"))
      emit("c_wait", {*out}, {*out});
    return success();
  }
  if (type == "c_broadcast") {
    FailureOr<int32_t> out = defineResult(op->getResult(0), dimsOf(x));
    if (failed(out))
      return failure();
    std::vector<AttrDesc> callAttrs = {AttrDesc::ofInt("root", attrs.getInt("root"))};
    if (*ring != 0)
      callAttrs.push_back(ringAttr);
    emit("c_broadcast", {bufferOf(x)}, {*out}, callAttrs);
    return success();
  }
  if (type == "c_root_only") {
    FailureOr<int32_t> out = defineResult(op->getResult(0), dimsOf(x));
    if (failed(out))
      return failure();
    emit("c_root_only", {bufferOf(x)}, {*out},
         {ringAttr, AttrDesc::ofInt("root", attrs.getInt("root"))});
    return success();
  }
  if (type == "alltoall") {
    FailureOr<int64_t> split = axisOf("split_axis"), concat = axisOf("concat_axis");
    if (failed(split) || failed(concat))
      return failure();
    // The split axis shrinks and the concatenated one grows by the group
    // size (the same axis keeps its size).
    SymShape dims = dimsOf(x);
    if (*split != *concat) {
      dims[*split] = resized(*split, /*grow=*/false)[*split];
      dims[*concat] = resized(*concat, /*grow=*/true)[*concat];
    }
    FailureOr<int32_t> out = defineResult(op->getResult(0), dims);
    if (failed(out))
      return failure();
    emit("c_alltoall", {bufferOf(x)}, {*out},
         {ringAttr, AttrDesc::ofInt("split_axis", *split), AttrDesc::ofInt("concat_axis", *concat)});
    return success();
  }
  const bool grow = type == "c_allgather";
  if (!grow && type != "c_reducescatter" && type != "c_split")
    return error(op) << "no lowering for collective '" << type << "'";
  FailureOr<int64_t> axis = axisOf("axis");
  if (failed(axis))
    return failure();
  FailureOr<int32_t> out = defineResult(op->getResult(0), resized(*axis, grow));
  if (failed(out))
    return failure();
  std::vector<AttrDesc> callAttrs = {ringAttr, AttrDesc::ofInt("axis", *axis)};
  if (type == "c_reducescatter")
    callAttrs.push_back(AttrDesc::ofString("op", "sum"));
  emit(grow ? "c_allgather" : type == "c_split" ? "c_split" : "c_reducescatter", {bufferOf(x)},
       {*out}, callAttrs);
  return success();
}

FailureOr<int64_t> ProgramLowering::ringOf(Operation *op) {
  pd::OpAttributes attrs(op);
  int64_t ring = attrs.getInt("ring_id");
  const int64_t rings = static_cast<int64_t>(state.ringSizes.size());
  if (ring < 0 || ring >= rings)
    return error(op) << "ring_id " << ring << " is not a ring of this program: "
                     << (rings == 1 ? std::string("ring 0 (every rank) is its only ring")
                                    : "rings 0 (every rank) to " + std::to_string(rings - 1) +
                                          " (the axes of its mesh) are");
  if (ring > 0 && attrs.isGiven("nranks") && attrs.getInt("nranks") != state.ringSizes[ring])
    return error(op) << "nranks " << attrs.getInt("nranks") << " does not match ring " << ring
                     << ", whose groups have " << state.ringSizes[ring] << " ranks";
  return ring;
}

/// The communicator setup. On the CPU runtime the rendezvous (dist-run, or
/// comm::connect in a program of one's own) has formed the communicator
/// before any program runs, binding each process's rank and its peers, so
/// c_gen_nccl_id has nothing to do: its id is bound to no buffer (only
/// c_comm_init may read it, and does not). c_comm_init becomes `c_comm_check`, which
/// fails when the session's communicator does not have `nranks` ranks; the
/// rank and endpoints a Paddle program names are the launcher's to bind
/// (the artifact is one program for every rank).
LogicalResult ProgramLowering::lowerCommunicatorSetup(Operation *op) {
  pd::OpAttributes attrs(op);
  if (attrs.getInt("ring_id") != 0)
    return error(op) << "communicator setup of ring " << attrs.getInt("ring_id")
                     << ": the rings of a mesh come with the communicator of ring 0 (every rank); "
                        "only its setup is lowered";
  if (opType(op) == "c_gen_nccl_id") {
    for (Operation *user : op->getResult(0).getUsers())
      if (user->getName().getStringRef() != "pd.c_comm_init")
        return error(op) << "the communicator id is only meaningful to c_comm_init, not to '"
                         << opType(user) << "'";
    communicatorIds.insert(op->getResult(0));
    return success();
  }
  emit("c_comm_check", {}, {}, {AttrDesc::ofInt("nranks", attrs.getInt("nranks"))});
  return success();
}

//===----------------------------------------------------------------------===//
// ProgramLowering: dispatch
//===----------------------------------------------------------------------===//

using LowerFn = LogicalResult (*)(ProgramLowering &, Operation *);

/// The lowering op `type` declares in PdOps.td (`lowering`); null for an
/// op without one.
static LowerFn lookupLowering(StringRef type) {
  static const llvm::StringMap<LowerFn> lowerings = [] {
    llvm::StringMap<LowerFn> map;
    for (auto [type, lower] : std::initializer_list<std::pair<StringRef, LowerFn>>{
#include "distc/Dialect/Pd/PdLowerings.inc"
         })
      map[type] = lower;
    return map;
  }();
  return lowerings.lookup(type);
}

LogicalResult ProgramLowering::lowerOp(Operation *op) {
  StringRef type = opType(op);
  origin = type.str();
  if (op->getNumResults() > 0)
    origin += " -> " + nameOf(op->getResult(0));
  // The Reduce strategy's owner-only updates (distc-data-parallel).
  auto owner = op->getAttrOfType<IntegerAttr>("owner_rank");
  ownerRank = owner ? static_cast<int32_t>(owner.getInt()) : -1;

  LowerFn lowerFn = lookupLowering(type);
  if (!lowerFn)
    return error(op) << "no lowering to runtime kernels for this op";
  for (Value operand : op->getOperands())
    if (!buffers.count(operand) && !communicatorIds.contains(operand) && !isRowSparse(operand))
      return error(op) << "operand defined outside the program";
  if (!takesRowSparse(op) && failed(densifyOperands(op)))
    return failure();
  return lowerFn(*this, op);
}

LogicalResult ProgramLowering::lowerBlock(Block &block) {
  for (Operation &op : block)
    if (failed(lowerOp(&op)))
      return failure();
  return success();
}

LogicalResult ProgramLowering::lower(Operation *pdProgram) {
  for (Region &region : pdProgram->getRegions())
    for (Block &block : region)
      for (Operation &op : block)
        if (failed(lowerOp(&op)))
          return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// Entry point
//===----------------------------------------------------------------------===//

/// Rewrites every symbolic dim to its union-find representative and drops
/// the merged symbols, so feeds whose unknown dims ops force to be equal (the
/// batch dim of `x` and of `label`) share one symbol and the runtime checks
/// them against each other before running anything.
static void mergeEqualSymbols(ArtifactState &state) {
  artifact::ArtifactDesc &desc = state.desc;
  std::vector<int32_t> newIndex(desc.symbols.size(), -1);
  std::vector<std::string> symbols;
  for (size_t i = 0; i < desc.symbols.size(); ++i) {
    int32_t root = state.findSymbol(static_cast<int32_t>(i));
    if (newIndex[root] < 0) {
      newIndex[root] = static_cast<int32_t>(symbols.size());
      symbols.push_back(desc.symbols[root]);
    }
  }
  for (artifact::BufferDesc &buffer : desc.buffers)
    for (DimDesc &d : buffer.dims)
      if (!d.isStatic())
        d.sym = newIndex[state.findSymbol(d.sym)];
  desc.symbols = std::move(symbols);
}

int32_t ArtifactState::findSymbol(int32_t sym) {
  while (symbolParent[sym] != sym)
    sym = symbolParent[sym] = symbolParent[symbolParent[sym]];
  return sym;
}

void ArtifactState::unify(const DimDesc &a, const DimDesc &b) {
  if (a.isStatic() || b.isStatic() || a.value != b.value || a.div != b.div)
    return;
  int32_t ra = findSymbol(a.sym), rb = findSymbol(b.sym);
  if (ra != rb)
    symbolParent[std::max(ra, rb)] = std::min(ra, rb);
}

/// The world and the rings of `mesh` (ring 1 + a: mesh axis a), row-major
/// over the mesh's process ids.
static void addMeshRings(ArtifactState &state, const sharding::ProcessMesh &mesh) {
  state.desc.worldSize = static_cast<int32_t>(mesh.size());
  for (int64_t a = 0; a < mesh.rank(); ++a) {
    artifact::RingDesc ring;
    ring.id = static_cast<int32_t>(1 + a);
    ring.groupSize = static_cast<int32_t>(mesh.shape[a]);
    for (const std::vector<int64_t> &group : mesh.groupsAlong(a))
      ring.ranks.insert(ring.ranks.end(), group.begin(), group.end());
    state.desc.rings.push_back(std::move(ring));
    state.ringSizes.push_back(mesh.shape[a]);
  }
}

/// The ring that splits each dim of a partitioned variable (ring 1+a for
/// mesh axis a), or none for a whole one. Persistent state is never
/// partial: a rank's buffer must be a slice of the variable.
static LogicalResult splitRingsOf(Operation &var, int64_t rank, std::vector<int32_t> &rings) {
  auto sharding = var.getAttrOfType<pd::ShardingAttr>(pd::kVarShardingAttr);
  if (!sharding)
    return success();
  llvm::Expected<sharding::TensorDistAttr> dist = sharding.toDistAttr(rank);
  if (!dist)
    return var.emitError() << "persistable variable '" << SymbolTable::getSymbolName(&var).getValue()
                           << "': " << llvm::toString(dist.takeError());
  if (!dist->partialDims().empty())
    return var.emitError() << "persistable variable '" << SymbolTable::getSymbolName(&var).getValue()
                           << "' is partial (" << sharding.placementsString()
                           << "); persistent state must be whole or split";
  bool split = false;
  for (int64_t axis : dist->dimsMapping) {
    rings.push_back(axis < 0 ? -1 : static_cast<int32_t>(1 + axis));
    split |= axis >= 0;
  }
  if (!split)
    rings.clear();
  return success();
}

FailureOr<artifact::ArtifactDesc> lowerToArtifact(ModuleOp module, const LoweringOptions &options) {
  ArtifactState state;
  state.options = options;
  state.desc.producer = "distc 0.1.0";
  state.desc.source = options.source;

  // A partitioned module runs on its mesh: one rank per process, and one
  // ring per mesh axis whose groups are the ranks that differ only in their
  // coordinate on that axis.
  if (module->hasAttr(pd::kPartitionedAttr)) {
    for (pd::MeshOp meshOp : module.getOps<pd::MeshOp>())
      addMeshRings(state, meshOp.getProcessMesh());
    // Replicas are the groups along the axis that splits the feeds' rows;
    // without one every rank reads the whole batch.
    auto dataAxis = module->getAttrOfType<IntegerAttr>(pd::kDataAxisAttr);
    state.desc.dataRing = dataAxis ? static_cast<int32_t>(1 + dataAxis.getInt()) : -1;
  }

  // Persistable variables are shared by every program of every mode.
  for (Operation &op : module.getBody()->getOperations()) {
    if (op.getName().getStringRef() != "pd.var")
      continue;
    StringRef name = SymbolTable::getSymbolName(&op).getValue();
    auto typeAttr = op.getAttrOfType<TypeAttr>("type");
    auto tensor = typeAttr ? dyn_cast<RankedTensorType>(typeAttr.getValue()) : RankedTensorType();
    if (!tensor || !tensor.hasStaticShape())
      return op.emitError() << "persistable variable '" << name << "' needs a static tensor type";
    FailureOr<artifact::DType> dtype = toArtifactDType(tensor.getElementType());
    if (failed(dtype))
      return op.emitError() << "persistable variable '" << name << "' has unsupported element type "
                            << tensor.getElementType();
    SymShape dims;
    for (int64_t d : tensor.getShape())
      dims.push_back(DimDesc::fixed(d));
    artifact::BufferDesc buffer{name.str(), *dtype, dims, BufferKind::Persistent, -1};
    if (failed(splitRingsOf(op, tensor.getRank(), buffer.splitRings)))
      return failure();
    state.desc.buffers.push_back(buffer);
    state.persistentBuffers[name] = static_cast<int32_t>(state.desc.buffers.size() - 1);
    // A row-sparse variable holds up to dim 0 rows; their ids live beside.
    if (pd::isSelectedRows(tensor)) {
      if (tensor.getRank() < 1)
        return op.emitError() << "row-sparse variable '" << name << "' needs rows (dim 0)";
      std::string rows = (name + kRowIdsSuffix).str();
      state.desc.buffers.push_back({rows, artifact::DType::Int64, {dims.front()},
                                    BufferKind::Persistent, -1});
      state.persistentBuffers[rows] = static_cast<int32_t>(state.desc.buffers.size() - 1);
    }
  }

  // The parameter servers first: the trainer's ps_send / ps_recv calls
  // name their slots.
  if (failed(lowerParameterServers(module, state)))
    return failure();

  bool any = false;
  for (Operation &op : module.getBody()->getOperations()) {
    if (op.getName().getStringRef() != "pd.program")
      continue;
    auto mode = op.getAttrOfType<StringAttr>("pd.mode");
    auto kind = op.getAttrOfType<StringAttr>("pd.kind");
    if (!mode || !kind)
      return op.emitError("program has no pd.mode/pd.kind: run the distc-derive-modes pass first");
    auto role = op.getAttrOfType<StringAttr>("pd.role");
    // A server's main program: each optimize block of its listen_and_serv
    // is a Main program of its own, mode "block<i>".
    auto serves = op.getRegion(0).front().getOps<pd::ListenAndServOp>();
    if (!serves.empty()) {
      for (auto [i, region] : llvm::enumerate((*serves.begin()).getOptimizeBlocks())) {
        artifact::ProgramDesc program;
        program.mode = "block" + std::to_string(i + 1);
        program.role = "pserver";
        program.kind = artifact::ProgramKind::Main;
        ProgramLowering lowering(state, program);
        if (!region.empty() && failed(lowering.lowerBlock(region.front())))
          return failure();
        state.desc.programs.push_back(std::move(program));
      }
      any = true;
      continue;
    }
    artifact::ProgramDesc program;
    program.mode = mode.getValue().str();
    if (role)
      program.role = role.getValue().str();
    program.kind = kind.getValue() == "startup" ? artifact::ProgramKind::Startup
                                                : artifact::ProgramKind::Main;
    ProgramLowering lowering(state, program);
    if (failed(lowering.lower(&op)))
      return failure();
    state.desc.programs.push_back(std::move(program));
    any = true;
  }
  if (!any)
    return module.emitError("module holds no programs to lower");
  // The runtime writes the step counter before every train step; starting
  // it at 0 keeps a train program run directly through the Session valid.
  if (state.stepCounter >= 0)
    for (artifact::ProgramDesc &program : state.desc.programs)
      if (program.mode == "train" && program.kind == artifact::ProgramKind::Startup)
        program.calls.push_back({"fill", {}, {state.stepCounter},
                                 {AttrDesc::ofFloat("value", 0.0)}, "step counter"});
  mergeEqualSymbols(state);
  if (options.planArenas)
    planArenas(state.desc);
  return std::move(state.desc);
}

} // namespace distc::target
