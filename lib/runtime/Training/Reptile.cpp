//===- Reptile.cpp - Meta-learning on few-shot episodes -------------------===//

#include "distc/Training/Reptile.h"

#include "RankReduce.h"

#include "distc/Training/DataSpec.h"
#include "distc/Training/ImageFolder.h"
#include "distc/Training/Metrics.h"
#include "distc/Training/Random.h"

#include <chrono>
#include <cmath>
#include <cstdio>

namespace distc::training {

using runtime::ProgramIO;
using runtime::StepResult;

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

Status checkReptileOptions(const DistModel &model, const TrainOptions &t, const ReptileOptions &o) {
  // Reptile splits episodes over the ranks as plain data parallelism does;
  // a mesh's ranks would need the same episodes.
  if (detail::onMesh(model))
    return Status::error("--meta reptile: " + model.artifact().name() +
                         " is partitioned over a process mesh; Reptile trains serial and "
                         "data-parallel (--nranks) artifacts");
  std::string refused;
  auto refuse = [&](bool given, const char *flag) {
    if (given)
      refused += (refused.empty() ? "" : ", ") + std::string(flag);
  };
  refuse(t.epochs.has_value(), "--epochs");
  refuse(t.steps.has_value(), "--steps");
  refuse(t.holdout > 0, "--holdout");
  refuse(t.evalEvery > 0, "--eval-every");
  refuse(t.saveEvery > 0, "--save-every");
  refuse(!t.checkpointDir.empty(), "--checkpoint-dir");
  refuse(t.resume, "--resume");
  refuse(t.splitFiles, "--split-files");
  refuse(!t.tensorBoardDir.empty(), "--tensorboard");
  if (!refused.empty())
    return Status::error(refused + ": not with --meta reptile (meta-steps are counted by "
                                   "--meta-steps, held-out classes come from --eval-data)");
  if (t.data.empty())
    return Status::error("--meta reptile needs --data");
  if (o.innerSteps < 1 || o.metaSteps < 0 || o.metaBatch < 1 || o.evalEpisodes < 0 ||
      o.evalInnerSteps < 0)
    return Status::error("--meta reptile needs --inner-steps >= 1, --meta-steps >= 0, "
                         "--meta-batch >= 1, --eval-episodes >= 0 and --eval-inner-steps >= 0");
  if (!std::isfinite(o.metaLr) || (o.metaLrFinal && !std::isfinite(*o.metaLrFinal)))
    return Status::error("--meta-lr and --meta-lr-final must be finite numbers");
  if (model.artifact()->world_size() != 1)
    return Status::error(model.artifact().name() + " is compiled for " +
                         std::to_string(model.artifact()->world_size()) +
                         " ranks; --meta reptile adapts a copy per rank and averages the "
                         "updates itself: compile it for one rank (without --nranks)");
  return Status::success();
}

/// Loads `specs` against `feeds`; an `images=ROOT` spec whose folder is a
/// few-shot root (train/, val/, test/) reads its `split` folder. Sets
/// `sawRoot` when one did, and `labelFeed` to an image folder's label feed.
Status loadSplit(const std::vector<std::string> &specs,
                 const std::map<std::string, FeedSpec> &feeds, const char *split, Dataset &out,
                 std::vector<std::string> *report, bool &sawRoot, std::string &labelFeed) {
  Dataset data;
  for (const std::string &text : specs) {
    DataSpec spec;
    if (Status s = parseDataSpec(text, spec); !s.ok())
      return s;
    if (spec.kind == DataSpec::Kind::Images)
      labelFeed = spec.images.labelFeed;
    if (spec.kind == DataSpec::Kind::Images && isFewShotRoot(spec.path)) {
      FewShotSplits splits;
      if (Status s = readFewShotSplits(spec.path, splits); !s.ok())
        return s;
      spec.path = std::string(split) == "train" ? splits.train : splits.test;
      sawRoot = true;
    }
    if (Status s = expandDataFiles(spec); !s.ok())
      return s;
    if (Status s = loadData(data, spec, feeds, report); !s.ok())
      return s;
  }
  if (Status s = checkDatasetFeeds(data, feeds); !s.ok())
    return s;
  out = std::move(data);
  return Status::success();
}

/// Parameters as one float64 vector, in state-dict (name) order.
Status checkFloatParameters(const TensorMap &params) {
  for (const auto &[name, t] : params)
    if (t.dtype() != DType::Float32 && t.dtype() != DType::Float64)
      return Status::error("parameter '" + name + "' is " + t.typeString() +
                           "; the Reptile update needs f32 or f64 parameters");
  return Status::success();
}

size_t totalElements(const TensorMap &params) {
  size_t n = 0;
  for (const auto &[name, t] : params)
    n += size_t(t.numel());
  return n;
}

/// out[offset + i] += scale * value(t, i) for every parameter.
void accumulate(const TensorMap &params, double scale, std::vector<double> &out) {
  size_t at = 0;
  for (const auto &[name, t] : params) {
    const int64_t n = t.numel();
    if (t.dtype() == DType::Float32)
      for (int64_t i = 0; i < n; ++i)
        out[at + size_t(i)] += scale * double(t.data<float>()[i]);
    else
      for (int64_t i = 0; i < n; ++i)
        out[at + size_t(i)] += scale * t.data<double>()[i];
    at += size_t(n);
  }
}

/// params[i] = values[i] (rounded to each parameter's dtype).
void store(const std::vector<double> &values, TensorMap &params) {
  size_t at = 0;
  for (auto &[name, t] : params) {
    const int64_t n = t.numel();
    if (t.dtype() == DType::Float32)
      for (int64_t i = 0; i < n; ++i)
        t.data<float>()[i] = float(values[at + size_t(i)]);
    else
      for (int64_t i = 0; i < n; ++i)
        t.data<double>()[i] = values[at + size_t(i)];
    at += size_t(n);
  }
}

/// A fresh fine-tune: θ and the initial optimizer state and step counter,
/// then `steps` train steps on `batch`; `lastLoss` is the last step's loss.
Status adapt(DistModel &model, const TensorMap &theta, const TensorMap &opt0, const Dataset &batch,
             int64_t steps, double &lastLoss) {
  TensorMap state = opt0;
  for (const auto &[name, t] : theta)
    state[name] = t;
  if (Status s = model.setStateDict(state, /*strict=*/true); !s.ok())
    return s;
  model.setGlobalStep(0);
  if (Status s = model.train(); !s.ok())
    return s;
  for (int64_t k = 0; k < steps; ++k) {
    StepResult r;
    if (Status s = model.step(batch.columns, r); !s.ok())
      return s;
    lastLoss = r.loss;
  }
  return Status::success();
}

/// The predict fetch holding class scores: the first floating fetch of
/// rank 2 with at least `ways` columns.
Status scoreFetch(const DistModel &model, int64_t ways, std::string &name) {
  if (!model.hasMode("predict"))
    return Status::error(model.artifact().name() +
                         " has no predict program, which few-shot evaluation classifies "
                         "the query rows with");
  for (const ProgramIO &f : model.session().fetches("predict"))
    if (f.dims.size() == 2 && (f.dtype == DType::Float32 || f.dtype == DType::Float64)) {
      if (f.dims[1] >= 0 && f.dims[1] < ways)
        return Status::error("the predict fetch '" + f.name + "' scores " +
                             std::to_string(f.dims[1]) + " classes, fewer than --ways " +
                             std::to_string(ways));
      name = f.name;
      return Status::success();
    }
  return Status::error(model.artifact().name() +
                       ": the predict program has no [rows, classes] score fetch to classify "
                       "the query rows with");
}

/// Classifies `batch` with the predict program: the number of rows whose
/// argmax over the first `ways` scores is their label.
Status countCorrect(DistModel &model, const Dataset &batch, const std::vector<int64_t> &labels,
                    const std::string &fetch, int64_t ways, int64_t &correct) {
  if (Status s = model.predict(); !s.ok())
    return s;
  TensorMap feeds;
  for (const ProgramIO &f : model.feeds())
    if (auto it = batch.columns.find(f.name); it != batch.columns.end())
      feeds[f.name] = it->second;
  StepResult r;
  if (Status s = model.step(feeds, r); !s.ok())
    return s;
  const Tensor &scores = r.fetches.at(fetch);
  if (scores.rank() != 2 || scores.dim(0) != int64_t(labels.size()) || scores.dim(1) < ways)
    return Status::error("the predict fetch '" + fetch + "' is " + scores.typeString() + " for " +
                         std::to_string(labels.size()) + " query rows of " + std::to_string(ways) +
                         " classes");
  const int64_t cols = scores.dim(1);
  correct = 0;
  for (size_t i = 0; i < labels.size(); ++i) {
    int64_t best = 0;
    double bestValue = -INFINITY;
    for (int64_t c = 0; c < ways; ++c) {
      const int64_t at = int64_t(i) * cols + c;
      double v = scores.dtype() == DType::Float32 ? double(scores.data<float>()[at])
                                                  : scores.data<double>()[at];
      if (v > bestValue) {
        bestValue = v;
        best = c;
      }
    }
    correct += best == labels[i];
  }
  return Status::success();
}

std::string wayShot(const EpisodeOptions &e) {
  return std::to_string(e.ways) + "-way " + std::to_string(e.shots) + "-shot";
}

} // namespace

