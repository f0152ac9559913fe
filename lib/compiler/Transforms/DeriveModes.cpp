//===- DeriveModes.cpp - per-mode main and startup programs ---------------===//
//
// DistModel's rule: a loss and an optimizer make `train`, a loss alone
// `eval`, neither `predict`. `predict` is derived always, `eval` when there
// is a loss, `train` when an optimizer will be applied (`train` option) or
// the program already holds Paddle's backward and optimizer ops. Each mode's
// programs are symbols `<mode>.main` / `<mode>.startup` carrying `pd.mode`
// and `pd.kind` attributes, so later phases never guess from names.
//
//===----------------------------------------------------------------------===//

#include "distc/Transforms/Passes.h"

#include "distc/Dialect/Pd/OpCatalog.h"
#include "distc/Dialect/Pd/PdOps.h"
#include "distc/Transforms/ProgramUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace distc {
#define GEN_PASS_DEF_DERIVEMODES
#include "distc/Transforms/Passes.h.inc"
} // namespace distc

using namespace mlir;

namespace distc {
namespace {

bool fetches(Operation *program, Value value) {
  bool result = false;
  program->walk([&](Operation *op) {
    if (op->getName().getStringRef() == "pd.fetch" && op->getOperand(0) == value)
      result = true;
  });
  return result;
}

void removeFetchesOf(Operation *program, Value value) {
  SmallVector<Operation *> doomed;
  program->walk([&](Operation *op) {
    if (op->getName().getStringRef() == "pd.fetch" && op->getOperand(0) == value)
      doomed.push_back(op);
  });
  for (Operation *op : doomed)
    op->erase();
}

/// Renumbers fetch columns 0..n-1 in program order.
void renumberFetches(Operation *program) {
  int col = 0;
  Builder b(program->getContext());
  program->walk([&](Operation *op) {
    if (op->getName().getStringRef() == "pd.fetch")
      op->setAttr("col", b.getI32IntegerAttr(col++));
  });
}

int countFetches(Operation *program) {
  int n = 0;
  program->walk([&](Operation *op) { n += op->getName().getStringRef() == "pd.fetch"; });
  return n;
}

/// Label feeds: those that reach a loss or metric through its `Label` input
/// slot (softmax_with_cross_entropy, accuracy, ...), as Paddle names it.
/// Predictions cannot depend on labels, which a predict call does not have.
/// One walk back from every Label operand at once, sharing what it has
/// seen, so the cost is the program's size however many losses it has.
llvm::SmallPtrSet<Operation *, 8> labelFeeds(Operation *program) {
  SmallVector<Operation *> worklist;
  program->walk([&](Operation *op) {
    StringRef name = op->getName().getStringRef();
    if (!name.consume_front("pd."))
      return;
    const pd::OpSpec *spec = pd::lookupOp(std::string_view(name.data(), name.size()));
    if (!spec || spec->inputs.size() != op->getNumOperands())
      return;
    for (auto [i, slot] : llvm::enumerate(spec->inputs))
      if (slot.name == "Label")
        if (Operation *def = op->getOperand(i).getDefiningOp())
          worklist.push_back(def);
  });
  llvm::SmallPtrSet<Operation *, 8> labels;
  llvm::DenseSet<Operation *> seen;
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    if (!seen.insert(op).second)
      continue;
    if (op->getName().getStringRef() == "pd.feed")
      labels.insert(op);
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp())
        worklist.push_back(def);
  }
  return labels;
}

/// Removes the fetches of `program` that depend on a label feed: which
/// values do is carried forward through the program in one walk (its ops
/// are in SSA order, every operand defined before its use).
void removeLabelDependentFetches(Operation *program) {
  llvm::SmallPtrSet<Operation *, 8> labels = labelFeeds(program);
  llvm::DenseSet<Operation *> dependent(labels.begin(), labels.end());
  SmallVector<Operation *> doomed;
  for (Operation &op : program->getRegion(0).front()) {
    bool fromLabel = llvm::any_of(op.getOperands(), [&](Value v) {
      Operation *def = v.getDefiningOp();
      return def && dependent.contains(def);
    });
    if (!fromLabel)
      continue;
    if (op.getName().getStringRef() == "pd.fetch")
      doomed.push_back(&op);
    else
      dependent.insert(&op);
  }
  for (Operation *op : doomed)
    op->erase();
}

