//===- FuseElementwise.cpp - element-wise groups as generated loops -------===//
//
// BuildStrategy.enable_auto_fusion: every group of element-wise ops becomes
// one pd.fusion_group, a loop the compiler generates for that group (its
// body is the group's ops as instructions, LoopInstructions.h), so a chain
// of n ops reads and writes memory once instead of n times. Which ops are
// element-wise, and as what instruction, is each op's `loopOp` in
// PdOps.td; nothing here names an op.
//
//===----------------------------------------------------------------------===//

#include "distc/Fusion/Passes.h"

#include "FusionLog.h"
#include "LoopInstructions.h"

#include "distc/Transforms/ProgramUtils.h"

#include "llvm/ADT/DenseMap.h"

#include <list>

namespace distc::fusion {
#define GEN_PASS_DEF_FUSEELEMENTWISE
#include "distc/Fusion/Passes.h.inc"
} // namespace distc::fusion

using namespace mlir;

namespace distc::fusion {
namespace {

struct Group {
  SmallVector<Operation *> ops;
  SmallVector<LoopInstruction> instructions;
  RankedTensorType shape;
  int role = 0;
};

/// The op of `block` that is or holds `op`.
Operation *inBlock(Block &block, Operation *op) { return block.findAncestorOpInBlock(*op); }

/// Why `op` may not join `group`, or "" when it may: the group becomes one op
/// at `op`'s place, so no other op may read a group value before it.
std::string whyNotJoin(Block &block, const Group &group, Operation *op,
                       const llvm::DenseMap<Operation *, Group *> &groupOf, int maxInstructions) {
  if (int(group.ops.size()) >= maxInstructions)
    return "its operand's loop already holds " + std::to_string(maxInstructions) + " ops";
  if (cast<RankedTensorType>(op->getResult(0).getType()) != group.shape)
    return "its result's type differs from the loop's";
  if (opRole(op) != group.role)
    return "its op role differs from the loop's";
  for (Operation *member : group.ops)
    for (Operation *user : member->getResult(0).getUsers()) {
      Operation *reader = inBlock(block, user);
      if (reader && reader != op && groupOf.lookup(reader) != &group && reader->isBeforeInBlock(op))
        return "the loop's value " + describeOp(member) + " is read by " + describeOp(reader) +
               " before it";
    }
  return "";
}

struct FuseElementwisePass : impl::FuseElementwiseBase<FuseElementwisePass> {
  using FuseElementwiseBase::FuseElementwiseBase;

  void runOnOperation() override {
    FusionLog log("enable_auto_fusion", explain);
    forEachMainProgramBlock(getOperation(), [&](Block &block) { fuseBlock(block, log); });
  }

  void fuseBlock(Block &block, FusionLog &log) {
    std::list<Group> groups;
    llvm::DenseMap<Operation *, Group *> groupOf;
    // Why an op that could be a loop instruction did not join its operand's
    // loop, for the explanation of those left alone and of split loops.
    llvm::DenseMap<Operation *, std::string> whyAlone;
    for (Operation &op : block) {
      std::string whyNot;
      FailureOr<LoopInstruction> instruction = loopInstructionOf(&op, whyNot);
      if (failed(instruction)) {
        if (!whyNot.empty())
          log.left(&op, whyNot);
        continue;
      }
      Group *joined = nullptr;
      for (Value operand : instruction->operands) {
        Operation *producer = operand.getDefiningOp();
        Group *group = producer ? groupOf.lookup(producer) : nullptr;
        if (!group || group == joined)
          continue;
        std::string why = whyNotJoin(block, *group, &op, groupOf, maxInstructions);
        if (why.empty()) {
          joined = group;
          break;
        }
        whyAlone[&op] = why;
      }
      if (!joined) {
        joined = &groups.emplace_back();
        joined->shape = cast<RankedTensorType>(op.getResult(0).getType());
        joined->role = opRole(&op);
      }
      joined->ops.push_back(&op);
      joined->instructions.push_back(std::move(*instruction));
      groupOf[&op] = joined;
    }
    for (Group &group : groups) {
      auto why = whyAlone.find(group.ops.front());
      if (group.ops.size() < 2) {
        if (why != whyAlone.end())
          log.left(group.ops.front(), why->second);
        continue;
      }
      // A loop that could have continued its operand's: say why it did not.
      if (why != whyAlone.end())
        log.started(group.ops.front(), why->second);
      log.fused(group.ops, "fusion_group");
      buildFusionGroup(group.ops, group.instructions);
    }
  }
};

} // namespace
} // namespace distc::fusion
