//===- SyncBatchNormKernelTest.cpp - batch_norm kernels with `sync` -------===//
//
// sync_batch_norm lowers to batch_norm's kernels with sync = 1. With one
// rank they must be batch_norm bit for bit. Several real ranks are the
// business of test/e2e/data-parallel-batch-norm.test (against the serial
// run); here a fake Collectives plays one of R ranks that all hold the same
// batch, so the global statistics are the local ones: the sync path must
// then agree with the local computation, all-reduce once per call, and
// leave the running-statistics paths without communication.
//
//===----------------------------------------------------------------------===//

#include "TestArtifacts.h"

#include <gtest/gtest.h>

#include <cstring>
#include <mutex>

namespace distc::testing {
namespace {

using runtime::Collectives;

/// One rank of `size` ranks holding the same tensors: a sum is `size`
/// times the input. Records what each allreduce was given.
class MirrorCollectives : public Collectives {
public:
  explicit MirrorCollectives(int size) : size_(size) {}
  int rank() const override { return 0; }
  int size() const override { return size_; }
  Status allreduce(Tensor &t, const std::string &op) override {
    std::lock_guard<std::mutex> lock(mu_);
    calls.push_back(op + " " + runtime::dtypeName(t.dtype()) + " " + std::to_string(t.numel()));
    if (t.dtype() != DType::Float64)
      return Status::error("expected Float64 sums");
    for (int64_t i = 0; i < t.numel(); ++i)
      t.data<double>()[i] *= size_;
    return Status::success();
  }
  Status broadcast(Tensor &, int) override { return Status::error("unexpected broadcast"); }
  Status reduce(Tensor &, const std::string &, int) override {
    return Status::error("unexpected reduce");
  }

  std::vector<std::string> calls;

private:
  const int size_;
  std::mutex mu_;
};

/// Runs one call of `kernel` in a session with `collectives` (none if
/// null); the outputs in order.
Status runWith(std::shared_ptr<Collectives> collectives, const std::string &kernel,
               const std::vector<Tensor> &inputs, const std::vector<OutputSpec> &specs,
               const std::vector<AttrDesc> &attrs, std::vector<Tensor> &outputs) {
  ArtifactBuilder b;
  b.desc.worldSize = collectives ? collectives->size() : 1;
  auto &p = b.program("predict");
  std::vector<int32_t> ins, outs;
  TensorMap feeds;
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::string name = "in" + std::to_string(i);
    ins.push_back(b.buffer(name, inputs[i].dtype(), inputs[i].shape(), BufferKind::Feed));
    p.feeds.push_back({name, ins.back()});
    feeds[name] = inputs[i];
  }
  for (size_t i = 0; i < specs.size(); ++i) {
    outs.push_back(b.buffer("out" + std::to_string(i), specs[i].dtype, specs[i].shape));
    p.fetches.push_back({"out" + std::to_string(i), outs.back()});
  }
  b.call(p, kernel, ins, outs, attrs);
  auto session = b.session();
  if (!session)
    return Status::error("no session");
  if (Status s = session->setCollectives(std::move(collectives)); !s.ok())
    return s;
  TensorMap fetches;
  if (Status s = session->run("predict", feeds, fetches); !s.ok())
    return s;
  outputs.clear();
  for (size_t i = 0; i < specs.size(); ++i)
    outputs.push_back(fetches["out" + std::to_string(i)]);
  return Status::success();
}

std::vector<AttrDesc> forwardAttrs(bool global, int sync) {
  return {AttrDesc::ofInt("channel_axis", 1), AttrDesc::ofFloat("epsilon", 1e-5),
          AttrDesc::ofFloat("momentum", 0.9), AttrDesc::ofInt("global_stats", global),
          AttrDesc::ofInt("sync", sync)};
}

std::vector<AttrDesc> gradAttrs(bool global, int sync) {
  return {AttrDesc::ofInt("channel_axis", 1), AttrDesc::ofFloat("epsilon", 1e-5),
          AttrDesc::ofInt("global_stats", global), AttrDesc::ofInt("sync", sync)};
}

/// Byte-for-byte equality.
void expectIdentical(const std::vector<Tensor> &a, const std::vector<Tensor> &b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].byteSize(), b[i].byteSize()) << "output " << i;
    EXPECT_EQ(std::memcmp(a[i].data(), b[i].data(), a[i].byteSize()), 0) << "output " << i;
  }
}

std::vector<double> valuesOf(const Tensor &t) {
  return std::vector<double>(t.data<double>(), t.data<double>() + t.numel());
}

struct Case {
  Tensor x, scale, bias, mean, var, dy;
  std::vector<OutputSpec> forwardSpecs, gradSpecs;
};

