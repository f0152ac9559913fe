//===- DistModelTest.cpp - train/eval/predict, schedules, state dicts -----===//
//
// DistModel over hand-built training artifacts (TrainArtifacts.h): the loss
// decreases and the first update matches a hand computation, the learning
// rate follows the schedule into the rate variable, the step variable
// counts updates, state dicts copy and restore exactly (a model restored
// mid-run continues with bitwise identical losses), and bad state dicts
// are rejected before anything is written.
//
//===----------------------------------------------------------------------===//

#include "TestArtifacts.h"
#include "TrainArtifacts.h"

#include "distc/Runtime/DistModel.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>

using namespace distc::testing;
using distc::runtime::DistModel;
using distc::runtime::StepResult;

namespace {

std::unique_ptr<DistModel> modelOf(const ArtifactDesc &desc) {
  std::string error;
  auto loaded = distc::artifact::LoadedArtifact::loadBytes(
      distc::artifact::makeArtifactFileBytes(distc::artifact::serializeArtifact(desc)),
      "test.distc", error);
  EXPECT_TRUE(loaded) << error;
  if (!loaded)
    return nullptr;
  auto session = distc::runtime::Session::create(std::move(loaded), nullptr, error);
  EXPECT_TRUE(session) << error;
  if (!session)
    return nullptr;
  auto model = DistModel::create(std::move(session), error);
  EXPECT_TRUE(model) << error;
  return model;
}

/// y = x . [1, -2, 0.5] + 0.3 on `rows` random rows.
TensorMap regressionBatch(int64_t rows, uint64_t seed) {
  std::mt19937_64 rng(seed);
  Tensor x = randomTensor(DType::Float32, {rows, 3}, rng);
  Tensor y(DType::Float32, {rows, 1});
  for (int64_t r = 0; r < rows; ++r) {
    const float *xr = x.data<float>() + 3 * r;
    y.data<float>()[r] = xr[0] * 1.0f - 2.0f * xr[1] + 0.5f * xr[2] + 0.3f;
  }
  return {{"x", x}, {"y", y}};
}


uint32_t bitsOf(float v) {
  uint32_t b;
  std::memcpy(&b, &v, 4);
  return b;
}

std::vector<std::string> keys(const TensorMap &m) {
  std::vector<std::string> out;
  for (const auto &e : m)
    out.push_back(e.first);
  return out;
}

bool sameBytes(const Tensor &a, const Tensor &b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() &&
         std::memcmp(a.data(), b.data(), a.byteSize()) == 0;
}

TEST(DistModel, TrainingLowersTheLossAndTheFirstUpdateMatchesByHand) {
  auto model = modelOf(linearRegressionArtifact(3));
  ASSERT_TRUE(model);
  EXPECT_EQ(model->mode(), "train");
  ASSERT_TRUE(model->initialize().ok());
  TensorMap batch = regressionBatch(16, 1);

  // One SGD step by hand in double: dL/dw = 2/N x^T (pred - y).
  Tensor w0 = model->session().persistent("linear_0.w_0").clone();
  std::vector<double> grad(3, 0);
  double gradB = 0;
  for (int64_t r = 0; r < 16; ++r) {
    const float *xr = batch["x"].data<float>() + 3 * r;
    double pred = 0;
    for (int k = 0; k < 3; ++k)
      pred += double(xr[k]) * w0.data<float>()[k];
    double d = 2.0 * (pred - batch["y"].data<float>()[r]) / 16;
    for (int k = 0; k < 3; ++k)
      grad[k] += d * xr[k];
    gradB += d;
  }
  StepResult r;
  Status s = model->step(batch, r);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_TRUE(r.hasLoss);
  EXPECT_EQ(r.step, 1);
  EXPECT_EQ(model->globalStep(), 1);
  EXPECT_EQ(r.learningRate, 0.1);
  Tensor w1 = model->session().persistent("linear_0.w_0");
  for (int k = 0; k < 3; ++k)
    EXPECT_NEAR(w1.data<float>()[k], w0.data<float>()[k] - 0.1 * grad[k], 1e-5);
  EXPECT_NEAR(model->session().persistent("linear_0.b_0").data<float>()[0], -0.1 * gradB, 1e-5);

  const double first = r.loss;
  for (int i = 0; i < 60; ++i)
    ASSERT_TRUE(model->step(batch, r).ok());
  EXPECT_EQ(model->globalStep(), 61);
  EXPECT_LT(r.loss, 0.01 * first) << "first " << first << " last " << r.loss;
  EXPECT_EQ(r.fetches.size(), 1u);
  EXPECT_EQ(r.fetches.count("loss"), 1u);
}

TEST(DistModel, EvalAndPredictDoNotUpdate) {
  auto model = modelOf(linearRegressionArtifact(3));
  ASSERT_TRUE(model);
  ASSERT_TRUE(model->initialize().ok());
  TensorMap batch = regressionBatch(8, 2);
  ASSERT_TRUE(model->eval().ok());
  EXPECT_EQ(model->mode(), "eval");
  StepResult a, b;
  ASSERT_TRUE(model->step(batch, a).ok());
  ASSERT_TRUE(model->step(batch, b).ok());
  EXPECT_TRUE(a.hasLoss);
  EXPECT_EQ(bitsOf(float(a.loss)), bitsOf(float(b.loss)));
  EXPECT_EQ(keys(a.fetches), (std::vector<std::string>{"loss", "mae"}));
  EXPECT_EQ(model->globalStep(), 0);
  EXPECT_TRUE(std::isnan(a.learningRate));

  ASSERT_TRUE(model->predict().ok());
  StepResult p;
  Status s = model->step({{"x", batch["x"]}}, p);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_FALSE(p.hasLoss);
  EXPECT_TRUE(std::isnan(p.loss));
  EXPECT_EQ(p.fetches["pred"].typeString(), "f32[8,1]");
  // Feeding the label to predict is an error, not silently ignored.
  s = model->step(batch, p);
  EXPECT_CONTAINS(s.message(), "unknown feed 'y'");
  EXPECT_EQ(model->globalStep(), 0);
}

TEST(DistModel, LearningRateFollowsTheScheduleIntoTheRateVariable) {
  TrainArtifactOptions options;
  options.hasSchedule = true;
  options.schedule.kind = "step";
  options.schedule.baseLr = 0.05;
  options.schedule.stepSize = 2;
  options.schedule.gamma = 0.5;
  options.schedule.warmupSteps = 2;
  options.schedule.warmupStartLr = 0.01;
  auto model = modelOf(linearRegressionArtifact(3, options));
  ASSERT_TRUE(model);
  ASSERT_TRUE(model->initialize().ok());
  TensorMap batch = regressionBatch(8, 3);
  const double expected[] = {0.01, 0.03, 0.05, 0.05, 0.025, 0.025, 0.0125};
  for (int k = 0; k < 7; ++k) {
    EXPECT_NEAR(model->currentLearningRate(), expected[k], 1e-15) << "step " << k;
    StepResult r;
    ASSERT_TRUE(model->step(batch, r).ok());
    EXPECT_NEAR(r.learningRate, expected[k], 1e-15) << "step " << k;
    // The program saw the f32 rate and the 0-based step number.
    EXPECT_EQ(model->session().persistent("learning_rate_0").data<float>()[0], float(expected[k]));
    EXPECT_EQ(model->session().persistent("global_step").data<int64_t>()[0], k);
  }
  model->setGlobalStep(100);
  EXPECT_NEAR(model->currentLearningRate(), 0.05 * std::pow(0.5, 49), 1e-20);
}

TEST(DistModel, WithoutAScheduleTheRateIsTheVariable) {
  TrainArtifactOptions options;
  options.learningRate = 0.1;
  auto model = modelOf(linearRegressionArtifact(3, options));
  ASSERT_TRUE(model);
  EXPECT_TRUE(std::isnan(model->currentLearningRate()));
  ASSERT_TRUE(model->initialize().ok());
  EXPECT_EQ(model->currentLearningRate(), 0.1);
  Tensor lr = tensorOf(DType::Float32, {1}, {0.025});
  ASSERT_TRUE(model->session().setPersistent("learning_rate_0", lr).ok());
  StepResult r;
  ASSERT_TRUE(model->step(regressionBatch(4, 4), r).ok());
  EXPECT_EQ(r.learningRate, 0.025);
  EXPECT_EQ(model->currentLearningRate(), 0.025);
}

TEST(DistModel, StateDictGroups) {
  TrainArtifactOptions options;
  options.optimizer = "adam";
  auto model = modelOf(linearRegressionArtifact(3, options));
  ASSERT_TRUE(model);
  TensorMap sd;
  Status s = model->stateDict("param", sd);
  EXPECT_CONTAINS(s.message(), "variable 'linear_0.b_0' is not initialized");
  ASSERT_TRUE(model->initialize().ok());
  ASSERT_TRUE(model->stateDict("param", sd).ok());
  EXPECT_EQ(keys(sd), (std::vector<std::string>{"linear_0.b_0", "linear_0.w_0"}));
  ASSERT_TRUE(model->stateDict("opt", sd).ok());
  EXPECT_EQ(keys(sd),
            (std::vector<std::string>{"learning_rate_0", "linear_0.b_0_beta1_pow_acc_0",
                                      "linear_0.b_0_beta2_pow_acc_0", "linear_0.b_0_moment1_0",
                                      "linear_0.b_0_moment2_0", "linear_0.w_0_beta1_pow_acc_0",
                                      "linear_0.w_0_beta2_pow_acc_0", "linear_0.w_0_moment1_0",
                                      "linear_0.w_0_moment2_0"}));
  ASSERT_TRUE(model->stateDict("all", sd).ok());
  EXPECT_EQ(sd.size(), 11u);
  EXPECT_CONTAINS(model->stateDict("everything", sd).message(),
                  "unknown state dict mode 'everything'; expected param, opt or all");
  TensorMap persist;
  ASSERT_TRUE(model->persistables(persist).ok());
  EXPECT_EQ(persist.size(), 12u); // "all" plus the step variable
  EXPECT_EQ(persist.count("global_step"), 1u);

  // Deep copies: writing one does not touch the model.
  ASSERT_TRUE(model->stateDict("param", sd).ok());
  float before = model->session().persistent("linear_0.w_0").data<float>()[0];
  sd["linear_0.w_0"].data<float>()[0] = before + 1;
  EXPECT_EQ(model->session().persistent("linear_0.w_0").data<float>()[0], before);
}

TEST(DistModel, StateDictWithoutATrainingTable) {
  ArtifactDesc desc = linearRegressionArtifact(3);
  desc.hasTraining = false;
  desc.programs.erase(std::remove_if(desc.programs.begin(), desc.programs.end(),
                                     [](const auto &p) { return p.mode == "train"; }),
                      desc.programs.end());
  auto model = modelOf(desc);
  ASSERT_TRUE(model);
  EXPECT_EQ(model->mode(), "eval");
  EXPECT_FALSE(model->hasTraining());
  EXPECT_CONTAINS(model->train().message(), "no mode 'train'; the artifact has: eval, predict");
  ASSERT_TRUE(model->initialize().ok());
  TensorMap sd;
  // Only the eval startup ran: the optimizer's variables are not written.
  EXPECT_CONTAINS(model->stateDict("param", sd).message(),
                  "variable 'global_step' is not initialized");
  for (const char *name : {"global_step", "learning_rate_0"})
    ASSERT_TRUE(
        model->session()
            .setPersistent(name, Tensor(name[0] == 'g' ? DType::Int64 : DType::Float32, {1}))
            .ok());
  ASSERT_TRUE(model->stateDict("param", sd).ok());
  EXPECT_EQ(keys(sd), (std::vector<std::string>{"global_step", "learning_rate_0", "linear_0.b_0",
                                                "linear_0.w_0"}));
  ASSERT_TRUE(model->stateDict("opt", sd).ok());
  EXPECT_TRUE(sd.empty());
  StepResult r;
  ASSERT_TRUE(model->step(regressionBatch(4, 5), r).ok());
  EXPECT_FALSE(r.hasLoss); // no training table names the loss
  EXPECT_EQ(r.fetches.size(), 2u);
}

TEST(DistModel, SetStateDictRestoresExactly) {
  TrainArtifactOptions options;
  options.optimizer = "momentum";
  auto a = modelOf(linearRegressionArtifact(3, options));
  auto b = modelOf(linearRegressionArtifact(3, options));
  ASSERT_TRUE(a && b);
  ASSERT_TRUE(a->initialize().ok());
  ASSERT_TRUE(b->initialize().ok());
  TensorMap batch = regressionBatch(8, 6);
  StepResult r;
  for (int i = 0; i < 5; ++i)
    ASSERT_TRUE(a->step(batch, r).ok());
  TensorMap params;
  ASSERT_TRUE(a->stateDict("param", params).ok());
  ASSERT_TRUE(b->setStateDict(params, /*strict=*/false).ok());
  ASSERT_TRUE(a->predict().ok());
  ASSERT_TRUE(b->predict().ok());
  StepResult pa, pb;
  ASSERT_TRUE(a->step({{"x", batch["x"]}}, pa).ok());
  ASSERT_TRUE(b->step({{"x", batch["x"]}}, pb).ok());
  EXPECT_TRUE(sameBytes(pa.fetches["pred"], pb.fetches["pred"]));
}

TEST(DistModel, SetStateDictErrorsWriteNothing) {
  auto model = modelOf(linearRegressionArtifact(3));
  ASSERT_TRUE(model);
  ASSERT_TRUE(model->initialize().ok());
  TensorMap all;
  ASSERT_TRUE(model->stateDict("all", all).ok());
  Tensor w = model->session().persistent("linear_0.w_0").clone();

  TensorMap changed = all;
  changed["linear_0.w_0"] = Tensor(DType::Float32, {3, 1}); // zeros
  TensorMap missing = changed;
  missing.erase("learning_rate_0");
  EXPECT_CONTAINS(model->setStateDict(missing).message(),
                  "the state dict has no variable 'learning_rate_0'");
  TensorMap extra = changed;
  extra["global_step"] = Tensor(DType::Int64, {1});
  EXPECT_CONTAINS(model->setStateDict(extra).message(),
                  "variable 'global_step' is not in the model's state_dict(\"all\")");
  TensorMap unknown = changed;
  unknown["nope"] = Tensor(DType::Float32, {1});
  EXPECT_CONTAINS(model->setStateDict(unknown, false).message(),
                  "'nope' is not a persistent variable of test.distc");
  TensorMap badShape = changed;
  badShape["linear_0.b_0"] = Tensor(DType::Float32, {2});
  EXPECT_CONTAINS(model->setStateDict(badShape).message(),
                  "state dict variable 'linear_0.b_0' is f32[2] but the artifact declares f32[1]");
  TensorMap badType = changed;
  badType["linear_0.b_0"] = Tensor(DType::Float64, {1});
  EXPECT_CONTAINS(model->setStateDict(badType, false).message(),
                  "state dict variable 'linear_0.b_0' is f64[1] but the artifact declares f32[1]");
  // None of the failed loads wrote the zeroed weight.
  EXPECT_TRUE(sameBytes(model->session().persistent("linear_0.w_0"), w));
  ASSERT_TRUE(model->setStateDict(changed).ok());
  EXPECT_EQ(model->session().persistent("linear_0.w_0").data<float>()[0], 0.0f);
}

TEST(DistModel, RestoringMidRunContinuesBitwiseIdentically) {
  // Dropout reads the step variable, so a wrong step would change the masks.
  for (const char *optimizer : {"sgd", "momentum", "adam"}) {
    SCOPED_TRACE(optimizer);
    TrainArtifactOptions options;
    options.optimizer = optimizer;
    options.learningRate = 0.05;
    options.dropout = 0.3;
    options.hasSchedule = true;
    options.schedule.kind = "cosine";
    options.schedule.baseLr = 0.05;
    options.schedule.decaySteps = 8;
    const ArtifactDesc desc = classifierArtifact(4, 8, 3, options);
    std::vector<TensorMap> batches;
    for (int i = 0; i < 8; ++i)
      batches.push_back(classifierBatch(6, 100 + i));

    auto full = modelOf(desc);
    ASSERT_TRUE(full && full->initialize().ok());
    std::vector<uint32_t> expected;
    for (const TensorMap &batch : batches) {
      StepResult r;
      Status s = full->step(batch, r);
      ASSERT_TRUE(s.ok()) << s.message();
      expected.push_back(bitsOf(float(r.loss)));
    }

    auto first = modelOf(desc);
    ASSERT_TRUE(first && first->initialize().ok());
    for (int i = 0; i < 3; ++i) {
      StepResult r;
      ASSERT_TRUE(first->step(batches[i], r).ok());
      EXPECT_EQ(bitsOf(float(r.loss)), expected[i]);
    }
    TensorMap state;
    ASSERT_TRUE(first->stateDict("all", state).ok());
    auto second = modelOf(desc);
    ASSERT_TRUE(second && second->initialize().ok());
    ASSERT_TRUE(second->setStateDict(state).ok());
    second->setGlobalStep(first->globalStep());
    for (int i = 3; i < 8; ++i) {
      StepResult r;
      ASSERT_TRUE(second->step(batches[i], r).ok());
      EXPECT_EQ(bitsOf(float(r.loss)), expected[i]) << "step " << i;
    }

    // Without the step count the dropout masks differ: the check above is
    // sensitive to the step variable.
    auto wrong = modelOf(desc);
    ASSERT_TRUE(wrong && wrong->initialize().ok());
    ASSERT_TRUE(wrong->setStateDict(state).ok());
    StepResult r;
    ASSERT_TRUE(wrong->step(batches[3], r).ok());
    EXPECT_NE(bitsOf(float(r.loss)), expected[3]);
  }
}

TEST(DistModel, SessionPersistentAccess) {
  auto model = modelOf(linearRegressionArtifact(3));
  ASSERT_TRUE(model);
  distc::runtime::Session &s = model->session();
  std::vector<std::string> names;
  for (const distc::runtime::ProgramIO &p : s.persistentBuffers())
    names.push_back(p.name + " " + p.type);
  EXPECT_EQ(names, (std::vector<std::string>{"linear_0.w_0 f32[3,1]", "linear_0.b_0 f32[1]",
                                             "learning_rate_0 f32[1]", "global_step i64[1]"}));
  EXPECT_EQ(s.feeds("train")[0].dims, (Shape{-1, 3}));
  EXPECT_FALSE(s.isInitialized("linear_0.b_0"));
  EXPECT_CONTAINS(s.setPersistent("linear_0.b_0", Tensor(DType::Float32, {2})).message(),
                  "variable 'linear_0.b_0' is f32[2] but the artifact declares f32[1]");
  EXPECT_CONTAINS(s.setPersistent("x", Tensor(DType::Float32, {2})).message(),
                  "'x' is not a persistent variable of test.distc");
  EXPECT_FALSE(s.isInitialized("linear_0.b_0"));
  ASSERT_TRUE(s.setPersistent("linear_0.b_0", tensorOf(DType::Float32, {1}, {2.5})).ok());
  EXPECT_TRUE(s.isInitialized("linear_0.b_0"));
  EXPECT_EQ(s.persistent("linear_0.b_0").data<float>()[0], 2.5f);
  EXPECT_FALSE(s.isInitialized("nope"));
}

TEST(DistModel, ClassifierLearns) {
  TrainArtifactOptions options;
  options.optimizer = "adam";
  options.learningRate = 0.05;
  auto model = modelOf(classifierArtifact(4, 8, 3, options));
  ASSERT_TRUE(model && model->initialize().ok());
  TensorMap batch = classifierBatch(64, 9);
  StepResult first, r;
  ASSERT_TRUE(model->step(batch, first).ok());
  for (int i = 0; i < 150; ++i)
    ASSERT_TRUE(model->step(batch, r).ok());
  EXPECT_LT(r.loss, 0.5 * first.loss);
  ASSERT_TRUE(model->eval().ok());
  ASSERT_TRUE(model->step(batch, r).ok());
  EXPECT_GT(r.fetches["acc"].data<float>()[0], 0.8f);
}

TEST(DistModel, ModeErrors) {
  ArtifactDesc desc = linearRegressionArtifact(3);
  desc.training.loss = "total_loss";
  auto model = modelOf(desc);
  ASSERT_TRUE(model);
  EXPECT_CONTAINS(model->train().message(),
                  "test.distc: the train program does not fetch the loss 'total_loss' named by "
                  "the training table; its fetches: loss");
  EXPECT_TRUE(model->predict().ok());
  EXPECT_CONTAINS(model->setMode("infer").message(),
                  "no mode 'infer'; the artifact has: train, eval, predict");

  std::string error;
  EXPECT_FALSE(DistModel::open("/nonexistent/model.distc", error));
  EXPECT_CONTAINS(error, "/nonexistent/model.distc");
}

} // namespace
