//===- LRSchedule.h - The learning rate as a function of the step -*- C++ -*-===//
//
// The host computes the learning rate of every train step from the
// artifact's LRSchedule (artifact.fbs) and writes it into the training
// table's learning_rate_var, as Paddle 2.x's LRScheduler does. `step` is the
// 0-based optimizer step: the number of updates already applied.
//
//   constant   base_lr
//   step       base_lr * gamma^floor(s / step_size)
//   piecewise  values[i] for the first i with s < boundaries[i], else the
//              last value
//   cosine     end_lr + (base_lr - end_lr) * (1 + cos(pi * s / decay_steps)) / 2
//              for s < decay_steps, end_lr after
//
// With warmup_steps > 0, steps s < warmup_steps ramp linearly:
//   warmup_start_lr + (schedule(0) - warmup_start_lr) * s / warmup_steps,
// and the schedule then runs on s - warmup_steps.
//
// A negative step counts as 0. A step schedule with step_size < 1 or a
// cosine schedule with decay_steps < 1 (which the artifact validator
// rejects) stays at base_lr; an unknown kind gives NaN.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_RUNTIME_LRSCHEDULE_H
#define DISTC_RUNTIME_LRSCHEDULE_H

#include "distc/Artifact/ArtifactDesc.h"
#include "distc/Artifact/artifact_generated.h"

#include <cstdint>

namespace distc::runtime {

/// The plain form of a schedule (the same struct the compiler fills).
using LRScheduleParams = artifact::LRScheduleDesc;

/// The learning rate at `step` (see above).
double learningRateAt(const LRScheduleParams &schedule, int64_t step);
double learningRateAt(const distc::fb::LRSchedule &schedule, int64_t step);

/// The plain form of an artifact's schedule table.
LRScheduleParams scheduleParams(const distc::fb::LRSchedule &schedule);

} // namespace distc::runtime

#endif // DISTC_RUNTIME_LRSCHEDULE_H
