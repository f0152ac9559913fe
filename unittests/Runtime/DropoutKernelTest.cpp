//===- DropoutKernelTest.cpp - dropout, dropout_grad ----------------------===//
//
// Besides the specification of the masks, dropout's fused form
// (fuse_dropout_add: y added as the mask is applied) must give the bits of
// dropout followed by a binary add, with one and several kernel threads.
//
//===----------------------------------------------------------------------===//

#include "TestArtifacts.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace distc::testing;

namespace {

/// The generator of docs/artifact.md ("Randomness"), written out again so
/// the kernel is checked against the specification, not against itself.
uint64_t splitmix64(uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

std::vector<double> specMask(int64_t seed, int64_t step, int64_t n, double p) {
  const uint64_t base = splitmix64(uint64_t(seed) * 0x9E3779B97F4A7C15ull + uint64_t(step));
  std::vector<double> mask(n);
  for (int64_t i = 0; i < n; ++i)
    mask[i] = double(splitmix64(base + uint64_t(i)) >> 11) * 0x1.0p-53 >= p ? 1 : 0;
  return mask;
}

struct DropoutResult {
  Tensor out, mask;
};

DropoutResult dropout(const Tensor &x, int64_t step, double p, int64_t seed, int upscale = -1) {
  std::vector<AttrDesc> attrs = {AttrDesc::ofFloat("p", p), AttrDesc::ofInt("seed", seed)};
  if (upscale >= 0)
    attrs.push_back(AttrDesc::ofInt("upscale", upscale));
  std::vector<Tensor> out;
  Status s = runKernel("dropout", {x, tensorOf(DType::Int64, {1}, {double(step)})},
                       {{x.dtype(), x.shape()}, {DType::UInt8, x.shape()}}, attrs, out);
  EXPECT_TRUE(s.ok()) << s.message();
  if (!s.ok())
    return {};
  return {out[0], out[1]};
}

std::vector<double> valuesOf(const Tensor &t) {
  std::vector<double> v(t.numel());
  for (int64_t i = 0; i < t.numel(); ++i)
    v[i] = elementAt(t, i);
  return v;
}

TEST(DropoutKernel, GeneratorIsStandardSplitMix64) {
  // The first outputs of the reference SplitMix64 generator seeded with 0
  // (its state advances by the golden gamma before each output).
  EXPECT_EQ(splitmix64(0), 0xE220A8397B1DCDAFull);
  EXPECT_EQ(splitmix64(0x9E3779B97F4A7C15ull), 0x6E789E6AA1B965F4ull);
}

TEST(DropoutKernel, MaskAndOutputFollowTheSpecification) {
  std::mt19937_64 rng(300);
  const Shape shape = {3, 50};
  for (DType dt : {DType::Float32, DType::Float64})
    for (double p : {0.0, 0.3, 0.75}) {
      Tensor x = randomTensor(dt, shape, rng, -2, 2);
      DropoutResult r = dropout(x, 17, p, 1234);
      ASSERT_TRUE(r.out.defined());
      EXPECT_EQ(r.mask.dtype(), DType::UInt8);
      std::vector<double> mask = specMask(1234, 17, x.numel(), p), out(x.numel());
      for (int64_t i = 0; i < x.numel(); ++i)
        out[i] = elementAt(x, i) * mask[i] / (1 - p);
      expectClose(r.mask, mask, 0, 0);
      expectClose(r.out, out, dt == DType::Float32 ? 1e-6 : 1e-15, 0);
    }
}

TEST(DropoutKernel, DeterministicPerSeedAndStep) {
  Tensor x = tensorOf(DType::Float32, {1000}, std::vector<double>(1000, 1.0));
  DropoutResult a = dropout(x, 5, 0.5, 42), again = dropout(x, 5, 0.5, 42);
  DropoutResult nextStep = dropout(x, 6, 0.5, 42), otherSeed = dropout(x, 5, 0.5, 43);
  EXPECT_EQ(valuesOf(a.mask), valuesOf(again.mask));
  EXPECT_EQ(valuesOf(a.out), valuesOf(again.out));
  EXPECT_NE(valuesOf(a.mask), valuesOf(nextStep.mask));
  EXPECT_NE(valuesOf(a.mask), valuesOf(otherSeed.mask));
  // Negative seeds and steps are plain 64-bit patterns.
  EXPECT_EQ(valuesOf(dropout(x, -1, 0.5, -9).mask), specMask(-9, -1, 1000, 0.5));
}

TEST(DropoutKernel, KeptFractionIsOneMinusP) {
  const int64_t n = 40000;
  Tensor x = tensorOf(DType::Float64, {n}, std::vector<double>(n, 1.0));
  for (double p : {0.1, 0.5, 0.9}) {
    for (int64_t step : {0, 1, 1000}) {
      DropoutResult r = dropout(x, step, p, 2024);
      double kept = 0;
      for (int64_t i = 0; i < n; ++i)
        kept += elementAt(r.mask, i);
      // Binomial standard deviation is at most 0.0025 here; allow 4 sigma.
      EXPECT_NEAR(kept / double(n), 1 - p, 0.01) << "p " << p << " step " << step;
    }
  }
}

TEST(DropoutKernel, UpscaleAndExtremeProbabilities) {
  std::mt19937_64 rng(301);
  Tensor x = randomTensor(DType::Float64, {200}, rng, 1, 2);
  DropoutResult noUpscale = dropout(x, 3, 0.4, 9, 0);
  std::vector<double> mask = specMask(9, 3, 200, 0.4), out(200);
  for (int64_t i = 0; i < 200; ++i)
    out[i] = elementAt(x, i) * mask[i];
  expectClose(noUpscale.out, out, 0, 0);
  // p = 0 keeps everything unchanged; p = 1 drops everything.
  expectClose(dropout(x, 3, 0.0, 9).out, valuesOf(x), 0, 0);
  DropoutResult all = dropout(x, 3, 1.0, 9);
  expectClose(all.out, std::vector<double>(200, 0.0), 0, 0);
  expectClose(all.mask, std::vector<double>(200, 0.0), 0, 0);
}

TEST(DropoutGradKernel, MatchesMaskAndFiniteDifferences) {
  std::mt19937_64 rng(302);
  const Shape shape = {4, 6};
  for (int upscale : {1, 0}) {
    const double p = 0.35;
    Tensor x = randomTensor(DType::Float64, shape, rng);
    Tensor dout = randomTensor(DType::Float64, shape, rng);
    Tensor step = tensorOf(DType::Int64, {1}, {11});
    const std::vector<AttrDesc> attrs = {AttrDesc::ofFloat("p", p), AttrDesc::ofInt("seed", 5),
                                         AttrDesc::ofInt("upscale", upscale)};
    const std::vector<OutputSpec> fwdSpecs = {{DType::Float64, shape}, {DType::UInt8, shape}};
    std::vector<Tensor> fwd;
    ASSERT_TRUE(runKernel("dropout", {x, step}, fwdSpecs, attrs, fwd).ok());
    const std::vector<AttrDesc> gradAttrs = {AttrDesc::ofFloat("p", p),
                                             AttrDesc::ofInt("upscale", upscale)};
    std::vector<Tensor> dx;
    Status s = runKernel("dropout_grad", {fwd[1], dout}, {{DType::Float64, shape}}, gradAttrs, dx);
    ASSERT_TRUE(s.ok()) << s.message();
    std::vector<double> ref(dout.numel());
    for (int64_t i = 0; i < dout.numel(); ++i)
      ref[i] = elementAt(dout, i) * elementAt(fwd[1], i) / (upscale ? 1 - p : 1.0);
    expectClose(dx[0], ref, 1e-15, 0);
    // With (seed, step) fixed the forward is linear in x.
    expectClose(dx[0], numericGradient("dropout", {x, step}, fwdSpecs, attrs, 0, dout, 0), 1e-6,
                1e-7);
    // Float32 through the same mask.
    std::vector<Tensor> dx32;
    Tensor dout32 = tensorOf(DType::Float32, shape, valuesOf(dout));
    ASSERT_TRUE(
        runKernel("dropout_grad", {fwd[1], dout32}, {{DType::Float32, shape}}, gradAttrs, dx32)
            .ok());
    expectClose(dx32[0], ref, 1e-6, 1e-7);
  }
}

TEST(DropoutKernel, FusedAddMatchesDropoutThenAddBits) {
  std::mt19937_64 rng(303);
  // Enough elements that the kernel splits its loop over threads.
  const Shape shape = {64, 1000};
  for (int threads : {1, 4}) {
    KernelThreads scoped(threads);
    for (DType dt : {DType::Float32, DType::Float64})
      for (int upscale : {1, 0})
        for (double p : {0.0, 0.1, 1.0}) {
          SCOPED_TRACE(std::string(distc::runtime::dtypeName(dt)) + " upscale " +
                       std::to_string(upscale) + " p " + std::to_string(p) + " threads " +
                       std::to_string(threads));
          Tensor x = randomTensor(dt, shape, rng, -2, 2);
          Tensor y = randomTensor(dt, shape, rng, -2, 2);
          Tensor step = tensorOf(DType::Int64, {1}, {4});
          const std::vector<AttrDesc> attrs = {AttrDesc::ofFloat("p", p),
                                               AttrDesc::ofInt("seed", 77),
                                               AttrDesc::ofInt("upscale", upscale)};
          const std::vector<OutputSpec> specs = {{dt, shape}, {DType::UInt8, shape}};
          std::vector<Tensor> plain, sum, fused;
          ASSERT_TRUE(runKernel("dropout", {x, step}, specs, attrs, plain).ok());
          ASSERT_TRUE(runKernel("binary", {plain[0], y}, {{dt, shape}},
                                {AttrDesc::ofString("op", "add")}, sum)
                          .ok());
          Status s = runKernel("dropout", {x, step, y}, specs, attrs, fused);
          ASSERT_TRUE(s.ok()) << s.message();
          EXPECT_EQ(valuesOf(fused[1]), valuesOf(plain[1]));
          expectClose(fused[0], valuesOf(sum[0]), 0, 0);
        }
  }
}

TEST(DropoutKernels, RejectBadOperands) {
  Tensor x(DType::Float32, {4});
  std::vector<Tensor> out;
  const std::vector<AttrDesc> attrs = {AttrDesc::ofFloat("p", 0.5), AttrDesc::ofInt("seed", 1)};
  Status s = runKernel("dropout", {x, tensorOf(DType::Int32, {1}, {0})},
                       {{DType::Float32, {4}}, {DType::UInt8, {4}}}, attrs, out);
  EXPECT_CONTAINS(s.message(), "step i32[1] must be one i64 element");
  EXPECT_CONTAINS(s.message(), "dropout -> out0");
  s = runKernel("dropout", {x, tensorOf(DType::Int64, {1}, {0})},
                {{DType::Float32, {4}}, {DType::Float32, {4}}}, attrs, out);
  EXPECT_CONTAINS(s.message(), "mask has dtype f32, expected u8");
  s = runKernel("dropout", {x, tensorOf(DType::Int64, {1}, {0})},
                {{DType::Float32, {4}}, {DType::UInt8, {4}}},
                {AttrDesc::ofFloat("p", 1.5), AttrDesc::ofInt("seed", 1)}, out);
  EXPECT_CONTAINS(s.message(), "is outside [0, 1]");
  s = runKernel("dropout", {x, tensorOf(DType::Int64, {1}, {0}), Tensor(DType::Float64, {4})},
                {{DType::Float32, {4}}, {DType::UInt8, {4}}}, attrs, out);
  EXPECT_CONTAINS(s.message(), "y has dtype f64");
  s = runKernel("dropout", {x, tensorOf(DType::Int64, {1}, {0}), Tensor(DType::Float32, {5})},
                {{DType::Float32, {4}}, {DType::UInt8, {4}}}, attrs, out);
  EXPECT_CONTAINS(s.message(), "y has 5 elements");
  s = runKernel("dropout_grad", {Tensor(DType::UInt8, {3}), x}, {{DType::Float32, {4}}},
                {AttrDesc::ofFloat("p", 0.5)}, out);
  EXPECT_CONTAINS(s.message(), "mask has 3 elements");
}

} // namespace
