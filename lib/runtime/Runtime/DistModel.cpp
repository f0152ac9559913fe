//===- DistModel.cpp - Training, evaluation and prediction API ------------===//

#include "distc/Runtime/DistModel.h"
#include "distc/Runtime/ServerState.h"
#include "distc/Runtime/WholeVariables.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <set>

namespace distc::runtime {
namespace {

std::string str(const flatbuffers::String *s) { return s ? s->str() : std::string(); }

std::vector<std::string>
strings(const flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>> *names) {
  std::vector<std::string> out;
  if (names)
    for (const flatbuffers::String *n : *names)
      out.push_back(n->str());
  return out;
}

std::string joinModes(const Session &s) {
  std::string list;
  for (const std::string &m : s.modes())
    list += (list.empty() ? "" : ", ") + m;
  return list.empty() ? "(none)" : list;
}

/// The double whose shortest decimal form is that of `value`, so that a rate
/// stored as f32 0.1 reads back as 0.1 rather than 0.10000000149011612.
double displayDouble(float value) {
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof buffer - 1, value);
  if (result.ec != std::errc())
    return value;
  *result.ptr = '\0';
  return std::strtod(buffer, nullptr);
}

} // namespace

bool scalarValue(const Tensor &t, double &value) {
  if (!t.defined() || t.numel() != 1)
    return false;
  switch (t.dtype()) {
  case DType::Bool:
  case DType::UInt8:
    value = *t.data<uint8_t>();
    return true;
  case DType::Int8:
    value = *t.data<int8_t>();
    return true;
  case DType::Int16:
    value = *t.data<int16_t>();
    return true;
  case DType::Int32:
    value = *t.data<int32_t>();
    return true;
  case DType::Int64:
    value = static_cast<double>(*t.data<int64_t>());
    return true;
  case DType::Float16:
    value = halfToFloat(*t.data<uint16_t>());
    return true;
  case DType::BFloat16:
    value = bfloat16ToFloat(*t.data<uint16_t>());
    return true;
  case DType::Float32:
    value = *t.data<float>();
    return true;
  case DType::Float64:
    value = *t.data<double>();
    return true;
  }
  return false;
}

DistModel::~DistModel() = default;

std::unique_ptr<DistModel> DistModel::open(const std::string &path, std::string &error) {
  auto session = Session::open(path, error);
  if (!session)
    return nullptr;
  return create(std::move(session), error);
}

std::unique_ptr<DistModel> DistModel::create(std::unique_ptr<Session> session, std::string &error) {
  if (!session) {
    error = "no session";
    return nullptr;
  }
  std::unique_ptr<DistModel> m(new DistModel());
  m->session_ = std::move(session);
  for (const char *mode : {"train", "eval", "predict"})
    if (m->session_->hasMode(mode)) {
      m->mode_ = mode;
      break;
    }
  if (m->mode_.empty()) {
    std::vector<std::string> modes = m->session_->modes();
    if (!modes.empty())
      m->mode_ = modes.front();
  }
  const fb::Training *t = m->artifact()->training();
  if (t && t->schedule())
    m->schedule_ = scheduleParams(*t->schedule());
  return m;
}

bool DistModel::hasTraining() const { return artifact()->training() != nullptr; }

std::string DistModel::lossName() const {
  const fb::Training *t = artifact()->training();
  return t ? str(t->loss()) : std::string();
}

std::string DistModel::optimizerName() const {
  const fb::Training *t = artifact()->training();
  return t ? str(t->optimizer()) : std::string();
}

std::string DistModel::optimizerConfig() const {
  const fb::Training *t = artifact()->training();
  return t ? str(t->config()) : std::string();
}

Status DistModel::initialize() {
  // A data-parallel artifact outside its job (no communicator of its
  // ranks) can still evaluate and predict, whose startup programs do not
  // communicate; its train startup (the broadcasts) cannot run.
  const Collectives *c = session_->collectives();
  const bool outsideJob = artifact()->world_size() > 1 &&
                          (!c || c->size() != artifact()->world_size());
  std::string widest;
  for (const char *mode : {"train", "eval", "predict"})
    if (session_->hasMode(mode) && !(outsideJob && std::string(mode) == "train")) {
      widest = mode;
      break;
    }
  if (widest.empty()) {
    if (session_->modes().empty())
      return Status::error(artifact().name() + " has no programs to initialize");
    widest = session_->modes().front();
  }
  if (Status s = session_->initialize(widest); !s.ok())
    return s;
  step_ = 0;
  serverRate_.reset();
  // The host-written scalars get their first values now, so that every
  // persistent variable is initialized and state dicts can be taken at once.
  const fb::Training *t = artifact()->training();
  if (t && t->step_var() && t->step_var()->size()) {
    Tensor v(DType::Int64, session_->persistent(t->step_var()->str()).shape());
    *v.data<int64_t>() = 0;
    if (Status s = session_->setPersistent(t->step_var()->str(), v); !s.ok())
      return s;
  }
  if (t && schedule_ && t->learning_rate_var() && t->learning_rate_var()->size()) {
    Tensor v(DType::Float32, session_->persistent(t->learning_rate_var()->str()).shape());
    *v.data<float>() = static_cast<float>(learningRateAt(*schedule_, 0));
    if (Status s = session_->setPersistent(t->learning_rate_var()->str(), v); !s.ok())
      return s;
  }
  return Status::success();
}

