//===- Partition.cpp - distc-partition ------------------------------------===//
//
// Turns the sharded programs into the one program every rank of the mesh
// runs (Passes.td has the contract): local types, shape attributes divided,
// the reshard steps of ReshardPlan.h as collectives over mesh-axis rings,
// and the communicator setup. With `explain`, says why each reshard is
// there and what a rank holds of the parameters.
//
//===----------------------------------------------------------------------===//

#include "ReshardPlan.h"
#include "ShardingIR.h"

#include "distc/Dialect/Pd/CatalogOpBuilder.h"
#include "distc/Dialect/Pd/PdDialect.h"
#include "distc/Sharding/OpAttrs.h"
#include "distc/Sharding/Passes.h"
#include "distc/Sharding/SpmdRule.h"
#include "distc/Transforms/ProgramUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

namespace distc::sharding {
#define GEN_PASS_DEF_PARTITION
#include "distc/Sharding/Passes.h.inc"
} // namespace distc::sharding

using namespace mlir;

namespace distc::sharding {
namespace {

/// The ring of the ranks along mesh axis `a` (ring 0 is every rank).
int32_t ringOf(int64_t meshAxis) { return static_cast<int32_t>(1 + meshAxis); }

/// One reshard, for --explain-sharding.
struct ReshardRecord {
  std::string program, op, tensor, from, to, steps, cause;
};

class Partitioner {
public:
  /// With `explain`, each reshard is recorded with its cause.
  Partitioner(ModuleOp module, const MeshInfo &mesh, bool explain)
      : module(module), mesh(mesh), explain(explain) {}

  LogicalResult run() {
    keepSerialInference();
    if (failed(layOutFeeds()))
      return failure();
    if (failed(localizeVariables()))
      return failure();
    for (auto program : module.getOps<pd::ProgramOp>())
      if (failed(localizeValues(program)))
        return failure();
    if (explain)
      for (auto program : module.getOps<pd::ProgramOp>())
        for (auto [index, op] : llvm::enumerate(programBody(program)))
          positions[&op] = static_cast<unsigned>(index);
    for (auto program : module.getOps<pd::ProgramOp>())
      if (failed(insertReshards(program)))
        return failure();
    for (auto program : module.getOps<pd::ProgramOp>())
      if (failed(scaleMeanGradients(program)))
        return failure();
    if (failed(setUpCommunicator()))
      return failure();
    module->setAttr(pd::kPartitionedAttr, UnitAttr::get(module.getContext()));
    return success();
  }

  const std::vector<ReshardRecord> &reshards() const { return records; }

  /// Serial and per-rank bytes of the parameters and of the other
  /// persistable variables (optimizer state, counters).
  struct Bytes {
    int64_t serialParams = 0, localParams = 0, serialState = 0, localState = 0;
  };
  const Bytes &bytes() const { return byteCounts; }

private:
  TensorDistAttr distOf(Value value) const {
    RankedTensorType type = tensorTypeOf(value);
    int64_t rank = type ? type.getRank() : 0;
    if (std::optional<TensorDistAttr> dist = toDist(shardingOf(value, symbols), rank))
      return *dist;
    return TensorDistAttr::replicated(rank);
  }

  RankedTensorType localType(RankedTensorType type, const TensorDistAttr &dist) const {
    std::vector<int64_t> shape = localShape(type.getShape(), dist, mesh.shape());
    return RankedTensorType::get(shape, type.getElementType());
  }

  static int64_t bytesOf(RankedTensorType type) {
    int64_t n = type.getElementTypeBitWidth() / 8;
    for (int64_t d : type.getShape())
      n *= d;
    return n;
  }

  LogicalResult localizeVariables() {
    for (pd::VarOp var : module.getOps<pd::VarOp>()) {
      RankedTensorType type = var.getTensorType();
      std::optional<TensorDistAttr> dist =
          toDist(var->getAttr(pd::kVarShardingAttr), type.getRank());
      if (!dist)
        continue;
      RankedTensorType local = localType(type, *dist);
      (var.getIsParameter() ? byteCounts.serialParams : byteCounts.serialState) += bytesOf(type);
      (var.getIsParameter() ? byteCounts.localParams : byteCounts.localState) += bytesOf(local);
      var.setType(local);
    }
    return success();
  }

