//===- TrainLoopTest.cpp - runTraining end to end on hand-built artifacts -===//
//
// The training loop behind `dist-run --mode train` over the hand-built
// training artifacts of unittests/Runtime/TrainArtifacts.h: the loss falls,
// evaluation averages over rows, a resumed run is bitwise identical to an
// uninterrupted one, checkpoints of another artifact or corrupt ones are
// rejected, --init-from reads every parameter format, and the Paddle files
// written at the end read back.
//
//===----------------------------------------------------------------------===//

#include "distc/Training/TrainLoop.h"

#include "TestUtil.h"
#include "TrainArtifacts.h"

#include "distc/Artifact/ArtifactFile.h"
#include "distc/Runtime/Npy.h"
#include "distc/Training/Npz.h"
#include "distc/Training/PaddleParams.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>

using namespace distc::training;
using namespace distc::training::test;
using distc::artifact::ArtifactDesc;
using distc::testing::classifierArtifact;
using distc::testing::linearRegressionArtifact;
using distc::testing::TrainArtifactOptions;
namespace fs = std::filesystem;

namespace {

#define EXPECT_CONTAINS(haystack, needle)                                                          \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << (haystack)

std::string writeArtifact(const TempDir &dir, const std::string &name, const ArtifactDesc &desc) {
  std::string path = dir.file(name);
  std::string error;
  EXPECT_TRUE(
      distc::artifact::writeArtifactFile(path, distc::artifact::serializeArtifact(desc), error))
      << error;
  return path;
}

std::unique_ptr<DistModel> openModel(const std::string &path) {
  std::string error;
  auto model = DistModel::open(path, error);
  EXPECT_TRUE(model) << error;
  return model;
}

/// y = x . [1, -2, 0.5] + 0.3 + noise: x.npy and y.npy; returns the specs.
std::vector<std::string> regressionData(const TempDir &dir, int64_t rows, int64_t features = 3,
                                        uint64_t seed = 1) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(-1, 1);
  Tensor x(DType::Float32, {rows, features}), y(DType::Float32, {rows, 1});
  const float w[] = {1.0f, -2.0f, 0.5f, 0.25f};
  for (int64_t r = 0; r < rows; ++r) {
    float sum = 0.3f;
    for (int64_t k = 0; k < features; ++k) {
      float v = u(rng);
      x.data<float>()[r * features + k] = v;
      sum += w[k % 4] * v;
    }
    y.data<float>()[r] = sum + 0.01f * u(rng);
  }
  EXPECT_TRUE(distc::runtime::writeNpy(dir.file("x.npy"), x).ok());
  EXPECT_TRUE(distc::runtime::writeNpy(dir.file("y.npy"), y).ok());
  return {"x=@" + dir.file("x.npy"), "y=@" + dir.file("y.npy")};
}

/// Three classes from 4 features, in an .npz archive.
std::string classifierData(const TempDir &dir, int64_t rows, const std::string &name = "d.npz") {
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<float> u(-1, 1);
  Tensor x(DType::Float32, {rows, 4}), label(DType::Int64, {rows, 1});
  for (int64_t r = 0; r < rows; ++r) {
    float *xr = x.data<float>() + 4 * r;
    for (int k = 0; k < 4; ++k)
      xr[k] = u(rng);
    label.data<int64_t>()[r] = xr[0] > xr[1] ? (xr[2] > 0 ? 2 : 1) : 0;
  }
  EXPECT_TRUE(writeNpz(dir.file(name), {{"x", x}, {"label", label}}, false).ok());
  return dir.file(name);
}

uint64_t bitsOf(double v) {
  uint64_t b;
  std::memcpy(&b, &v, 8);
  return b;
}

std::vector<std::string> readLines(const std::string &path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  return lines;
}

TrainOptions quiet() {
  TrainOptions o;
  o.progress = nullptr;
  return o;
}

