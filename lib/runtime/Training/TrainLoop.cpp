//===- TrainLoop.cpp - The training loop behind dist-run --mode train -----===//

#include "distc/Training/TrainLoop.h"

#include "FileUtil.h"
#include "OutputPaths.h"
#include "RankReduce.h"

#include "distc/Runtime/WholeVariables.h"
#include "distc/Training/Batcher.h"
#include "distc/Training/DataSpec.h"
#include "distc/Training/Metrics.h"
#include "distc/Training/PaddleParams.h"
#include "distc/Training/TensorBoard.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>

namespace distc::training {

namespace fs = std::filesystem;
using runtime::ProgramIO;
using runtime::StepResult;

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string joinModes(const DistModel &model) {
  std::string list;
  for (const std::string &m : model.session().modes())
    list += (list.empty() ? "" : ", ") + m;
  return list.empty() ? "(none)" : list;
}

/// The columns of `data` that `feeds` names (the ones it lacks are left for
/// checkDatasetFeeds to report).
Dataset onlyFeedColumns(const Dataset &data, const std::map<std::string, FeedSpec> &feeds) {
  Dataset out;
  for (const auto &[name, column] : data.columns)
    if (feeds.count(name)) {
      out.columns[name] = column;
      auto source = data.sources.find(name);
      if (source != data.sources.end())
        out.sources[name] = source->second;
    }
  return out;
}

std::string metricName(const DistModel &model, const std::string &fetch) {
  std::string loss = model.lossName();
  return !loss.empty() && fetch == loss ? "eval_loss" : "eval_" + fetch;
}

/// Every rank calls it (a mesh gathers its split variables); the first
/// worker alone writes.
Status saveTrainingCheckpoint(DistModel &model, const Batcher &batcher, const TrainOptions &options,
                              const nlohmann::json &rankBatchers, bool write,
                              std::string &savedPath) {
  TensorMap state;
  if (Status s = model.stateDict("all", state); !s.ok())
    return Status::error("cannot save a checkpoint: " + s.message());
  if (!write)
    return Status::success();
  TrainingState ts;
  ts.step = model.globalStep();
  ts.epoch = batcher.epoch();
  ts.batcher = batcher.state();
  ts.extra = checkpointExtra(model, options.batchSize);
  if (!rankBatchers.is_null()) {
    ts.extra["split_files"] = true;
    ts.extra["rank_batchers"] = rankBatchers;
  }
  CheckpointOptions co;
  co.keepLast = options.keepCheckpoints;
  return saveCheckpoint(options.checkpointDir, state, ts, co, &savedPath);
}

/// With --split-files every rank batches its own files, and a checkpoint
/// holds every rank's position ("rank_batchers": [[epoch, next_row, rows],
/// ...]); `position` becomes this rank's. Without, the one position is
/// every rank's.
Status rankPosition(const TrainingState &state, const std::string &checkpoint, bool splitFiles,
                    int rank, int worldSize, BatcherState &position) {
  const nlohmann::json &extra = state.extra;
  const bool savedSplit = extra.is_object() && extra.value("split_files", false);
  if (savedSplit != splitFiles)
    return Status::error("cannot resume from " + checkpoint + ": it was saved " +
                         (savedSplit ? "with" : "without") + " --split-files, this run is " +
                         (splitFiles ? "with" : "without") + " it");
  if (!splitFiles)
    return Status::success();
  const nlohmann::json &all =
      extra.contains("rank_batchers") ? extra["rank_batchers"] : nlohmann::json();
  if (!all.is_array() || all.size() != size_t(worldSize))
    return Status::error("cannot resume from " + checkpoint + ": it holds the file positions of " +
                         std::to_string(all.is_array() ? all.size() : 0) + " ranks, this run has " +
                         std::to_string(worldSize) +
                         " (with --split-files the rank count cannot change)");
  const nlohmann::json &mine = all[size_t(rank)];
  if (!mine.is_array() || mine.size() != 3 || !mine[0].is_number_integer() ||
      !mine[1].is_number_integer() || !mine[2].is_number_integer())
    return Status::error("cannot resume from " + checkpoint + ": rank " + std::to_string(rank) +
                         "'s file position is malformed");
  position.epoch = mine[0].get<int64_t>();
  position.nextRow = mine[1].get<int64_t>();
  position.rows = mine[2].get<int64_t>();
  return Status::success();
}

/// Checks the options that do not need the data.
Status checkOptions(const DistModel &model, const TrainOptions &o) {
  if (o.data.empty())
    return Status::error("--mode train needs training data: --data SPEC");
  if (o.batchSize < 1)
    return Status::error("--batch-size must be at least 1, not " + std::to_string(o.batchSize));
  if (o.epochs && o.steps)
    return Status::error("--epochs and --steps are alternatives; give one");
  if (o.epochs && !(*o.epochs > 0 && std::isfinite(*o.epochs)))
    return Status::error("--epochs must be a positive number, not " + formatMetric(*o.epochs));
  if (o.steps && *o.steps < 1)
    return Status::error("--steps must be at least 1, not " + std::to_string(*o.steps));
  if (!(o.holdout >= 0 && o.holdout < 1))
    return Status::error("--holdout must lie in [0, 1), not " + formatMetric(o.holdout));
  if (o.holdout > 0 && !o.evalData.empty())
    return Status::error("--holdout and --eval-data are alternatives; give one");
  if (o.evalEvery < 0 || o.saveEvery < 0)
    return Status::error(std::string(o.evalEvery < 0 ? "--eval-every" : "--save-every") +
                         " must not be negative");
  const bool heldOut = o.holdout > 0 || !o.evalData.empty();
  if (o.evalEvery > 0 && !heldOut)
    return Status::error("--eval-every needs held-out data: --holdout F or --eval-data SPEC");
  if (heldOut && !model.hasMode("eval"))
    return Status::error(model.artifact().name() +
                         ": no mode 'eval' to evaluate the held-out data with; the artifact has: " +
                         joinModes(model));
  if (o.saveEvery > 0 && o.checkpointDir.empty())
    return Status::error("--save-every needs --checkpoint-dir DIR");
  if (o.resume && o.checkpointDir.empty())
    return Status::error("--resume needs --checkpoint-dir DIR");
  if (o.resume && !o.initFrom.empty())
    return Status::error("--resume and --init-from are alternatives: a resumed run takes its "
                         "parameters from the checkpoint");
  if (!o.saveInferencePrefix.empty() && !model.artifact()->inference())
    return Status::error("--save-inference-model: " + model.artifact().name() +
                         " has no inference model payload");
  // The ranks of a mesh replica read the same rows; files split per rank
  // would give them different ones.
  if (o.splitFiles && detail::onMesh(model))
    return Status::error("--split-files: " + model.artifact().name() +
                         " is partitioned over a process mesh, whose ranks read the rows of "
                         "their data-parallel replica from the whole data set");
  return Status::success();
}

} // namespace

