//===- TrainingOptions.cpp - distc's optimizer settings -------------------===//

#include "distc/Pipeline/TrainingOptions.h"
#include "distc/Fusion/Passes.h"
#include "distc/Support/InputFile.h"
#include "distc/Transforms/Passes.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

namespace distc::pipeline {

/// A fusion pass made by `create`, with its `explain` option set.
template <typename Options, std::unique_ptr<mlir::Pass> (*create)(Options)>
static std::unique_ptr<mlir::Pass> explained(bool explain) {
  Options options;
  options.explain = explain;
  return create(options);
}

const std::vector<FusionOption> &fusionOptions() {
  // Pattern fusions first, so that the generated loops take only what no
  // specific fused op covers; the whole blocks before the parts of them
  // (GEMM epilogues, dropout + add) other options fuse.
  using namespace fusion;
  static const std::vector<FusionOption> options = {
      {"fused_attention", "--fused-attention",
       "A transformer's self-attention block (layer_norm, the QKV linear, the heads' "
       "attention, the output linear, dropouts, the residual add) as one op, forward and "
       "backward (fused_attention)",
       explained<FusedAttentionOptions, createFusedAttention>},
      {"fused_feedforward", "--fused-feedforward",
       "A transformer's feed-forward block (layer_norm, two linears, the activation, "
       "dropouts, the residual add) as one op, forward and backward (fused_feedforward)",
       explained<FusedFeedforwardOptions, createFusedFeedforward>},
      {"fuse_bn_act_ops", "--fuse-bn-act-ops",
       "batch_norm (training form) and the relu after it as one op, forward and backward "
       "(fuse_bn_act_ops)",
       explained<FuseBnActOptions, createFuseBnAct>},
      {"fuse_bn_add_act_ops", "--fuse-bn-add-act-ops",
       "batch_norm, a residual elementwise_add and relu as one op, forward and backward "
       "(fuse_bn_add_act_ops)",
       explained<FuseBnAddActOptions, createFuseBnAddAct>},
      {"fuse_gemm_epilogue", "--fuse-gemm-epilogue",
       "matmul + bias + relu/gelu as one GEMM with its epilogue, forward and backward "
       "(fuse_gemm_epilogue)",
       explained<FuseGemmEpilogueOptions, createFuseGemmEpilogue>},
      {"fuse_dropout_add", "--fuse-dropout-add",
       "dropout and the residual elementwise_add after it as one op, forward and backward "
       "(fuse_dropout_add)",
       explained<FuseDropoutAddOptions, createFuseDropoutAdd>},
      {"fuse_elewise_add_act_ops", "--fuse-elewise-add-act-ops",
       "An elementwise_add and a relu/tanh as one op, forward and backward "
       "(fuse_elewise_add_act_ops)",
       explained<FuseElewiseAddActOptions, createFuseElewiseAddAct>},
      {"fuse_all_optimizer_ops", "--fuse-all-optimizer-ops",
       "One multi-tensor update per kind of optimizer op (fuse_all_optimizer_ops)",
       explained<FuseAllOptimizerOpsOptions, createFuseAllOptimizerOps>},
      {"enable_auto_fusion", "--enable-auto-fusion",
       "Run each group of element-wise ops as one generated loop (enable_auto_fusion)",
       explained<FuseElementwiseOptions, createFuseElementwise>},
  };
  return options;
}

namespace {

/// The config file's top-level keys: distc's flags in Paddle's spelling
/// (the optimizers' keys are their Python arguments' names).
const std::set<std::string> kConfigKeys = {"optimizer",
                                           "loss",
                                           "lr",
                                           "momentum",
                                           "nesterov",
                                           "beta1",
                                           "beta2",
                                           "epsilon",
                                           "initial_accumulator_value",
                                           "decay",
                                           "rho",
                                           "centered",
                                           "l1",
                                           "l2",
                                           "lr_power",
                                           "weight_decay",
                                           "clip_norm",
                                           "no_grad",
                                           "lr_schedule",
                                           "fuse_all_reduce_ops",
                                           "fuse_grad_size_in_MB",
                                           "sync_batch_norm",
                                           "memory_optimize",
                                           "enable_inplace",
                                           "reduce_strategy",
                                           "gradient_scale_strategy",
                                           "mode",
                                           "slice_var_up",
                                           "split_method",
                                           "min_block_size",
                                           "runtime_split_send_recv",
                                           "sync_mode",
                                           "half_async"};
const std::set<std::string> kSchedules = {"constant", "step", "piecewise", "cosine"};

/// The config keys of every fusion option.
std::set<std::string> fusionKeys() {
  std::set<std::string> keys;
  for (const FusionOption &option : fusionOptions())
    keys.insert(option.key);
  return keys;
}

/// Reads `key` of `object` into `out` when present; fails naming the key
/// when it has the wrong JSON type.
template <typename T>
bool read(const nlohmann::json &object, const char *key, T &out, std::string &error) {
  auto it = object.find(key);
  if (it == object.end())
    return true;
  try {
    out = it->get<T>();
    return true;
  } catch (const nlohmann::json::exception &) {
    error = std::string("key '") + key + "' has the wrong type (" + it->type_name() + ")";
    return false;
  }
}

/// read() for a setting whose absence means "the optimizer's default".
bool read(const nlohmann::json &object, const char *key, std::optional<double> &out,
          std::string &error) {
  if (!object.contains(key))
    return true;
  double value = 0;
  if (!read(object, key, value, error))
    return false;
  out = value;
  return true;
}

bool checkKeys(const nlohmann::json &object, const std::set<std::string> &known,
               const std::string &where, std::string &error) {
  for (const auto &[key, value] : object.items())
    if (!known.count(key)) {
      std::string list;
      for (const std::string &k : known)
        list += (list.empty() ? "" : ", ") + k;
      error = "unknown key '" + key + "' in " + where + " (known: " + list + ")";
      return false;
    }
  return true;
}

bool readSchedule(const nlohmann::json &json, artifact::LRScheduleDesc &s, std::string &error) {
  if (!json.is_object()) {
    error = "'lr_schedule' must be an object";
    return false;
  }
  return checkKeys(json,
                   {"kind", "step_size", "gamma", "boundaries", "values", "decay_steps", "end_lr",
                    "warmup_steps", "warmup_start_lr"},
                   "'lr_schedule'", error) &&
         read(json, "kind", s.kind, error) && read(json, "step_size", s.stepSize, error) &&
         read(json, "gamma", s.gamma, error) && read(json, "boundaries", s.boundaries, error) &&
         read(json, "values", s.values, error) && read(json, "decay_steps", s.decaySteps, error) &&
         read(json, "end_lr", s.endLr, error) && read(json, "warmup_steps", s.warmupSteps, error) &&
         read(json, "warmup_start_lr", s.warmupStartLr, error);
}

bool readConfigFile(const std::string &path, TrainingOptions &out, std::string &error) {
  // A config file is small; reading it whole through the checked reader
  // refuses directories and devices by name instead of letting a stream
  // throw mid-parse.
  std::string text;
  if (!support::readInputFile(path, text, error)) {
    error = "--config " + error;
    return false;
  }
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error &e) {
    error = path + ": not valid JSON: " + e.what();
    return false;
  }
  auto fail = [&] {
    error = path + ": " + error;
    return false;
  };
  if (!json.is_object()) {
    error = "the top level must be an object";
    return fail();
  }
  std::set<std::string> known = kConfigKeys;
  known.merge(fusionKeys());
  if (!checkKeys(json, known, "the config", error) ||
      !read(json, "optimizer", out.optimizer, error) || !read(json, "loss", out.loss, error) ||
      !read(json, "lr", out.lr, error) || !read(json, "momentum", out.momentum, error) ||
      !read(json, "nesterov", out.nesterov, error) || !read(json, "beta1", out.beta1, error) ||
      !read(json, "beta2", out.beta2, error) || !read(json, "epsilon", out.epsilon, error) ||
      !read(json, "weight_decay", out.weightDecay, error) ||
      !read(json, "clip_norm", out.clipNorm, error) || !read(json, "no_grad", out.noGrad, error))
    return fail();
  // --- Adagrad, DecayedAdagrad, RMSProp, FTRL (Paddle's argument names) ---
  if (!read(json, "initial_accumulator_value", out.initialAccumulatorValue, error) ||
      !read(json, "decay", out.decay, error) || !read(json, "rho", out.rho, error) ||
      !read(json, "centered", out.centered, error) || !read(json, "l1", out.l1, error) ||
      !read(json, "l2", out.l2, error) || !read(json, "lr_power", out.lrPower, error))
    return fail();
  // --- BuildStrategy: fused all-reduce buckets (Paddle's key names) ---
  if (!read(json, "fuse_all_reduce_ops", out.fuseAllReduce, error) ||
      !read(json, "fuse_grad_size_in_MB", out.fuseGradSizeMb, error))
    return fail();
  // --- BuildStrategy: batch_norm over every rank's batch ---
  if (!read(json, "sync_batch_norm", out.syncBatchNorm, error))
    return fail();
  // --- BuildStrategy: memory ---
  if (!read(json, "memory_optimize", out.memoryOptimize, error) ||
      !read(json, "enable_inplace", out.enableInplace, error))
    return fail();
  // --- BuildStrategy: op fusion ---
  for (const FusionOption &option : fusionOptions()) {
    bool on = false;
    if (json.contains(option.key)) {
      if (!read(json, option.key, on, error))
        return fail();
      out.fusion[option.key] = on;
    }
  }
  // --- BuildStrategy: reduce and gradient-scale strategies ---
  auto readChoice = [&](const char *key, const std::map<std::string, std::string> &choices,
                        std::string &target) {
    std::string value;
    if (!json.contains(key))
      return true;
    if (!read(json, key, value, error))
      return false;
    auto it = choices.find(value);
    if (it == choices.end()) {
      std::string list;
      for (const auto &[name, meaning] : choices)
        list += (list.empty() ? "" : ", ") + name;
      error = "'" + std::string(key) + "' is '" + value + "', not one of " + list;
      return false;
    }
    target = it->second;
    return true;
  };
  if (!readChoice("reduce_strategy",
                  {{"AllReduce", "all-reduce"},
                   {"all-reduce", "all-reduce"},
                   {"Reduce", "reduce"},
                   {"reduce", "reduce"}},
                  out.reduceStrategy) ||
      !readChoice("gradient_scale_strategy",
                  {{"CoeffNumDevice", "coeff-num-device"},
                   {"coeff-num-device", "coeff-num-device"},
                   {"One", "one"},
                   {"one", "one"},
                   {"Customized", "customized"},
                   {"customized", "customized"}},
                  out.gradientScale))
    return fail();
  // --- DistributeTranspilerConfig (Paddle's key names) ---
  if (!read(json, "mode", out.transpilerMode, error) ||
      !read(json, "slice_var_up", out.sliceVarUp, error) ||
      !read(json, "split_method", out.splitMethod, error) ||
      !read(json, "min_block_size", out.minBlockSize, error) ||
      !read(json, "runtime_split_send_recv", out.runtimeSplitSendRecv, error) ||
      !read(json, "sync_mode", out.syncMode, error) ||
      !read(json, "half_async", out.halfAsync, error))
    return fail();
  for (const char *key : {"slice_var_up", "split_method", "min_block_size",
                          "runtime_split_send_recv", "sync_mode", "half_async"})
    if (json.contains(key))
      out.pserverKeys.push_back(key);
  if (auto it = json.find("lr_schedule"); it != json.end()) {
    out.hasSchedule = true;
    if (!readSchedule(*it, out.schedule, error))
      return fail();
  }
  return true;
}

/// A setting's value as the user wrote it, not std::to_string's 0.000000.
std::string number(double value) {
  std::ostringstream os;
  os << value;
  return os.str();
}

bool validate(TrainingOptions &o, std::string &error) {
  auto bad = [&](const std::string &message) {
    error = message;
    return false;
  };
  if (!o.optimizer.empty() && !llvm::is_contained(knownOptimizers(), o.optimizer))
    return bad("--optimizer (config 'optimizer'): unknown optimizer '" + o.optimizer +
               "' (expected " + llvm::join(knownOptimizers(), ", ") + ")");
  if (!(o.lr > 0) || !std::isfinite(o.lr))
    return bad("--lr (config 'lr'): the learning rate must be positive and finite, got " +
               number(o.lr));
  if (!(o.momentumValue() >= 0 && o.momentumValue() < 1))
    return bad("--momentum (config 'momentum') must be in [0, 1), got " +
               number(o.momentumValue()));
  if (!(o.beta1 >= 0 && o.beta1 < 1))
    return bad("--beta1 (config 'beta1') must be in [0, 1), got " + number(o.beta1));
  if (!(o.beta2 >= 0 && o.beta2 < 1))
    return bad("--beta2 (config 'beta2') must be in [0, 1), got " + number(o.beta2));
  if (!(o.epsilonValue() > 0) || !std::isfinite(o.epsilonValue()))
    return bad("--epsilon (config 'epsilon') must be positive and finite, got " +
               number(o.epsilonValue()));
  // Adagrad's moment is under a square root; decay and rho weigh the old
  // average against the new gradient; FTRL's powers of the accumulated
  // squares start from 0, which a positive lr_power would divide by.
  if (!(o.initialAccumulatorValue >= 0) || !std::isfinite(o.initialAccumulatorValue))
    return bad("--initial-accumulator-value (config 'initial_accumulator_value') must be "
               "finite and not negative, got " +
               number(o.initialAccumulatorValue));
  if (!(o.decay >= 0 && o.decay < 1))
    return bad("--decay (config 'decay') must be in [0, 1), got " + number(o.decay));
  if (!(o.rho >= 0 && o.rho < 1))
    return bad("--rho (config 'rho') must be in [0, 1), got " + number(o.rho));
  if (!(o.l1 >= 0) || !std::isfinite(o.l1) || !(o.l2 >= 0) || !std::isfinite(o.l2))
    return bad("--l1 and --l2 (config 'l1', 'l2') must be finite and not negative, got " +
               number(o.l1) + " and " + number(o.l2));
  if (!(o.lrPower <= 0) || !std::isfinite(o.lrPower))
    return bad("--lr-power (config 'lr_power') must be finite and not positive, got " +
               number(o.lrPower));
  if (!(o.weightDecay >= 0) || !std::isfinite(o.weightDecay))
    return bad("--weight-decay (config 'weight_decay') must be finite and not negative, got " +
               number(o.weightDecay));
  if (!(o.clipNorm >= 0) || !std::isfinite(o.clipNorm))
    return bad("--clip-norm (config 'clip_norm') must be finite and not negative, got " +
               number(o.clipNorm));
  if (!(o.fuseGradSizeMb > 0) || !std::isfinite(o.fuseGradSizeMb))
    return bad("--fuse-grad-size-mb (config 'fuse_grad_size_in_MB'): the all-reduce bucket "
               "size must be positive, got " +
               number(o.fuseGradSizeMb));
  // distc's flags and config file check these spellings as they read them;
  // other callers (distc-opt's pipeline options) are checked here.
  if (o.reduceStrategy != "all-reduce" && o.reduceStrategy != "reduce")
    return bad("unknown reduce strategy '" + o.reduceStrategy +
               "' (expected all-reduce or reduce)");
  if (o.gradientScale != "coeff-num-device" && o.gradientScale != "one" &&
      o.gradientScale != "customized")
    return bad("unknown gradient scale strategy '" + o.gradientScale +
               "' (expected coeff-num-device, one or customized)");
  if (!o.transpilerMode.empty() && o.transpilerMode != "pserver" && o.transpilerMode != "nccl2" &&
      o.transpilerMode != "collective")
    return bad("--transpiler (config 'mode'): unknown mode '" + o.transpilerMode +
               "' (expected pserver, nccl2 or collective)");
  if (o.transpilerMode != "pserver" && !o.pserverKeys.empty())
    return bad("config key '" + o.pserverKeys.front() +
               "' configures the parameter-server transpile; give --transpiler pserver (config "
               "'mode')");
  if (o.splitMethod != "RoundRobin" && o.splitMethod != "HashName")
    return bad("config 'split_method' is '" + o.splitMethod + "', not RoundRobin or HashName");
  if (o.minBlockSize < 8192)
    return bad("config 'min_block_size' = " + std::to_string(o.minBlockSize) +
               " is below Paddle's smallest, 8192");
  // Paddle's config refuses these combinations when they are set.
  if (o.runtimeSplitSendRecv && o.syncMode)
    return bad("config 'runtime_split_send_recv' needs asynchronous training (sync_mode "
               "false, --sync-mode false)");
  if (o.halfAsync && (o.syncMode || !o.runtimeSplitSendRecv))
    return bad("config 'half_async' applies to asynchronous training with "
               "runtime_split_send_recv only");
  if (!o.hasSchedule)
    return true;
  artifact::LRScheduleDesc &s = o.schedule;
  s.baseLr = o.lr;
  if (!kSchedules.count(s.kind))
    return bad("--lr-schedule (config 'lr_schedule.kind'): unknown schedule '" + s.kind +
               "' (expected constant, step, piecewise or cosine)");
  if (s.kind == "step" && (s.stepSize < 1 || !(s.gamma > 0)))
    return bad("a step schedule needs --lr-step-size (config 'step_size') >= 1 and --lr-gamma "
               "('gamma') > 0");
  if (s.kind == "piecewise") {
    if (s.values.size() != s.boundaries.size() + 1)
      return bad("a piecewise schedule needs one more --lr-values than --lr-boundaries (config "
                 "'values', 'boundaries'; have " +
                 std::to_string(s.boundaries.size()) + " boundaries, " +
                 std::to_string(s.values.size()) + " values)");
    for (size_t i = 1; i < s.boundaries.size(); ++i)
      if (s.boundaries[i] <= s.boundaries[i - 1])
        return bad("--lr-boundaries (config 'boundaries') must increase");
  }
  if (s.kind == "cosine" && s.decaySteps < 1)
    return bad("a cosine schedule needs --lr-decay-steps (config 'decay_steps') >= 1");
  if (s.warmupSteps < 0)
    return bad("--warmup-steps (config 'warmup_steps') must not be negative");
  return true;
}

} // namespace

