//===- ExampleArtifact.cpp - Writes a small classifier artifact -----------===//
//
// distc-example-artifact OUT.distc
// distc-example-artifact --train=KIND OUT.distc
//
// A two-layer classifier in the shape the compiler lowers fc/softmax
// programs to, with predict and eval modes sharing their parameters:
//   h = relu(x @ w1 + b1); logits = h @ w2 + b2
//   predict: probs = softmax(logits)
//   eval:    loss = mean(softmax_cross_entropy(logits, label)),
//            acc = accuracy(top_k(logits, 1), label)
// The runtime tests and the loader fuzzer's seed corpus use it.
//
// With --train, an artifact with train, eval and predict modes and a
// training table (TrainArtifacts.h), KIND being
//   classifier   4 features, 8 hidden, 3 classes; SGD, rate 0.1
//   digits       64 features, 32 hidden, 10 classes (the digits data);
//                Adam, rate 0.01, dropout 0.1 in training
//   regression   linear regression on 3 features; SGD, rate 0.1
//
//===----------------------------------------------------------------------===//

#include "TrainArtifacts.h"

#include "distc/Artifact/ArtifactDesc.h"
#include "distc/Artifact/ArtifactFile.h"

#include <cstdio>
#include <cstring>

using namespace distc::artifact;