TEST(TrainLoop, TrainsEvaluatesAndWritesMetrics) {
  TempDir dir;
  auto model = openModel(writeArtifact(dir, "r.distc", linearRegressionArtifact(3)));
  ASSERT_TRUE(model);
  TrainOptions o = quiet();
  o.data = regressionData(dir, 100);
  o.holdout = 0.2;
  o.batchSize = 8;
  o.epochs = 6;
  o.evalEvery = 20;
  o.seed = 5;
  o.metricsPath = dir.file("metrics.jsonl");
  TrainReport report;
  Status s = runTraining(*model, o, report);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(report.trainRows, 80);
  EXPECT_EQ(report.evalRows, 20);
  EXPECT_EQ(report.batchesPerEpoch, 10);
  EXPECT_EQ(report.startStep, 0);
  EXPECT_EQ(report.endStep, 60);
  ASSERT_EQ(report.losses.size(), 60u);
  EXPECT_LT(report.losses.back(), 0.05 * report.losses.front());
  ASSERT_TRUE(report.eval);
  EXPECT_EQ(report.eval->rows, 20);
  EXPECT_EQ(report.eval->batches, 3);
  EXPECT_LT(report.eval->metrics.at("eval_loss"), 0.05);
  EXPECT_EQ(report.eval->metrics.count("eval_mae"), 1u);
  EXPECT_EQ(report.learningRates.front(), 0.1);
  EXPECT_EQ(model->globalStep(), 60);

  std::vector<std::string> lines = readLines(o.metricsPath);
  ASSERT_EQ(lines.size(), 60u);
  auto first = nlohmann::json::parse(lines.front());
  EXPECT_EQ(first["step"], 1);
  EXPECT_EQ(first["epoch"], 0);
  EXPECT_EQ(first["lr"], 0.1);
  EXPECT_EQ(bitsOf(first["loss"].get<double>()), bitsOf(report.losses.front()));
  EXPECT_FALSE(first.contains("eval_loss"));
  auto twentieth = nlohmann::json::parse(lines[19]);
  EXPECT_TRUE(twentieth.contains("eval_loss"));
  EXPECT_TRUE(twentieth.contains("eval_mae"));
  auto last = nlohmann::json::parse(lines.back());
  EXPECT_EQ(last["step"], 60);
  EXPECT_EQ(last["epoch"], 5);
  EXPECT_EQ(last["eval_loss"].get<double>(), report.eval->metrics.at("eval_loss"));

  std::string summary = report.summary();
  EXPECT_EQ(summary.rfind("trained 60 steps (6 epochs) in ", 0), 0u) << summary;
  EXPECT_CONTAINS(summary, " s: loss ");
  EXPECT_CONTAINS(summary, "; eval_loss ");
  EXPECT_CONTAINS(summary, " eval_mae ");
}

TEST(TrainLoop, FractionalEpochs) {
  TempDir dir;
  auto model = openModel(writeArtifact(dir, "r.distc", linearRegressionArtifact(3)));
  TrainOptions o = quiet();
  o.data = regressionData(dir, 100);
  o.batchSize = 10;
  TrainReport report;
  for (double epochs : {0.3, 0.25, 2.0}) {
    o.epochs = epochs;
    ASSERT_TRUE(runTraining(*model, o, report).ok());
    EXPECT_EQ(report.endStep, int64_t(std::ceil(epochs * 10 - 1e-9))) << epochs;
  }
  EXPECT_EQ(report.summary().rfind("trained 20 steps (2 epochs) in ", 0), 0u);
  o.epochs = 1e300;
  EXPECT_CONTAINS(runTraining(*model, o, report).message(),
                  "--epochs 1e+300 is too many steps (10 per epoch)");
}

TEST(TrainLoop, EvalAveragesOverRowsNotBatches) {
  TempDir dir;
  auto model = openModel(writeArtifact(dir, "r.distc", linearRegressionArtifact(3)));
  ASSERT_TRUE(model && model->initialize().ok());
  Dataset data;
  ASSERT_TRUE(
      loadDataArguments(regressionData(dir, 23), feedSpecs(model->session(), "eval"), data).ok());
  EvalResult whole;
  ASSERT_TRUE(evaluate(*model, data, 1000, whole).ok());
  EXPECT_EQ(whole.batches, 1);
  for (int64_t batch : {1, 5, 7, 22}) {
    EvalResult e;
    Status s = evaluate(*model, data, batch, e);
    ASSERT_TRUE(s.ok()) << s.message();
    EXPECT_EQ(e.rows, 23);
    EXPECT_EQ(e.batches, (23 + batch - 1) / batch);
    for (const char *m : {"eval_loss", "eval_mae"})
      EXPECT_NEAR(e.metrics.at(m), whole.metrics.at(m), 1e-6 * whole.metrics.at(m)) << m;
  }
  // The mode is restored and nothing was trained.
  EXPECT_EQ(model->mode(), "train");
  EXPECT_EQ(model->globalStep(), 0);
  EXPECT_EQ(whole.format().rfind("eval_loss ", 0), 0u);
}