bool resolveTrainingOptions(const TrainingFlags &f, TrainingOptions &o, std::string &error) {
  if (!f.config.empty() && !readConfigFile(f.config, o, error))
    return false;
  auto set = [](auto &target, const auto &flag) {
    if (flag)
      target = *flag;
  };
  set(o.optimizer, f.optimizer);
  set(o.loss, f.loss);
  set(o.lr, f.lr);
  set(o.momentum, f.momentum);
  set(o.nesterov, f.nesterov);
  set(o.beta1, f.beta1);
  set(o.beta2, f.beta2);
  set(o.epsilon, f.epsilon);
  set(o.initialAccumulatorValue, f.initialAccumulatorValue);
  set(o.decay, f.decay);
  set(o.rho, f.rho);
  set(o.centered, f.centered);
  set(o.l1, f.l1);
  set(o.l2, f.l2);
  set(o.lrPower, f.lrPower);
  set(o.weightDecay, f.weightDecay);
  set(o.clipNorm, f.clipNorm);
  if (!f.noGrad.empty())
    o.noGrad = f.noGrad;
  artifact::LRScheduleDesc &s = o.schedule;
  bool scheduleFlag = f.schedule || f.stepSize || f.gamma || !f.boundaries.empty() ||
                      !f.values.empty() || f.decaySteps || f.endLr || f.warmupSteps ||
                      f.warmupStartLr;
  if (scheduleFlag)
    o.hasSchedule = true;
  set(s.kind, f.schedule);
  set(s.stepSize, f.stepSize);
  set(s.gamma, f.gamma);
  if (!f.boundaries.empty())
    s.boundaries = f.boundaries;
  if (!f.values.empty())
    s.values = f.values;
  set(s.decaySteps, f.decaySteps);
  set(s.endLr, f.endLr);
  set(s.warmupSteps, f.warmupSteps);
  set(s.warmupStartLr, f.warmupStartLr);
  if (f.fuseAllReduce)
    o.fuseAllReduce = true;
  set(o.fuseGradSizeMb, f.fuseGradSizeMb);
  if (f.syncBatchNorm)
    o.syncBatchNorm = true;
  set(o.memoryOptimize, f.memoryOptimize);
  set(o.enableInplace, f.enableInplace);
  for (const std::string &key : f.fusion)
    o.fusion[key] = true;
  set(o.reduceStrategy, f.reduceStrategy);
  set(o.gradientScale, f.gradientScale);
  set(o.transpilerMode, f.transpilerMode);
  if (f.syncMode) {
    o.syncMode = *f.syncMode;
    if (std::find(o.pserverKeys.begin(), o.pserverKeys.end(), "sync_mode") == o.pserverKeys.end())
      o.pserverKeys.push_back("sync_mode");
  }
  return validate(o, error);
}