  /// A copy of the predict program and the variables it reads, without
  /// shardings, in a nested module (kSerialInferenceAttr): the inference
  /// model an artifact exports is the serial one.
  void keepSerialInference() {
    Operation *predict = findProgram(module, "predict.main");
    if (!predict)
      return;
    std::set<std::string> read = readVariables(predict);
    OpBuilder b(module.getContext());
    b.setInsertionPointToEnd(module.getBody());
    auto serial = ModuleOp::create(b, module.getLoc(), StringRef("serial_inference"));
    serial->setAttr(pd::kSerialInferenceAttr, b.getUnitAttr());
    b.setInsertionPointToEnd(serial.getBody());
    for (pd::VarOp var : module.getOps<pd::VarOp>())
      if (read.count(var.getSymName().str()))
        b.clone(*var)->removeAttr(pd::kVarShardingAttr);
    Operation *copy = b.clone(*predict);
    copy->walk([](Operation *op) {
      op->removeAttr(pd::kShardingsAttr);
      op->removeAttr(kOperandShardingsAttr);
    });
  }

  /// The runtime feeds a rank its data-parallel replica's rows, every other
  /// axis whole (docs/sharding.md, "Feeds"). The replica axis is the mesh
  /// axis that splits the feeds' batch axis (dim 0); feeds must agree on it.
  /// Each feed then arrives in that layout, and insertReshards moves it to
  /// the layout its consumers need (slicing columns, gathering the rows of a
  /// feed they need whole).
  LogicalResult layOutFeeds() {
    std::optional<int64_t> dataAxis;
    Value first;
    SmallVector<pd::FeedOp> feeds;
    for (auto program : module.getOps<pd::ProgramOp>())
      for (auto feed : programBody(program).getOps<pd::FeedOp>()) {
        feeds.push_back(feed);
        RankedTensorType type = tensorTypeOf(feed.getResult());
        if (!type || type.getRank() == 0)
          continue;
        int64_t axis = distOf(feed.getResult()).dimsMapping[0];
        if (axis < 0)
          continue;
        if (dataAxis && *dataAxis != axis)
          return feed->emitError()
                 << "feeds disagree on the mesh axis that splits the batch: "
                 << describeValue(first) << " is split on '" << mesh.mesh.dimNames[*dataAxis]
                 << "', " << describeValue(feed.getResult()) << " on '"
                 << mesh.mesh.dimNames[axis] << "'; the batch rows of a data-parallel replica "
                 << "come from one mesh axis";
        dataAxis = axis;
        first = feed.getResult();
      }
    for (pd::FeedOp feed : feeds) {
      RankedTensorType type = tensorTypeOf(feed.getResult());
      if (!type)
        continue;
      TensorDistAttr arrival = TensorDistAttr::replicated(type.getRank());
      if (dataAxis && type.getRank() > 0) {
        int64_t rows = type.getDimSize(0), parts = mesh.shape()[*dataAxis];
        if (!ShapedType::isDynamic(rows) && rows % parts != 0)
          return feed->emitError()
                 << describeValue(feed.getResult()) << " has " << rows
                 << " rows, which the data-parallel mesh axis '"
                 << mesh.mesh.dimNames[*dataAxis] << "' of size " << parts << " does not divide";
        arrival.dimsMapping[0] = *dataAxis;
      }
      if (!(arrival == distOf(feed.getResult())))
        setSharding(feed, arrival);
    }
    if (dataAxis)
      module->setAttr(pd::kDataAxisAttr,
                      IntegerAttr::get(IntegerType::get(module.getContext(), 64), *dataAxis));
    return success();
  }

