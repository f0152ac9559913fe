//===- FusedBatchNormKernelTest.cpp - batch_norm with z and relu ----------===//
//
// The fused batch norms (fuse_bn_act_ops, fuse_bn_add_act_ops) run
// batch_norm's kernels with `activation` and z. They must give the bits of
// the unfused kernels they replace: batch_norm, binary add and unary relu
// forward; unary_grad relu and batch_norm_grad backward, in both dtypes,
// both layouts, with batch and running statistics, and one and several
// kernel threads. Bad operands are refused by name.
//
//===----------------------------------------------------------------------===//

#include "TestArtifacts.h"

#include <gtest/gtest.h>

#include <random>

using namespace distc::testing;
using distc::runtime::dtypeName;

namespace {

struct Layout {
  Shape shape;
  int axis;
};

/// NCHW with enough elements that the kernels split their loops over
/// threads, NHWC, and a 2-D batch.
const Layout kLayouts[] = {{{4, 3, 40, 40}, 1}, {{2, 5, 5, 3}, 3}, {{7, 3}, 1}};

std::vector<AttrDesc> bnAttrs(int axis, bool global, const char *activation = nullptr) {
  std::vector<AttrDesc> a = {AttrDesc::ofInt("channel_axis", axis),
                             AttrDesc::ofFloat("epsilon", 1e-5), AttrDesc::ofFloat("momentum", 0.9),
                             AttrDesc::ofInt("global_stats", global)};
  if (activation)
    a.push_back(AttrDesc::ofString("activation", activation));
  return a;
}

std::vector<AttrDesc> gradAttrs(int axis, bool global, const char *activation = nullptr) {
  std::vector<AttrDesc> a = {AttrDesc::ofInt("channel_axis", axis),
                             AttrDesc::ofFloat("epsilon", 1e-5),
                             AttrDesc::ofInt("global_stats", global)};
  if (activation)
    a.push_back(AttrDesc::ofString("activation", activation));
  return a;
}

std::vector<OutputSpec> forwardSpecs(DType dt, const Layout &l) {
  const int64_t c = l.shape[l.axis];
  return {{dt, l.shape}, {dt, {c}}, {dt, {c}}, {dt, {c}}, {dt, {c}}};
}

TEST(FusedBatchNormKernel, ForwardMatchesUnfusedBits) {
  std::mt19937_64 rng(31);
  for (int threads : {1, 4}) {
    KernelThreads scoped(threads);
    for (DType dt : {DType::Float32, DType::Float64})
      for (const Layout &l : kLayouts)
        for (bool global : {false, true}) {
          const int64_t c = l.shape[l.axis];
          Tensor x = randomTensor(dt, l.shape, rng, -2, 3), z = randomTensor(dt, l.shape, rng);
          Tensor scale = randomTensor(dt, {c}, rng), bias = randomTensor(dt, {c}, rng);
          Tensor mean = randomTensor(dt, {c}, rng), var = randomTensor(dt, {c}, rng, 0.5, 2);
          std::vector<Tensor> plain, act, addAct;
          ASSERT_TRUE(runKernel("batch_norm", {x, scale, bias, mean, var}, forwardSpecs(dt, l),
                                bnAttrs(l.axis, global), plain)
                          .ok());
          ASSERT_TRUE(runKernel("batch_norm", {x, scale, bias, mean, var}, forwardSpecs(dt, l),
                                bnAttrs(l.axis, global, "relu"), act)
                          .ok());
          Status st = runKernel("batch_norm", {x, scale, bias, mean, var, z}, forwardSpecs(dt, l),
                                bnAttrs(l.axis, global, "relu"), addAct);
          ASSERT_TRUE(st.ok()) << st.message();
          const std::string what = std::string(dtypeName(dt)) + " axis " + std::to_string(l.axis) +
                                   (global ? " global" : " batch");
          Tensor relu =
              run1("unary", {plain[0]}, {dt, l.shape}, {AttrDesc::ofString("op", "relu")});
          expectSameBits(act[0], relu, "relu(bn) " + what);
          Tensor sum =
              run1("binary", {plain[0], z}, {dt, l.shape}, {AttrDesc::ofString("op", "add")});
          Tensor sumRelu = run1("unary", {sum}, {dt, l.shape}, {AttrDesc::ofString("op", "relu")});
          expectSameBits(addAct[0], sumRelu, "relu(bn + z) " + what);
          // The statistics are batch_norm's.
          for (int i = 1; i <= 4; ++i) {
            expectSameBits(act[i], plain[i], "statistic " + std::to_string(i) + " " + what);
            expectSameBits(addAct[i], plain[i], "statistic " + std::to_string(i) + " " + what);
          }
        }
  }
}

TEST(FusedBatchNormKernel, GradientMatchesUnfusedBits) {
  std::mt19937_64 rng(32);
  for (int threads : {1, 4}) {
    KernelThreads scoped(threads);
    for (DType dt : {DType::Float32, DType::Float64})
      for (const Layout &l : kLayouts) {
        const int64_t c = l.shape[l.axis];
        Tensor x = randomTensor(dt, l.shape, rng, -2, 3), z = randomTensor(dt, l.shape, rng);
        Tensor scale = randomTensor(dt, {c}, rng), bias = randomTensor(dt, {c}, rng);
        Tensor mean = randomTensor(dt, {c}, rng), var = randomTensor(dt, {c}, rng, 0.5, 2);
        Tensor dy = randomTensor(dt, l.shape, rng);
        std::vector<Tensor> fwd;
        ASSERT_TRUE(runKernel("batch_norm", {x, scale, bias, mean, var, z}, forwardSpecs(dt, l),
                              bnAttrs(l.axis, false, "relu"), fwd)
                        .ok());
        const Tensor &y = fwd[0], &savedMean = fwd[3], &savedInv = fwd[4];
        // Unfused: relu_grad at y, then batch_norm_grad on it.
        Tensor dact =
            run1("unary_grad", {y, dy}, {dt, l.shape}, {AttrDesc::ofString("op", "relu")});
        std::vector<Tensor> plain, fused;
        const std::vector<OutputSpec> gradSpecs = {{dt, l.shape}, {dt, {c}}, {dt, {c}}};
        ASSERT_TRUE(runKernel("batch_norm_grad", {x, scale, savedMean, savedInv, dact}, gradSpecs,
                              gradAttrs(l.axis, false), plain)
                        .ok());
        std::vector<OutputSpec> fusedSpecs = gradSpecs;
        fusedSpecs.push_back({dt, l.shape});
        Status st = runKernel("batch_norm_grad", {x, scale, savedMean, savedInv, dy, y}, fusedSpecs,
                              gradAttrs(l.axis, false, "relu"), fused);
        ASSERT_TRUE(st.ok()) << st.message();
        const std::string what = std::string(dtypeName(dt)) + " axis " + std::to_string(l.axis);
        expectSameBits(fused[3], dact, "dact " + what);
        expectSameBits(fused[0], plain[0], "dx " + what);
        expectSameBits(fused[1], plain[1], "dscale " + what);
        expectSameBits(fused[2], plain[2], "dbias " + what);
      }
  }
}

TEST(FusedBatchNormKernel, RefusesBadOperands) {
  std::mt19937_64 rng(33);
  const DType dt = DType::Float32;
  const Layout l = {{2, 3, 2}, 1};
  Tensor x = randomTensor(dt, l.shape, rng), c3 = randomTensor(dt, {3}, rng, 0.5, 2);
  Tensor small = randomTensor(dt, {2, 3}, rng);
  std::vector<Tensor> out;
  Status st = runKernel("batch_norm", {x, c3, c3, c3, c3, small}, forwardSpecs(dt, l),
                        bnAttrs(1, false, "relu"), out);
  ASSERT_FALSE(st.ok());
  EXPECT_CONTAINS(st.message(), "z has 6 elements");
  st = runKernel("batch_norm", {x, c3, c3, c3, c3}, forwardSpecs(dt, l), bnAttrs(1, false, "tanh"),
                 out);
  ASSERT_FALSE(st.ok());
  EXPECT_CONTAINS(st.message(), "unknown activation 'tanh'");
  // relu's gradient needs the forward output y and the output dact.
  st = runKernel("batch_norm_grad", {x, c3, c3, c3, x}, {{dt, l.shape}, {dt, {3}}, {dt, {3}}},
                 gradAttrs(1, false, "relu"), out);
  ASSERT_FALSE(st.ok());
  EXPECT_CONTAINS(st.message(), "needs the forward output y");
}

} // namespace
