//===- FuseOptimizers.cpp - one multi-tensor update per optimizer ---------===//
//
// BuildStrategy.fuse_all_optimizer_ops: the optimizer ops of a program that
// differ only in the parameter they update (same type, attributes, dtype
// and learning rate) become one merged op, as Paddle's fuse_adam_op_pass,
// fuse_momentum_op_pass and fuse_sgd_op_pass do (its merged_adam and
// merged_momentum; distc's merged_sgd), where the last of them was. Its
// kernel updates every parameter
// in one loop over all their elements, instead of one kernel call, each
// with its own thread fork and join, per parameter: what costs most in a
// model with many small parameters.
//
//===----------------------------------------------------------------------===//

#include "distc/Fusion/Passes.h"

#include "FusionLog.h"
#include "LoopInstructions.h"
#include "PatternUtils.h"

#include "distc/Dialect/Pd/CatalogOpBuilder.h"
#include "distc/Dialect/Pd/OpAttributes.h"
#include "distc/Dialect/Pd/OpCatalog.h"
#include "distc/Dialect/Pd/PdOps.h"
#include "distc/Transforms/ProgramUtils.h"

#include "llvm/ADT/StringSwitch.h"

#include <list>

namespace distc::fusion {
#define GEN_PASS_DEF_FUSEALLOPTIMIZEROPS
#include "distc/Fusion/Passes.h.inc"
} // namespace distc::fusion

using namespace mlir;

namespace distc::fusion {
namespace {

/// The merged op a fusable optimizer becomes (adamw: merged_adam with
/// `decoupled`), or "". Its catalog slots are the optimizer's, each
/// holding one tensor per parameter.
StringRef mergedTypeOf(StringRef type) {
  return llvm::StringSwitch<StringRef>(type)
      .Case("sgd", "merged_sgd")
      .Case("momentum", "merged_momentum")
      .Cases({"adam", "adamw"}, "merged_adam")
      .Default("");
}

/// The operand of input slot `name`, the result of output slot `name`.
Value inputOf(Operation *op, const pd::OpSpec &spec, std::string_view name) {
  return operandsOfSlot(op, spec,
                        unsigned(findSlot(spec.inputs, StringRef(name.data(), name.size()))))
      .front();
}
Value outputOf(Operation *op, const pd::OpSpec &spec, std::string_view name) {
  return resultsOfSlot(op, spec,
                       unsigned(findSlot(spec.outputs, StringRef(name.data(), name.size()))))
      .front();
}

/// The attributes that must agree for two updates to share one merged op:
/// all but the role, the names and the per-parameter regularization (which
/// merged_momentum lists per parameter).
DictionaryAttr sharedAttrs(Operation *op) {
  SmallVector<NamedAttribute> attrs;
  for (NamedAttribute a : op->getAttrs())
    if (a.getName() != "op_role" && a.getName() != "op_role_var" &&
        a.getName() != pd::kOutNamesAttr)
      attrs.push_back(a);
  return DictionaryAttr::get(op->getContext(), attrs);
}

struct Group {
  SmallVector<Operation *> ops;
  DictionaryAttr attrs;
  StringRef type;
  Type elementType;
  Value lr;
};

struct FuseAllOptimizerOpsPass : impl::FuseAllOptimizerOpsBase<FuseAllOptimizerOpsPass> {
  using FuseAllOptimizerOpsBase::FuseAllOptimizerOpsBase;

  void runOnOperation() override {
    FusionLog log("fuse_all_optimizer_ops", explain);
    bool failedAny = false;
    forEachMainProgramBlock(getOperation(), [&](Block &block) {
      if (failed(fuseBlock(block, log)))
        failedAny = true;
    });
    if (failedAny)
      signalPassFailure();
  }

  /// Why `op` cannot be part of any merged update, or "".
  static std::string whyNotMergeable(Operation *op, const pd::OpSpec &spec) {
    pd::OpAttributes attrs(op);
    if (attrs.getBool("lazy_mode"))
      return "lazy_mode updates only the rows a sparse gradient names";
    if (attrs.getBool("multi_precision"))
      return "multi_precision keeps a float32 master copy";
    Value grad = inputOf(op, spec, "Grad");
    if (Operation *def = grad.getDefiningOp())
      if (auto sparse = def->getAttrOfType<BoolAttr>("is_sparse"); sparse && sparse.getValue())
        return "its gradient " + variableName(grad) + " is row-sparse";
    return "";
  }