struct ResumeFixture {
  TempDir dir;
  std::string artifact, data;

  ResumeFixture() {
    TrainArtifactOptions options;
    options.optimizer = "adam";
    options.learningRate = 0.02;
    options.dropout = 0.25;
    options.hasSchedule = true;
    options.schedule.kind = "cosine";
    options.schedule.baseLr = 0.02;
    options.schedule.decaySteps = 15;
    options.schedule.endLr = 0.001;
    options.schedule.warmupSteps = 3;
    options.schedule.warmupStartLr = 0.002;
    artifact = writeArtifact(dir, "c.distc", classifierArtifact(4, 8, 3, options));
    data = classifierData(dir, 53);
  }

  /// 53 rows: 11 held out, 42 to train in 6 batches of 8 (the last has 2).
  TrainOptions options(const std::string &checkpoints) const {
    TrainOptions o = quiet();
    o.data = {data};
    o.holdout = 0.2;
    o.batchSize = 8;
    o.seed = 17;
    o.evalEvery = 5;
    o.checkpointDir = checkpoints;
    return o;
  }
};

TEST(TrainLoop, ResumeIsBitwiseIdentical) {
  ResumeFixture f;
  TrainOptions full = f.options("");
  full.steps = 20;
  auto model = openModel(f.artifact);
  ASSERT_TRUE(model);
  TrainReport expected;
  Status s = runTraining(*model, full, expected);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(expected.losses.size(), 20u);
  TensorMap expectedState;
  ASSERT_TRUE(model->stateDict("all", expectedState).ok());

  // Stop at an epoch's end (6), inside an epoch (7) and between saves (9,
  // resuming from the save at 8).
  for (int64_t stop : {6, 7, 9}) {
    SCOPED_TRACE("stopped at step " + std::to_string(stop));
    std::string checkpoints = f.dir.file("ckpt-" + std::to_string(stop));
    TrainOptions first = f.options(checkpoints);
    first.steps = stop;
    first.saveEvery = stop == 9 ? 4 : 0;
    first.metricsPath = checkpoints + ".jsonl";
    auto a = openModel(f.artifact);
    TrainReport ra;
    ASSERT_TRUE(runTraining(*a, first, ra).ok());
    if (stop == 9) {
      // Throw away the end-of-run checkpoint: resume from step 8.
      fs::remove_all(checkpoints + "/step-9");
      std::ofstream(checkpoints + "/latest") << "step-8\n";
    }
    const int64_t resumedAt = stop == 9 ? 8 : stop;

    TrainOptions second = f.options(checkpoints);
    second.steps = 20;
    second.resume = true;
    second.metricsPath = first.metricsPath;
    auto b = openModel(f.artifact);
    TrainReport rb;
    s = runTraining(*b, second, rb);
    ASSERT_TRUE(s.ok()) << s.message();
    EXPECT_EQ(rb.startStep, resumedAt);
    EXPECT_EQ(rb.endStep, 20);
    EXPECT_EQ(rb.resumedFrom, checkpoints + "/step-" + std::to_string(resumedAt));
    ASSERT_EQ(rb.losses.size(), size_t(20 - resumedAt));
    for (int64_t i = 0; i < stop; ++i)
      EXPECT_EQ(bitsOf(ra.losses[i]), bitsOf(expected.losses[i])) << "step " << i + 1;
    for (size_t i = 0; i < rb.losses.size(); ++i) {
      EXPECT_EQ(bitsOf(rb.losses[i]), bitsOf(expected.losses[resumedAt + i]))
          << "step " << resumedAt + i + 1;
      EXPECT_EQ(rb.learningRates[i], expected.learningRates[resumedAt + i]);
    }
    ASSERT_TRUE(rb.eval && expected.eval);
    EXPECT_EQ(bitsOf(rb.eval->metrics.at("eval_loss")),
              bitsOf(expected.eval->metrics.at("eval_loss")));
    TensorMap state;
    ASSERT_TRUE(b->stateDict("all", state).ok());
    for (const auto &[name, t] : expectedState)
      EXPECT_TRUE(sameTensor(state.at(name), t)) << name;
    // The resumed run appended its records.
    EXPECT_EQ(readLines(first.metricsPath).size(), size_t(stop + 20 - resumedAt));
    EXPECT_CONTAINS(rb.summary(),
                    "resumed at step " + std::to_string(resumedAt) + ", trained to step 20 (");

    // Resuming again at the target trains nothing.
    auto c = openModel(f.artifact);
    TrainReport rc;
    ASSERT_TRUE(runTraining(*c, second, rc).ok());
    EXPECT_TRUE(rc.losses.empty());
    EXPECT_EQ(rc.summary().rfind("nothing to train: already at step 20 (", 0), 0u) << rc.summary();
  }
}

