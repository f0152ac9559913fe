//===- TrainArtifacts.cpp - Hand-built artifacts with a train mode --------===//

#include "TrainArtifacts.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <utility>

namespace distc::testing {
namespace {

using namespace distc::artifact;
using D = DimDesc;

/// Buffers, programs and calls, by name.
struct Builder {
  ArtifactDesc a;

  // program() hands out references into a.programs: no reallocation.
  Builder() { a.programs.reserve(8); }

  int32_t add(const std::string &name, DType dtype, std::vector<DimDesc> dims,
              BufferKind kind = BufferKind::Temp, int32_t alias = -1) {
    a.buffers.push_back({name, dtype, std::move(dims), kind, alias});
    return int32_t(a.buffers.size() - 1);
  }
  int32_t persistent(const std::string &name, DType dtype, const std::vector<int64_t> &shape) {
    std::vector<DimDesc> dims;
    for (int64_t d : shape)
      dims.push_back(D::fixed(d));
    return add(name, dtype, dims, BufferKind::Persistent);
  }
  ProgramDesc &program(const std::string &mode, ProgramKind kind = ProgramKind::Main) {
    for (ProgramDesc &p : a.programs)
      if (p.mode == mode && p.kind == kind)
        return p;
    ProgramDesc p;
    p.mode = mode;
    p.kind = kind;
    a.programs.push_back(std::move(p));
    return a.programs.back();
  }
  static void call(ProgramDesc &p, std::string kernel, std::vector<int32_t> in,
                   std::vector<int32_t> out, std::vector<AttrDesc> attrs, std::string origin) {
    p.calls.push_back(
        {std::move(kernel), std::move(in), std::move(out), std::move(attrs), std::move(origin)});
  }
  const std::string &name(int32_t buffer) const { return a.buffers[buffer].name; }
  std::vector<int64_t> shape(int32_t buffer) const {
    std::vector<int64_t> s;
    for (const DimDesc &d : a.buffers[buffer].dims)
      s.push_back(d.value);
    return s;
  }
};

AttrDesc f(const char *name, double v) { return AttrDesc::ofFloat(name, v); }
AttrDesc i(const char *name, int64_t v) { return AttrDesc::ofInt(name, v); }
AttrDesc s(const char *name, const char *v) { return AttrDesc::ofString(name, v); }

/// The optimizer's state and update calls, Paddle's names and initial
/// values.
struct Optimizer {
  Builder &b;
  const TrainArtifactOptions &options;
  int32_t lr, step;
  std::vector<std::string> stateNames;
  std::vector<KernelCallDesc> startupCalls;
  std::vector<KernelCallDesc> updateCalls;

  Optimizer(Builder &b, const TrainArtifactOptions &options) : b(b), options(options) {
    lr = b.persistent("learning_rate_0", DType::Float32, {1});
    step = b.persistent("global_step", DType::Int64, {1});
    stateNames.push_back("learning_rate_0");
    startupCalls.push_back(
        {"fill", {}, {lr}, {f("value", options.learningRate)}, "fill_constant -> learning_rate_0"});
    startupCalls.push_back({"fill", {}, {step}, {f("value", 0)}, "fill_constant -> global_step"});
  }

  int32_t state(const std::string &name, const std::vector<int64_t> &shape, double init) {
    int32_t buf = b.persistent(name, DType::Float32, shape);
    stateNames.push_back(name);
    startupCalls.push_back({"fill", {}, {buf}, {f("value", init)}, "fill_constant -> " + name});
    return buf;
  }

  void update(int32_t param, int32_t grad) {
    const std::string p = b.name(param);
    const std::vector<int64_t> shape = b.shape(param);
    if (options.optimizer == "momentum") {
      int32_t v = state(p + "_velocity_0", shape, 0);
      updateCalls.push_back(
          {"momentum", {param, grad, v, lr}, {param, v}, {f("mu", 0.9)}, "momentum -> " + p});
    } else if (options.optimizer == "adam") {
      int32_t m1 = state(p + "_moment1_0", shape, 0);
      int32_t m2 = state(p + "_moment2_0", shape, 0);
      int32_t b1 = state(p + "_beta1_pow_acc_0", {1}, 0.9);
      int32_t b2 = state(p + "_beta2_pow_acc_0", {1}, 0.999);
      updateCalls.push_back({"adam",
                             {param, grad, m1, m2, b1, b2, lr},
                             {param, m1, m2, b1, b2},
                             {f("beta1", 0.9), f("beta2", 0.999), f("epsilon", 1e-8)},
                             "adam -> " + p});
    } else {
      updateCalls.push_back({"sgd", {param, grad, lr}, {param}, {}, "sgd -> " + p});
    }
  }