  /// Local result types, and the shape attributes that must agree with them.
  LogicalResult localizeValues(pd::ProgramOp program) {
    for (Operation &op : programBody(program)) {
      if (auto read = dyn_cast<pd::ReadVarOp>(op)) {
        if (pd::VarOp var = variableOf(&op, symbols))
          read.getResult().setType(var.getTensorType());
        continue;
      }
      if (!op.hasAttr(pd::kShardingsAttr))
        continue;
      for (Value result : op.getResults())
        if (RankedTensorType type = tensorTypeOf(result))
          result.setType(localType(type, distOf(result)));
      divideShapeAttribute(&op);
    }
    return success();
  }

  /// `shape` attributes spell the result's global shape (reshape2's target,
  /// fill_constant's and the random initializers' shape, expand_v2's): each
  /// positive entry of a split axis is divided (0 and -1 take their size
  /// from the operand, which is local already).
  /// The attribute is i64 or i32 (imported Paddle programs) and keeps its
  /// element type.
  void divideShapeAttribute(Operation *op) {
    Attribute attr = op->getAttr("shape");
    if (!attr || op->getNumResults() == 0)
      return;
    SmallVector<int64_t> dims;
    if (auto i64 = dyn_cast<DenseI64ArrayAttr>(attr))
      dims.assign(i64.asArrayRef().begin(), i64.asArrayRef().end());
    else if (auto i32 = dyn_cast<DenseI32ArrayAttr>(attr))
      dims.assign(i32.asArrayRef().begin(), i32.asArrayRef().end());
    else
      return;
    TensorDistAttr dist = distOf(op->getResult(0));
    if (dims.size() != dist.dimsMapping.size())
      return;
    for (size_t axis = 0; axis < dims.size(); ++axis)
      if (dims[axis] > 0 && dist.dimsMapping[axis] >= 0)
        dims[axis] /= mesh.shape()[dist.dimsMapping[axis]];
    if (isa<DenseI64ArrayAttr>(attr)) {
      op->setAttr("shape", DenseI64ArrayAttr::get(op->getContext(), dims));
      return;
    }
    SmallVector<int32_t> narrow(dims.begin(), dims.end());
    op->setAttr("shape", DenseI32ArrayAttr::get(op->getContext(), narrow));
  }

  /// What asked for an operand's layout, for --explain-sharding.
  std::string causeOf(Operation *op) {
    if (isa<pd::FetchOp>(op))
      return "a fetch returns the whole tensor";
    if (isa<pd::WriteVarOp>(op)) {
      pd::VarOp var = variableOf(op, symbols);
      auto sharding = var ? var->getAttrOfType<pd::ShardingAttr>(pd::kVarShardingAttr)
                          : pd::ShardingAttr();
      return std::string("the variable is laid out so") +
             (sharding && sharding.getAnnotated() ? " by annotation" : " by propagation");
    }
    const OpSpmdBinding *binding = lookupOpSpmdBinding(op->getName().stripDialect());
    std::string cause = binding ? "the rule '" + std::string(binding->rule) + "' of the op"
                                : "the op has no SPMD rule and runs on whole tensors";
    if (auto shardings = op->getAttrOfType<ArrayAttr>(pd::kShardingsAttr))
      for (auto [i, attr] : llvm::enumerate(shardings))
        if (auto sharding = dyn_cast<pd::ShardingAttr>(attr); sharding && sharding.getAnnotated())
          cause += ", to produce the annotated " + describeValue(op->getResult(i));
    return cause;
  }