/// Removes backward, optimizer and learning-rate ops (and the variable
/// writes they feed) from a clone of a training program, leaving the
/// forward pass that eval and predict run.
void stripTrainingOps(Operation *program) {
  SmallVector<Operation *> doomed;
  program->walk([&](Operation *op) {
    if (op != program && isTrainingOp(op))
      doomed.push_back(op);
  });
  llvm::SmallPtrSet<Operation *, 32> doomedSet(doomed.begin(), doomed.end());
  // Sinks of what goes: writes and fetches of a training result, and the
  // delete_vars (release_memory) that free any.
  SmallVector<Operation *> writes;
  program->walk([&](Operation *op) {
    StringRef name = op->getName().getStringRef();
    if (name != "pd.write_var" && name != "pd.fetch" && name != "pd.delete_var")
      return;
    if (doomedSet.contains(op))
      return;
    if (llvm::any_of(op->getOperands(), [&](Value v) {
          Operation *def = v.getDefiningOp();
          return def && doomedSet.contains(def);
        }))
      writes.push_back(op);
  });
  for (Operation *op : writes)
    op->erase();
  for (Operation *op : llvm::reverse(doomed))
    op->erase();
}

/// Fetches `value` at the end of `program` unless it already is.
void ensureFetched(Operation *program, Value value) {
  if (fetches(program, value))
    return;
  OpBuilder at(program->getContext());
  at.setInsertionPointToEnd(&program->getRegion(0).front());
  OperationState state(value.getLoc(), "pd.fetch");
  state.addOperands(value);
  state.addAttribute("col", at.getI32IntegerAttr(0));
  at.create(state);
}

/// Keeps the train program's scalar fetches (loss, metrics) and drops the
/// others: copying predictions out every step would only cost time.
void removeNonScalarFetches(Operation *program) {
  SmallVector<Operation *> doomed;
  program->walk([&](Operation *op) {
    if (op->getName().getStringRef() != "pd.fetch")
      return;
    auto type = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
    if (!type || !type.hasStaticShape() || type.getNumElements() != 1)
      doomed.push_back(op);
  });
  for (Operation *op : doomed)
    op->erase();
}

Operation *cloneProgram(OpBuilder &builder, Operation *program, StringRef mode, StringRef kind) {
  Operation *clone = builder.clone(*program);
  SymbolTable::setSymbolName(clone, builder.getStringAttr((mode + "." + kind).str()));
  clone->setAttr("pd.mode", builder.getStringAttr(mode));
  clone->setAttr("pd.kind", builder.getStringAttr(kind));
  return clone;
}

/// Keeps only the startup writes of variables the mode's main program reads.
void pruneStartup(Operation *startup, const std::set<std::string> &used) {
  SmallVector<Operation *> doomed;
  startup->walk([&](Operation *op) {
    if (op->getName().getStringRef() != "pd.write_var")
      return;
    auto sym = op->getAttrOfType<FlatSymbolRefAttr>("var");
    if (sym && !used.count(sym.getValue().str()))
      doomed.push_back(op);
  });
  for (Operation *op : doomed)
    op->erase();
  pruneDeadOps(startup);
}

/// Removes the communicator setup (c_comm_init, and with it the
/// c_gen_nccl_id that only it reads, once dead ops are pruned) and the
/// parameter broadcasts of a transpiled startup program: eval and predict
/// run in one process, where they have no ranks to talk to (each
/// c_broadcast's result becomes its input).
void dropCommunicatorSetup(Operation *startup) {
  SmallVector<Operation *> doomed;
  startup->walk([&](Operation *op) {
    llvm::StringRef name = op->getName().getStringRef();
    if (name == "pd.c_comm_init")
      doomed.push_back(op);
    if (name == "pd.c_broadcast") {
      op->getResult(0).replaceAllUsesWith(op->getOperand(0));
      doomed.push_back(op);
    }
  });
  for (Operation *op : doomed)
    op->erase();
}

