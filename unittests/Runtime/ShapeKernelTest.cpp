//===- ShapeKernelTest.cpp - copy, transpose, concat, split, slice --------===//

#include "TestArtifacts.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace distc::testing;

namespace {

std::vector<double> values(const Tensor &t) {
  std::vector<double> v;
  for (int64_t i = 0; i < t.numel(); ++i)
    v.push_back(elementAt(t, i));
  return v;
}

TEST(CopyKernel, BytewiseAnyDtype) {
  std::mt19937_64 rng(6);
  Tensor x = randomTensor(DType::Int16, {2, 3}, rng, -100, 100);
  std::vector<Tensor> out;
  ASSERT_TRUE(runKernel("copy", {x}, {{DType::Int16, {6}}}, {}, out).ok());
  expectClose(out[0], values(x), 0, 0);
}

TEST(TransposeKernel, AgainstReference) {
  std::mt19937_64 rng(7);
  const Shape shape = {2, 3, 4};
  std::vector<std::vector<int64_t>> perms = {{0, 1, 2}, {2, 1, 0}, {1, 2, 0}, {0, 2, 1}};
  for (DType dt : {DType::Float32, DType::Int64, DType::Bool})
    for (const auto &perm : perms) {
      Tensor x = randomTensor(dt, shape, rng, 0, 50);
      Shape outShape = {shape[perm[0]], shape[perm[1]], shape[perm[2]]};
      std::vector<double> ref(x.numel());
      for (int64_t f = 0; f < x.numel(); ++f) {
        auto o = unflatIndex(outShape, f);
        std::vector<int64_t> in(3);
        for (int i = 0; i < 3; ++i)
          in[perm[i]] = o[i];
        ref[f] = elementAt(x, flatIndex(shape, in));
      }
      std::vector<Tensor> out;
      ASSERT_TRUE(
          runKernel("transpose", {x}, {{dt, outShape}}, {AttrDesc::ofInts("perm", perm)}, out)
              .ok());
      expectClose(out[0], ref, 0, 0);
    }
}

TEST(ConcatSplitKernels, RoundTripOnEveryAxis) {
  std::mt19937_64 rng(8);
  for (int axis = 0; axis < 3; ++axis) {
    Shape a = {2, 3, 4}, b = {2, 3, 4}, whole = {2, 3, 4};
    a[axis] = 1;
    b[axis] = 2;
    whole[axis] = 3;
    Tensor x0 = randomTensor(DType::Float64, a, rng), x1 = randomTensor(DType::Float64, b, rng);
    std::vector<Tensor> out;
    ASSERT_TRUE(runKernel("concat", {x0, x1}, {{DType::Float64, whole}},
                          {AttrDesc::ofInt("axis", axis)}, out)
                    .ok());
    std::vector<double> ref(distc::runtime::shapeNumel(whole));
    for (size_t f = 0; f < ref.size(); ++f) {
      auto idx = unflatIndex(whole, int64_t(f));
      if (idx[axis] < 1) {
        ref[f] = elementAt(x0, flatIndex(a, idx));
      } else {
        idx[axis] -= 1;
        ref[f] = elementAt(x1, flatIndex(b, idx));
      }
    }
    expectClose(out[0], ref, 0, 0);
    Tensor joined = out[0];
    ASSERT_TRUE(runKernel("split", {joined}, {{DType::Float64, a}, {DType::Float64, b}},
                          {AttrDesc::ofInt("axis", axis)}, out)
                    .ok());
    expectClose(out[0], values(x0), 0, 0);
    expectClose(out[1], values(x1), 0, 0);
  }
}

TEST(ConcatKernel, RejectsMismatchedExtents) {
  Tensor x0(DType::Float32, {2, 3}), x1(DType::Float32, {3, 3});
  std::vector<Tensor> out;
  Status s =
      runKernel("concat", {x0, x1}, {{DType::Float32, {2, 6}}}, {AttrDesc::ofInt("axis", 1)}, out);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("does not match"), std::string::npos) << s.message();
}

TEST(SliceKernel, NegativeAndClampedIndices) {
  std::mt19937_64 rng(9);
  Tensor x = randomTensor(DType::Float32, {4, 6, 5}, rng);
  struct Case {
    std::vector<int64_t> axes, starts, ends;
    Shape out;
  } cases[] = {
      {{1}, {1}, {4}, {4, 3, 5}},         {{1}, {-3}, {-1}, {4, 2, 5}},
      {{0, 2}, {-100}, {100}, {4, 6, 5}}, {{0, 2}, {1, -2}, {100, 5}, {3, 6, 2}},
      {{2}, {4}, {2}, {4, 6, 0}},
  };
  for (const Case &c : cases) {
    // Fix up: two-axis cases with one start/end listed are expanded here.
    std::vector<int64_t> starts = c.starts, ends = c.ends;
    while (starts.size() < c.axes.size())
      starts.push_back(starts.back());
    while (ends.size() < c.axes.size())
      ends.push_back(ends.back());
    std::vector<int64_t> begin(3, 0);
    for (size_t i = 0; i < c.axes.size(); ++i) {
      int64_t dim = x.shape()[c.axes[i]];
      int64_t s = starts[i] < 0 ? starts[i] + dim : starts[i];
      begin[c.axes[i]] = std::clamp<int64_t>(s, 0, dim);
    }
    std::vector<double> ref(distc::runtime::shapeNumel(c.out));
    for (size_t f = 0; f < ref.size(); ++f) {
      auto idx = unflatIndex(c.out, int64_t(f));
      for (int d = 0; d < 3; ++d)
        idx[d] += begin[d];
      ref[f] = elementAt(x, flatIndex(x.shape(), idx));
    }
    std::vector<Tensor> out;
    Status s = runKernel("slice", {x}, {{DType::Float32, c.out}},
                         {AttrDesc::ofInts("axes", c.axes), AttrDesc::ofInts("starts", starts),
                          AttrDesc::ofInts("ends", ends)},
                         out);
    ASSERT_TRUE(s.ok()) << s.message();
    expectClose(out[0], ref, 0, 0);
  }
  std::vector<Tensor> out;
  Status s = runKernel("slice", {x}, {{DType::Float32, {4, 2, 5}}},
                       {AttrDesc::ofInts("axes", {1}), AttrDesc::ofInts("starts", {0}),
                        AttrDesc::ofInts("ends", {3})},
                       out);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("out has shape [4,2,5], expected [4,3,5]"), std::string::npos)
      << s.message();
}

} // namespace
