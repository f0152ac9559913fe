//===- DeriveModes.cpp - per-mode main and startup programs ---------------===//
//
// DistModel's rule: a loss and an optimizer make `train`, a loss alone
// `eval`, neither `predict`. This serial (forward-only) form derives
// `predict` always and `eval` when a loss is named. Each mode's programs are
// symbols `<mode>.main` / `<mode>.startup` carrying `pd.mode` and
// `pd.kind` attributes, so later phases never guess from names.
//
//===----------------------------------------------------------------------===//

#include "distc/Transforms/Passes.h"

#include "distc/Dialect/Pd/OpCatalog.h"
#include "distc/Transforms/ProgramUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSet.h"

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

/// Names of the persistable variables a program reads.
llvm::StringSet<> readVariables(Operation *program) {
  llvm::StringSet<> names;
  program->walk([&](Operation *op) {
    if (op->getName().getStringRef() == "pd.read_var")
      if (auto sym = op->getAttrOfType<FlatSymbolRefAttr>("var"))
        names.insert(sym.getValue());
  });
  return names;
}

/// The feeds `value` is computed from.
llvm::SmallPtrSet<Operation *, 8> feedsOf(Value value) {
  llvm::SmallPtrSet<Operation *, 8> feeds;
  llvm::SmallPtrSet<Operation *, 32> seen;
  SmallVector<Operation *> worklist;
  if (Operation *def = value.getDefiningOp())
    worklist.push_back(def);
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    if (!seen.insert(op).second)
      continue;
    if (op->getName().getStringRef() == "pd.feed")
      feeds.insert(op);
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp())
        worklist.push_back(def);
  }
  return feeds;
}

/// Label feeds: those that reach a loss or metric through its `Label` input
/// slot (softmax_with_cross_entropy, accuracy, ...), as Paddle names it.
/// Predictions cannot depend on labels, which a predict call does not have.
llvm::SmallPtrSet<Operation *, 8> labelFeeds(Operation *program) {
  llvm::SmallPtrSet<Operation *, 8> labels;
  program->walk([&](Operation *op) {
    StringRef name = op->getName().getStringRef();
    if (!name.consume_front("pd."))
      return;
    const pd::OpSpec *spec = pd::lookupOp(std::string_view(name.data(), name.size()));
    if (!spec || spec->inputs.size() != op->getNumOperands())
      return;
    for (auto [i, slot] : llvm::enumerate(spec->inputs))
      if (slot.name == "Label")
        for (Operation *feed : feedsOf(op->getOperand(i)))
          labels.insert(feed);
  });
  return labels;
}

/// Removes the fetches of `program` that depend on a label feed.
void removeLabelDependentFetches(Operation *program) {
  llvm::SmallPtrSet<Operation *, 8> labels = labelFeeds(program);
  SmallVector<Operation *> doomed;
  program->walk([&](Operation *op) {
    if (op->getName().getStringRef() != "pd.fetch")
      return;
    for (Operation *feed : feedsOf(op->getOperand(0)))
      if (labels.contains(feed)) {
        doomed.push_back(op);
        return;
      }
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
void pruneStartup(Operation *startup, const llvm::StringSet<> &used) {
  SmallVector<Operation *> doomed;
  startup->walk([&](Operation *op) {
    if (op->getName().getStringRef() != "pd.write_var")
      return;
    auto sym = op->getAttrOfType<FlatSymbolRefAttr>("var");
    if (sym && !used.contains(sym.getValue()))
      doomed.push_back(op);
  });
  for (Operation *op : doomed)
    op->erase();
  pruneDeadOps(startup);
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
    if (!loss.empty()) {
      Value lossValue = findVariable(main, loss);
      if (!lossValue) {
        main->emitError() << "loss variable '" << loss << "' is not defined by the main program";
        return signalPassFailure();
      }
      auto type = dyn_cast<RankedTensorType>(lossValue.getType());
      if (!type || !type.hasStaticShape() || type.getNumElements() != 1) {
        main->emitError() << "loss variable '" << loss << "' must be a scalar, but has type "
                          << lossValue.getType();
        return signalPassFailure();
      }
    }

    OpBuilder builder(module.getContext());
    builder.setInsertionPointAfter(startup ? startup : main);

    // predict: the program's own fetches, less the loss and whatever needs a
    // label (metrics).
    Operation *predict = cloneProgram(builder, main, "predict", "main");
    if (!loss.empty())
      removeFetchesOf(predict, findVariable(predict, loss));
    removeLabelDependentFetches(predict);
    if (countFetches(predict) == 0) {
      main->emitError() << "the program fetches nothing but losses and metrics: add fetch "
                           "ops for the outputs to predict";
      return signalPassFailure();
    }
    pruneDeadOps(predict);
    renumberFetches(predict);
    SmallVector<std::pair<Operation *, StringRef>> modes = {{predict, "predict"}};

    // eval: every fetch of the program plus the loss.
    if (!loss.empty()) {
      Operation *eval = cloneProgram(builder, main, "eval", "main");
      Value lossValue = findVariable(eval, loss);
      if (!fetches(eval, lossValue)) {
        OpBuilder at(eval->getContext());
        at.setInsertionPointToEnd(&eval->getRegion(0).front());
        OperationState state(lossValue.getLoc(), "pd.fetch");
        state.addOperands(lossValue);
        state.addAttribute("col", at.getI32IntegerAttr(0));
        at.create(state);
      }
      pruneDeadOps(eval);
      renumberFetches(eval);
      modes.push_back({eval, "eval"});
    }

    for (auto [program, mode] : modes) {
      if (!startup)
        continue;
      Operation *modeStartup = cloneProgram(builder, startup, mode, "startup");
      pruneStartup(modeStartup, readVariables(program));
    }
    main->erase();
    if (startup)
      startup->erase();
  }
};

} // namespace
} // namespace distc