nlohmann::json TrainingOptions::toJson() const {
  nlohmann::json j = {{"optimizer", optimizer}, {"lr", lr}};
  if (optimizer == "momentum") {
    j["momentum"] = momentumValue();
    j["nesterov"] = nesterov;
  }
  if (optimizer == "adam" || optimizer == "adamw") {
    j["beta1"] = beta1;
    j["beta2"] = beta2;
    j["epsilon"] = epsilonValue();
  }
  if (optimizer == "adagrad") {
    j["epsilon"] = epsilonValue();
    j["initial_accumulator_value"] = initialAccumulatorValue;
  }
  if (optimizer == "decayed_adagrad") {
    j["decay"] = decay;
    j["epsilon"] = epsilonValue();
  }
  if (optimizer == "rmsprop") {
    j["rho"] = rho;
    j["epsilon"] = epsilonValue();
    j["momentum"] = momentumValue();
    j["centered"] = centered;
  }
  if (optimizer == "ftrl") {
    j["l1"] = l1;
    j["l2"] = l2;
    j["lr_power"] = lrPower;
  }
  j["weight_decay"] = weightDecay;
  j["clip_norm"] = clipNorm;
  if (!noGrad.empty())
    j["no_grad"] = noGrad;
  if (hasSchedule) {
    const artifact::LRScheduleDesc &s = schedule;
    nlohmann::json js = {{"kind", s.kind}};
    if (s.kind == "step") {
      js["step_size"] = s.stepSize;
      js["gamma"] = s.gamma;
    } else if (s.kind == "piecewise") {
      js["boundaries"] = s.boundaries;
      js["values"] = s.values;
    } else if (s.kind == "cosine") {
      js["decay_steps"] = s.decaySteps;
      js["end_lr"] = s.endLr;
    }
    if (s.warmupSteps > 0) {
      js["warmup_steps"] = s.warmupSteps;
      js["warmup_start_lr"] = s.warmupStartLr;
    }
    j["lr_schedule"] = js;
  }
  // The fusions applied, so that the artifact says how it was built.
  for (const auto &[key, on] : fusion)
    if (on)
      j[key] = true;
  return j;
}

double TrainingOptions::momentumValue() const {
  return momentum ? *momentum : optimizerDefaultMomentum(optimizer);
}

double TrainingOptions::epsilonValue() const {
  return epsilon ? *epsilon : optimizerDefaultEpsilon(optimizer);
}

} // namespace distc::pipeline