TEST(TrainLoop, ResumeRejectsAnotherArtifactOrSettings) {
  ResumeFixture f;
  std::string checkpoints = f.dir.file("ckpt");
  TrainOptions first = f.options(checkpoints);
  first.steps = 4;
  auto a = openModel(f.artifact);
  TrainReport report;
  ASSERT_TRUE(runTraining(*a, first, report).ok());

  TrainOptions again = f.options(checkpoints);
  again.steps = 8;
  again.resume = true;
  auto resume = [&](const std::string &artifact, const TrainOptions &o) {
    auto model = openModel(artifact);
    TrainReport r;
    return runTraining(*model, o, r).message();
  };
  // Another optimizer: another artifact.
  TrainArtifactOptions sgd;
  sgd.optimizer = "sgd";
  std::string other = writeArtifact(f.dir, "other.distc", classifierArtifact(4, 8, 3, sgd));
  std::string message = resume(other, again);
  EXPECT_CONTAINS(message, "cannot resume from " + checkpoints +
                               "/step-4: it was written for "
                               "another artifact (checksum ");
  EXPECT_CONTAINS(message, " of c.distc; " + other + " has ");
  EXPECT_CONTAINS(message, "its optimizer is adam {\"optimizer\": \"adam\", \"learning_rate\": "
                           "0.02, \"beta1\": 0.9, \"beta2\": 0.999, \"epsilon\": 1e-08}, this "
                           "artifact's is sgd {\"optimizer\": \"sgd\", \"learning_rate\": 0.1}");

  TrainOptions batch = again;
  batch.batchSize = 4;
  EXPECT_CONTAINS(resume(f.artifact, batch), "it was saved with --batch-size 8, this run has 4");
  TrainOptions seed = again;
  seed.seed = 18;
  EXPECT_CONTAINS(resume(f.artifact, seed), "it was saved with --seed 17, this run has 18");
  TrainOptions rows = again;
  rows.holdout = 0.1;
  EXPECT_CONTAINS(resume(f.artifact, rows),
                  "cannot resume: the saved batcher position is for 42 rows of data but the data "
                  "now has 48");
  TrainOptions empty = again;
  empty.checkpointDir = f.dir.file("nothing-here");
  EXPECT_CONTAINS(resume(f.artifact, empty), "cannot resume: ");

  // A checkpoint whose variables do not fit this artifact, even with the
  // right checksum recorded, names the variable.
  TrainingState state;
  TensorMap tensors;
  ASSERT_TRUE(loadCheckpoint(checkpoints, nullptr, tensors, state).ok());
  tensors["fc_0.w_0"] = Tensor(DType::Float32, {4, 9});
  state.step = 5;
  ASSERT_TRUE(saveCheckpoint(checkpoints, tensors, state).ok());
  EXPECT_CONTAINS(resume(f.artifact, again),
                  "cannot resume from " + checkpoints +
                      "/step-5: state dict variable 'fc_0.w_0' is f32[4,9] but the artifact "
                      "declares f32[4,8]");
  tensors.erase("fc_0.w_0");
  state.step = 6;
  ASSERT_TRUE(saveCheckpoint(checkpoints, tensors, state).ok());
  EXPECT_CONTAINS(resume(f.artifact, again), "the state dict has no variable 'fc_0.w_0'");
}