  LogicalResult insertReshards(pd::ProgramOp program) {
    llvm::DenseMap<std::pair<Value, Attribute>, Value> done;
    for (Operation &opRef : llvm::make_early_inc_range(programBody(program))) {
      Operation *op = &opRef;
      auto required = op->getAttrOfType<ArrayAttr>(kOperandShardingsAttr);
      if (!required)
        continue;
      op->removeAttr(kOperandShardingsAttr);
      for (OpOperand &operand : op->getOpOperands()) {
        Value value = operand.get();
        RankedTensorType type = tensorTypeOf(value);
        unsigned index = operand.getOperandNumber();
        if (!type || index >= required.size())
          continue;
        std::optional<TensorDistAttr> to = toDist(required[index], type.getRank());
        if (!to)
          return op->emitError() << describeOp(op) << ": operand " << index
                                 << " has no valid required sharding";
        TensorDistAttr from = distOf(value);
        if (from == *to)
          continue;
        // The fetch returns the variable under its own name, not the
        // reshard's.
        if (isa<pd::FetchOp>(op) && !variableName(value).empty())
          op->setAttr(pd::kFetchNameAttr, StringAttr::get(op->getContext(), variableName(value)));
        auto key = std::make_pair(value, Attribute(toShardingAttr(mesh, *to)));
        if (Value resharded = done.lookup(key)) {
          operand.set(resharded);
          continue;
        }
        FailureOr<Value> resharded = reshard(op, value, from, *to);
        if (failed(resharded))
          return failure();
        done[key] = *resharded;
        operand.set(*resharded);
      }
    }
    return success();
  }

  /// Builds the steps from `from` to `to` of `value` before `user`.
  FailureOr<Value> reshard(Operation *user, Value value, const TensorDistAttr &from,
                           const TensorDistAttr &to) {
    std::vector<ReshardStep> steps = planReshard(from, to, mesh.shape());
    OpBuilder b(user);
    Location loc = user->getLoc();
    std::string name = variableName(value);
    std::string base = name.empty() ? "reshard" : name;
    SmallVector<NamedAttribute> common;
    if (Attribute role = user->getAttr("op_role"))
      common.push_back(b.getNamedAttr("op_role", role));
    std::string stepsText;
    Value current = value;
    for (const ReshardStep &step : steps) {
      int64_t n = mesh.shape()[step.meshAxis];
      // Over a mesh axis of one rank every step moves nothing.
      if (n == 1)
        continue;
      SmallVector<NamedAttribute> attrs = common;
      attrs.push_back(b.getNamedAttr("ring_id", b.getI32IntegerAttr(ringOf(step.meshAxis))));
      std::string type;
      switch (step.kind) {
      case ReshardStep::Kind::AllReduce:
        type = step.reduce == ReduceType::Max   ? "c_allreduce_max"
               : step.reduce == ReduceType::Min ? "c_allreduce_min"
               : step.reduce == ReduceType::Prod ? "c_allreduce_prod"
                                                  : "c_allreduce_sum";
        if (step.reduce != ReduceType::Sum && step.reduce != ReduceType::Avg &&
            step.reduce != ReduceType::Max && step.reduce != ReduceType::Min &&
            step.reduce != ReduceType::Prod)
          return user->emitError() << describeOp(user) << ": cannot complete a Partial("
                                   << reduceTypeName(step.reduce) << ") value";
        attrs.push_back(b.getNamedAttr("use_calc_stream", b.getBoolAttr(true)));
        break;
      case ReshardStep::Kind::ReduceScatter:
      case ReshardStep::Kind::AllGather:
      case ReshardStep::Kind::Slice:
        type = step.kind == ReshardStep::Kind::ReduceScatter ? "c_reducescatter"
               : step.kind == ReshardStep::Kind::AllGather   ? "c_allgather"
                                                             : "c_split";
        attrs.push_back(b.getNamedAttr("nranks", b.getI32IntegerAttr(n)));
        attrs.push_back(b.getNamedAttr("axis", b.getI32IntegerAttr(step.axis)));
        break;
      case ReshardStep::Kind::AllToAll:
        type = "alltoall";
        attrs.push_back(b.getNamedAttr("nranks", b.getI32IntegerAttr(n)));
        attrs.push_back(b.getNamedAttr("split_axis", b.getI32IntegerAttr(step.toAxis)));
        attrs.push_back(b.getNamedAttr("concat_axis", b.getI32IntegerAttr(step.axis)));
        break;
      case ReshardStep::Kind::RootOnly:
        type = "c_root_only";
        break;
      }
      std::string outName = base + "@RESHARD_" + std::to_string(++counter);
      FailureOr<Operation *> built = pd::buildCatalogOp(b, loc, type, {{current}}, attrs, {outName});
      if (failed(built))
        return failure();
      current = (*built)->getResult(0);
      TensorDistAttr after = step.after;
      if (step.kind == ReshardStep::Kind::AllReduce && step.reduce == ReduceType::Avg) {
        // The mean of the group's partial means (their pieces are equal).
        FailureOr<Operation *> scaled = pd::buildCatalogOp(
            b, loc, "scale", {{current}},
            {b.getNamedAttr("scale", b.getF32FloatAttr(1.0f / static_cast<float>(n)))},
            {base + "@RESHARD_" + std::to_string(++counter)});
        if (failed(scaled))
          return failure();
        setSharding(*built, after);
        current = (*scaled)->getResult(0);
        built = scaled;
      }
      setSharding(*built, after);
      if (!stepsText.empty())
        stepsText += ", ";
      stepsText += step.str();
    }
    if (!explain)
      return current;
    ReshardRecord record;
    record.program = program(user);
    record.op = describeUser(user);
    record.tensor = name.empty() ? describeValue(value) : "'" + name + "'";
    record.from = formatPlacements(mesh, from);
    record.to = formatPlacements(mesh, to);
    record.steps = stepsText.empty() ? "none (the values already agree, or the mesh axes have one rank)" : stepsText;
    record.cause = causeOf(user);
    records.push_back(std::move(record));
    return current;
  }