double reptileMetaLr(const ReptileOptions &o, int64_t step) {
  const double final = o.metaLrFinal.value_or(o.metaLr);
  if (o.metaSteps <= 0)
    return o.metaLr;
  const double done = double(step) / double(o.metaSteps);
  return (1 - done) * o.metaLr + done * final;
}

std::string ReptileReport::summary() const {
  std::string s = "meta-trained " + std::to_string(metaSteps) + " steps (" +
                  std::to_string(episodes) + " episodes of " + wayShot(episode) + ") in ";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3g s", seconds);
  s += buf;
  if (!losses.empty())
    s += ": loss " + formatMetric(losses.back());
  if (evalQueries) {
    s += std::string(losses.empty() ? ":" : ";") + " " + wayShot(episode) + " accuracy " +
         formatMetric(accuracy()) + " over " + std::to_string(evalEpisodes) +
         " held-out episodes (chance " + formatMetric(1.0 / double(episode.ways)) + ")";
  }
  return s;
}

Status runReptile(DistModel &model, const TrainOptions &t, const ReptileOptions &o,
                  ReptileReport &report) {
  const Clock::time_point start = Clock::now();
  report = ReptileReport();
  report.episode = o.episode;
  if (Status s = checkReptileOptions(model, t, o); !s.ok())
    return s;
  const int rank = detail::rankOf(model), ranks = detail::worldSizeOf(model);
  const bool firstWorker = rank == 0;
  std::FILE *progress = firstWorker ? t.progress : nullptr;

  // The data: meta-training classes, and held-out classes for evaluation.
  const std::map<std::string, FeedSpec> feeds = feedSpecs(model.session(), "train");
  std::vector<std::string> lines;
  bool sawRoot = false;
  // Episodes go by the image folders' label feed, else o.labelFeed.
  std::string labelFeed = o.labelFeed;
  Dataset train, test;
  if (Status s = loadSplit(t.data, feeds, "train", train, &lines, sawRoot, labelFeed); !s.ok())
    return s;
  ClassIndex trainClasses, testClasses;
  if (Status s = indexClasses(train, labelFeed, trainClasses); !s.ok())
    return s;
  if (o.metaSteps > 0)
    if (Status s = checkEpisodes(trainClasses, o.episode); !s.ok())
      return s;
  const bool evaluate = o.evalEpisodes > 0 && (!t.evalData.empty() || sawRoot);
  if (evaluate) {
    bool unused = false;
    std::string evalLabelFeed = labelFeed;
    if (Status s = loadSplit(t.evalData.empty() ? t.data : t.evalData, feeds, "test", test, &lines,
                             unused, evalLabelFeed);
        !s.ok())
      return Status::error("held-out classes: " + s.message());
    if (Status s = indexClasses(test, labelFeed, testClasses); !s.ok())
      return Status::error("held-out classes: " + s.message());
    if (Status s = checkEpisodes(testClasses, o.episode); !s.ok())
      return Status::error("held-out classes: " + s.message());
  }
  std::string fetch;
  if (evaluate)
    if (Status s = scoreFetch(model, o.episode.ways, fetch); !s.ok())
      return s;
  if (progress)
    for (const std::string &line : lines)
      std::fprintf(progress, "%s\n", line.c_str());

  // θ and the optimizer state every episode starts from; rank 0's θ for
  // all.
  if (Status s = model.initialize(); !s.ok())
    return s;
  if (!t.initFrom.empty())
    if (Status s = loadInitialParameters(model, t.initFrom); !s.ok())
      return s;
  TensorMap theta, opt0;
  if (Status s = model.stateDict("param", theta); !s.ok())
    return s;
  if (Status s = model.stateDict("opt", opt0); !s.ok())
    return s;
  if (Status s = checkFloatParameters(theta); !s.ok())
    return s;
  const size_t n = totalElements(theta);
  std::vector<double> values(n + 1, 0.0);
  if (ranks > 1) {
    if (rank == 0)
      accumulate(theta, 1.0, values);
    if (Status s = detail::sumOverRanks(model, values); !s.ok())
      return s;
    store(values, theta);
  }

  MetricsWriter metrics;
  if (firstWorker && !t.metricsPath.empty())
    if (Status s = metrics.open(t.metricsPath, /*append=*/false); !s.ok())
      return s;

  // Meta-training.
  const int64_t perStep = o.metaBatch * ranks;
  const int64_t every = std::max<int64_t>(1, std::min<int64_t>(100, o.metaSteps / 10));
  const Clock::time_point trainStart = Clock::now();
  for (int64_t step = 0; step < o.metaSteps; ++step) {
    std::fill(values.begin(), values.end(), 0.0);
    for (int64_t b = 0; b < o.metaBatch; ++b) {
      const uint64_t index = uint64_t(step * perStep + rank * o.metaBatch + b);
      Episode e = drawEpisode(trainClasses, o.episode, t.seed, index);
      Dataset batch = episodeBatch(train, labelFeed, e.supportRows, e.supportLabels);
      double loss = 0;
      if (Status s = adapt(model, theta, opt0, batch, o.innerSteps, loss); !s.ok())
        return Status::error("meta-step " + std::to_string(step + 1) + ", episode " +
                             std::to_string(index) + ": " + s.message());
      TensorMap adapted;
      if (Status s = model.stateDict("param", adapted); !s.ok())
        return s;
      // Σ (θ' − θ), added as θ' then −θ per episode.
      accumulate(adapted, 1.0, values);
      accumulate(theta, -1.0, values);
      values[n] += loss;
    }
    if (Status s = detail::sumOverRanks(model, values); !s.ok())
      return s;
    const double epsilon = reptileMetaLr(o, step);
    std::vector<double> updated(n, 0.0);
    accumulate(theta, 1.0, updated);
    for (size_t i = 0; i < n; ++i)
      updated[i] += epsilon * (values[i] / double(perStep));
    store(updated, theta);
    const double loss = values[n] / double(perStep);
    report.losses.push_back(loss);
    report.episodes += perStep;
    const double rate = double(report.episodes) / std::max(1e-9, secondsSince(trainStart));
    if (metrics.isOpen()) {
      nlohmann::json record = {
          {"step", step + 1}, {"loss", loss}, {"meta_lr", epsilon}, {"episodes_per_sec", rate}};
      if (Status s = metrics.writeJson(record); !s.ok())
        return s;
    }
    if (progress && ((step + 1) % every == 0 || step + 1 == o.metaSteps))
      std::fprintf(progress, "meta-step %lld/%lld loss %s meta_lr %s %s episodes/s\n",
                   static_cast<long long>(step + 1), static_cast<long long>(o.metaSteps),
                   formatMetric(loss).c_str(), formatMetric(epsilon).c_str(),
                   formatRate(rate).c_str());
  }
  report.metaSteps = o.metaSteps;

  // Evaluation on held-out classes: fine-tune from θ, classify the queries.
  if (evaluate) {
    const int64_t innerSteps = o.evalInnerSteps ? o.evalInnerSteps : o.innerSteps;
    auto [first, last] = episodeShare(o.evalEpisodes, rank, ranks);
    std::vector<double> counts = {0, 0};
    for (int64_t index = first; index < last; ++index) {
      Episode e = drawEpisode(testClasses, o.episode, mixSeed(t.seed + 1), uint64_t(index));
      Dataset support = episodeBatch(test, labelFeed, e.supportRows, e.supportLabels);
      Dataset query = episodeBatch(test, labelFeed, e.queryRows, e.queryLabels);
      double loss = 0;
      int64_t correct = 0;
      Status s = adapt(model, theta, opt0, support, innerSteps, loss);
      if (s.ok() && !e.queryRows.empty())
        s = countCorrect(model, query, e.queryLabels, fetch, o.episode.ways, correct);
      if (!s.ok())
        return Status::error("evaluation episode " + std::to_string(index) + ": " + s.message());
      counts[0] += double(correct);
      counts[1] += double(e.queryRows.size());
    }
    if (Status s = detail::sumOverRanks(model, counts); !s.ok())
      return s;
    report.evalEpisodes = o.evalEpisodes;
    report.evalCorrect = int64_t(counts[0]);
    report.evalQueries = int64_t(counts[1]);
    if (metrics.isOpen()) {
      nlohmann::json record = {{"step", o.metaSteps},
                               {"eval_acc", report.accuracy()},
                               {"eval_episodes", report.evalEpisodes},
                               {"eval_queries", report.evalQueries},
                               {"ways", o.episode.ways},
                               {"shots", o.episode.shots},
                               {"chance", 1.0 / double(o.episode.ways)}};
      if (Status s = metrics.writeJson(record); !s.ok())
        return s;
    }
  }

  // The meta-learned parameters stay in the model, for the final outputs.
  {
    TensorMap state = opt0;
    for (const auto &[name, tensor] : theta)
      state[name] = tensor;
    if (Status s = model.setStateDict(state, /*strict=*/true); !s.ok())
      return s;
    model.setGlobalStep(0);
  }
  if (firstWorker && !t.savePersistablesDir.empty())
    if (Status s = saveModelPersistables(model, t.savePersistablesDir); !s.ok())
      return s;
  if (firstWorker && !t.saveInferencePrefix.empty())
    if (Status s = saveInferenceModel(model, t.saveInferencePrefix); !s.ok())
      return s;
  if (metrics.isOpen())
    if (Status s = metrics.close(); !s.ok())
      return s;
  report.seconds = secondsSince(start);
  return Status::success();
}

} // namespace distc::training