struct DeriveModesPass : impl::DeriveModesBase<DeriveModesPass> {
  using DeriveModesBase::DeriveModesBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    Operation *main = findProgram(module, "main");
    if (!main) {
      module.emitError("no 'pd.program @main' to derive modes from");
      return signalPassFailure();
    }
    Operation *startup = findProgram(module, "startup");
    bool differentiated = hasOptimizerOps(main);
    std::string lossName = loss;
    if (lossName.empty() && differentiated)
      lossName = seededLoss(main);
    if (lossName.empty() && differentiated) {
      main->emitError("the program has backward ops but no loss gradient seed "
                      "(a backward|loss fill_constant): name the loss with --loss");
      return signalPassFailure();
    }
    if (train && differentiated) {
      main->emitError("the program already has backward and optimizer ops: compile it without "
                      "--optimizer, its own optimizer is used");
      return signalPassFailure();
    }
    if (train && lossName.empty()) {
      main->emitError("training needs a loss: name the loss variable with --loss");
      return signalPassFailure();
    }
    if (!lossName.empty()) {
      Value lossValue = findVariable(main, lossName);
      if (!lossValue) {
        main->emitError() << "loss variable '" << lossName
                          << "' is not defined by the main program";
        return signalPassFailure();
      }
      auto type = dyn_cast<RankedTensorType>(lossValue.getType());
      if (!type || !type.hasStaticShape() || type.getNumElements() != 1) {
        main->emitError() << "loss variable '" << lossName << "' must be a scalar, but has type "
                          << lossValue.getType();
        return signalPassFailure();
      }
    }

    OpBuilder builder(module.getContext());
    builder.setInsertionPointAfter(startup ? startup : main);
    SmallVector<std::pair<Operation *, StringRef>> modes;

    // train: the program as it is (backward and optimizer ops are appended
    // later unless Paddle already wrote them), fetching the loss and the
    // program's scalar fetches.
    if (train || differentiated) {
      Operation *trainMain = cloneProgram(builder, main, "train", "main");
      removeNonScalarFetches(trainMain);
      ensureFetched(trainMain, findVariable(trainMain, lossName));
      pruneDeadOps(trainMain);
      renumberFetches(trainMain);
      modes.push_back({trainMain, "train"});
    }

    // predict: the program's own fetches, less the loss and whatever needs a
    // label (metrics).
    Operation *predict = cloneProgram(builder, main, "predict", "main");
    if (differentiated)
      stripTrainingOps(predict);
    if (!lossName.empty())
      removeFetchesOf(predict, findVariable(predict, lossName));
    removeLabelDependentFetches(predict);
    if (countFetches(predict) > 0) {
      pruneDeadOps(predict);
      renumberFetches(predict);
      modes.push_back({predict, "predict"});
    } else if (lossName.empty()) {
      main->emitError() << "the program fetches nothing to predict and has no loss: add fetch "
                           "ops for its outputs, or name the loss with --loss";
      return signalPassFailure();
    } else {
      // A program that fetches only losses and metrics (as training
      // programs do) has no predict mode.
      predict->erase();
    }

    // eval: every fetch of the program plus the loss.
    if (!lossName.empty()) {
      Operation *eval = cloneProgram(builder, main, "eval", "main");
      if (differentiated)
        stripTrainingOps(eval);
      ensureFetched(eval, findVariable(eval, lossName));
      pruneDeadOps(eval);
      renumberFetches(eval);
      modes.push_back({eval, "eval"});
    }

    for (auto [program, mode] : modes) {
      Operation *modeStartup = nullptr;
      if (startup) {
        modeStartup = cloneProgram(builder, startup, mode, "startup");
        // Only training communicates: eval and predict run in one process.
        if (mode != "train")
          dropCommunicatorSetup(modeStartup);
        pruneStartup(modeStartup, readVariables(program));
      } else if (mode == "train") {
        // The optimizer's state needs initializers even when the program
        // came without a startup program.
        auto created = pd::ProgramOp::create(builder, program->getLoc(), "train.startup");
        if (created.getBody().empty())
          created.getBody().emplaceBlock();
        modeStartup = created;
        modeStartup->setAttr("pd.mode", builder.getStringAttr("train"));
        modeStartup->setAttr("pd.kind", builder.getStringAttr("startup"));
      }
    }
    main->erase();
    if (startup)
      startup->erase();
  }
};

} // namespace
} // namespace distc
