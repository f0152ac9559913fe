//===- MemoryOptimize.cpp - Paddle's memory_optimize variable reuse -------===//
//
// Paddle's memory_optimize(program, skip_opt_set, print_log, level,
// skip_grads) renames variables so that a variable defined after another
// one died takes its name, and with it its memory. In op order: after op
// i, the variables op i read for the last time go into a pool (name,
// shape, dtype, oldest first); each variable op i defines takes the
// first pool entry of the same dtype whose shape fits (level 0: the same
// shape; level 1: both or neither batch-sized, and no more elements) and
// is renamed to it. In SSA the rename is the defining op's `pd.out_names`
// entry, so exported programs read as Paddle's do; the storage itself is
// the planned arena's, which reuses at least as much.
//
// Never renamed nor pooled, as in Paddle: persistable variables, rank-0
// ones, and the skip set (with skip_grads, the gradients the optimizer
// reads too). Also never, unlike Paddle: fetched variables and the new
// values of persistable variables, whose names users and checkpoints see,
// and dropout's outputs, whose name seeds the mask.
//
//===----------------------------------------------------------------------===//

#include "distc/Dialect/Pd/OpAttributes.h"
#include "distc/Dialect/Pd/OpCatalog.h"
#include "distc/Transforms/Passes.h"
#include "distc/Transforms/ProgramUtils.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/raw_ostream.h"

namespace distc {
#define GEN_PASS_DEF_MEMORYOPTIMIZE
#include "distc/Transforms/Passes.h.inc"
} // namespace distc

using namespace mlir;

namespace distc {
namespace {

struct PoolEntry {
  std::string name;
  llvm::SmallVector<int64_t> shape; // -1 for a dynamic dim, as Paddle writes it
  Type elementType;
};

llvm::SmallVector<int64_t> paddleShape(RankedTensorType type) {
  llvm::SmallVector<int64_t> shape;
  for (int64_t d : type.getShape())
    shape.push_back(ShapedType::isDynamic(d) ? -1 : d);
  return shape;
}

int64_t elementCount(llvm::ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n < 0 ? -n : n;
}

/// Paddle's compare_shape.
bool fits(llvm::ArrayRef<int64_t> x, llvm::ArrayRef<int64_t> cache, int level) {
  if (level == 0)
    return x == cache;
  if ((x[0] == -1) != (cache[0] == -1))
    return false;
  return elementCount(x) <= elementCount(cache);
}

class Optimizer {
public:
  Optimizer(int level, const llvm::StringSet<> &skip, bool printLog)
      : level(level), skip(skip), printLog(printLog) {}

  /// Whether `value` may be renamed or pooled.
  bool valid(Value value) const {
    // A training dropout's mask seed derives from its output's name
    // (LowerNn.cpp): renamed, it would draw other masks. The fused ops'
    // dropouts derive theirs from the seed names the fusion passes set,
    // else from their results' names too.
    if (Operation *def = value.getDefiningOp()) {
      static const llvm::StringMap<std::vector<StringRef>> kSeedNames = {
          {"pd.fused_dropout_add", {"seed_name"}},
          {"pd.fused_feedforward", {"dropout1_seed_name", "dropout2_seed_name"}},
          {"pd.fused_attention", {"attn_dropout_seed_name", "dropout_seed_name"}}};
      StringRef type = def->getName().getStringRef();
      if (type == "pd.dropout")
        return false;
      if (auto seeds = kSeedNames.find(type); seeds != kSeedNames.end())
        for (StringRef attr : seeds->second)
          if (pd::OpAttributes(def).getString(attr).empty())
            return false;
    }
    return isMemoryPassCandidate(value, skip);
  }

  void run(Block &block) {
    llvm::DenseMap<Value, Operation *> lastUse = lastUsesIn(block);
    for (Operation &op : block) {
      // The op's definitions take pooled names.
      for (auto [index, result] : llvm::enumerate(op.getResults()))
        if (!pool.empty() && valid(result))
          reuse(&op, index, result);
      // Then what it read for the last time goes into the pool.
      llvm::SetVector<Value> dying;
      op.walk([&](Operation *nested) {
        for (Value operand : nested->getOperands())
          if (operand.getParentBlock() == &block && lastUse.lookup(operand) == &op &&
              valid(operand))
            dying.insert(operand);
      });
      for (Value value : dying) {
        auto type = cast<RankedTensorType>(value.getType());
        PoolEntry entry{variableName(value), paddleShape(type), type.getElementType()};
        bool present = llvm::any_of(pool, [&](const PoolEntry &p) {
          return p.name == entry.name && p.shape == entry.shape;
        });
        if (!present)
          pool.push_back(std::move(entry));
      }
    }
  }

private:
  void reuse(Operation *op, size_t index, Value result) {
    auto type = cast<RankedTensorType>(result.getType());
    llvm::SmallVector<int64_t> shape = paddleShape(type);
    std::string name = variableName(result);
    for (size_t k = 0; k < pool.size(); ++k) {
      const PoolEntry &cache = pool[k];
      if (cache.name == name)
        return; // already its own cache
      if (cache.elementType != type.getElementType() || !fits(shape, cache.shape, level))
        continue;
      if (printLog) {
        llvm::errs() << "memory_optimize: " << name << " reuses " << cache.name
                     << " (pool entry " << k << ", shape [";
        llvm::interleaveComma(cache.shape, llvm::errs());
        llvm::errs() << "])\n";
      }
      rename(op, index, cache.name);
      pool.erase(pool.begin() + long(k));
      return;
    }
  }

  static void rename(Operation *op, size_t index, const std::string &name) {
    auto names = op->getAttrOfType<ArrayAttr>(pd::kOutNamesAttr);
    if (!names || index >= names.size())
      return;
    llvm::SmallVector<Attribute> renamed(names.begin(), names.end());
    renamed[index] = StringAttr::get(op->getContext(), name);
    op->setAttr(pd::kOutNamesAttr, ArrayAttr::get(op->getContext(), renamed));
  }

  const int level;
  const llvm::StringSet<> &skip;
  const bool printLog;
  std::vector<PoolEntry> pool;
};

struct MemoryOptimizePass : impl::MemoryOptimizeBase<MemoryOptimizePass> {
  using MemoryOptimizeBase::MemoryOptimizeBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (level != 0 && level != 1) {
      module.emitError() << "memory_optimize level " << static_cast<int>(level)
                         << " is neither 0 nor 1";
      return signalPassFailure();
    }
    FailureOr<llvm::StringSet<>> skipSet = skipSetOf(module, llvm::to_vector(skip));
    if (failed(skipSet))
      return signalPassFailure();
    // skip_grads: the gradients the optimizer ops read (Paddle's
    // op_role_var[1] of each optimize op).
    if (skipGrads)
      forEachMainProgramBlock(module, [&](Block &block) {
        block.walk([&](Operation *op) {
          if (opRole(op) & pd::OpRole::Optimize)
            for (Value operand : op->getOperands())
              if (StringRef(variableName(operand)).ends_with("@GRAD"))
                skipSet->insert(variableName(operand));
        });
      });
    forEachMainProgramBlock(module, [&](Block &block) {
      Optimizer optimizer(static_cast<int>(level), *skipSet, printLog);
      optimizer.run(block);
    });
  }
};

} // namespace
} // namespace distc
