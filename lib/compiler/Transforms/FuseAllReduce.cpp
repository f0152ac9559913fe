//===- FuseAllReduce.cpp - gradient all-reduce buckets --------------------===//
//
// BuildStrategy.fuse_all_reduce_ops with fuse_grad_size_in_MB, on the train
// program distc-data-parallel produced: instead of one c_allreduce_sum per
// gradient, the gradients are grouped, in the order the backward pass
// finishes them, into buckets of at most `bucket-mb` MiB of one dtype, and
// each bucket is communicated by one collective on a fused buffer, as
// Paddle's fuse_all_reduce_op_pass and the raw-program optimizer do:
//
//   coalesce_tensor  Input = Output = the bucket's gradients, FusedOutput F
//   scale            F by the gradient scale (one scale instead of one per
//                    gradient)
//   c_sync_calc_stream F, c_allreduce_sum F
//   ...
//   c_sync_comm_stream F   (before the first optimizer op)
//   fused_slices     the reduced gradients, which the optimizer reads
//
// The lowering places the gradients in the bucket when the backward kernels
// write them, so coalescing copies nothing (docs/compiler.md).
//
// Under the Reduce strategy the gradients are c_reduce_sum-ed to their
// parameters' owners instead; those are fused the same way, a bucket
// holding gradients of one owner (root_id) only.
//
//===----------------------------------------------------------------------===//

#include "distc/Transforms/Passes.h"

#include "distc/Dialect/Pd/CatalogOpBuilder.h"
#include "distc/Dialect/Pd/PdOps.h"
#include "distc/Dialect/Pd/PdTypes.h"
#include "distc/Transforms/ProgramUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/Support/Format.h"

#include <map>
#include <tuple>

namespace distc {
#define GEN_PASS_DEF_FUSEALLREDUCE
#include "distc/Transforms/Passes.h.inc"
} // namespace distc

using namespace mlir;

namespace distc {
namespace {

/// One gradient reduction of the program as distc-data-parallel (or
/// Paddle's GradAllReduce) writes it: [scale] -> c_allreduce_sum, or
/// c_reduce_sum to the parameter's owner under the Reduce strategy.
struct Reduction {
  Operation *allreduce; // the c_allreduce_sum or c_reduce_sum
  pd::ScaleOp scale;    // the gradient scale, when the program has one
  Value grad;           // what is communicated, before the scale
  std::string name;     // the gradient's variable name
  int64_t bytes = 0;
};

/// The attributes that make two reductions the same collective: all but
/// the role and the variable names (uniqued, so equal ones are one pointer).
DictionaryAttr collectiveAttrs(Operation *op) {
  SmallVector<NamedAttribute> attrs;
  for (NamedAttribute a : op->getAttrs())
    if (a.getName() != "op_role" && a.getName() != pd::kOutNamesAttr)
      attrs.push_back(a);
  attrs.push_back(NamedAttribute(StringAttr::get(op->getContext(), "pd.collective"),
                                 StringAttr::get(op->getContext(), op->getName().getStringRef())));
  return DictionaryAttr::get(op->getContext(), attrs);
}

/// Reductions that may share one collective: same element type, same
/// gradient scale, same collective with the same attributes (ring, stream,
/// root).
using BucketKey = std::tuple<const void *, float, bool, const void *>;

BucketKey keyOf(Reduction r) {
  return {cast<RankedTensorType>(r.grad.getType()).getElementType().getAsOpaquePointer(),
          r.scale ? r.scale.getScale().convertToFloat() : 1.0f, static_cast<bool>(r.scale),
          collectiveAttrs(r.allreduce).getAsOpaquePointer()};
}

NamedAttribute backwardRole(OpBuilder &b) {
  return b.getNamedAttr("op_role", b.getI32IntegerAttr(pd::OpRole::Backward));
}

/// True for the FusedOutput of a coalesce_tensor, possibly scaled and
/// synced: an all-reduce of it is already a bucket's.
bool isFusedBuffer(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    if (isa<pd::CoalesceTensorOp>(def))
      return true;
    if (!isa<pd::ScaleOp, pd::CSyncCalcStreamOp>(def))
      return false;
    value = def->getOperand(0);
  }
  return false;
}

struct FuseAllReducePass : impl::FuseAllReduceBase<FuseAllReducePass> {
  using FuseAllReduceBase::FuseAllReduceBase;