std::string formatMetric(double value) {
  if (std::isnan(value))
    return "nan";
  if (std::isinf(value))
    return value > 0 ? "inf" : "-inf";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.4g", value);
  return buffer;
}

std::string EvalResult::format() const {
  std::string out;
  auto loss = metrics.find("eval_loss");
  if (loss != metrics.end())
    out = "eval_loss " + formatMetric(loss->second);
  for (const auto &[name, value] : metrics)
    if (name != "eval_loss")
      out += (out.empty() ? "" : " ") + name + " " + formatMetric(value);
  return out;
}

std::string TrainReport::summary() const {
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.3g", this->seconds);
  std::string epochText = formatMetric(epochs()) + (epochs() == 1 ? " epoch" : " epochs");
  std::string out;
  if (losses.empty())
    out = "nothing to train: already at step " + std::to_string(endStep) + " (" + epochText + ")";
  else if (startStep > 0)
    out = "resumed at step " + std::to_string(startStep) + ", trained to step " +
          std::to_string(endStep) + " (" + epochText + ") in " + seconds + " s: loss " +
          formatMetric(losses.back());
  else
    out = "trained " + std::to_string(endStep) + (endStep == 1 ? " step" : " steps") + " (" +
          epochText + ") in " + seconds + " s: loss " + formatMetric(losses.back());
  if (eval && !eval->metrics.empty())
    out += (losses.empty() ? ": " : "; ") + eval->format();
  return out;
}

std::map<std::string, FeedSpec> feedSpecs(const runtime::Session &session,
                                          const std::string &mode) {
  std::map<std::string, FeedSpec> specs;
  for (const ProgramIO &f : session.feeds(mode))
    specs[f.name] = FeedSpec{f.dtype, f.dims};
  return specs;
}