Status DistModel::checkLossFetch(const std::string &mode) const {
  std::string loss = lossName();
  if (loss.empty() || (mode != "train" && mode != "eval"))
    return Status::success();
  for (const ProgramIO &f : session_->fetches(mode))
    if (f.name == loss)
      return Status::success();
  std::string list;
  for (const ProgramIO &f : session_->fetches(mode))
    list += (list.empty() ? "" : ", ") + f.name;
  return Status::error(
      artifact().name() + ": the " + mode + " program does not fetch the loss '" + loss +
      "' named by the training table; its fetches: " + (list.empty() ? "(none)" : list));
}

Status DistModel::setMode(const std::string &mode) {
  if (!session_->hasMode(mode))
    return Status::error(artifact().name() + ": no mode '" + mode +
                         "'; the artifact has: " + joinModes(*session_));
  if (Status s = checkLossFetch(mode); !s.ok())
    return s;
  mode_ = mode;
  return Status::success();
}

Status DistModel::train() { return setMode("train"); }
Status DistModel::eval() { return setMode("eval"); }
Status DistModel::predict() { return setMode("predict"); }

double DistModel::currentLearningRate() const {
  if (schedule_)
    return learningRateAt(*schedule_, step_);
  const fb::Training *t = artifact()->training();
  double value = std::numeric_limits<double>::quiet_NaN();
  if (t && t->learning_rate_var() && session_->isInitialized(t->learning_rate_var()->str())) {
    Tensor v = session_->persistent(t->learning_rate_var()->str());
    if (v.dtype() == DType::Float32 && v.numel() == 1)
      return displayDouble(*v.data<float>());
    scalarValue(v, value);
  }
  return value;
}

Status DistModel::step(const TensorMap &batch, StepResult &out) {
  out = StepResult();
  if (mode_.empty())
    return Status::error(artifact().name() + " has no programs to run");
  const fb::Training *t = artifact()->training();
  const bool training = mode_ == "train";
  double lr = std::numeric_limits<double>::quiet_NaN();
  if (training && t) {
    std::string lrVar = str(t->learning_rate_var());
    if (!lrVar.empty() && schedule_) {
      lr = learningRateAt(*schedule_, step_);
      Tensor v(DType::Float32, session_->persistent(lrVar).shape());
      *v.data<float>() = static_cast<float>(lr);
      if (Status s = session_->setPersistent(lrVar, v); !s.ok())
        return s;
      // Parameter-server mode: the servers' optimizer ops read their own
      // copies of the rate. The first trainer writes them before it sends
      // this step's gradients, so every server applies the step with the
      // step's rate (Paddle's learning-rate decay block, run by each
      // server before its optimize blocks, keyed here by the trainers'
      // step so that a resumed run goes on where it stopped). Only a new
      // rate is sent.
      if (hasServerState(*session_) && session_->dataReplica().index == 0 &&
          serverRate_ != static_cast<float>(lr)) {
        if (Status s = pushServerState(*session_, {lrVar}); !s.ok())
          return s;
        serverRate_ = static_cast<float>(lr);
      }
    } else if (!lrVar.empty()) {
      lr = currentLearningRate();
    }
    std::string stepVar = str(t->step_var());
    if (!stepVar.empty()) {
      Tensor v(DType::Int64, session_->persistent(stepVar).shape());
      *v.data<int64_t>() = step_;
      if (Status s = session_->setPersistent(stepVar, v); !s.ok())
        return s;
    }
  }
  if (Status s = session_->run(mode_, batch, out.fetches); !s.ok())
    return s;
  if (training)
    ++step_;
  out.step = step_;
  out.learningRate = lr;
  std::string loss = lossName();
  auto it = loss.empty() ? out.fetches.end() : out.fetches.find(loss);
  if (it != out.fetches.end() && it->second.numel() >= 1) {
    // The first element: a loss is normally one element ([1] or []).
    Tensor first(it->second.dtype(), {1});
    std::memcpy(first.data(), it->second.data(), dtypeSize(first.dtype()));
    double value = 0;
    if (scalarValue(first, value)) {
      out.loss = value;
      out.hasLoss = true;
    }
  }
  return Status::success();
}