TEST(TrainLoop, ResumeRejectsCorruptCheckpoints) {
  ResumeFixture f;
  std::string checkpoints = f.dir.file("ckpt");
  TrainOptions first = f.options(checkpoints);
  first.steps = 3;
  auto a = openModel(f.artifact);
  TrainReport report;
  ASSERT_TRUE(runTraining(*a, first, report).ok());
  std::string file = checkpoints + "/step-3/fc_1.b_0.npy";
  {
    std::fstream io(file, std::ios::in | std::ios::out | std::ios::binary);
    io.seekp(-2, std::ios::end);
    io.put('\x7f');
  }
  TrainOptions again = f.options(checkpoints);
  again.resume = true;
  auto b = openModel(f.artifact);
  Status s = runTraining(*b, again, report);
  EXPECT_CONTAINS(s.message(), "corrupt checkpoint file " + file + ": CRC32 is ");
  writeText(checkpoints + "/step-3/checkpoint.json", "{\"format\": ");
  s = runTraining(*b, again, report);
  EXPECT_FALSE(s.ok());
  EXPECT_CONTAINS(s.message(), checkpoints + "/step-3");
}

TEST(TrainLoop, InitFromEveryParameterFormat) {
  TempDir dir;
  std::string artifact = writeArtifact(dir, "r.distc", linearRegressionArtifact(3));
  auto trained = openModel(artifact);
  TrainOptions o = quiet();
  o.data = regressionData(dir, 40);
  o.steps = 10;
  o.checkpointDir = dir.file("ckpt");
  o.savePersistablesDir = dir.file("persistables");
  TrainReport report;
  ASSERT_TRUE(runTraining(*trained, o, report).ok());
  TensorMap params;
  ASSERT_TRUE(trained->stateDict("param", params).ok());
  ASSERT_TRUE(saveCombinedParams(dir.file("params.pdiparams"), params).ok());
  fs::create_directories(dir.file("npy"));
  for (const auto &[name, t] : params)
    ASSERT_TRUE(distc::runtime::writeNpy(dir.file("npy/" + encodeVarFileName(name)), t).ok());

  for (const char *source : {"ckpt", "ckpt/step-10", "persistables", "params.pdiparams", "npy"}) {
    SCOPED_TRACE(source);
    auto model = openModel(artifact);
    ASSERT_TRUE(model->initialize().ok());
    Status s = loadInitialParameters(*model, dir.file(source));
    ASSERT_TRUE(s.ok()) << s.message();
    TensorMap loaded;
    ASSERT_TRUE(model->stateDict("param", loaded).ok());
    for (const auto &[name, t] : params)
      EXPECT_TRUE(sameTensor(loaded.at(name), t)) << name;
    // Only parameters: the optimizer state is the startup program's.
    EXPECT_EQ(model->globalStep(), 0);
  }

  // Through the loop: the first loss is that of the loaded parameters.
  auto model = openModel(artifact);
  TrainOptions from = quiet();
  from.data = o.data;
  from.steps = 1;
  from.initFrom = dir.file("persistables");
  from.shuffle = false;
  TrainReport r;
  ASSERT_TRUE(runTraining(*model, from, r).ok());
  auto reference = openModel(artifact);
  ASSERT_TRUE(reference->initialize().ok());
  ASSERT_TRUE(reference->setStateDict(params, false).ok());
  Dataset data;
  ASSERT_TRUE(loadDataArguments(o.data, feedSpecs(reference->session(), "train"), data).ok());
  std::vector<int64_t> rows(32);
  for (int64_t i = 0; i < 32; ++i)
    rows[size_t(i)] = i;
  distc::runtime::StepResult step;
  ASSERT_TRUE(reference->step(selectRows(data, rows).columns, step).ok());
  EXPECT_EQ(bitsOf(r.losses[0]), bitsOf(step.loss));

  // Parameters of another shape name the variable.
  std::string wide = writeArtifact(dir, "wide.distc", linearRegressionArtifact(4));
  auto other = openModel(wide);
  ASSERT_TRUE(other->initialize().ok());
  EXPECT_CONTAINS(loadInitialParameters(*other, dir.file("persistables")).message(),
                  "parameter 'linear_0.w_0' in " + dir.file("persistables/linear_0.w_0") +
                      " has shape [3,1], expected [4,1]");
  TrainOptions bad = quiet();
  bad.data = regressionData(dir, 40, 4);
  bad.initFrom = dir.file("npy");
  TrainReport br;
  EXPECT_CONTAINS(runTraining(*other, bad, br).message(), "parameter 'linear_0.w_0' in " +
                                                              dir.file("npy/linear_0.w_0.npy") +
                                                              " has shape [3,1], expected [4,1]");
}