Status loadDataArguments(const std::vector<std::string> &specs,
                         const std::map<std::string, FeedSpec> &feeds, Dataset &out,
                         const FileShard *shard, std::FILE *log) {
  Dataset data;
  std::vector<std::string> report;
  for (const std::string &text : specs) {
    DataSpec spec;
    if (Status s = parseDataSpec(text, spec); !s.ok())
      return s;
    if (Status s = expandDataFiles(spec); !s.ok())
      return s;
    if (shard) {
      if (spec.files.size() < size_t(shard->workers))
        return Status::error("--split-files: --data '" + text + "' lists " +
                             std::to_string(spec.files.size()) +
                             (spec.files.size() == 1 ? " file" : " files") + " for " +
                             std::to_string(shard->workers) +
                             " ranks; every rank needs at least one (use a wildcard path)");
      spec.files = fileShard(spec.files, shard->rank, shard->workers);
    }
    if (Status s = loadData(data, spec, feeds, log ? &report : nullptr); !s.ok())
      return s;
  }
  if (Status s = checkDatasetFeeds(data, feeds); !s.ok())
    return s;
  // Only now: data that does not fit gets its one-line error alone.
  for (const std::string &line : report)
    std::fprintf(log, "%s\n", line.c_str());
  out = std::move(data);
  return Status::success();
}

VarSpecs variableSpecs(const DistModel &model, const std::vector<std::string> &names) {
  VarSpecs specs;
  for (const std::string &name : names) {
    Tensor t = model.session().persistent(name);
    runtime::Shape whole;
    if (t.defined() && runtime::wholeShape(model.session(), name, whole).ok())
      specs[name] = VarSpec{t.dtype(), whole};
  }
  return specs;
}

Status loadInitialParameters(DistModel &model, const std::string &path) {
  std::vector<std::string> names;
  if (Status s = model.stateDictNames("param", names); !s.ok())
    return s;
  TensorMap params;
  if (Status s = loadParameters(path, variableSpecs(model, names), params); !s.ok())
    return s;
  return model.setStateDict(params, /*strict=*/false);
}

Status saveModelPersistables(const DistModel &model, const std::string &dir, bool write) {
  TensorMap all;
  if (Status s = model.persistables(all); !s.ok())
    return Status::error("cannot save persistables: " + s.message());
  return write ? savePersistables(dir, all) : Status::success();
}

Status saveInferenceModel(const DistModel &model, const std::string &prefix, bool write) {
  const fb::InferenceModel *inference = model.artifact()->inference();
  if (!inference)
    return Status::error("cannot save an inference model: " + model.artifact().name() +
                         " has no inference model payload");
  std::vector<std::string> order;
  if (inference->parameters())
    for (const flatbuffers::String *n : *inference->parameters())
      order.push_back(n->str());
  TensorMap params;
  if (Status s = model.variables(order, params); !s.ok())
    return Status::error("cannot save an inference model: " + s.message());
  if (!write)
    return Status::success();
  std::string parent = detail::parentDirectory(prefix + ".pdmodel");
  std::error_code ec;
  fs::create_directories(parent, ec);
  if (ec)
    return Status::error(parent + ": cannot create: " + ec.message());
  std::string_view program;
  if (inference->program())
    program = std::string_view(reinterpret_cast<const char *>(inference->program()->data()),
                               inference->program()->size());
  if (Status s = detail::writeFileAtomic(prefix + ".pdmodel", program); !s.ok())
    return s;
  return saveCombinedParams(prefix + ".pdiparams", order, params);
}

nlohmann::json checkpointExtra(const DistModel &model, int64_t batchSize) {
  nlohmann::json extra = nlohmann::json::object();
  extra["artifact"] = fs::path(model.artifact().name()).filename().string();
  extra["artifact_checksum"] = model.artifact().checksumHex();
  extra["optimizer"] = model.optimizerName();
  extra["optimizer_config"] = model.optimizerConfig();
  extra["batch_size"] = batchSize;
  extra["world_size"] = detail::worldSizeOf(model);
  extra["data_replicas"] = detail::replicasOf(model);
  extra["partitioned"] = detail::onMesh(model);
  extra["global_batch_size"] = batchSize * detail::replicasOf(model);
  double lr = model.currentLearningRate();
  if (std::isfinite(lr))
    extra["lr"] = lr;
  return extra;
}

