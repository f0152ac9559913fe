//===- train_api.cpp - The DistModel C++ API in one program ---------------===//
//
// distc-api-example ARTIFACT
//
// Opens an artifact compiled with a train mode, initializes it, trains a
// few steps on one batch, evaluates and predicts on it, and round-trips the
// parameters through stateDict/setStateDict. The batch is made up from the
// feeds' declared types (random values in [-1, 1), integer feeds get
// row % 2, a valid class index), so the program runs on any such artifact;
// a real program would read its data instead (see lib/runtime/Training).
//
// Build: part of the runtime build (target distc-api-example); it links
// only DistcRuntime. See docs/runtime.md.
//
//===----------------------------------------------------------------------===//

#include "distc/Runtime/DistModel.h"

#include <cstdio>
#include <cstring>
#include <random>

using namespace distc::runtime;

namespace {

int fail(const std::string &what, const Status &status) {
  std::fprintf(stderr, "distc-api-example: error: %s: %s\n", what.c_str(),
               status.message().c_str());
  return 1;
}

/// A batch of `rows` rows for the feeds of the model's current mode.
TensorMap makeBatch(const DistModel &model, int64_t rows, std::mt19937_64 &rng) {
  std::uniform_real_distribution<double> uniform(-1, 1);
  TensorMap batch;
  for (const ProgramIO &feed : model.feeds()) {
    Shape shape = feed.dims;
    for (int64_t &d : shape)
      if (d < 0)
        d = rows; // the batch dimension
    Tensor t(feed.dtype, shape);
    const int64_t perRow = shape.empty() || shape[0] == 0 ? 0 : t.numel() / shape[0];
    for (int64_t i = 0; i < t.numel(); ++i) {
      switch (feed.dtype) {
      case DType::Float32:
        t.data<float>()[i] = static_cast<float>(uniform(rng));
        break;
      case DType::Float64:
        t.data<double>()[i] = uniform(rng);
        break;
      case DType::Int32:
        t.data<int32_t>()[i] = static_cast<int32_t>(perRow ? (i / perRow) % 2 : 0);
        break;
      case DType::Int64:
        t.data<int64_t>()[i] = perRow ? (i / perRow) % 2 : 0;
        break;
      default:
        break; // zeros
      }
    }
    batch[feed.name] = t;
  }
  return batch;
}

/// Every fetch as "name: type" plus its value when it has one element.
void printFetches(const TensorMap &fetches) {
  for (const auto &[name, t] : fetches) {
    double value = 0;
    if (scalarValue(t, value))
      std::printf("  %s: %s = %g\n", name.c_str(), t.typeString().c_str(), value);
    else
      std::printf("  %s: %s\n", name.c_str(), t.typeString().c_str());
  }
}

bool sameBytes(const Tensor &a, const Tensor &b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() &&
         std::memcmp(a.data(), b.data(), a.byteSize()) == 0;
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: distc-api-example ARTIFACT\n");
    return 1;
  }

  // 1. Open (load + validate) and initialize: the startup program of the
  //    widest mode writes the parameters and the optimizer state.
  std::string error;
  std::unique_ptr<DistModel> model = DistModel::open(argv[1], error);
  if (!model) {
    std::fprintf(stderr, "distc-api-example: error: %s\n", error.c_str());
    return 1;
  }
  if (Status s = model->initialize(); !s.ok())
    return fail("initialize", s);
  std::printf("opened %s: mode %s, optimizer %s\n", argv[1], model->mode().c_str(),
              model->hasTraining() ? model->optimizerName().c_str() : "(none)");

  // 2. Train: each step writes the scheduled learning rate and the step
  //    number, runs forward, backward and the optimizer, and returns the loss.
  std::mt19937_64 rng(42);
  if (Status s = model->train(); !s.ok())
    return fail("train", s);
  TensorMap batch = makeBatch(*model, 8, rng);
  StepResult result;
  double firstLoss = 0;
  for (int i = 0; i < 5; ++i) {
    if (Status s = model->step(batch, result); !s.ok())
      return fail("train step", s);
    if (i == 0)
      firstLoss = result.loss;
    std::printf("step %lld: loss %.6g, learning rate %g\n", static_cast<long long>(result.step),
                result.loss, result.learningRate);
  }
  if (!(result.loss < firstLoss))
    std::printf("note: the loss did not fall on this made-up batch\n");

  // 3. Evaluate the same batch: the eval program, no update.
  if (model->hasMode("eval")) {
    if (Status s = model->eval(); !s.ok())
      return fail("eval", s);
    if (Status s = model->step(batch, result); !s.ok())
      return fail("eval step", s);
    std::printf("eval (global step still %lld):\n", static_cast<long long>(model->globalStep()));
    printFetches(result.fetches);
  }

  // 4. Predict: the predict program takes only its own feeds.
  if (Status s = model->predict(); !s.ok())
    return fail("predict", s);
  TensorMap inputs;
  for (const ProgramIO &feed : model->feeds())
    inputs[feed.name] = batch.at(feed.name);
  StepResult before;
  if (Status s = model->step(inputs, before); !s.ok())
    return fail("predict step", s);
  std::printf("predict:\n");
  printFetches(before.fetches);

  // 5. state_dict("param") round trip: keep the parameters, train one more
  //    step (which changes them), restore them, and predict the same again.
  TensorMap params;
  if (Status s = model->stateDict("param", params); !s.ok())
    return fail("stateDict", s);
  std::printf("state_dict(\"param\"): %zu variables\n", params.size());
  if (Status s = model->train(); !s.ok())
    return fail("train", s);
  if (Status s = model->step(batch, result); !s.ok())
    return fail("train step", s);
  if (Status s = model->setStateDict(params, /*strict=*/false); !s.ok())
    return fail("setStateDict", s);
  if (Status s = model->predict(); !s.ok())
    return fail("predict", s);
  StepResult after;
  if (Status s = model->step(inputs, after); !s.ok())
    return fail("predict step", s);
  for (const auto &[name, t] : before.fetches)
    if (!sameBytes(t, after.fetches.at(name))) {
      std::fprintf(stderr, "distc-api-example: error: '%s' differs after setStateDict\n",
                   name.c_str());
      return 1;
    }
  std::printf("restored the parameters: predictions identical\n");
  return 0;
}