TEST(TrainLoop, SavesPersistablesAndInferenceModel) {
  TempDir dir;
  TrainArtifactOptions options;
  options.optimizer = "momentum";
  std::string artifact = writeArtifact(dir, "r.distc", linearRegressionArtifact(3, options));
  auto model = openModel(artifact);
  TrainOptions o = quiet();
  o.data = regressionData(dir, 30);
  o.steps = 5;
  o.savePersistablesDir = dir.file("out/persistables");
  o.saveInferencePrefix = dir.file("out/inference/model");
  TrainReport report;
  Status s = runTraining(*model, o, report);
  ASSERT_TRUE(s.ok()) << s.message();

  TensorMap all;
  ASSERT_TRUE(model->persistables(all).ok());
  EXPECT_EQ(all.size(), 6u); // w, b, two velocities, rate, step
  EXPECT_EQ(all.at("global_step").data<int64_t>()[0], 4);
  for (const auto &[name, t] : all) {
    distc::programdesc::TensorRecord record;
    std::string error;
    std::string path = o.savePersistablesDir + "/" + name;
    ASSERT_TRUE(distc::programdesc::loadTensorFile(path, record, error)) << error;
    Tensor back;
    ASSERT_TRUE(recordToTensor(record, path, back).ok());
    EXPECT_TRUE(sameTensor(back, t)) << name;
  }

  std::ifstream program(o.saveInferencePrefix + ".pdmodel", std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(program)), std::istreambuf_iterator<char>());
  ASSERT_EQ(bytes.size(), 256u);
  for (int v = 0; v < 256; ++v)
    EXPECT_EQ(uint8_t(bytes[size_t(v)]), v);
  TensorMap params;
  ASSERT_TRUE(model->stateDict("param", params).ok());
  VarSpecs specs;
  for (const auto &[name, t] : params)
    specs[name] = {t.dtype(), t.shape()};
  TensorMap loaded;
  s = loadCombinedParams(o.saveInferencePrefix + ".pdiparams", specs, loaded);
  ASSERT_TRUE(s.ok()) << s.message();
  for (const auto &[name, t] : params)
    EXPECT_TRUE(sameTensor(loaded.at(name), t)) << name;

  // The payload's order, not the sorted one, decides the record order.
  ArtifactDesc reordered = linearRegressionArtifact(3);
  reordered.inference.parameters = {"linear_0.w_0", "linear_0.b_0"};
  auto r = openModel(writeArtifact(dir, "reordered.distc", reordered));
  ASSERT_TRUE(r->initialize().ok());
  ASSERT_TRUE(saveInferenceModel(*r, dir.file("reordered")).ok());
  std::ifstream in(dir.file("reordered.pdiparams"), std::ios::binary);
  std::string combined((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t offset = 0;
  std::vector<std::vector<int64_t>> dims;
  for (int i = 0; i < 2; ++i) {
    distc::programdesc::TensorRecord record;
    std::string error;
    ASSERT_TRUE(distc::programdesc::readTensorRecord(combined, offset, record, error)) << error;
    dims.push_back(record.dims);
  }
  EXPECT_EQ(offset, combined.size());
  EXPECT_EQ(dims, (std::vector<std::vector<int64_t>>{{3, 1}, {1}}));

  // Without an inference payload the request fails before training.
  ArtifactDesc none = linearRegressionArtifact(3);
  none.hasInference = false;
  std::string nonePath = writeArtifact(dir, "none.distc", none);
  auto n = openModel(nonePath);
  EXPECT_CONTAINS(runTraining(*n, o, report).message(),
                  "--save-inference-model: " + nonePath + " has no inference model payload");
  EXPECT_EQ(n->globalStep(), 0);
}

TEST(TrainLoop, DataThatDoesNotFitTheFeeds) {
  TempDir dir;
  auto model = openModel(writeArtifact(dir, "r.distc", linearRegressionArtifact(3)));
  TrainOptions o = quiet();
  o.data = regressionData(dir, 20, 4);
  TrainReport report;
  EXPECT_CONTAINS(runTraining(*model, o, report).message(),
                  "column 'x' (from " + dir.file("x.npy") +
                      ") does not fit feed 'x': rows have shape [4] but the program expects [3] "
                      "(feed f32[-1,3])");
  o.data = {regressionData(dir, 20)[0]};
  EXPECT_CONTAINS(runTraining(*model, o, report).message(),
                  "the data has no column for feed 'y'; it has: x");
  o.data = regressionData(dir, 20);
  o.evalData = {"x=@" + dir.file("x.npy")};
  EXPECT_CONTAINS(runTraining(*model, o, report).message(),
                  "--eval-data: the data has no column for feed 'y'; it has: x");
  o.evalData.clear();
  o.data.push_back("bogus");
  EXPECT_CONTAINS(runTraining(*model, o, report).message(), "--data 'bogus'");
}

TEST(TrainLoop, EvalDataInsteadOfHoldout) {
  TempDir dir;
  TempDir evalDir;
  auto model = openModel(writeArtifact(dir, "r.distc", linearRegressionArtifact(3)));
  TrainOptions o = quiet();
  o.data = regressionData(dir, 40);
  o.evalData = regressionData(evalDir, 13, 3, 2);
  o.steps = 10;
  TrainReport report;
  Status s = runTraining(*model, o, report);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(report.trainRows, 40);
  EXPECT_EQ(report.evalRows, 13);
  ASSERT_TRUE(report.eval);
  EXPECT_EQ(report.eval->rows, 13);
}

TEST(TrainLoop, OptionErrors) {
  TempDir dir;
  std::string artifact = writeArtifact(dir, "r.distc", linearRegressionArtifact(3));
  auto model = openModel(artifact);
  std::vector<std::string> data = regressionData(dir, 20);
  auto run = [&](const std::function<void(TrainOptions &)> &change) {
    TrainOptions o = quiet();
    o.data = data;
    change(o);
    TrainReport report;
    return runTraining(*model, o, report).message();
  };
  EXPECT_CONTAINS(run([](TrainOptions &o) { o.data.clear(); }),
                  "--mode train needs training data: --data SPEC");
  EXPECT_CONTAINS(run([](TrainOptions &o) {
                    o.epochs = 1;
                    o.steps = 2;
                  }),
                  "--epochs and --steps are alternatives; give one");
  EXPECT_CONTAINS(run([](TrainOptions &o) { o.batchSize = 0; }),
                  "--batch-size must be at least 1, not 0");
  EXPECT_CONTAINS(run([](TrainOptions &o) { o.epochs = -1; }),
                  "--epochs must be a positive number, not -1");
  EXPECT_CONTAINS(run([](TrainOptions &o) { o.holdout = 1; }),
                  "--holdout must lie in [0, 1), not 1");
  EXPECT_CONTAINS(run([](TrainOptions &o) { o.evalEvery = 5; }),
                  "--eval-every needs held-out data: --holdout F or --eval-data SPEC");
  EXPECT_CONTAINS(run([](TrainOptions &o) { o.saveEvery = 5; }),
                  "--save-every needs --checkpoint-dir DIR");
  EXPECT_CONTAINS(run([](TrainOptions &o) { o.resume = true; }),
                  "--resume needs --checkpoint-dir DIR");
  EXPECT_CONTAINS(run([&](TrainOptions &o) {
                    o.resume = true;
                    o.checkpointDir = dir.file("c");
                    o.initFrom = dir.file("c");
                  }),
                  "--resume and --init-from are alternatives");
  EXPECT_CONTAINS(run([&](TrainOptions &o) {
                    o.holdout = 0.5;
                    o.evalData = data;
                  }),
                  "--holdout and --eval-data are alternatives; give one");

  ArtifactDesc noEval = linearRegressionArtifact(3);
  noEval.programs.erase(std::remove_if(noEval.programs.begin(), noEval.programs.end(),
                                       [](const auto &p) { return p.mode == "eval"; }),
                        noEval.programs.end());
  std::string noEvalPath = writeArtifact(dir, "noeval.distc", noEval);
  auto m = openModel(noEvalPath);
  TrainOptions o = quiet();
  o.data = data;
  o.holdout = 0.25;
  TrainReport report;
  EXPECT_CONTAINS(runTraining(*m, o, report).message(),
                  noEvalPath + ": no mode 'eval' to evaluate the held-out data with; the "
                               "artifact has: train, predict");
}

TEST(TrainLoop, ProgressLines) {
  TempDir dir;
  auto model = openModel(writeArtifact(dir, "r.distc", linearRegressionArtifact(3)));
  TrainOptions o;
  o.data = regressionData(dir, 40);
  o.holdout = 0.25;
  o.batchSize = 10;
  o.steps = 20;
  o.evalEvery = 10;
  o.checkpointDir = dir.file("ckpt");
  o.saveEvery = 15;
  std::FILE *out = std::tmpfile();
  ASSERT_TRUE(out);
  o.progress = out;
  o.progressTerminal = false;
  TrainReport report;
  ASSERT_TRUE(runTraining(*model, o, report).ok());
  std::rewind(out);
  std::string text;
  for (int c; (c = std::fgetc(out)) != EOF;)
    text.push_back(char(c));
  std::fclose(out);
  EXPECT_CONTAINS(text, "step 2/20 epoch 0 loss ");
  EXPECT_CONTAINS(text, "\nstep 20/20 epoch 6 loss ");
  EXPECT_CONTAINS(text, "\neval at step 10: eval_loss ");
  EXPECT_CONTAINS(text, "\neval at step 20: eval_loss ");
  EXPECT_CONTAINS(text, "\nsaved checkpoint " + dir.file("ckpt") + "/step-15\n");
  EXPECT_CONTAINS(text, "\nsaved checkpoint " + dir.file("ckpt") + "/step-20\n");
  EXPECT_EQ(text.find("step 1/20"), std::string::npos);
}

TEST(TrainLoop, TensorBoardEventsFollowTheMetrics) {
  TempDir dir;
  auto model = openModel(writeArtifact(dir, "r.distc", linearRegressionArtifact(3)));
  TrainOptions o;
  o.data = regressionData(dir, 40);
  o.holdout = 0.25;
  o.batchSize = 10;
  o.steps = 6;
  o.evalEvery = 3;
  o.progress = nullptr;
  o.tensorBoardDir = dir.file("runs/linear");
  TrainReport report;
  ASSERT_TRUE(runTraining(*model, o, report).ok());
  std::vector<std::string> files;
  for (const auto &entry : std::filesystem::directory_iterator(o.tensorBoardDir))
    files.push_back(entry.path().string());
  ASSERT_EQ(files.size(), 1u);
  // The version event, then one event per step: its size grows with the
  // evaluation's scalars at steps 3 and 6 (the framing is checked in
  // TensorBoardTest).
  const std::string bytes = readText(files[0]);
  std::vector<uint64_t> lengths;
  for (size_t at = 0; at + 16 <= bytes.size();) {
    uint64_t length = 0;
    for (int i = 7; i >= 0; --i)
      length = (length << 8) | static_cast<unsigned char>(bytes[at + size_t(i)]);
    lengths.push_back(length);
    at += 16 + length;
  }
  ASSERT_EQ(lengths.size(), 7u);
  EXPECT_EQ(lengths[1], lengths[2]);
  EXPECT_GT(lengths[3], lengths[2]);
  EXPECT_GT(lengths[6], lengths[5]);
}

} // namespace