Status checkResumable(const DistModel &model, const std::string &checkpoint,
                      const TrainingState &saved, int64_t batchSize, uint64_t seed) {
  const nlohmann::json &extra = saved.extra;
  auto text = [&](const char *key) -> std::optional<std::string> {
    if (!extra.is_object() || !extra.contains(key) || !extra[key].is_string())
      return std::nullopt;
    return extra[key].get<std::string>();
  };
  std::optional<std::string> checksum = text("artifact_checksum");
  if (!checksum)
    return Status::error("cannot resume from " + checkpoint +
                         ": it does not record the artifact it was written for");
  auto integer = [&](const char *key) -> std::optional<int64_t> {
    if (!extra.is_object() || !extra.contains(key) || !extra[key].is_number_integer())
      return std::nullopt;
    return extra[key].get<int64_t>();
  };
  std::vector<std::string> problems;
  nlohmann::json mine = checkpointExtra(model, batchSize);
  const int64_t worldSize = detail::worldSizeOf(model);
  const int64_t savedWorldSize = integer("world_size").value_or(1);
  // Data-parallel replicas: every rank of plain data parallelism.
  const int64_t replicas = detail::replicasOf(model);
  const int64_t savedReplicas = integer("data_replicas").value_or(savedWorldSize);
  const bool savedPartitioned =
      extra.is_object() && extra.contains("partitioned") && extra["partitioned"].is_boolean() &&
      extra["partitioned"].get<bool>();
  // The same program compiled for another number of ranks, or partitioned
  // over a mesh, is another artifact; its state (whole variables, checked
  // one by one when loaded) carries over, so only a checksum change at the
  // same rank count without a mesh is refused.
  if (*checksum != mine["artifact_checksum"].get<std::string>() && savedWorldSize == worldSize &&
      !savedPartitioned && !detail::onMesh(model)) {
    std::optional<std::string> name = text("artifact");
    problems.push_back("it was written for another artifact (checksum " + *checksum +
                       (name ? " of " + *name : std::string()) + "; " + model.artifact().name() +
                       " has " + mine["artifact_checksum"].get<std::string>() + ")");
  }
  std::optional<std::string> optimizer = text("optimizer"), config = text("optimizer_config");
  if ((optimizer && *optimizer != model.optimizerName()) ||
      (config && *config != model.optimizerConfig()))
    problems.push_back("its optimizer is " + optimizer.value_or("?") + " " + config.value_or("") +
                       ", this artifact's is " + model.optimizerName() + " " +
                       model.optimizerConfig());
  // The batcher resumes exactly when every step sees as many rows as
  // before: the global batch (per-replica batch times replicas) must agree.
  std::optional<int64_t> savedBatch = integer("batch_size");
  std::optional<int64_t> savedGlobal = integer("global_batch_size");
  if (!savedGlobal && savedBatch)
    savedGlobal = *savedBatch * savedReplicas;
  if (savedGlobal && *savedGlobal != batchSize * replicas) {
    if (savedReplicas == 1 && replicas == 1)
      problems.push_back("it was saved with --batch-size " + std::to_string(*savedGlobal) +
                         ", this run has " + std::to_string(batchSize));
    else {
      std::string fix = *savedGlobal % replicas == 0
                            ? " (use --batch-size " + std::to_string(*savedGlobal / replicas) + ")"
                            : "";
      problems.push_back("it was saved with a global batch of " + std::to_string(*savedGlobal) +
                         " rows (" + std::to_string(savedReplicas) +
                         " data-parallel replicas x --batch-size " +
                         std::to_string(savedBatch.value_or(*savedGlobal / savedReplicas)) +
                         "), this run has " + std::to_string(batchSize * replicas) + " (" +
                         std::to_string(replicas) + " replicas x " + std::to_string(batchSize) +
                         ")" + fix);
    }
  }
  if (saved.batcher && saved.batcher->seed != seed)
    problems.push_back("it was saved with --seed " + std::to_string(saved.batcher->seed) +
                       ", this run has " + std::to_string(seed));
  if (!saved.batcher)
    problems.push_back("it has no batcher position");
  if (problems.empty())
    return Status::success();
  std::string message = "cannot resume from " + checkpoint + ": ";
  for (size_t i = 0; i < problems.size(); ++i)
    message += (i ? "; " : "") + problems[i];
  return Status::error(message);
}