  static std::string program(Operation *op) {
    auto program = op->getParentOfType<pd::ProgramOp>();
    return program ? program.getSymName().str() : "?";
  }

  void setSharding(Operation *op, const TensorDistAttr &dist) {
    op->setAttr(pd::kShardingsAttr, ArrayAttr::get(op->getContext(), {toShardingAttr(mesh, dist)}));
  }

  /// reduce_mean_grad spreads dOut / (the reduced elements) over X; on a
  /// split reduced axis the kernel sees a rank's piece, so its quotient is
  /// n times too large.
  LogicalResult scaleMeanGradients(pd::ProgramOp program) {
    for (Operation &opRef : llvm::make_early_inc_range(programBody(program))) {
      Operation *op = &opRef;
      if (!isa<pd::ReduceMeanGradOp>(op))
        continue;
      TensorDistAttr x = distOf(op->getOperand(0));
      int64_t rank = static_cast<int64_t>(x.dimsMapping.size());
      // Paddle's attributes, read as the SPMD rules read them (`dim` is an
      // i32 or i64 array; none or reduce_all: every axis).
      SpmdAttrs attrs = spmdAttrsOf(op);
      std::vector<int64_t> dims = attrs.getInts("dim", {});
      const bool all = attrs.getBool("reduce_all", false) || dims.empty();
      std::vector<bool> reduced(rank, all);
      if (!all)
        for (int64_t d : dims)
          if (d >= -rank && d < rank)
            reduced[d < 0 ? d + rank : d] = true;
      int64_t parts = 1;
      for (int64_t axis = 0; axis < rank; ++axis)
        if (reduced[axis] && x.dimsMapping[axis] >= 0)
          parts *= mesh.shape()[x.dimsMapping[axis]];
      if (parts == 1)
        continue;
      OpBuilder b(op->getContext());
      b.setInsertionPointAfter(op);
      Value grad = op->getResult(0);
      FailureOr<Operation *> scaled = pd::buildCatalogOp(
          b, op->getLoc(), "scale", {{grad}},
          {b.getNamedAttr("scale", b.getF32FloatAttr(1.0f / static_cast<float>(parts)))},
          {variableName(grad)});
      if (failed(scaled))
        return failure();
      setSharding(*scaled, distOf(grad));
      grad.replaceAllUsesExcept((*scaled)->getResult(0), *scaled);
    }
    return success();
  }

