//===- LRScheduleTest.cpp - Learning-rate schedules against hand values ---===//

#include "TestArtifacts.h"

#include "distc/Runtime/LRSchedule.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace distc::testing;
using distc::runtime::learningRateAt;
using distc::runtime::LRScheduleParams;

namespace {

constexpr double kTol = 1e-15;

LRScheduleParams make(const std::string &kind, double base) {
  LRScheduleParams s;
  s.kind = kind;
  s.baseLr = base;
  return s;
}

TEST(LRSchedule, Constant) {
  LRScheduleParams s = make("constant", 0.1);
  for (int64_t step : {0, 1, 7, 1000000})
    EXPECT_EQ(learningRateAt(s, step), 0.1);
}

TEST(LRSchedule, StepDecay) {
  LRScheduleParams s = make("step", 0.1);
  s.stepSize = 3;
  s.gamma = 0.5;
  const double expected[] = {0.1, 0.1, 0.1, 0.05, 0.05, 0.05, 0.025, 0.025, 0.025, 0.0125};
  for (int64_t step = 0; step < 10; ++step)
    EXPECT_NEAR(learningRateAt(s, step), expected[step], kTol) << "step " << step;
}

TEST(LRSchedule, Piecewise) {
  LRScheduleParams s = make("piecewise", 99);
  s.boundaries = {2, 5};
  s.values = {1.0, 0.5, 0.1};
  const double expected[] = {1.0, 1.0, 0.5, 0.5, 0.5, 0.1, 0.1, 0.1};
  for (int64_t step = 0; step < 8; ++step)
    EXPECT_EQ(learningRateAt(s, step), expected[step]) << "step " << step;
  EXPECT_EQ(learningRateAt(s, 1000), 0.1);
}

TEST(LRSchedule, Cosine) {
  LRScheduleParams s = make("cosine", 1.0);
  s.decaySteps = 4;
  s.endLr = 0;
  // (1 + cos(pi * s / 4)) / 2 for s = 0..3, then end_lr.
  const double expected[] = {1.0, 0.8535533905932737, 0.5, 0.14644660940672627, 0, 0};
  for (int64_t step = 0; step < 6; ++step)
    EXPECT_NEAR(learningRateAt(s, step), expected[step], kTol) << "step " << step;
  EXPECT_EQ(learningRateAt(s, 100), 0.0);

  LRScheduleParams t = make("cosine", 1.1);
  t.decaySteps = 2;
  t.endLr = 0.1;
  EXPECT_NEAR(learningRateAt(t, 0), 1.1, kTol);
  EXPECT_NEAR(learningRateAt(t, 1), 0.6, kTol);
  EXPECT_EQ(learningRateAt(t, 2), 0.1);
  EXPECT_EQ(learningRateAt(t, 50), 0.1);
}

TEST(LRSchedule, LinearWarmup) {
  // Constant after 4 warmup steps from 0.02.
  LRScheduleParams c = make("constant", 0.1);
  c.warmupSteps = 4;
  c.warmupStartLr = 0.02;
  const double constant[] = {0.02, 0.04, 0.06, 0.08, 0.1, 0.1};
  for (int64_t step = 0; step < 6; ++step)
    EXPECT_NEAR(learningRateAt(c, step), constant[step], kTol) << "step " << step;

  // Cosine after 2 warmup steps from 0: the schedule starts over at step 2.
  LRScheduleParams s = make("cosine", 1.0);
  s.decaySteps = 4;
  s.warmupSteps = 2;
  const double cosine[] = {0, 0.5, 1.0, 0.8535533905932737, 0.5, 0.14644660940672627, 0, 0};
  for (int64_t step = 0; step < 8; ++step)
    EXPECT_NEAR(learningRateAt(s, step), cosine[step], kTol) << "step " << step;

  // Step decay after 1 warmup step: decay counts from the end of warmup.
  LRScheduleParams d = make("step", 0.1);
  d.stepSize = 2;
  d.gamma = 0.1;
  d.warmupSteps = 1;
  const double decay[] = {0, 0.1, 0.1, 0.01, 0.01, 0.001};
  for (int64_t step = 0; step < 6; ++step)
    EXPECT_NEAR(learningRateAt(d, step), decay[step], kTol) << "step " << step;

  // Piecewise: the ramp ends at values[0].
  LRScheduleParams p = make("piecewise", 0);
  p.boundaries = {1};
  p.values = {0.4, 0.2};
  p.warmupSteps = 2;
  p.warmupStartLr = 0.2;
  const double piecewise[] = {0.2, 0.30000000000000004, 0.4, 0.2, 0.2};
  for (int64_t step = 0; step < 5; ++step)
    EXPECT_NEAR(learningRateAt(p, step), piecewise[step], kTol) << "step " << step;
}

TEST(LRSchedule, NegativeStepsCountAsZeroAndUnknownKindsAreNaN) {
  LRScheduleParams s = make("step", 0.1);
  s.stepSize = 1;
  s.gamma = 0.5;
  EXPECT_EQ(learningRateAt(s, -5), 0.1);
  EXPECT_TRUE(std::isnan(learningRateAt(make("exponential", 0.1), 3)));
}

TEST(LRSchedule, FromTheArtifactTable) {
  ArtifactBuilder b;
  int lr = b.buffer("learning_rate_0", DType::Float32, Shape{1}, BufferKind::Persistent);
  auto &start = b.program("train", ProgramKind::Startup);
  b.call(start, "fill", {}, {lr}, {AttrDesc::ofFloat("value", 0.1)});
  b.desc.hasTraining = true;
  b.desc.training.learningRateVar = "learning_rate_0";
  b.desc.training.hasSchedule = true;
  LRScheduleParams &s = b.desc.training.schedule;
  s = make("piecewise", 0);
  s.boundaries = {3, 6};
  s.values = {0.3, 0.2, 0.1};
  s.warmupSteps = 2;
  s.warmupStartLr = 0.1;
  std::string error;
  auto loaded = b.load(error);
  ASSERT_TRUE(loaded) << error;
  const distc::fb::LRSchedule *table = (*loaded)->training()->schedule();
  ASSERT_TRUE(table);
  for (int64_t step = 0; step < 12; ++step)
    EXPECT_EQ(learningRateAt(*table, step), learningRateAt(s, step)) << "step " << step;
  EXPECT_NEAR(learningRateAt(*table, 1), 0.2, kTol);
  EXPECT_EQ(learningRateAt(*table, 2), 0.3);
  EXPECT_EQ(learningRateAt(*table, 5), 0.2);
  EXPECT_EQ(learningRateAt(*table, 8), 0.1);
  LRScheduleParams back = distc::runtime::scheduleParams(*table);
  EXPECT_EQ(back.kind, "piecewise");
  EXPECT_EQ(back.boundaries, s.boundaries);
  EXPECT_EQ(back.values, s.values);
  EXPECT_EQ(back.warmupSteps, 2);
}

} // namespace