Status evaluate(DistModel &model, const Dataset &data, int64_t batchSize, EvalResult &result) {
  result = EvalResult();
  Clock::time_point start = Clock::now();
  if (batchSize < 1)
    return Status::error("the evaluation batch size must be at least 1");
  const std::string previous = model.mode();
  if (Status s = model.eval(); !s.ok())
    return s;
  std::map<std::string, FeedSpec> feeds = feedSpecs(model.session(), "eval");
  Dataset d = onlyFeedColumns(data, feeds);
  Status status = checkDatasetFeeds(d, feeds);
  const int64_t n = d.numRows();
  if (status.ok() && n == 0)
    status = Status::error("no held-out rows to evaluate");
  // The metrics are the fetches the program declares with one element, so
  // every rank reduces the same list.
  std::vector<std::string> metricFetches;
  for (const ProgramIO &f : model.fetches())
    if (std::all_of(f.dims.begin(), f.dims.end(), [](int64_t d) { return d == 1; }))
      metricFetches.push_back(f.name);
  // Plain data parallel: each rank evaluates a contiguous share of the
  // rows and the row-weighted sums are added up over the ranks. Fewer rows
  // than ranks: every rank evaluates them all.
  // On a mesh the programs exchange rows, so the ranks go in lockstep over
  // global batches of batchSize rows per replica, each replica reading its
  // equal share (or, for a tail the replicas cannot share equally, all of
  // it; see BatcherOptions::equalShares); the fetches are already the
  // global batch's, the same on every rank.
  const bool lockstep = detail::onMesh(model);
  const int64_t ranks = detail::worldSizeOf(model), rank = detail::rankOf(model);
  const int64_t replicas = detail::replicasOf(model), replica = detail::replicaOf(model);
  const bool sharded = !lockstep && ranks > 1 && n >= ranks;
  const int64_t first = sharded ? rank * n / ranks : 0;
  const int64_t last = sharded ? (rank + 1) * n / ranks : n;
  const int64_t stride = lockstep ? batchSize * replicas : batchSize;
  std::vector<double> sums(metricFetches.size() + 1, 0.0);
  for (int64_t begin = first; status.ok() && begin < last; begin += stride) {
    const int64_t global = std::min(stride, last - begin);
    int64_t from = begin, rows = global;
    if (lockstep && global % replicas == 0) {
      rows = global / replicas;
      from = begin + replica * rows;
    }
    std::vector<int64_t> indices(static_cast<size_t>(rows));
    for (int64_t i = 0; i < rows; ++i)
      indices[size_t(i)] = from + i;
    Dataset batch = selectRows(d, indices);
    StepResult r;
    if (Status s = model.step(batch.columns, r); !s.ok()) {
      status = Status::error("evaluating rows " + std::to_string(from) + ".." +
                             std::to_string(from + rows - 1) + ": " + s.message());
      break;
    }
    for (size_t m = 0; m < metricFetches.size(); ++m) {
      double v = 0;
      auto it = r.fetches.find(metricFetches[m]);
      if (it != r.fetches.end() && runtime::scalarValue(it->second, v))
        sums[m] += v * double(lockstep ? global : rows);
    }
    sums.back() += 1; // batches
  }
  if (status.ok() && sharded)
    status = detail::sumOverRanks(model, sums);
  if (!previous.empty() && previous != "eval")
    (void)model.setMode(previous);
  if (!status.ok())
    return status;
  result.rows = n;
  result.batches = static_cast<int64_t>(sums.back());
  for (size_t m = 0; m < metricFetches.size(); ++m)
    result.metrics[metricName(model, metricFetches[m])] = sums[m] / double(n);
  result.seconds = secondsSince(start);
  return Status::success();
}

namespace {

/// One run of runTraining: the data, the batcher and the outputs its
/// phases share. Data parallel: every rank runs it on its share of each
/// global batch (or, with --split-files, on batches of its own files); the
/// first worker alone writes metrics, progress, checkpoints and the
/// exported models.
class TrainingRun {
public:
  TrainingRun(DistModel &model, const TrainOptions &o, TrainReport &report)
      : model(model), o(o), report(report), rank(detail::rankOf(model)),
        worldSize(detail::worldSizeOf(model)), replica(detail::replicaOf(model)),
        replicas(detail::replicasOf(model)), firstWorker(rank == 0),
        splitFiles(o.splitFiles && worldSize > 1),
        haveHeldOut(o.holdout > 0 || !o.evalData.empty()) {}

  /// The training rows and the held-out ones.
  Status loadData();
  /// The batcher over the training rows and the number of steps to run.
  Status planSteps();
  /// The startup program, then a checkpoint (--resume) or --init-from.
  Status initializeParameters();
  /// Where the first worker will write, before anything is loaded.
  Status checkOutputPaths();
  /// The metrics file, the TensorBoard event file and the progress
  /// reporter (first worker only).
  Status openOutputs();
  /// Train steps until the target, evaluating, reporting and saving on
  /// the way.
  Status trainSteps();
  /// The final evaluation, checkpoint and exports.
  Status finish();

private:
  /// Evaluates the held-out data at `step` into report.eval.
  Status evaluateHeldOut(int64_t step);
  /// Saves a checkpoint; every rank takes part.
  Status saveCheckpoint();
  /// Reports the pending steps (see PendingStep).
  Status flushPendingSteps();

  DistModel &model;
  const TrainOptions &o;
  TrainReport &report;
  const int rank, worldSize;
  /// The data-parallel replica of this rank and their number.
  const int replica, replicas;
  const bool firstWorker, splitFiles, haveHeldOut;

  Dataset train, heldOut;
  Batcher batcher;
  int64_t target = 0;
  MetricsWriter metrics;
  EventFileWriter events;
  ProgressOptions po;
  std::optional<ProgressReporter> progress;

  int64_t lastSaved = -1;
  int64_t lastEval = -1;
  double trainSeconds = 0;
  int64_t rowsTrained = 0;