Status DistModel::stateDictNames(const std::string &mode, std::vector<std::string> &names) const {
  if (mode != "param" && mode != "opt" && mode != "all")
    return Status::error("unknown state dict mode '" + mode + "'; expected param, opt or all");
  std::set<std::string> set;
  const fb::Training *t = artifact()->training();
  if (!t) {
    if (mode != "opt")
      for (const ProgramIO &p : session_->persistentBuffers())
        set.insert(p.name);
  } else {
    if (mode != "opt")
      for (const std::string &n : strings(t->parameters()))
        set.insert(n);
    if (mode != "param")
      for (const std::string &n : strings(t->optimizer_state()))
        set.insert(n);
  }
  names.assign(set.begin(), set.end());
  return Status::success();
}

Status DistModel::variables(const std::vector<std::string> &names, TensorMap &out) const {
  TensorMap copies;
  for (const std::string &name : names) {
    Tensor t = session_->persistent(name);
    if (!t.defined())
      return Status::error("'" + name + "' is not a persistent variable of " + artifact().name());
    if (!session_->isInitialized(name))
      return Status::error("variable '" + name +
                           "' is not initialized; run initialize() or load parameters first");
    Tensor whole;
    if (Status s = gatherWhole(*session_, name, whole); !s.ok())
      return s;
    copies.emplace(name, std::move(whole));
  }
  out = std::move(copies);
  return Status::success();
}

Status DistModel::synchronizeState() {
  // Parameter-server mode: the servers hold the state.
  if (hasServerState(*session_))
    return pullServerState(*session_);
  const fb::Training *t = artifact()->training();
  Collectives *c = session_->collectives();
  if (!t || !t->optimizer_state_owner() || !t->optimizer_state() || !c || c->size() == 1)
    return Status::success();
  for (uint32_t i = 0; i < t->optimizer_state()->size(); ++i) {
    const int32_t owner = t->optimizer_state_owner()->Get(i);
    if (owner < 0)
      continue;
    const std::string name = t->optimizer_state()->Get(i)->str();
    Tensor value = session_->persistent(name);
    if (!value.defined())
      return Status::error("'" + name + "' is not a persistent variable of " + artifact().name());
    if (Status s = c->broadcast(value, owner); !s.ok())
      return Status::error("synchronizing '" + name + "' from rank " + std::to_string(owner) +
                           ": " + s.message());
  }
  return Status::success();
}

Status DistModel::stateDict(const std::string &mode, TensorMap &out) const {
  std::vector<std::string> names;
  if (Status s = stateDictNames(mode, names); !s.ok())
    return s;
  return variables(names, out);
}

Status DistModel::persistables(TensorMap &out) const {
  std::vector<std::string> names;
  for (const ProgramIO &p : session_->persistentBuffers())
    names.push_back(p.name);
  return variables(names, out);
}

Status DistModel::setStateDict(const TensorMap &state, bool strict) {
  std::vector<std::string> all;
  if (Status s = stateDictNames("all", all); !s.ok())
    return s;
  if (strict) {
    for (const std::string &name : all)
      if (!state.count(name))
        return Status::error("the state dict has no variable '" + name +
                             "' (a strict load needs every variable of state_dict(\"all\"))");
    for (const auto &entry : state)
      if (!std::binary_search(all.begin(), all.end(), entry.first))
        return Status::error("variable '" + entry.first +
                             "' is not in the model's state_dict(\"all\") (strict load)");
  }
  // Whole values in, this rank's slices of them out (WholeVariables.h),
  // every one checked before anything is written.
  TensorMap slices;
  for (const auto &[name, value] : state) {
    Tensor slice;
    if (Status s = localSlice(*session_, name, value, slice); !s.ok())
      return Status::error("state dict " + s.message());
    slices.emplace(name, std::move(slice));
  }
  for (const auto &[name, value] : slices)
    if (Status s = session_->setPersistent(name, value); !s.ok())
      return s;
  // Parameter-server mode: the servers' blocks of the new state too,
  // written by the first trainer before any trainer goes on (in
  // asynchronous training another trainer's first gradients must not
  // reach a server before its new state does).
  if (!hasServerState(*session_))
    return Status::success();
  serverRate_.reset(); // the servers' rate may be the state dict's now
  if (session_->dataReplica().index == 0) {
    std::set<std::string> names;
    for (const auto &entry : state)
      names.insert(entry.first);
    if (Status s = pushServerState(*session_, names); !s.ok())
      return s;
  }
  if (const Session::ReplicaSum &sum = session_->replicaSum()) {
    std::vector<double> none(1, 0.0);
    if (Status s = sum(none); !s.ok())
      return Status::error("waiting for the other trainers to load the state: " + s.message());
  }
  return Status::success();
}

} // namespace distc::runtime