Case makeCase(DType dt, std::mt19937_64 &rng) {
  const Shape shape = {4, 3, 2, 2};
  Case c;
  c.x = randomTensor(dt, shape, rng, -2, 3);
  c.scale = randomTensor(dt, {3}, rng, 0.5, 1.5);
  c.bias = randomTensor(dt, {3}, rng);
  c.mean = randomTensor(dt, {3}, rng);
  c.var = randomTensor(dt, {3}, rng, 0.5, 2);
  c.dy = randomTensor(dt, shape, rng);
  c.forwardSpecs = {{dt, shape}, {dt, {3}}, {dt, {3}}, {dt, {3}}, {dt, {3}}};
  c.gradSpecs = {{dt, shape}, {dt, {3}}, {dt, {3}}};
  return c;
}

/// Forward, then the gradient from the saved (or running) statistics.
void runBoth(std::shared_ptr<Collectives> collectives, const Case &c, bool global, int sync,
             std::vector<Tensor> &fwd, std::vector<Tensor> &grad) {
  Status s = runWith(collectives, "batch_norm", {c.x, c.scale, c.bias, c.mean, c.var},
                     c.forwardSpecs, forwardAttrs(global, sync), fwd);
  ASSERT_TRUE(s.ok()) << s.message();
  Tensor m = global ? c.mean : fwd[3], v = global ? c.var : fwd[4];
  s = runWith(collectives, "batch_norm_grad", {c.x, c.scale, m, v, c.dy}, c.gradSpecs,
              gradAttrs(global, sync), grad);
  ASSERT_TRUE(s.ok()) << s.message();
}

TEST(SyncBatchNormKernel, OneRankIsBatchNormBitForBit) {
  std::mt19937_64 rng(31);
  for (DType dt : {DType::Float32, DType::Float64})
    for (bool global : {false, true}) {
      Case c = makeCase(dt, rng);
      std::vector<Tensor> fwd, grad;
      runBoth(nullptr, c, global, /*sync=*/0, fwd, grad);
      // No communicator, and a communicator of one rank.
      std::vector<Tensor> fwdAlone, gradAlone, fwdOne, gradOne;
      runBoth(nullptr, c, global, /*sync=*/1, fwdAlone, gradAlone);
      auto one = std::make_shared<MirrorCollectives>(1);
      runBoth(one, c, global, /*sync=*/1, fwdOne, gradOne);
      expectIdentical(fwd, fwdAlone);
      expectIdentical(grad, gradAlone);
      expectIdentical(fwd, fwdOne);
      expectIdentical(grad, gradOne);
      EXPECT_TRUE(one->calls.empty());
    }
}

TEST(SyncBatchNormKernel, MirroredRanksGiveTheLocalStatistics) {
  std::mt19937_64 rng(32);
  const DType dt = DType::Float64;
  for (int ranks : {2, 3}) {
    Case c = makeCase(dt, rng);
    std::vector<Tensor> fwd, grad, fwdSync, gradSync;
    runBoth(nullptr, c, /*global=*/false, /*sync=*/0, fwd, grad);
    auto mirror = std::make_shared<MirrorCollectives>(ranks);
    runBoth(mirror, c, /*global=*/false, /*sync=*/1, fwdSync, gradSync);
    // Σx²/M − mean² instead of the two-pass variance: equal within rounding.
    for (size_t i = 0; i < fwd.size(); ++i)
      expectClose(fwdSync[i], valuesOf(fwd[i]), 1e-12, 1e-12);
    for (size_t i = 0; i < grad.size(); ++i)
      expectClose(gradSync[i], valuesOf(grad[i]), 1e-12, 1e-12);
    // One Float64 collective of 2C+1 sums per call.
    EXPECT_EQ(mirror->calls, (std::vector<std::string>{"sum f64 7", "sum f64 7"}));
  }
}

TEST(SyncBatchNormKernel, RunningStatisticsCommunicateNothing) {
  std::mt19937_64 rng(33);
  Case c = makeCase(DType::Float32, rng);
  std::vector<Tensor> fwd, grad, fwdSync, gradSync;
  runBoth(nullptr, c, /*global=*/true, /*sync=*/0, fwd, grad);
  auto mirror = std::make_shared<MirrorCollectives>(2);
  runBoth(mirror, c, /*global=*/true, /*sync=*/1, fwdSync, gradSync);
  expectIdentical(fwd, fwdSync);
  expectIdentical(grad, gradSync);
  EXPECT_TRUE(mirror->calls.empty());
}

} // namespace
} // namespace distc::testing