  // With several ranks a step's loss over the global batch is the
  // row-weighted mean of the ranks' losses. Summing them over the ranks
  // every step would add a collective to each step, so steps wait here,
  // with their local sums, until a batch of them is summed at once: every
  // 10 steps (or the plain progress interval, if shorter), before an
  // evaluation or a checkpoint, and at the end.
  struct PendingStep {
    MetricsRecord record;
    double lossTimesRows = 0;
    double rows = 0;
    /// The global batch's rows (the same on every rank).
    int64_t globalRows = 0;
    double trainSeconds = 0;
  };
  std::vector<PendingStep> pending;
};

Status TrainingRun::loadData() {
  std::map<std::string, FeedSpec> trainFeeds = feedSpecs(model.session(), "train");
  Dataset all;
  const FileShard shard{rank, worldSize};
  if (Status s = loadDataArguments(o.data, trainFeeds, all, splitFiles ? &shard : nullptr,
                                   firstWorker ? o.progress : nullptr);
      !s.ok())
    return s;
  if (o.holdout > 0) {
    if (Status s = splitDataset(all, o.holdout, o.seed, train, heldOut); !s.ok())
      return s;
  } else {
    train = std::move(all);
  }
  if (haveHeldOut) {
    std::map<std::string, FeedSpec> evalFeeds = feedSpecs(model.session(), "eval");
    if (!o.evalData.empty()) {
      if (Status s = loadDataArguments(o.evalData, evalFeeds, heldOut); !s.ok())
        return Status::error("--eval-data: " + s.message());
    } else {
      heldOut = onlyFeedColumns(heldOut, evalFeeds);
      if (Status s = checkDatasetFeeds(heldOut, evalFeeds); !s.ok())
        return Status::error("held-out data: " + s.message());
    }
    if (heldOut.numRows() == 0)
      return Status::error("the held-out data has no rows");
  }
  report.trainRows = train.numRows();
  report.evalRows = haveHeldOut ? heldOut.numRows() : 0;
  return Status::success();
}

Status TrainingRun::planSteps() {
  BatcherOptions bo;
  bo.rank = splitFiles ? 0 : replica;
  bo.worldSize = splitFiles ? 1 : replicas;
  bo.equalShares = detail::onMesh(model);
  bo.batchSize = o.batchSize;
  bo.shuffle = o.shuffle;
  bo.seed = o.seed;
  if (Status s = Batcher::create(std::move(train), bo, batcher); !s.ok())
    return s;
  report.batchesPerEpoch = batcher.batchesPerEpoch();
  if (splitFiles) {
    // Every rank must take as many steps: an epoch is as many batches as
    // the smallest share has. The rows are counted over all ranks.
    std::vector<double> least = {double(report.batchesPerEpoch)};
    std::vector<double> rows = {double(report.trainRows)};
    if (Status s = detail::minOverRanks(model, least); !s.ok())
      return s;
    if (Status s = detail::sumOverRanks(model, rows); !s.ok())
      return s;
    report.batchesPerEpoch = static_cast<int64_t>(least[0]);
    report.trainRows = static_cast<int64_t>(rows[0]);
  }
  // The relative slack keeps e.g. 0.3 * 10 = 3.0000000000000004 at 3 steps.
  const double epochSteps =
      std::ceil(o.epochs.value_or(1.0) * static_cast<double>(report.batchesPerEpoch) * (1 - 1e-12));
  if (!o.steps && epochSteps > 1e15)
    return Status::error("--epochs " + formatMetric(*o.epochs) + " is too many steps (" +
                         std::to_string(report.batchesPerEpoch) + " per epoch)");
  target = o.steps ? *o.steps : static_cast<int64_t>(epochSteps);
  return Status::success();
}

Status TrainingRun::initializeParameters() {
  if (Status s = model.initialize(); !s.ok())
    return s;
  if (o.resume) {
    std::string checkpoint;
    if (Status s = resolveCheckpoint(o.checkpointDir, checkpoint); !s.ok())
      return Status::error("cannot resume: " + s.message());
    TensorMap tensors;
    TrainingState state;
    if (Status s = loadCheckpoint(checkpoint, nullptr, tensors, state); !s.ok())
      return s;
    if (Status s = checkResumable(model, checkpoint, state, o.batchSize, o.seed); !s.ok())
      return s;
    if (Status s = model.setStateDict(tensors, /*strict=*/true); !s.ok())
      return Status::error("cannot resume from " + checkpoint + ": " + s.message());
    BatcherState position = *state.batcher;
    if (Status s = rankPosition(state, checkpoint, splitFiles, rank, worldSize, position); !s.ok())
      return s;
    if (Status s = batcher.restore(position); !s.ok())
      return s;
    model.setGlobalStep(state.step);
    report.resumedFrom = checkpoint;
  } else if (!o.initFrom.empty()) {
    if (Status s = loadInitialParameters(model, o.initFrom); !s.ok())
      return s;
  }
  report.startStep = model.globalStep();
  // A resumed run's state is already saved at its first step.
  lastSaved = o.resume ? model.globalStep() : -1;
  return Status::success();
}

Status TrainingRun::checkOutputPaths() {
  // The first worker alone writes these; a path that cannot take them is
  // refused now, before the data is loaded and the first step runs.
  if (!firstWorker)
    return Status::success();
  if (!o.checkpointDir.empty())
    if (Status s = checkWritableDirectory("--checkpoint-dir", o.checkpointDir); !s.ok())
      return s;
  if (!o.savePersistablesDir.empty())
    if (Status s = checkWritableDirectory("--save-persistables", o.savePersistablesDir); !s.ok())
      return s;
  if (!o.saveInferencePrefix.empty())
    if (Status s = checkWritablePrefix("--save-inference-model", o.saveInferencePrefix); !s.ok())
      return s;
  return Status::success();
}

Status TrainingRun::openOutputs() {
  if (!o.metricsPath.empty() && firstWorker)
    if (Status s = metrics.open(o.metricsPath, /*append=*/o.resume); !s.ok())
      return s;
  if (!o.tensorBoardDir.empty() && firstWorker)
    if (Status s = events.open(o.tensorBoardDir); !s.ok())
      return s;
  po.totalSteps = target;
  po.startStep = model.globalStep();
  po.plainEvery = std::max<int64_t>(1, std::min<int64_t>(100, (target + 9) / 10));
  po.terminal = o.progressTerminal;
  if (o.progress && firstWorker)
    progress.emplace(o.progress, po);
  return Status::success();
}

Status TrainingRun::evaluateHeldOut(int64_t step) {
  EvalResult e;
  if (Status s = evaluate(model, heldOut, o.batchSize, e); !s.ok())
    return s;
  lastEval = step;
  if (progress)
    progress->message("eval at step " + std::to_string(step) + ": " + e.format());
  report.eval = std::move(e);
  return Status::success();
}

Status TrainingRun::saveCheckpoint() {
  // Every rank takes part: under the Reduce strategy the owners hand
  // their optimizer state to the first worker, and with --split-files
  // every rank its position in its files.
  if (Status s = model.synchronizeState(); !s.ok())
    return Status::error("cannot save a checkpoint: " + s.message());
  nlohmann::json rankBatchers;
  if (splitFiles) {
    std::vector<double> positions(3 * size_t(worldSize), 0.0);
    const BatcherState mine = batcher.state();
    positions[3 * size_t(rank)] = double(mine.epoch);
    positions[3 * size_t(rank) + 1] = double(mine.nextRow);
    positions[3 * size_t(rank) + 2] = double(mine.rows);
    if (Status s = detail::sumOverRanks(model, positions); !s.ok())
      return Status::error("cannot save a checkpoint: " + s.message());
    rankBatchers = nlohmann::json::array();
    for (int r = 0; r < worldSize; ++r)
      rankBatchers.push_back({int64_t(positions[3 * r]), int64_t(positions[3 * r + 1]),
                              int64_t(positions[3 * r + 2])});
  }
  std::string saved;
  if (Status s = saveTrainingCheckpoint(model, batcher, o, rankBatchers, firstWorker, saved);
      !s.ok())
    return s;
  lastSaved = model.globalStep();
  if (!firstWorker)
    return Status::success();
  if (progress)
    progress->message("saved checkpoint " + saved);
  return Status::success();
}

Status TrainingRun::flushPendingSteps() {
  if (pending.empty())
    return Status::success();
  std::vector<double> sums;
  for (const PendingStep &p : pending) {
    sums.push_back(p.lossTimesRows);
    sums.push_back(p.rows);
  }
  if (Status s = detail::sumOverRanks(model, sums); !s.ok())
    return Status::error("train step " + std::to_string(pending.back().record.step) + ": " +
                         s.message());
  for (size_t i = 0; i < pending.size(); ++i) {
    MetricsRecord &record = pending[i].record;
    record.loss = sums[2 * i] / sums[2 * i + 1];
    rowsTrained += pending[i].globalRows;
    record.samplesPerSec =
        pending[i].trainSeconds > 0 ? double(rowsTrained) / pending[i].trainSeconds : 0;
    report.losses.push_back(record.loss);
    if (progress)
      progress->update(record.step, record.epoch, record.loss, record.samplesPerSec);
    if (metrics.isOpen())
      if (Status s = metrics.write(record); !s.ok())
        return s;
    if (events.isOpen())
      if (Status s = events.write(record.step, tensorBoardScalars(record)); !s.ok())
        return s;
  }
  // An evaluation's scalars reach TensorBoard at once.
  const bool evaluated = !pending.back().record.extra.empty();
  pending.clear();
  if (evaluated && events.isOpen())
    return events.flush();
  return Status::success();
}

Status TrainingRun::trainSteps() {
  // Several ranks sum their losses every few steps (PendingStep): often
  // enough for a live progress line, rarely next to the gradients' own
  // collectives of every step.
  const int64_t flushEvery = worldSize > 1 ? std::min<int64_t>(po.plainEvery, 10) : 1;
  while (model.globalStep() < target) {
    Batch batch = batcher.next();
    const Clock::time_point stepStart = Clock::now();
    StepResult r;
    if (Status s = model.step(batch.columns, r); !s.ok())
      return Status::error("train step " + std::to_string(model.globalStep() + 1) + ": " +
                           s.message());
    trainSeconds += secondsSince(stepStart);
    report.learningRates.push_back(r.learningRate);
    const int64_t step = model.globalStep();
    PendingStep p;
    p.record.step = step;
    p.record.epoch = batch.epoch;
    p.record.lr = r.learningRate;
    p.lossTimesRows = r.loss * double(batch.rows);
    p.rows = double(batch.rows);
    p.globalRows = batch.globalRows;
    p.trainSeconds = trainSeconds;
    pending.push_back(std::move(p));
    // The last step's record carries the final evaluation.
    const bool evalNow =
        haveHeldOut && ((o.evalEvery > 0 && step % o.evalEvery == 0) || step >= target);
    const bool saveNow = o.saveEvery > 0 && step % o.saveEvery == 0;
    if (evalNow) {
      // The earlier steps first, so progress reads in order; this step's
      // record then carries the evaluation.
      PendingStep current = std::move(pending.back());
      pending.pop_back();
      if (Status s = flushPendingSteps(); !s.ok())
        return s;
      if (Status s = evaluateHeldOut(step); !s.ok())
        return s;
      for (const auto &[name, value] : report.eval->metrics)
        current.record.extra[name] = value;
      pending.push_back(std::move(current));
    }
    if (evalNow || saveNow || step % flushEvery == 0 || step >= target)
      if (Status s = flushPendingSteps(); !s.ok())
        return s;
    if (saveNow)
      if (Status s = saveCheckpoint(); !s.ok())
        return s;
  }
  return Status::success();
}

Status TrainingRun::finish() {
  if (Status s = flushPendingSteps(); !s.ok())
    return s;
  if (haveHeldOut && lastEval != model.globalStep())
    if (Status s = evaluateHeldOut(model.globalStep()); !s.ok())
      return s;
  if (!o.checkpointDir.empty() && lastSaved != model.globalStep())
    if (Status s = saveCheckpoint(); !s.ok())
      return s;
  if (progress)
    progress->finish();
  if (metrics.isOpen())
    if (Status s = metrics.close(); !s.ok())
      return s;
  if (events.isOpen())
    if (Status s = events.close(); !s.ok())
      return s;
  // Every rank takes part (owned optimizer state, a mesh's split
  // variables); the first worker writes.
  if (!o.savePersistablesDir.empty())
    if (Status s = model.synchronizeState(); !s.ok())
      return s;
  if (!o.savePersistablesDir.empty())
    if (Status s = saveModelPersistables(model, o.savePersistablesDir, firstWorker); !s.ok())
      return s;
  if (!o.saveInferencePrefix.empty())
    if (Status s = saveInferenceModel(model, o.saveInferencePrefix, firstWorker); !s.ok())
      return s;
  return Status::success();
}

} // namespace

Status runTraining(DistModel &model, const TrainOptions &o, TrainReport &report) {
  report = TrainReport();
  const Clock::time_point start = Clock::now();
  if (Status s = model.train(); !s.ok())
    return s;
  if (Status s = checkOptions(model, o); !s.ok())
    return s;
  TrainingRun run(model, o, report);
  for (Status (TrainingRun::*phase)() :
       {&TrainingRun::checkOutputPaths, &TrainingRun::loadData, &TrainingRun::planSteps, &TrainingRun::initializeParameters,
        &TrainingRun::openOutputs, &TrainingRun::trainSteps, &TrainingRun::finish})
    if (Status s = (run.*phase)(); !s.ok())
      return s;
  report.endStep = model.globalStep();
  report.seconds = secondsSince(start);
  return Status::success();
}

} // namespace distc::training