  /// The program's gradient all-reduces that can join a bucket, in order.
  std::vector<Reduction> collect(Operation *train) {
    std::vector<Reduction> out;
    for (Operation &op : train->getRegion(0).front()) {
      if (!isa<pd::CAllreduceSumOp, pd::CReduceSumOp>(op))
        continue;
      Operation *allreduce = &op;
      Reduction r;
      r.allreduce = allreduce;
      r.grad = allreduce->getOperand(0);
      auto scale = r.grad.getDefiningOp<pd::ScaleOp>();
      if (scale && r.grad.hasOneUse() && scale.getBias().convertToFloat() == 0.0f) {
        r.scale = scale;
        r.grad = scale.getX();
      }
      auto type = cast<RankedTensorType>(r.grad.getType());
      if (!type.hasStaticShape() || isFusedBuffer(r.grad) || !type.getElementType().isIntOrFloat())
        continue;
      r.bytes = type.getNumElements() *
                std::max<int64_t>(1, type.getElementType().getIntOrFloatBitWidth() / 8);
      r.name = variableName(allreduce->getResult(0));
      if (r.name.empty())
        r.name = variableName(r.grad);
      out.push_back(r);
    }
    return out;
  }

  /// Greedy buckets in backward order, one open bucket per key: a bucket is
  /// closed when the next gradient would make it larger than the cap; a
  /// gradient as large as the cap is a bucket of its own.
  std::vector<std::vector<Reduction>> bucketize(const std::vector<Reduction> &reductions,
                                                int64_t cap) {
    std::vector<std::vector<Reduction>> closed;
    std::map<BucketKey, std::pair<std::vector<Reduction>, int64_t>> open;
    for (const Reduction &r : reductions) {
      auto &[bucket, bytes] = open[keyOf(r)];
      if (!bucket.empty() && bytes + r.bytes > cap) {
        closed.push_back(std::move(bucket));
        bucket.clear();
        bytes = 0;
      }
      bucket.push_back(r);
      bytes += r.bytes;
      if (bytes >= cap) {
        closed.push_back(std::move(bucket));
        bucket.clear();
        bytes = 0;
      }
    }
    for (auto &[key, entry] : open)
      if (!entry.first.empty())
        closed.push_back(std::move(entry.first));
    llvm::sort(closed, [](const std::vector<Reduction> &x, const std::vector<Reduction> &y) {
      return x.back().allreduce->isBeforeInBlock(y.back().allreduce);
    });
    return closed;
  }

  LogicalResult fuse(std::vector<Reduction> &bucket, OpBuilder &b) {
    Operation *last = bucket.back().allreduce;
    Location loc = last->getLoc();
    Type elementType = cast<RankedTensorType>(bucket.front().grad.getType()).getElementType();
    FailureOr<pd::VarDataType> dtype = pd::getPaddleDType(elementType);
    if (failed(dtype))
      return last->emitError() << "gradient '" << bucket.front().name << "' has element type "
                               << elementType << ", which Paddle cannot represent";
    std::string fused = "FusedOutput_" + bucket.front().name;

    SmallVector<Value, 1> grads;
    std::vector<std::string> names;
    SmallVector<int64_t> offsets;
    int64_t offset = 0;
    for (const Reduction &r : bucket) {
      grads.push_back(r.grad);
      names.push_back(r.name);
      offsets.push_back(offset);
      offset += cast<RankedTensorType>(r.grad.getType()).getNumElements();
    }
    names.push_back(fused);

    b.setInsertionPointAfter(last);
    auto coalesce = pd::buildCatalogOp(
        b, loc, "coalesce_tensor", {grads},
        {b.getNamedAttr("dtype", b.getI32IntegerAttr(static_cast<int32_t>(*dtype))),
         b.getNamedAttr("copy_data", b.getBoolAttr(true)),
         b.getNamedAttr("use_align", b.getBoolAttr(false)), backwardRole(b)},
        names, static_cast<unsigned>(bucket.size()));
    if (failed(coalesce))
      return failure();
    Value buffer = (*coalesce)->getResults().back();
    if (pd::ScaleOp scale = bucket.front().scale) {
      auto scaled = pd::buildCatalogOp(
          b, loc, "scale", {{buffer}},
          {b.getNamedAttr("scale", scale.getScaleAttr()), backwardRole(b)}, {fused});
      if (failed(scaled))
        return failure();
      buffer = (*scaled)->getResult(0);
    }
    // The compute stream must have finished the whole bucket before the
    // communication stream reads it.
    auto sync =
        pd::buildCatalogOp(b, loc, "c_sync_calc_stream", {{buffer}}, {backwardRole(b)}, {fused});
    if (failed(sync))
      return failure();
    // The same collective (all-reduce, or reduce to the bucket's owner) on
    // the whole bucket.
    SmallVector<NamedAttribute> attrs;
    for (NamedAttribute a : last->getAttrs())
      if (a.getName() != "op_role" && a.getName() != pd::kOutNamesAttr)
        attrs.push_back(a);
    attrs.push_back(backwardRole(b));
    auto allreduce = pd::buildCatalogOp(b, loc, last->getName().getStringRef().drop_front(3),
                                        {{(*sync)->getResult(0)}}, attrs, {fused});
    if (failed(allreduce))
      return failure();
    Value reduced = (*allreduce)->getResult(0);

    // Where the program waited for each reduced gradient (one
    // c_sync_comm_stream per gradient before the optimizer), it now waits
    // once for the bucket and reads the gradients as its slices.
    SmallVector<Operation *> waits;
    bool onlyWaits = true;
    for (const Reduction &r : bucket)
      for (Operation *user : r.allreduce->getUsers()) {
        if (isa<pd::CSyncCommStreamOp>(user))
          waits.push_back(user);
        else
          onlyWaits = false;
      }
    auto slicesOf = [&](Value value) {
      SmallVector<Type> types;
      for (const Reduction &r : bucket)
        types.push_back(r.grad.getType());
      std::vector<StringRef> sliceNames(names.begin(), names.end() - 1);
      auto slices = pd::FusedSlicesOp::create(b, loc, types, value, offsets);
      slices->setAttr("op_role", b.getI32IntegerAttr(pd::OpRole::Backward));
      slices->setAttr(pd::kOutNamesAttr.data(), b.getStrArrayAttr(sliceNames));
      return slices;
    };
    if (onlyWaits && !waits.empty()) {
      Operation *first = *llvm::min_element(
          waits, [&](Operation *x, Operation *y) { return position[x] < position[y]; });
      b.setInsertionPoint(first);
      auto wait = pd::buildCatalogOp(
          b, first->getLoc(), "c_sync_comm_stream", {{reduced}},
          {b.getNamedAttr("ring_id", last->getAttr("ring_id") ? last->getAttr("ring_id")
                                                              : b.getI32IntegerAttr(0)),
           backwardRole(b)},
          {fused});
      if (failed(wait))
        return failure();
      pd::FusedSlicesOp slices = slicesOf((*wait)->getResult(0));
      for (auto [i, r] : llvm::enumerate(bucket))
        for (Operation *user : llvm::make_early_inc_range(r.allreduce->getUsers())) {
          user->getResult(0).replaceAllUsesWith(slices.getResult(i));
          user->erase();
        }
    } else {
      b.setInsertionPointAfter(reduced.getDefiningOp());
      pd::FusedSlicesOp slices = slicesOf(reduced);
      for (auto [i, r] : llvm::enumerate(bucket))
        r.allreduce->getResult(0).replaceAllUsesWith(slices.getResult(i));
    }
    for (Reduction &r : bucket) {
      r.allreduce->erase();
      if (r.scale)
        r.scale.erase();
    }
    return success();
  }

