//===- TrainingRules.cpp - SPMD rules of optimizers and collectives -------===//
//
// The optimizer updates (Paddle's spmd_rules/optimizer.cc: sgd, adam,
// adamw; distc's momentum, adagrad, decayed_adagrad, rmsprop and ftrl by
// the same reasoning) and the communication and bookkeeping ops of distc's
// data-parallel programs.
//
// An optimizer updates each element of the parameter from the same element
// of its gradient and moments, so they all take one layout: the parameter's
// and gradient's merged one, kept on the axes where the moments agree with
// it. The gradient is asked for whole (not partial): a partial gradient --
// a row-parallel layer's, or a data-parallel one before its all-reduce --
// is reduced before the update. The learning rate and the beta powers keep
// their own layout.
//
//===----------------------------------------------------------------------===//

#include "AxisSharding.h"
#include "RuleFamilies.h"

#include "llvm/ADT/Twine.h"

namespace distc::sharding::detail {
namespace {

/// Merges the parameter's and the gradient's shardings (Paddle's elementwise
/// binary rule over two tensors of one shape).
llvm::Expected<std::vector<int64_t>>
paramGradLayout(const SpmdCall &call, const DistTensorSpec &param, const DistTensorSpec &grad) {
  if (grad.rank() != param.rank())
    return spmdError(call, "Param has " + llvm::Twine(param.rank()) + " axes and Grad " +
                               llvm::Twine(grad.rank()));
  std::string axes = broadcastAxes(param.rank(), param.rank());
  if (param.rank() > 0 && axes.empty())
    return spmdError(call, "Param has too many axes (" + llvm::Twine(param.rank()) + ")");
  auto merged =
      mergeShardings(call, {{axes, param.dist.dimsMapping}, {axes, grad.dist.dimsMapping}});
  if (!merged)
    return merged.takeError();
  return mappingFor(axes, *merged);
}

/// Paddle's AdamInferSpmdDynamic: per axis, the mesh axis that splits it in
/// the parameter/gradient layout or in a moment -- the same one wherever it
/// is split -- and replicated where they disagree.
llvm::Expected<std::vector<int64_t>>
optimizerLayout(const SpmdCall &call, const DistTensorSpec &param, const DistTensorSpec &grad,
                llvm::ArrayRef<const DistTensorSpec *> moments) {
  auto paramGrad = paramGradLayout(call, param, grad);
  if (!paramGrad)
    return paramGrad.takeError();
  for (const DistTensorSpec *moment : moments)
    if (moment->rank() != param.rank())
      return spmdError(call, "Param has " + llvm::Twine(param.rank()) + " axes and a moment " +
                                 llvm::Twine(moment->rank()));
  std::vector<int64_t> layout;
  for (int64_t i = 0; i < param.rank(); ++i) {
    // The parameter's and the gradient's merged mapping counts twice, as
    // in Paddle; it cannot disagree with itself.
    int64_t agreed = (*paramGrad)[i];
    bool conflict = false;
    for (const DistTensorSpec *moment : moments) {
      int64_t d = moment->dist.dimsMapping[i];
      if (d == kReplicated)
        continue;
      if (agreed == kReplicated)
        agreed = d;
      else if (agreed != d)
        conflict = true;
    }
    layout.push_back(conflict ? kReplicated : agreed);
  }
  return layout;
}

/// A scalar-like operand (learning rate, beta power) keeps its layout.
TensorDistAttr asGiven(const DistTensorSpec &spec) { return withoutPartial(spec.dist); }

/// sgd: inputs (Param, LearningRate, Grad, [MasterParam]), outputs
/// (ParamOut, [MasterParamOut]).
llvm::Expected<SpmdInfo> inferSgd(const SpmdCall &call) {
  size_t count = call.inputs.size();
  if (count != 3 && count != 4)
    return spmdError(call, "takes Param, LearningRate, Grad and optionally MasterParam, got " +
                               llvm::Twine(count) + " inputs");
  const DistTensorSpec &param = call.inputs[0], &lr = call.inputs[1], &grad = call.inputs[2];
  auto layout = paramGradLayout(call, param, grad);
  if (!layout)
    return layout.takeError();
  TensorDistAttr attr = makeDistAttr(*layout);
  SpmdInfo info;
  info.inputs = {attr, asGiven(lr), attr};
  info.outputs = {attr};
  if (count == 4) {
    info.inputs.push_back(attr);
    info.outputs.push_back(attr);
  }
  return info;
}

/// adam and adamw: inputs (Param, Grad, LearningRate, Moment1, Moment2,
/// Beta1Pow, Beta2Pow, [MasterParam, [SkipUpdate]]), outputs (ParamOut,
/// Moment1Out, Moment2Out, Beta1PowOut, Beta2PowOut, [MasterParamOut]).
/// SkipUpdate must be whole on every rank.
llvm::Expected<SpmdInfo> inferAdam(const SpmdCall &call) {
  size_t count = call.inputs.size();
  if (count < 7 || count > 9)
    return spmdError(call, "takes Param, Grad, LearningRate, Moment1, Moment2, Beta1Pow, "
                           "Beta2Pow and optionally MasterParam and SkipUpdate, got " +
                               llvm::Twine(count) + " inputs");
  const auto &in = call.inputs;
  auto layout = optimizerLayout(call, in[0], in[1], {&in[3], &in[4]});
  if (!layout)
    return layout.takeError();
  if (count == 9) {
    const TensorDistAttr &skip = in[8].dist;
    if (skip.isPartial() || (skip.tensorRank() > 0 && skip.isSharded(0)))
      return spmdError(call, "SkipUpdate must be whole on every rank, got " + skip.str());
  }
  TensorDistAttr attr = makeDistAttr(*layout);
  SpmdInfo info;
  info.inputs = {attr, attr, asGiven(in[2]), attr, attr, asGiven(in[5]), asGiven(in[6])};
  info.outputs = {attr, attr, attr, asGiven(in[5]), asGiven(in[6])};
  if (count >= 8) {
    info.inputs.push_back(attr);
    info.outputs.push_back(attr);
  }
  if (count == 9)
    info.inputs.push_back(in[8].dist);
  return info;
}

/// momentum (distc; Paddle has no rule): inputs (Param, Grad, Velocity,
/// LearningRate, [MasterParam]), outputs (ParamOut, VelocityOut,
/// [MasterParamOut]); the velocity is a moment as in Adam.
llvm::Expected<SpmdInfo> inferMomentum(const SpmdCall &call) {
  size_t count = call.inputs.size();
  if (count != 4 && count != 5)
    return spmdError(call, "takes Param, Grad, Velocity, LearningRate and optionally "
                           "MasterParam, got " +
                               llvm::Twine(count) + " inputs");
  const auto &in = call.inputs;
  auto layout = optimizerLayout(call, in[0], in[1], {&in[2]});
  if (!layout)
    return layout.takeError();
  TensorDistAttr attr = makeDistAttr(*layout);
  SpmdInfo info;
  info.inputs = {attr, attr, attr, asGiven(in[3])};
  info.outputs = {attr, attr};
  if (count == 5) {
    info.inputs.push_back(attr);
    info.outputs.push_back(attr);
  }
  return info;
}

/// The part an operand plays in an element-wise optimizer update.
enum class Role {
  Param,
  Grad,
  State,  // element for element the parameter's (a moment, an accumulator)
  Scalar, // the learning rate: keeps its own layout
};

/// An update whose parameter, gradient and states line up element for
/// element (as momentum's): one layout for all of them, Adam's, and every
/// output -- the new parameter and states -- in it. `slots` names the
/// inputs for the arity error.
llvm::Expected<SpmdInfo> elementwiseUpdate(const SpmdCall &call, llvm::ArrayRef<Role> roles,
                                           size_t numOutputs, llvm::StringRef slots) {
  if (call.inputs.size() != roles.size())
    return spmdError(call,
                     "takes " + slots + ", got " + llvm::Twine(call.inputs.size()) + " inputs");
  const DistTensorSpec *param = nullptr, *grad = nullptr;
  std::vector<const DistTensorSpec *> states;
  for (size_t i = 0; i < roles.size(); ++i) {
    if (roles[i] == Role::Param)
      param = &call.inputs[i];
    else if (roles[i] == Role::Grad)
      grad = &call.inputs[i];
    else if (roles[i] == Role::State)
      states.push_back(&call.inputs[i]);
  }
  auto layout = optimizerLayout(call, *param, *grad, states);
  if (!layout)
    return layout.takeError();
  TensorDistAttr attr = makeDistAttr(*layout);
  SpmdInfo info;
  for (size_t i = 0; i < roles.size(); ++i)
    info.inputs.push_back(roles[i] == Role::Scalar ? asGiven(call.inputs[i]) : attr);
  info.outputs.assign(numOutputs, attr);
  return info;
}

/// adagrad and decayed_adagrad (distc; Paddle has no rule): inputs (Param,
/// Grad, Moment, LearningRate), outputs (ParamOut, MomentOut).
llvm::Expected<SpmdInfo> inferAdagrad(const SpmdCall &call) {
  return elementwiseUpdate(call, {Role::Param, Role::Grad, Role::State, Role::Scalar}, 2,
                           "Param, Grad, Moment and LearningRate");
}

/// rmsprop (distc): inputs (Param, MeanSquare, [MeanGrad], LearningRate,
/// Grad, Moment), outputs (ParamOut, MomentOut, MeanSquareOut,
/// MeanGradOut); the mean square, mean gradient and moment are states.
llvm::Expected<SpmdInfo> inferRmsprop(const SpmdCall &call) {
  if (call.inputs.size() == 5)
    return elementwiseUpdate(
        call, {Role::Param, Role::State, Role::Scalar, Role::Grad, Role::State}, 4,
        "Param, MeanSquare, optionally MeanGrad, LearningRate, Grad and Moment");
  return elementwiseUpdate(
      call, {Role::Param, Role::State, Role::State, Role::Scalar, Role::Grad, Role::State}, 4,
      "Param, MeanSquare, optionally MeanGrad, LearningRate, Grad and Moment");
}

/// ftrl (distc): inputs (Param, SquaredAccumulator, LinearAccumulator,
/// Grad, LearningRate), outputs (ParamOut, SquaredAccumOut, LinearAccumOut).
llvm::Expected<SpmdInfo> inferFtrl(const SpmdCall &call) {
  return elementwiseUpdate(call, {Role::Param, Role::State, Role::State, Role::Grad, Role::Scalar},
                           3,
                           "Param, SquaredAccumulator, LinearAccumulator, Grad and LearningRate");
}

//===----------------------------------------------------------------------===//
// Communication and bookkeeping ops of distc's data-parallel programs
//===----------------------------------------------------------------------===//
//
// distc writes these ops itself when it makes a program data parallel; their
// operands are then each rank's own tensors, not pieces of a global one.

/// c_allreduce_*, c_broadcast, c_reduce_sum and the reshard collectives
/// (c_allgather, c_reducescatter, alltoall, c_split, c_root_only) of
/// partitioned programs: X -> Out. The op works on the whole of each rank's X
/// (partitioning wrote it for the local pieces), so X and Out are whole on
/// every rank: split, each rank would combine a different
/// piece; partial, the op would be asked to reduce what is already a sum.
llvm::Expected<SpmdInfo> inferCollective(const SpmdCall &call) {
  if (llvm::Error err = checkArity(call, 1, false, 0))
    return std::move(err);
  TensorDistAttr whole = TensorDistAttr::replicated(call.inputs[0].shape.size());
  SpmdInfo info;
  info.inputs = {whole};
  info.outputs = {whole};
  return info;
}

llvm::Expected<SpmdInfo> inferCollectiveReverse(const SpmdCall &call) {
  if (llvm::Error err = checkArity(call, 1, true, 1))
    return std::move(err);
  return inferCollective(call);
}

/// c_sync_calc_stream, c_sync_comm_stream: Out is X once a stream has
/// finished with it -- the value passes unchanged, so any layout does.
llvm::Expected<SpmdInfo> inferStreamSync(const SpmdCall &call) {
  if (llvm::Error err = checkArity(call, 1, false, 0))
    return std::move(err);
  TensorDistAttr attr = withoutPartial(call.inputs[0].dist);
  SpmdInfo info;
  info.inputs = {attr};
  info.outputs = {attr};
  return info;
}

llvm::Expected<SpmdInfo> inferStreamSyncReverse(const SpmdCall &call) {
  if (llvm::Error err = checkArity(call, 1, true, 1))
    return std::move(err);
  TensorDistAttr attr = withoutPartial(call.outputs[0].dist);
  SpmdInfo info;
  info.inputs = {attr};
  info.outputs = {attr};
  return info;
}

/// c_gen_nccl_id: no inputs; Out, the communicator id (a 1-D byte tensor),
/// is the same on every rank.
llvm::Expected<SpmdInfo> inferGenNcclId(const SpmdCall &call) {
  if (llvm::Error err = checkArity(call, 0, false, 0))
    return std::move(err);
  SpmdInfo info;
  info.outputs = {TensorDistAttr::replicated(call.outputs.size() == 1 ? call.outputs[0].shape.size()
                                                                      : size_t(1))};
  return info;
}

/// c_comm_init: X, the communicator id, is the same on every rank; no
/// outputs.
llvm::Expected<SpmdInfo> inferCommInit(const SpmdCall &call) {
  if (llvm::Error err = checkArity(call, 1, false, 0))
    return std::move(err);
  SpmdInfo info;
  info.inputs = {TensorDistAttr::replicated(call.inputs[0].shape.size())};
  return info;
}

/// send, recv, the barriers and split_byref: the parameter-server transpile
/// writes them into a program meant for one process, which then has no
/// mesh to shard over.
llvm::Expected<SpmdInfo> inferParameterServerOp(const SpmdCall &) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "parameter-server ops (send, recv, the barriers) are placed by "
                                 "the pserver transpile; such a program cannot also be sharded");
}