  LogicalResult fuseBlock(Block &block, FusionLog &log) {
    std::list<Group> groups;
    for (Operation &op : block) {
      const pd::OpSpec *spec =
          mergedTypeOf(op.getName().stripDialect()).empty() ? nullptr : catalogSpecOf(&op);
      if (!spec)
        continue;
      if (std::string why = whyNotMergeable(&op, *spec); !why.empty()) {
        log.left(&op, why);
        continue;
      }
      Value param = inputOf(&op, *spec, "Param");
      Value lr = inputOf(&op, *spec, "LearningRate");
      Type elementType = cast<RankedTensorType>(param.getType()).getElementType();
      DictionaryAttr attrs = sharedAttrs(&op);
      if (op.getName().stripDialect() == "momentum") {
        // Listed per parameter in merged_momentum.
        SmallVector<NamedAttribute> rest;
        for (NamedAttribute a : attrs)
          if (a.getName() != "regularization_method" && a.getName() != "regularization_coeff")
            rest.push_back(a);
        attrs = DictionaryAttr::get(&getContext(), rest);
      }
      // The merged op goes where the group's last update is: what reads
      // an earlier member's results before that must be able to wait.
      Group *joined = nullptr;
      for (Group &group : groups) {
        if (group.type != op.getName().stripDialect() || group.attrs != attrs ||
            group.elementType != elementType || group.lr != lr)
          continue;
        std::string why;
        for (Operation *member : group.ops)
          if (why = whyReadersCannotWait(member, &op); !why.empty())
            break;
        if (why.empty()) {
          joined = &group;
          break;
        }
        log.left(&op, "the merged update would run here, but " + why);
      }
      if (!joined)
        joined =
            &groups.emplace_back(Group{{}, attrs, op.getName().stripDialect(), elementType, lr});
      joined->ops.push_back(&op);
    }
    for (Group &group : groups) {
      if (group.ops.size() < 2)
        continue;
      if (failed(merge(group, log)))
        return failure();
    }
    return success();
  }

  LogicalResult merge(Group &group, FusionLog &log) {
    const StringRef mergedType = mergedTypeOf(group.type);
    const pd::OpSpec &merged =
        *pd::lookupOp(std::string_view(mergedType.data(), mergedType.size()));
    Operation *first = group.ops.front();
    const pd::OpSpec *spec = catalogSpecOf(first);
    MLIRContext *ctx = &getContext();
    SmallVector<SmallVector<Value, 1>> operands(merged.inputs.size());
    for (Operation *op : group.ops)
      for (auto [i, slot] : llvm::enumerate(merged.inputs))
        operands[i].push_back(inputOf(op, *spec, slot.name));
    std::vector<std::string> names;
    for (const pd::SlotSpec &slot : merged.outputs)
      for (Operation *op : group.ops)
        names.push_back(variableName(outputOf(op, *spec, slot.name)));

    SmallVector<NamedAttribute> attrs;
    pd::OpAttributes firstAttrs(first);
    auto named = [&](StringRef name, Attribute value) {
      attrs.push_back(NamedAttribute(StringAttr::get(ctx, name), value));
    };
    auto f32 = [&](double v) { return FloatAttr::get(Float32Type::get(ctx), v); };
    if (mergedType == "merged_adam") {
      for (StringRef name : {"beta1", "beta2", "epsilon"})
        named(name, f32(firstAttrs.getFloat(name)));
      if (group.type == "adamw" && firstAttrs.getBool("with_decay")) {
        named("decoupled", BoolAttr::get(ctx, true));
        named("weight_decay", f32(firstAttrs.getFloat("coeff") * firstAttrs.getFloat("lr_ratio")));
      }
    } else if (mergedType == "merged_momentum") {
      SmallVector<StringRef> methods;
      SmallVector<float> coeffs;
      for (Operation *op : group.ops) {
        pd::OpAttributes a(op);
        methods.push_back(op->getAttrOfType<StringAttr>("regularization_method")
                              ? op->getAttrOfType<StringAttr>("regularization_method").getValue()
                              : StringRef());
        coeffs.push_back(float(a.getFloat("regularization_coeff")));
      }
      named("mu", f32(firstAttrs.getFloat("mu")));
      named("use_nesterov", BoolAttr::get(ctx, firstAttrs.getBool("use_nesterov")));
      named("regularization_method", Builder(ctx).getStrArrayAttr(methods));
      named("regularization_coeff", DenseF32ArrayAttr::get(ctx, coeffs));
      named("rescale_grad", f32(firstAttrs.getFloat("rescale_grad")));
    }
    if (Attribute role = first->getAttr("op_role"))
      named("op_role", role);

    log.fused(group.ops, mergedType);
    Operation *last = group.ops.back();
    OpBuilder builder(last);
    FailureOr<Operation *> fused = pd::buildCatalogOp(builder, last->getLoc(), mergedType, operands,
                                                      attrs, names, unsigned(group.ops.size()));
    if (failed(fused))
      return failure();
    // The earlier members' write-backs wait for the merged update.
    deferReaders(group.ops, *fused);
    const size_t n = group.ops.size();
    for (auto [s, slot] : llvm::enumerate(merged.outputs))
      for (auto [i, op] : llvm::enumerate(group.ops))
        outputOf(op, *spec, slot.name).replaceAllUsesWith((*fused)->getResult(s * n + i));
    for (Operation *op : group.ops)
      op->erase();
    return success();
  }
};

} // namespace
} // namespace distc::fusion