  /// distc-data-parallel syncs the compute stream once, on the first
  /// gradient. When that gradient went into a bucket (which syncs for
  /// itself) and no unfused all-reduce follows, the sync has nothing left
  /// to order.
  void dropUnneededSyncs(Operation *train) {
    SmallVector<pd::CSyncCalcStreamOp> syncs;
    for (Operation &op : train->getRegion(0).front())
      if (auto sync = dyn_cast<pd::CSyncCalcStreamOp>(op))
        if (!sync->use_empty() && llvm::all_of(sync->getUsers(), [](Operation *user) {
              return isa<pd::CoalesceTensorOp>(user);
            }))
          syncs.push_back(sync);
    for (pd::CSyncCalcStreamOp sync : syncs) {
      bool unfusedAfter = false;
      for (Operation *op = sync->getNextNode(); op && !unfusedAfter; op = op->getNextNode())
        if (isa<pd::CAllreduceSumOp, pd::CReduceSumOp>(op))
          unfusedAfter = !isFusedBuffer(op->getOperand(0));
      if (unfusedAfter)
        continue;
      sync.getResult().replaceAllUsesWith(sync.getX());
      sync.erase();
    }
  }

  /// Each op's place in the train program before fusion (the waits a
  /// bucket compares are all there from the start).
  llvm::DenseMap<Operation *, size_t> position;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (!(bucketMb > 0)) {
      std::string size;
      llvm::raw_string_ostream(size) << llvm::format("%g", static_cast<double>(bucketMb));
      module.emitError() << "the all-reduce bucket size must be positive, got " << size << " MiB";
      return signalPassFailure();
    }
    Operation *train = findProgram(module, program);
    if (!train) {
      module.emitError() << "fusing all-reduces needs a train mode (no program '" << program
                         << "')";
      return signalPassFailure();
    }
    int64_t cap = std::max<int64_t>(1, static_cast<int64_t>(bucketMb * 1024.0 * 1024.0));
    std::vector<std::vector<Reduction>> buckets = bucketize(collect(train), cap);
    // Positions of the ops before any bucket changes the block: asking
    // isBeforeInBlock after each bucket's insertions would renumber the
    // whole block once per bucket.
    position.clear();
    for (auto [i, op] : llvm::enumerate(train->getRegion(0).front()))
      position[&op] = i;
    OpBuilder b(module.getContext());
    for (std::vector<Reduction> &bucket : buckets)
      if (bucket.size() > 1 && failed(fuse(bucket, b)))
        return signalPassFailure();
    dropUnneededSyncs(train);
  }
};

} // namespace
} // namespace distc
