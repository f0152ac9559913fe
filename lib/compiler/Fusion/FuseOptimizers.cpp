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


#include <list>
#include <map>

namespace distc::fusion {
#define GEN_PASS_DEF_FUSEALLOPTIMIZEROPS
#include "distc/Fusion/Passes.h.inc"
} // namespace distc::fusion

using namespace mlir;

namespace distc::fusion {
namespace {

/// What each fusable optimizer becomes, and its slots in the merged op's
/// order.
struct MergedForm {
  StringRef merged;
  std::vector<StringRef> inputs, outputs;
};

const MergedForm *mergedFormOf(StringRef type) {
  static const std::map<std::string, MergedForm, std::less<>> forms = {
      {"sgd", {"merged_sgd", {"Param", "Grad", "LearningRate"}, {"ParamOut"}}},
      {"momentum",
       {"merged_momentum",
        {"Param", "Grad", "Velocity", "LearningRate"},
        {"ParamOut", "VelocityOut"}}},
      {"adam",
       {"merged_adam",
        {"Param", "Grad", "LearningRate", "Moment1", "Moment2", "Beta1Pow", "Beta2Pow"},
        {"ParamOut", "Moment1Out", "Moment2Out", "Beta1PowOut", "Beta2PowOut"}}},
  };
  auto it = forms.find(type == "adamw" ? StringRef("adam") : type);
  return it == forms.end() ? nullptr : &it->second;
}

/// The operand of input slot `name`, the result of output slot `name`.
Value inputOf(Operation *op, const pd::OpSpec &spec, StringRef name) {
  return operandsOfSlot(op, spec, unsigned(findSlot(spec.inputs, name))).front();
}
Value outputOf(Operation *op, const pd::OpSpec &spec, StringRef name) {
  return resultsOfSlot(op, spec, unsigned(findSlot(spec.outputs, name))).front();
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
      const MergedForm *form = mergedFormOf(op.getName().stripDialect());
      const pd::OpSpec *spec = form ? catalogSpecOf(&op) : nullptr;
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
    const MergedForm &form = *mergedFormOf(group.type);
    Operation *first = group.ops.front();
    const pd::OpSpec *spec = catalogSpecOf(first);
    MLIRContext *ctx = &getContext();
    SmallVector<SmallVector<Value, 1>> operands(form.inputs.size());
    for (Operation *op : group.ops)
      for (auto [i, slot] : llvm::enumerate(form.inputs))
        operands[i].push_back(inputOf(op, *spec, slot));
    std::vector<std::string> names;
    for (StringRef slot : form.outputs)
      for (Operation *op : group.ops)
        names.push_back(variableName(outputOf(op, *spec, slot)));

    SmallVector<NamedAttribute> attrs;
    pd::OpAttributes firstAttrs(first);
    auto named = [&](StringRef name, Attribute value) {
      attrs.push_back(NamedAttribute(StringAttr::get(ctx, name), value));
    };
    auto f32 = [&](double v) { return FloatAttr::get(Float32Type::get(ctx), v); };
    if (form.merged == "merged_adam") {
      for (StringRef name : {"beta1", "beta2", "epsilon"})
        named(name, f32(firstAttrs.getFloat(name)));
      if (group.type == "adamw" && firstAttrs.getBool("with_decay")) {
        named("decoupled", BoolAttr::get(ctx, true));
        named("weight_decay", f32(firstAttrs.getFloat("coeff") * firstAttrs.getFloat("lr_ratio")));
      }
    } else if (form.merged == "merged_momentum") {
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

    log.fused(group.ops, form.merged);
    Operation *last = group.ops.back();
    OpBuilder builder(last);
    FailureOr<Operation *> merged = pd::buildCatalogOp(
        builder, last->getLoc(), form.merged, operands, attrs, names, unsigned(group.ops.size()));
    if (failed(merged))
      return failure();
    // The earlier members' write-backs wait for the merged update.
    deferReaders(group.ops, *merged);
    const size_t n = group.ops.size();
    for (auto [s, slot] : llvm::enumerate(form.outputs))
      for (auto [i, op] : llvm::enumerate(group.ops))
        outputOf(op, *spec, slot).replaceAllUsesWith((*merged)->getResult(s * n + i));
    for (Operation *op : group.ops)
      op->erase();
    return success();
  }
};

} // namespace
} // namespace distc::fusion