  /// The train startup program joins the communicator of the mesh's ranks,
  /// as data parallelism's does; the rings of the mesh axes come with it.
  LogicalResult setUpCommunicator() {
    Operation *startup = findProgram(module, "train.startup");
    if (!startup || !programBody(startup).getOps<pd::CCommInitOp>().empty())
      return success();
    OpBuilder b(module.getContext());
    b.setInsertionPointToStart(&programBody(startup));
    Location loc = startup->getLoc();
    FailureOr<Operation *> id = pd::buildCatalogOp(
        b, loc, "c_gen_nccl_id", {},
        {b.getNamedAttr("endpoint", b.getStringAttr("")),
         b.getNamedAttr("rank", b.getI32IntegerAttr(-1))},
        {"comm_id"});
    if (failed(id))
      return failure();
    FailureOr<Operation *> init = pd::buildCatalogOp(
        b, loc, "c_comm_init", {{(*id)->getResult(0)}},
        {b.getNamedAttr("nranks", b.getI32IntegerAttr(static_cast<int32_t>(mesh.mesh.size()))),
         b.getNamedAttr("rank", b.getI32IntegerAttr(-1))},
        {});
    if (failed(init))
      return failure();
    (*init)->removeAttr(pd::kOutNamesAttr);
    return success();
  }

  /// "op #N 'type'" by the op's position in its program before reshards
  /// were inserted (describeOp would count the block at every call).
  std::string describeUser(Operation *op) {
    auto it = positions.find(op);
    return it == positions.end() ? describeOp(op)
                                 : "op #" + std::to_string(it->second) + " '" +
                                       op->getName().stripDialect().str() + "'";
  }

  ModuleOp module;
  const MeshInfo &mesh;
  const bool explain;
  /// The module's symbol table, cached for the variable lookups.
  mutable SymbolTableCollection symbols;
  llvm::DenseMap<Operation *, unsigned> positions;
  std::vector<ReshardRecord> records;
  Bytes byteCounts;
  int counter = 0;
};

std::string formatBytes(int64_t serial, int64_t local) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << serial << " bytes serial, " << local << " per rank";
  if (serial > 0)
    os << " (" << llvm::format("%.3f", static_cast<double>(local) / serial) << "x)";
  return text;
}

void printExplanation(llvm::raw_ostream &os, const MeshInfo &mesh, const Partitioner &p) {
  os << "sharding on mesh " << mesh.mesh.str() << ": " << p.reshards().size() << " reshard"
     << (p.reshards().size() == 1 ? "" : "s") << "\n";
  for (const ReshardRecord &r : p.reshards())
    os << "  @" << r.program << " " << r.op << ": " << r.tensor << " " << r.from << " -> "
       << r.to << ": " << r.steps << "; because " << r.cause << "\n";
  const Partitioner::Bytes &bytes = p.bytes();
  os << "parameters: " << formatBytes(bytes.serialParams, bytes.localParams) << "\n";
  os << "other persistable variables (optimizer state): "
     << formatBytes(bytes.serialState, bytes.localState) << "\n";
}

struct PartitionPass : impl::PartitionBase<PartitionPass> {
  using PartitionBase::PartitionBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<std::optional<MeshInfo>> mesh = findMesh(module);
    if (failed(mesh))
      return signalPassFailure();
    if (!*mesh || module->hasAttr(pd::kPartitionedAttr))
      return;
    bool sharded = false;
    module.walk([&](Operation *op) { sharded |= op->hasAttr(kOperandShardingsAttr); });
    if (!sharded) {
      module.emitError("distc-partition needs the shardings of distc-propagate-sharding");
      return signalPassFailure();
    }
    Partitioner partitioner(module, **mesh, explain);
    if (failed(partitioner.run()))
      return signalPassFailure();
    if (failed(verify(module))) {
      module.emitError("partitioning for mesh ")
          << (*mesh)->mesh.str()
          << " made an invalid program (above): an op's local form is not its global form on "
             "the local pieces";
      return signalPassFailure();
    }
    if (explain)
      printExplanation(llvm::outs(), **mesh, partitioner);
  }
};

} // namespace
} // namespace distc::sharding
