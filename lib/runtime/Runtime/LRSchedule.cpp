//===- LRSchedule.cpp - The learning rate as a function of the step -------===//

#include "distc/Runtime/LRSchedule.h"

#include <cmath>
#include <limits>

namespace distc::runtime {
namespace {

/// The schedule without warmup.
double scheduleAt(const LRScheduleParams &s, int64_t step) {
  if (s.kind == "constant")
    return s.baseLr;
  if (s.kind == "step") {
    if (s.stepSize < 1)
      return s.baseLr;
    return s.baseLr * std::pow(s.gamma, static_cast<double>(step / s.stepSize));
  }
  if (s.kind == "piecewise") {
    if (s.values.empty())
      return s.baseLr;
    for (size_t i = 0; i < s.boundaries.size() && i < s.values.size(); ++i)
      if (step < s.boundaries[i])
        return s.values[i];
    return s.values.back();
  }
  if (s.kind == "cosine") {
    if (s.decaySteps < 1)
      return s.baseLr;
    if (step >= s.decaySteps)
      return s.endLr;
    const double pi = 3.14159265358979323846;
    return s.endLr +
           (s.baseLr - s.endLr) *
               (1 + std::cos(pi * static_cast<double>(step) / static_cast<double>(s.decaySteps))) /
               2;
  }
  return std::numeric_limits<double>::quiet_NaN();
}

} // namespace

double learningRateAt(const LRScheduleParams &schedule, int64_t step) {
  if (step < 0)
    step = 0;
  if (schedule.warmupSteps > 0) {
    if (step < schedule.warmupSteps)
      return schedule.warmupStartLr + (scheduleAt(schedule, 0) - schedule.warmupStartLr) *
                                          static_cast<double>(step) /
                                          static_cast<double>(schedule.warmupSteps);
    step -= schedule.warmupSteps;
  }
  return scheduleAt(schedule, step);
}

LRScheduleParams scheduleParams(const distc::fb::LRSchedule &s) {
  LRScheduleParams p;
  p.kind = s.kind() ? s.kind()->str() : std::string();
  p.baseLr = s.base_lr();
  p.stepSize = s.step_size();
  p.gamma = s.gamma();
  if (s.boundaries())
    p.boundaries.assign(s.boundaries()->begin(), s.boundaries()->end());
  if (s.values())
    p.values.assign(s.values()->begin(), s.values()->end());
  p.decaySteps = s.decay_steps();
  p.endLr = s.end_lr();
  p.warmupSteps = s.warmup_steps();
  p.warmupStartLr = s.warmup_start_lr();
  return p;
}

double learningRateAt(const distc::fb::LRSchedule &schedule, int64_t step) {
  return learningRateAt(scheduleParams(schedule), step);
}

} // namespace distc::runtime