namespace {

int writeTrainArtifact(const std::string &kind, const char *path) {
  distc::testing::TrainArtifactOptions options;
  ArtifactDesc a;
  if (kind == "classifier") {
    a = distc::testing::classifierArtifact(4, 8, 3, options);
  } else if (kind == "digits") {
    options.optimizer = "adam";
    options.learningRate = 0.01;
    options.dropout = 0.1;
    a = distc::testing::classifierArtifact(64, 32, 10, options);
  } else if (kind == "regression") {
    a = distc::testing::linearRegressionArtifact(3, options);
  } else {
    std::fprintf(stderr,
                 "distc-example-artifact: error: unknown --train kind '%s' (classifier, digits, "
                 "regression)\n",
                 kind.c_str());
    return 1;
  }
  std::string error;
  if (!writeArtifactFile(path, serializeArtifact(a), error)) {
    std::fprintf(stderr, "distc-example-artifact: error: %s\n", error.c_str());
    return 1;
  }
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  if (argc == 3 && std::strncmp(argv[1], "--train=", 8) == 0)
    return writeTrainArtifact(argv[1] + 8, argv[2]);
  if (argc != 2) {
    std::fprintf(stderr, "usage: distc-example-artifact [--train=KIND] OUT.distc\n");
    return 1;
  }
  ArtifactDesc a;
  a.producer = "distc-example-artifact";
  a.source = "example_classifier.json";
  a.symbols = {"x.dim0"};
  auto add = [&](std::string name, DType dt, std::vector<DimDesc> dims,
                 BufferKind kind = BufferKind::Temp, int alias = -1) {
    a.buffers.push_back({std::move(name), dt, std::move(dims), kind, alias});
    return int32_t(a.buffers.size() - 1);
  };
  using D = DimDesc;
  const auto F = DType::Float32;
  int32_t x = add("x", F, {D::symbolic(0), D::fixed(4)}, BufferKind::Feed);
  int32_t label = add("label", DType::Int64, {D::symbolic(0), D::fixed(1)}, BufferKind::Feed);
  int32_t w1 = add("fc_0.w_0", F, {D::fixed(4), D::fixed(8)}, BufferKind::Persistent);
  int32_t b1 = add("fc_0.b_0", F, {D::fixed(8)}, BufferKind::Persistent);
  int32_t b1v = add("fc_0.b_0@row", F, {D::fixed(1), D::fixed(8)}, BufferKind::View, b1);
  int32_t w2 = add("fc_1.w_0", F, {D::fixed(8), D::fixed(3)}, BufferKind::Persistent);
  int32_t b2 = add("fc_1.b_0", F, {D::fixed(3)}, BufferKind::Persistent);
  int32_t b2v = add("fc_1.b_0@row", F, {D::fixed(1), D::fixed(3)}, BufferKind::View, b2);
  int32_t mm1 = add("fc_0.tmp_0", F, {D::symbolic(0), D::fixed(8)});
  int32_t add1 = add("fc_0.tmp_1", F, {D::symbolic(0), D::fixed(8)});
  int32_t h = add("relu_0.tmp_0", F, {D::symbolic(0), D::fixed(8)});
  int32_t mm2 = add("fc_1.tmp_0", F, {D::symbolic(0), D::fixed(3)});
  int32_t logits = add("fc_1.tmp_1", F, {D::symbolic(0), D::fixed(3)});
  int32_t probs = add("softmax_0.tmp_0", F, {D::symbolic(0), D::fixed(3)});
  int32_t sm = add("softmax_with_cross_entropy_0.tmp_0", F, {D::symbolic(0), D::fixed(3)});
  int32_t ce = add("softmax_with_cross_entropy_0.tmp_1", F, {D::symbolic(0), D::fixed(1)});
  int32_t loss = add("mean_0.tmp_0", F, {D::fixed(1)});
  int32_t topv = add("top_k_0.tmp_0", F, {D::symbolic(0), D::fixed(1)});
  int32_t topi = add("top_k_0.tmp_1", DType::Int64, {D::symbolic(0), D::fixed(1)});
  int32_t acc = add("accuracy_0.tmp_0", F, {D::fixed(1)});
  int32_t correct = add("accuracy_0.tmp_1", DType::Int32, {D::fixed(1)});
  int32_t total = add("accuracy_0.tmp_2", DType::Int32, {D::fixed(1)});

  auto call = [](std::string k, std::vector<int32_t> in, std::vector<int32_t> out,
                 std::vector<AttrDesc> attrs, std::string origin) {
    return KernelCallDesc{std::move(k), std::move(in), std::move(out), std::move(attrs),
                          std::move(origin)};
  };
  auto forward = [&] {
    return std::vector<KernelCallDesc>{
        call("matmul", {x, w1}, {mm1},
             {AttrDesc::ofInt("trans_a", 0), AttrDesc::ofInt("trans_b", 0)}, "mul -> fc_0.tmp_0"),
        call("binary", {mm1, b1v}, {add1}, {AttrDesc::ofString("op", "add")},
             "elementwise_add -> fc_0.tmp_1"),
        call("unary", {add1}, {h}, {AttrDesc::ofString("op", "relu")}, "relu -> relu_0.tmp_0"),
        call("matmul", {h, w2}, {mm2},
             {AttrDesc::ofInt("trans_a", 0), AttrDesc::ofInt("trans_b", 0)}, "mul -> fc_1.tmp_0"),
        call("binary", {mm2, b2v}, {logits}, {AttrDesc::ofString("op", "add")},
             "elementwise_add -> fc_1.tmp_1"),
    };
  };
  auto startup = [&](const std::string &mode) {
    ProgramDesc p;
    p.mode = mode;
    p.kind = ProgramKind::Startup;
    p.calls = {
        call("uniform_random", {}, {w1},
             {AttrDesc::ofFloat("min", -0.5), AttrDesc::ofFloat("max", 0.5),
              AttrDesc::ofInt("seed", 11)},
             "uniform_random -> fc_0.w_0"),
        call("fill", {}, {b1}, {AttrDesc::ofFloat("value", 0.1)}, "fill_constant -> fc_0.b_0"),
        call("gaussian_random", {}, {w2},
             {AttrDesc::ofFloat("mean", 0), AttrDesc::ofFloat("std", 0.5),
              AttrDesc::ofInt("seed", 12)},
             "gaussian_random -> fc_1.w_0"),
        call("fill", {}, {b2}, {AttrDesc::ofFloat("value", 0)}, "fill_constant -> fc_1.b_0"),
    };
    return p;
  };

  ProgramDesc predict;
  predict.mode = "predict";
  predict.feeds = {{"x", x}};
  predict.fetches = {{"probs", probs}};
  predict.calls = forward();
  predict.calls.push_back(call("softmax", {logits}, {probs}, {AttrDesc::ofInt("axis", 1)},
                               "softmax -> softmax_0.tmp_0"));

  ProgramDesc eval;
  eval.mode = "eval";
  eval.feeds = {{"x", x}, {"label", label}};
  eval.fetches = {{"loss", loss}, {"acc", acc}};
  eval.calls = forward();
  eval.calls.push_back(call("softmax_cross_entropy", {logits, label}, {sm, ce},
                            {AttrDesc::ofInt("axis", 1), AttrDesc::ofInt("soft_label", 0),
                             AttrDesc::ofInt("ignore_index", -100)},
                            "softmax_with_cross_entropy -> softmax_with_cross_entropy_0.tmp_1"));
  eval.calls.push_back(call("reduce", {ce}, {loss},
                            {AttrDesc::ofString("op", "mean"), AttrDesc::ofInts("axes", {0, 1})},
                            "mean -> mean_0.tmp_0"));
  eval.calls.push_back(
      call("top_k", {logits}, {topv, topi}, {AttrDesc::ofInt("k", 1)}, "top_k -> top_k_0.tmp_0"));
  eval.calls.push_back(
      call("accuracy", {topi, label}, {acc, correct, total}, {}, "accuracy -> accuracy_0.tmp_0"));

  a.programs = {predict, startup("predict"), eval, startup("eval")};
  std::string error;
  if (!writeArtifactFile(argv[1], serializeArtifact(a), error)) {
    std::fprintf(stderr, "distc-example-artifact: error: %s\n", error.c_str());
    return 1;
  }
  return 0;
}
