//===- CreationRules.cpp - SPMD rules of creation and boundary ops --------===//
//
// The ops that create a tensor or stand at a program's boundary: the
// creation ops (fill_constant and the random initializers), full_like,
// shape, coalesce_tensor, feed and fetch. Paddle has rules for full_like
// and coalesce_tensor only; the others' rules say why they are as they are.
//
//===----------------------------------------------------------------------===//

#include "AxisSharding.h"
#include "RuleFamilies.h"

#include "llvm/ADT/Twine.h"

namespace distc::sharding::detail {
namespace {

/// fill_constant and the random initializers (Paddle's full, uniform,
/// gaussian, truncated_gaussian): no input to follow, so Out is replicated,
/// of the rank its `shape` gives (or, in reverse, the output's). A random
/// tensor is drawn whole on every rank so that every rank's values are
/// those one device would draw; a sharded consumer takes its piece.
llvm::Expected<SpmdInfo> inferCreation(const SpmdCall &call) {
  if (llvm::Error err = checkArity(call, 0, false, 0))
    return std::move(err);
  return SpmdInfo{{}, {TensorDistAttr::replicated(call.attrs.getInts("shape", {}).size())}};
}

llvm::Expected<SpmdInfo> inferCreationReverse(const SpmdCall &call) {
  if (llvm::Error err = checkArity(call, 0, true, 1))
    return std::move(err);
  return SpmdInfo{{}, {TensorDistAttr::replicated(call.outputs[0].shape.size())}};
}

/// full_like: Out laid out like X, not partial (Paddle's FullLikeInferSpmd).
llvm::Expected<SpmdInfo> inferFullLike(const SpmdCall &call) {
  if (llvm::Error err = checkArity(call, 1, false, 0))
    return std::move(err);
  return SpmdInfo{{call.inputs[0].dist}, {withoutPartial(call.inputs[0].dist)}};
}

/// coalesce_tensor, inputs Input...: each Output like its Input, and the
/// 1-D FusedOutput replicated (Paddle's CoalesceTensorInferSpmd).
llvm::Expected<SpmdInfo> inferCoalesceTensor(const SpmdCall &call) {
  if (call.inputs.empty())
    return spmdError(call, "takes at least one input");
  SpmdInfo info;
  for (const DistTensorSpec &input : call.inputs)
    info.inputs.push_back(input.dist);
  info.outputs = info.inputs;
  info.outputs.push_back(TensorDistAttr::replicated(1));
  return info;
}

/// feed: a program input is laid out as it is annotated, so the rule needs
/// Out (its shape and dist attr, replicated where not annotated), both
/// ways; it is never partial.
llvm::Expected<SpmdInfo> inferFeed(const SpmdCall &call) {
  if (call.inputs.size() != 0 || call.outputs.size() != 1)
    return spmdError(call, "takes no inputs and the output (a feed is laid out as it is "
                           "annotated), got " +
                               llvm::Twine(call.inputs.size()) + " inputs and " +
                               llvm::Twine(call.outputs.size()) + " outputs");
  return SpmdInfo{{}, {withoutPartial(call.outputs[0].dist)}};
}

/// fetch: X is fetched as it is laid out (pd.fetch has no result).
llvm::Expected<SpmdInfo> inferFetch(const SpmdCall &call) {
  if (llvm::Error err = checkArity(call, 1, false, 0))
    return std::move(err);
  return SpmdInfo{{call.inputs[0].dist}, {}};
}

/// shape: Out, the dims of Input, is small and replicated; Input stays as
/// it is (the op reads only Input's global dims). In reverse nothing is
/// asked of Input, which is left replicated.
llvm::Expected<SpmdInfo> inferShape(const SpmdCall &call) {
  if (llvm::Error err = checkArity(call, 1, false, 0))
    return std::move(err);
  return SpmdInfo{{call.inputs[0].dist}, {TensorDistAttr::replicated(1)}};
}

llvm::Expected<SpmdInfo> inferShapeReverse(const SpmdCall &call) {
  if (llvm::Error err = checkArity(call, 1, true, 1))
    return std::move(err);
  return SpmdInfo{{TensorDistAttr::replicated(call.inputs[0].shape.size())},
                  {TensorDistAttr::replicated(call.outputs[0].shape.size())}};
}

} // namespace

void appendCreationRules(std::vector<SpmdRule> &rules) {
  rules.push_back({"full", inferCreation, inferCreationReverse, 1});
  rules.push_back({"full_like", inferFullLike, nullptr, -1});
  rules.push_back({"shape", inferShape, inferShapeReverse, 1});
  rules.push_back({"coalesce_tensor", inferCoalesceTensor, nullptr, -1});
  rules.push_back({"feed", inferFeed, inferFeed, 1});
  rules.push_back({"fetch", inferFetch, nullptr, -1});
}

} // namespace distc::sharding::detail
