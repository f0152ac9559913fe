//===- TrainArtifacts.h - Hand-built artifacts with a train mode -*- C++ -*-===//
//
// Artifacts in the form the compiler's train mode produces, written by hand
// with ArtifactDesc: a Main and a Startup program for "train", "eval" and
// "predict" sharing one set of persistent buffers; the train program runs
// the forward pass, the backward kernels and an optimizer updating the
// parameters and optimizer state in place; a training table (loss fetch,
// learning-rate and step variables, optional schedule, state-dict groups)
// and an inference payload.
//
// Used by the runtime and training tests, the tools' smoke tests and the
// DistModel API example. No GoogleTest here.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_UNITTESTS_RUNTIME_TRAINARTIFACTS_H
#define DISTC_UNITTESTS_RUNTIME_TRAINARTIFACTS_H

#include "distc/Artifact/ArtifactDesc.h"
#include "distc/Runtime/Tensor.h"

#include <cstdint>
#include <string>
#include <vector>

namespace distc::testing {

struct TrainArtifactOptions {
  /// sgd, momentum (mu 0.9) or adam (0.9, 0.999, 1e-8).
  std::string optimizer = "sgd";
  /// The value the startup program writes into the learning-rate variable.
  double learningRate = 0.1;
  bool hasSchedule = false;
  artifact::LRScheduleDesc schedule;
  /// Classifier only: dropout with this probability after the hidden layer
  /// in the train program (0: none). The dropout kernel reads the step
  /// variable, so its masks differ from step to step.
  double dropout = 0;
  bool withInference = true;
};

/// pred = x @ w + b; loss = mean((pred - y)^2), mae = mean(|pred - y|).
///   feeds:    train, eval: x f32[?,features], y f32[?,1]; predict: x
///   fetches:  train: loss; eval: loss, mae; predict: pred
///   params:   linear_0.w_0 f32[features,1] (uniform in [-0.5, 0.5],
///             seed 7), linear_0.b_0 f32[1] (0)
///   scalars:  learning_rate_0 f32[1], global_step i64[1]
artifact::ArtifactDesc linearRegressionArtifact(int64_t features,
                                                const TrainArtifactOptions &options = {});

/// A two-layer classifier: h = relu(x @ w1 + b1), logits = h @ w2 + b2;
/// loss = mean(softmax_cross_entropy(logits, label)), acc = accuracy of the
/// top-1 class.
///   feeds:    train, eval: x f32[?,features], label i64[?,1]; predict: x
///   fetches:  train, eval: loss, acc; predict: probs
///   params:   fc_0.w_0, fc_0.b_0, fc_1.w_0, fc_1.b_0
artifact::ArtifactDesc classifierArtifact(int64_t features, int64_t hidden, int64_t classes,
                                          const TrainArtifactOptions &options = {});

/// A batch for classifierArtifact(4, ...): `rows` rows of x uniform in
/// [-1, 1) from `seed`, label = x0 > x1 ? (x2 > 0 ? 2 : 1) : 0.
runtime::TensorMap classifierBatch(int64_t rows, uint64_t seed);

} // namespace distc::testing

#endif // DISTC_UNITTESTS_RUNTIME_TRAINARTIFACTS_H