/// delete_var frees its inputs however they are laid out: it asks for no
/// reshard.
llvm::Expected<SpmdInfo> inferDeleteVar(const SpmdCall &call) {
  SpmdInfo info;
  for (const DistTensorSpec &input : call.inputs)
    info.inputs.push_back(input.dist);
  return info;
}

} // namespace

void appendTrainingRules(std::vector<SpmdRule> &rules) {
  rules.push_back({"sgd", inferSgd, nullptr, -1});
  rules.push_back({"momentum", inferMomentum, nullptr, -1});
  rules.push_back({"adam", inferAdam, nullptr, -1});
  rules.push_back({"adamw", inferAdam, nullptr, -1});
  rules.push_back({"adagrad", inferAdagrad, nullptr, -1});
  rules.push_back({"decayed_adagrad", inferAdagrad, nullptr, -1});
  rules.push_back({"rmsprop", inferRmsprop, nullptr, -1});
  rules.push_back({"ftrl", inferFtrl, nullptr, -1});

  for (std::string_view name :
       {"c_allreduce_sum", "c_allreduce_max", "c_allreduce_min", "c_allreduce_prod", "c_broadcast",
        "c_reduce_sum", "c_allgather", "c_reducescatter", "alltoall", "c_split", "c_root_only"})
    rules.push_back({name, inferCollective, inferCollectiveReverse, 1});
  for (std::string_view name : {"c_sync_calc_stream", "c_sync_comm_stream"})
    rules.push_back({name, inferStreamSync, inferStreamSyncReverse, 1});
  rules.push_back({"c_gen_nccl_id", inferGenNcclId, nullptr, -1});
  rules.push_back({"c_comm_init", inferCommInit, nullptr, -1});
  rules.push_back({"delete_var", inferDeleteVar, nullptr, -1});
  rules.push_back({"parameter_server", inferParameterServerOp, nullptr, -1});
}

} // namespace distc::sharding::detail