  /// Appends the update calls to `train`, then creates the train startup
  /// program: the parameters' initializers (`init`), then the optimizer's.
  /// (Creating a program may move the others: `train` is not used after.)
  template <typename Init> void finishTrain(ProgramDesc &train, Init init) const {
    train.calls.insert(train.calls.end(), updateCalls.begin(), updateCalls.end());
    ProgramDesc &trainStartup = b.program("train", ProgramKind::Startup);
    init(trainStartup);
    trainStartup.calls.insert(trainStartup.calls.end(), startupCalls.begin(), startupCalls.end());
  }

  std::string config() const {
    char rate[32];
    std::snprintf(rate, sizeof rate, "%g", options.learningRate);
    std::string c = "{\"optimizer\": \"" + options.optimizer + "\", \"learning_rate\": " + rate;
    if (options.optimizer == "momentum")
      c += ", \"momentum\": 0.9";
    if (options.optimizer == "adam")
      c += ", \"beta1\": 0.9, \"beta2\": 0.999, \"epsilon\": 1e-08";
    return c + "}";
  }
};

void addTrainingTable(Builder &b, const Optimizer &opt, const TrainArtifactOptions &options,
                      std::vector<std::string> parameters) {
  ArtifactDesc &a = b.a;
  a.hasTraining = true;
  a.training.loss = "loss";
  a.training.optimizer = options.optimizer;
  a.training.learningRateVar = "learning_rate_0";
  a.training.stepVar = "global_step";
  a.training.hasSchedule = options.hasSchedule;
  a.training.schedule = options.schedule;
  a.training.parameters = parameters;
  a.training.optimizerState = opt.stateNames;
  a.training.config = opt.config();
  if (options.withInference) {
    a.hasInference = true;
    // Not a real ProgramDesc: the runtime copies these bytes verbatim, and
    // every byte value checks that nothing is lost on the way.
    for (int v = 0; v < 256; ++v)
      a.inference.program.push_back(uint8_t(v));
    std::sort(parameters.begin(), parameters.end());
    a.inference.parameters = parameters;
  }
}

} // namespace

ArtifactDesc linearRegressionArtifact(int64_t features, const TrainArtifactOptions &options) {
  Builder b;
  b.a.producer = "distc-test-artifacts";
  b.a.source = "linear_regression";
  b.a.symbols = {"x.dim0"};
  const DType F = DType::Float32;
  const D n = D::symbolic(0);
  int32_t x = b.add("x", F, {n, D::fixed(features)}, BufferKind::Feed);
  int32_t y = b.add("y", F, {n, D::fixed(1)}, BufferKind::Feed);
  int32_t w = b.persistent("linear_0.w_0", F, {features, 1});
  int32_t bias = b.persistent("linear_0.b_0", F, {1});
  int32_t brow = b.add("linear_0.b_0@row", F, {D::fixed(1), D::fixed(1)}, BufferKind::View, bias);
  Optimizer opt(b, options);
  int32_t xw = b.add("linear_0.tmp_0", F, {n, D::fixed(1)});
  int32_t pred = b.add("linear_0.tmp_1", F, {n, D::fixed(1)});
  int32_t diff = b.add("elementwise_sub_0", F, {n, D::fixed(1)});
  int32_t sq = b.add("square_0.tmp_0", F, {n, D::fixed(1)});
  int32_t loss = b.add("mean_0.tmp_0", F, {D::fixed(1)});
  int32_t absd = b.add("abs_0.tmp_0", F, {n, D::fixed(1)});
  int32_t mae = b.add("mean_1.tmp_0", F, {D::fixed(1)});
  int32_t dloss = b.add("mean_0.tmp_0@GRAD", F, {D::fixed(1)});
  int32_t dlossRow =
      b.add("mean_0.tmp_0@GRAD@row", F, {D::fixed(1), D::fixed(1)}, BufferKind::View, dloss);
  int32_t dsq = b.add("square_0.tmp_0@GRAD", F, {n, D::fixed(1)});
  int32_t ddiff = b.add("elementwise_sub_0@GRAD", F, {n, D::fixed(1)});
  int32_t dw = b.add("linear_0.w_0@GRAD", F, {D::fixed(features), D::fixed(1)});
  int32_t db = b.add("linear_0.b_0@GRAD", F, {D::fixed(1)});

  auto init = [&](ProgramDesc &p) {
    Builder::call(p, "uniform_random", {}, {w}, {f("min", -0.5), f("max", 0.5), i("seed", 7)},
                  "uniform_random -> linear_0.w_0");
    Builder::call(p, "fill", {}, {bias}, {f("value", 0)}, "fill_constant -> linear_0.b_0");
  };
  auto predictCalls = [&](ProgramDesc &p) {
    Builder::call(p, "matmul", {x, w}, {xw}, {}, "matmul -> linear_0.tmp_0");
    Builder::call(p, "binary", {xw, brow}, {pred}, {s("op", "add")},
                  "elementwise_add -> linear_0.tmp_1");
  };
  auto lossCalls = [&](ProgramDesc &p) {
    predictCalls(p);
    Builder::call(p, "binary", {pred, y}, {diff}, {s("op", "sub")},
                  "elementwise_sub -> elementwise_sub_0");
    Builder::call(p, "unary", {diff}, {sq}, {s("op", "square")}, "square -> square_0.tmp_0");
    Builder::call(p, "reduce", {sq}, {loss}, {s("op", "mean"), AttrDesc::ofInts("axes", {0, 1})},
                  "mean -> mean_0.tmp_0");
  };

  ProgramDesc &train = b.program("train");
  train.feeds = {{"x", x}, {"y", y}};
  train.fetches = {{"loss", loss}};
  lossCalls(train);
  Builder::call(train, "fill", {}, {dloss}, {f("value", 1)}, "fill_constant -> mean_0.tmp_0@GRAD");
  Builder::call(train, "broadcast", {dlossRow}, {dsq}, {i("mean", 1)},
                "mean_grad -> square_0.tmp_0@GRAD");
  Builder::call(train, "unary_grad", {diff, dsq}, {ddiff}, {s("op", "square")},
                "square_grad -> elementwise_sub_0@GRAD");
  Builder::call(train, "matmul", {x, ddiff}, {dw}, {i("trans_a", 1)},
                "matmul_grad -> linear_0.w_0@GRAD");
  Builder::call(train, "reduce", {ddiff}, {db}, {s("op", "sum"), AttrDesc::ofInts("axes", {0})},
                "elementwise_add_grad -> linear_0.b_0@GRAD");
  opt.update(w, dw);
  opt.update(bias, db);
  opt.finishTrain(train, init);

  ProgramDesc &eval = b.program("eval");
  eval.feeds = {{"x", x}, {"y", y}};
  eval.fetches = {{"loss", loss}, {"mae", mae}};
  lossCalls(eval);
  Builder::call(eval, "unary", {diff}, {absd}, {s("op", "abs")}, "abs -> abs_0.tmp_0");
  Builder::call(eval, "reduce", {absd}, {mae}, {s("op", "mean"), AttrDesc::ofInts("axes", {0, 1})},
                "mean -> mean_1.tmp_0");
  init(b.program("eval", ProgramKind::Startup));

  ProgramDesc &predict = b.program("predict");
  predict.feeds = {{"x", x}};
  predict.fetches = {{"pred", pred}};
  predictCalls(predict);
  init(b.program("predict", ProgramKind::Startup));

  addTrainingTable(b, opt, options, {"linear_0.w_0", "linear_0.b_0"});
  return b.a;
}

ArtifactDesc classifierArtifact(int64_t features, int64_t hidden, int64_t classes,
                                const TrainArtifactOptions &options) {
  Builder b;
  b.a.producer = "distc-test-artifacts";
  b.a.source = "classifier";
  b.a.symbols = {"x.dim0"};
  const DType F = DType::Float32;
  const D n = D::symbolic(0), H = D::fixed(hidden), C = D::fixed(classes), one = D::fixed(1);
  int32_t x = b.add("x", F, {n, D::fixed(features)}, BufferKind::Feed);
  int32_t label = b.add("label", DType::Int64, {n, one}, BufferKind::Feed);
  int32_t w1 = b.persistent("fc_0.w_0", F, {features, hidden});
  int32_t b1 = b.persistent("fc_0.b_0", F, {hidden});
  int32_t b1row = b.add("fc_0.b_0@row", F, {one, H}, BufferKind::View, b1);
  int32_t w2 = b.persistent("fc_1.w_0", F, {hidden, classes});
  int32_t b2 = b.persistent("fc_1.b_0", F, {classes});
  int32_t b2row = b.add("fc_1.b_0@row", F, {one, C}, BufferKind::View, b2);
  Optimizer opt(b, options);
  int32_t mm1 = b.add("fc_0.tmp_0", F, {n, H});
  int32_t add1 = b.add("fc_0.tmp_1", F, {n, H});
  int32_t h = b.add("relu_0.tmp_0", F, {n, H});
  int32_t hd = b.add("dropout_0.tmp_0", F, {n, H});
  int32_t mask = b.add("dropout_0.tmp_1", DType::UInt8, {n, H});
  int32_t mm2 = b.add("fc_1.tmp_0", F, {n, C});
  int32_t logits = b.add("fc_1.tmp_1", F, {n, C});
  int32_t probs = b.add("softmax_0.tmp_0", F, {n, C});
  int32_t sm = b.add("softmax_with_cross_entropy_0.tmp_0", F, {n, C});
  int32_t ce = b.add("softmax_with_cross_entropy_0.tmp_1", F, {n, one});
  int32_t loss = b.add("mean_0.tmp_0", F, {one});
  int32_t topv = b.add("top_k_0.tmp_0", F, {n, one});
  int32_t topi = b.add("top_k_0.tmp_1", DType::Int64, {n, one});
  int32_t acc = b.add("accuracy_0.tmp_0", F, {one});
  int32_t correct = b.add("accuracy_0.tmp_1", DType::Int32, {one});
  int32_t total = b.add("accuracy_0.tmp_2", DType::Int32, {one});
  int32_t dloss = b.add("mean_0.tmp_0@GRAD", F, {one});
  int32_t dlossRow = b.add("mean_0.tmp_0@GRAD@row", F, {one, one}, BufferKind::View, dloss);
  int32_t dce = b.add("softmax_with_cross_entropy_0.tmp_1@GRAD", F, {n, one});
  int32_t dlogits = b.add("fc_1.tmp_1@GRAD", F, {n, C});
  int32_t db2 = b.add("fc_1.b_0@GRAD", F, {C});
  int32_t dw2 = b.add("fc_1.w_0@GRAD", F, {H, C});
  int32_t dhd = b.add("dropout_0.tmp_0@GRAD", F, {n, H});
  int32_t dh = b.add("relu_0.tmp_0@GRAD", F, {n, H});
  int32_t dadd1 = b.add("fc_0.tmp_1@GRAD", F, {n, H});
  int32_t db1 = b.add("fc_0.b_0@GRAD", F, {H});
  int32_t dw1 = b.add("fc_0.w_0@GRAD", F, {D::fixed(features), H});

  const bool dropout = options.dropout > 0;
  const double bound1 = std::sqrt(6.0 / double(features + hidden));
  const double bound2 = std::sqrt(6.0 / double(hidden + classes));
  auto init = [&](ProgramDesc &p) {
    Builder::call(p, "uniform_random", {}, {w1},
                  {f("min", -bound1), f("max", bound1), i("seed", 11)},
                  "uniform_random -> fc_0.w_0");
    Builder::call(p, "fill", {}, {b1}, {f("value", 0)}, "fill_constant -> fc_0.b_0");
    Builder::call(p, "uniform_random", {}, {w2},
                  {f("min", -bound2), f("max", bound2), i("seed", 12)},
                  "uniform_random -> fc_1.w_0");
    Builder::call(p, "fill", {}, {b2}, {f("value", 0)}, "fill_constant -> fc_1.b_0");
  };
  // Forward to the logits; `train` adds dropout after the hidden layer.
  auto forward = [&](ProgramDesc &p, bool train) {
    Builder::call(p, "matmul", {x, w1}, {mm1}, {}, "mul -> fc_0.tmp_0");
    Builder::call(p, "binary", {mm1, b1row}, {add1}, {s("op", "add")},
                  "elementwise_add -> fc_0.tmp_1");
    Builder::call(p, "unary", {add1}, {h}, {s("op", "relu")}, "relu -> relu_0.tmp_0");
    int32_t hidden = h;
    if (train && dropout) {
      Builder::call(p, "dropout", {h, opt.step}, {hd, mask},
                    {f("p", options.dropout), i("seed", 5)}, "dropout -> dropout_0.tmp_0");
      hidden = hd;
    }
    Builder::call(p, "matmul", {hidden, w2}, {mm2}, {}, "mul -> fc_1.tmp_0");
    Builder::call(p, "binary", {mm2, b2row}, {logits}, {s("op", "add")},
                  "elementwise_add -> fc_1.tmp_1");
  };
  auto lossAndAccuracy = [&](ProgramDesc &p) {
    Builder::call(p, "softmax_cross_entropy", {logits, label}, {sm, ce}, {i("axis", 1)},
                  "softmax_with_cross_entropy -> softmax_with_cross_entropy_0.tmp_1");
    Builder::call(p, "reduce", {ce}, {loss}, {s("op", "mean"), AttrDesc::ofInts("axes", {0, 1})},
                  "mean -> mean_0.tmp_0");
    Builder::call(p, "top_k", {logits}, {topv, topi}, {i("k", 1)}, "top_k -> top_k_0.tmp_0");
    Builder::call(p, "accuracy", {topi, label}, {acc, correct, total}, {},
                  "accuracy -> accuracy_0.tmp_0");
  };

  ProgramDesc &train = b.program("train");
  train.feeds = {{"x", x}, {"label", label}};
  train.fetches = {{"loss", loss}, {"acc", acc}};
  forward(train, true);
  lossAndAccuracy(train);
  const int32_t hiddenOut = dropout ? hd : h;
  Builder::call(train, "fill", {}, {dloss}, {f("value", 1)}, "fill_constant -> mean_0.tmp_0@GRAD");
  Builder::call(train, "broadcast", {dlossRow}, {dce}, {i("mean", 1)},
                "mean_grad -> softmax_with_cross_entropy_0.tmp_1@GRAD");
  Builder::call(train, "softmax_cross_entropy_grad", {sm, label, dce}, {dlogits}, {i("axis", 1)},
                "softmax_with_cross_entropy_grad -> fc_1.tmp_1@GRAD");
  Builder::call(train, "reduce", {dlogits}, {db2}, {s("op", "sum"), AttrDesc::ofInts("axes", {0})},
                "elementwise_add_grad -> fc_1.b_0@GRAD");
  Builder::call(train, "matmul", {hiddenOut, dlogits}, {dw2}, {i("trans_a", 1)},
                "mul_grad -> fc_1.w_0@GRAD");
  Builder::call(train, "matmul", {dlogits, w2}, {dropout ? dhd : dh}, {i("trans_b", 1)},
                "mul_grad -> " + b.name(dropout ? dhd : dh));
  if (dropout)
    Builder::call(train, "dropout_grad", {mask, dhd}, {dh}, {f("p", options.dropout)},
                  "dropout_grad -> relu_0.tmp_0@GRAD");
  Builder::call(train, "unary_grad", {h, dh}, {dadd1}, {s("op", "relu")},
                "relu_grad -> fc_0.tmp_1@GRAD");
  Builder::call(train, "reduce", {dadd1}, {db1}, {s("op", "sum"), AttrDesc::ofInts("axes", {0})},
                "elementwise_add_grad -> fc_0.b_0@GRAD");
  Builder::call(train, "matmul", {x, dadd1}, {dw1}, {i("trans_a", 1)}, "mul_grad -> fc_0.w_0@GRAD");
  opt.update(w1, dw1);
  opt.update(b1, db1);
  opt.update(w2, dw2);
  opt.update(b2, db2);
  opt.finishTrain(train, init);

  ProgramDesc &eval = b.program("eval");
  eval.feeds = {{"x", x}, {"label", label}};
  eval.fetches = {{"loss", loss}, {"acc", acc}};
  forward(eval, false);
  lossAndAccuracy(eval);
  init(b.program("eval", ProgramKind::Startup));

  ProgramDesc &predict = b.program("predict");
  predict.feeds = {{"x", x}};
  predict.fetches = {{"probs", probs}};
  forward(predict, false);
  Builder::call(predict, "softmax", {logits}, {probs}, {i("axis", 1)},
                "softmax -> softmax_0.tmp_0");
  init(b.program("predict", ProgramKind::Startup));

  addTrainingTable(b, opt, options, {"fc_0.w_0", "fc_0.b_0", "fc_1.w_0", "fc_1.b_0"});
  return b.a;
}

runtime::TensorMap classifierBatch(int64_t rows, uint64_t seed) {
  std::mt19937_64 rng(seed);
  runtime::Tensor x(runtime::DType::Float32, {rows, 4});
  runtime::Tensor label(runtime::DType::Int64, {rows, 1});
  float *xs = x.data<float>();
  for (int64_t i = 0; i < rows * 4; ++i)
    xs[i] = float(std::uniform_real_distribution<double>(-1, 1)(rng));
  for (int64_t r = 0; r < rows; ++r) {
    const float *xr = xs + 4 * r;
    label.data<int64_t>()[r] = xr[0] > xr[1] ? (xr[2] > 0 ? 2 : 1) : 0;
  }
  return {{"x", x}, {"label", label}};
}

} // namespace distc::testing
