//===- RandomKernelTest.cpp - deterministic initializers ------------------===//

#include "TestArtifacts.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

using namespace distc::testing;

namespace {

struct Stats {
  double mean, stddev, lo, hi;
};

Stats stats(const Tensor &t) {
  double sum = 0, sq = 0, lo = INFINITY, hi = -INFINITY;
  for (int64_t i = 0; i < t.numel(); ++i) {
    double v = elementAt(t, i);
    sum += v;
    sq += v * v;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  double n = double(t.numel()), mean = sum / n;
  return {mean, std::sqrt(sq / n - mean * mean), lo, hi};
}

Tensor generate(const std::string &kernel, DType dt, std::vector<AttrDesc> attrs) {
  std::vector<Tensor> out;
  Status s = runKernel(kernel, {}, {{dt, {100, 200}}}, attrs, out);
  EXPECT_TRUE(s.ok()) << s.message();
  return s.ok() ? out[0] : Tensor();
}

TEST(RandomKernels, UniformIsDeterministicAndInRange) {
  auto attrs = [](int64_t seed) {
    return std::vector<AttrDesc>{AttrDesc::ofFloat("min", -2), AttrDesc::ofFloat("max", 3),
                                 AttrDesc::ofInt("seed", seed)};
  };
  Tensor a = generate("uniform_random", DType::Float32, attrs(7));
  Tensor b = generate("uniform_random", DType::Float32, attrs(7));
  Tensor c = generate("uniform_random", DType::Float32, attrs(8));
  ASSERT_TRUE(a.defined() && b.defined() && c.defined());
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.byteSize()), 0);
  EXPECT_NE(std::memcmp(a.data(), c.data(), a.byteSize()), 0);
  Stats s = stats(a);
  EXPECT_NEAR(s.mean, 0.5, 0.03);
  EXPECT_NEAR(s.stddev, 5 / std::sqrt(12.0), 0.03);
  EXPECT_GE(s.lo, -2);
  EXPECT_LT(s.hi, 3);
  // The documented generator, bit for bit.
  std::mt19937_64 gen(7);
  for (int i = 0; i < 5; ++i) {
    double u = double(gen() >> 11) * 0x1.0p-53;
    EXPECT_EQ(a.data<float>()[i], float(-2 + u * 5));
  }
}

TEST(RandomKernels, UniformRejectsSeedZero) {
  std::vector<Tensor> out;
  Status s = runKernel(
      "uniform_random", {}, {{DType::Float32, {2}}},
      {AttrDesc::ofFloat("min", 0), AttrDesc::ofFloat("max", 1), AttrDesc::ofInt("seed", 0)}, out);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("seed is 0"), std::string::npos) << s.message();
}

TEST(RandomKernels, GaussianMeanAndStd) {
  auto attrs = std::vector<AttrDesc>{AttrDesc::ofFloat("mean", 1.5), AttrDesc::ofFloat("std", 2),
                                     AttrDesc::ofInt("seed", 3)};
  Tensor a = generate("gaussian_random", DType::Float64, attrs);
  Tensor b = generate("gaussian_random", DType::Float64, attrs);
  ASSERT_TRUE(a.defined() && b.defined());
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.byteSize()), 0);
  Stats s = stats(a);
  EXPECT_NEAR(s.mean, 1.5, 0.05);
  EXPECT_NEAR(s.stddev, 2, 0.05);
  // Box-Muller on the documented uniform stream.
  std::mt19937_64 gen(3);
  double u1 = 1 - double(gen() >> 11) * 0x1.0p-53, u2 = double(gen() >> 11) * 0x1.0p-53;
  double r = std::sqrt(-2 * std::log(u1));
  EXPECT_EQ(a.data<double>()[0], 1.5 + 2 * r * std::cos(2 * M_PI * u2));
  EXPECT_EQ(a.data<double>()[1], 1.5 + 2 * r * std::sin(2 * M_PI * u2));
}

TEST(RandomKernels, TruncatedGaussianStaysWithinTwoStd) {
  Tensor a = generate(
      "truncated_gaussian_random", DType::Float32,
      {AttrDesc::ofFloat("mean", 0), AttrDesc::ofFloat("std", 0.5), AttrDesc::ofInt("seed", 5)});
  ASSERT_TRUE(a.defined());
  Stats s = stats(a);
  EXPECT_GE(s.lo, -1.0);
  EXPECT_LE(s.hi, 1.0);
  EXPECT_NEAR(s.mean, 0, 0.02);
  // A normal truncated at +-2 sigma has std ~0.8796 sigma.
  EXPECT_NEAR(s.stddev, 0.5 * 0.8796, 0.02);
}

} // namespace
