//===- NnKernelTest.cpp - softmax, layer_norm, cross entropy, gather_rows,
//                        top_k, accuracy -------------------------------===//

#include "TestArtifacts.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace distc::testing;

namespace {

/// Softmax of x along `axis` in double.
std::vector<double> softmaxRef(const Tensor &x, int axis) {
  const Shape &s = x.shape();
  std::vector<double> out(x.numel());
  for (int64_t f = 0; f < x.numel(); ++f) {
    auto idx = unflatIndex(s, f);
    double mx = -INFINITY, sum = 0;
    for (int64_t c = 0; c < s[axis]; ++c) {
      idx[axis] = c;
      mx = std::max(mx, elementAt(x, flatIndex(s, idx)));
    }
    for (int64_t c = 0; c < s[axis]; ++c) {
      idx[axis] = c;
      sum += std::exp(elementAt(x, flatIndex(s, idx)) - mx);
    }
    out[f] = std::exp(elementAt(x, f) - mx) / sum;
  }
  return out;
}

TEST(SoftmaxKernel, EveryAxis) {
  std::mt19937_64 rng(10);
  for (DType dt : {DType::Float32, DType::Float64})
    for (int axis = 0; axis < 3; ++axis) {
      Tensor x = randomTensor(dt, {3, 4, 5}, rng, -5, 5);
      std::vector<Tensor> out;
      ASSERT_TRUE(
          runKernel("softmax", {x}, {{dt, {3, 4, 5}}}, {AttrDesc::ofInt("axis", axis)}, out).ok());
      expectClose(out[0], softmaxRef(x, axis), dt == DType::Float32 ? 1e-5 : 1e-13, 1e-7);
    }
}

TEST(LayerNormKernel, WithAndWithoutScaleBias) {
  std::mt19937_64 rng(11);
  const Shape shape = {2, 3, 4};
  for (DType dt : {DType::Float32, DType::Float64})
    for (int bna : {1, 2})
      for (bool affine : {false, true}) {
        Tensor x = randomTensor(dt, shape, rng, -2, 3);
        int64_t left = bna == 1 ? 2 : 6, right = 24 / left;
        Tensor scale = affine ? randomTensor(dt, {right}, rng) : Tensor();
        Tensor bias = affine ? randomTensor(dt, {right}, rng) : Tensor();
        std::vector<double> y(24), mean(left), var(left);
        for (int64_t r = 0; r < left; ++r) {
          double mu = 0, v = 0;
          for (int64_t c = 0; c < right; ++c)
            mu += elementAt(x, r * right + c) / double(right);
          for (int64_t c = 0; c < right; ++c)
            v += std::pow(elementAt(x, r * right + c) - mu, 2) / double(right);
          mean[r] = mu;
          var[r] = v;
          for (int64_t c = 0; c < right; ++c) {
            double n = (elementAt(x, r * right + c) - mu) / std::sqrt(v + 1e-5);
            y[r * right + c] = affine ? n * elementAt(scale, c) + elementAt(bias, c) : n;
          }
        }
        std::vector<Tensor> out;
        Status s = runKernel(
            "layer_norm", {x, scale, bias}, {{dt, shape}, {dt, {left}}, {dt, {left}}},
            {AttrDesc::ofInt("begin_norm_axis", bna), AttrDesc::ofFloat("epsilon", 1e-5)}, out);
        ASSERT_TRUE(s.ok()) << s.message();
        double tol = dt == DType::Float32 ? 1e-5 : 1e-12;
        expectClose(out[0], y, tol, tol);
        expectClose(out[1], mean, tol, tol);
        expectClose(out[2], var, tol, tol);
      }
}

TEST(LayerNormKernel, OptionalStatisticsOutputs) {
  Tensor x = tensorOf(DType::Float32, {1, 2}, {1, 3});
  std::vector<Tensor> out;
  Status s = runKernel("layer_norm", {x},
                       {{DType::Float32, {1, 2}}, {DType::Float32, {1}}, {DType::Float32, {1}}},
                       {AttrDesc::ofInt("begin_norm_axis", 1), AttrDesc::ofFloat("epsilon", 0)},
                       out, {false, true, true});
  ASSERT_TRUE(s.ok()) << s.message();
  expectClose(out[0], {-1, 1}, 1e-6, 0);
}

struct CeCase {
  Shape logits;
  int axis;
};

TEST(SoftmaxCrossEntropyKernel, HardLabelsWithIgnoreIndex) {
  std::mt19937_64 rng(12);
  for (DType dt : {DType::Float32, DType::Float64})
    for (DType lt : {DType::Int32, DType::Int64})
      for (CeCase c : {CeCase{{6, 5}, 1}, CeCase{{2, 5, 3}, 1}, CeCase{{5, 4}, 0}}) {
        Tensor logits = randomTensor(dt, c.logits, rng, -4, 4);
        Shape ls = c.logits;
        ls[c.axis] = 1;
        Tensor label = randomTensor(lt, ls, rng, 0, double(c.logits[c.axis] - 1));
        // Mark one position ignored.
        if (lt == DType::Int32)
          label.data<int32_t>()[0] = -100;
        else
          label.data<int64_t>()[0] = -100;
        std::vector<double> sm = softmaxRef(logits, c.axis);
        std::vector<double> loss(label.numel());
        for (int64_t r = 0; r < label.numel(); ++r) {
          int64_t l = int64_t(elementAt(label, r));
          if (l == -100)
            continue;
          auto idx = unflatIndex(ls, r);
          idx[c.axis] = l;
          loss[r] = -std::log(sm[flatIndex(c.logits, idx)]);
        }
        std::vector<Tensor> out;
        Status s = runKernel("softmax_cross_entropy", {logits, label}, {{dt, c.logits}, {dt, ls}},
                             {AttrDesc::ofInt("axis", c.axis), AttrDesc::ofInt("soft_label", 0),
                              AttrDesc::ofInt("ignore_index", -100)},
                             out);
        ASSERT_TRUE(s.ok()) << s.message();
        double tol = dt == DType::Float32 ? 1e-5 : 1e-12;
        expectClose(out[0], sm, tol, 1e-7);
        expectClose(out[1], loss, tol, 1e-6);
      }
}

TEST(SoftmaxCrossEntropyKernel, SoftLabels) {
  std::mt19937_64 rng(13);
  Tensor logits = randomTensor(DType::Float64, {4, 6}, rng, -3, 3);
  Tensor label = randomTensor(DType::Float64, {4, 6}, rng, 0, 1);
  std::vector<double> sm = softmaxRef(logits, 1), loss(4, 0);
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 6; ++c)
      loss[r] -= elementAt(label, r * 6 + c) * std::log(sm[r * 6 + c]);
  std::vector<Tensor> out;
  Status s = runKernel("softmax_cross_entropy", {logits, label},
                       {{DType::Float64, {4, 6}}, {DType::Float64, {4, 1}}},
                       {AttrDesc::ofInt("axis", 1), AttrDesc::ofInt("soft_label", 1)}, out);
  ASSERT_TRUE(s.ok()) << s.message();
  expectClose(out[1], loss, 1e-12, 1e-12);
}

TEST(SoftmaxCrossEntropyKernel, BadLabelNamesTheOp) {
  Tensor logits(DType::Float32, {2, 3});
  Tensor label = tensorOf(DType::Int64, {2, 1}, {1, 3});
  std::vector<Tensor> out;
  Status s = runKernel("softmax_cross_entropy", {logits, label},
                       {{DType::Float32, {2, 3}}, {DType::Float32, {2, 1}}},
                       {AttrDesc::ofInt("axis", 1)}, out);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("softmax_cross_entropy -> out0"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("label 3"), std::string::npos) << s.message();
}

TEST(GatherRowsKernel, PaddingIdxAndBadId) {
  std::mt19937_64 rng(14);
  Tensor table = randomTensor(DType::Float32, {5, 3}, rng);
  for (DType it : {DType::Int32, DType::Int64}) {
    Tensor ids = tensorOf(it, {2, 2}, {4, 0, 2, 4});
    std::vector<Tensor> out;
    ASSERT_TRUE(runKernel("gather_rows", {ids, table}, {{DType::Float32, {2, 2, 3}}},
                          {AttrDesc::ofInt("padding_idx", 2)}, out)
                    .ok());
    std::vector<double> ref;
    for (int64_t id : {4, 0, 2, 4})
      for (int c = 0; c < 3; ++c)
        ref.push_back(id == 2 ? 0.0 : elementAt(table, id * 3 + c));
    expectClose(out[0], ref, 0, 0);
  }
  Tensor bad = tensorOf(DType::Int64, {2}, {1, 5});
  std::vector<Tensor> out;
  Status s = runKernel("gather_rows", {bad, table}, {{DType::Float32, {2, 3}}}, {}, out);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("gather_rows -> out0"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("id 5"), std::string::npos) << s.message();
}

TEST(TopKKernel, TiesKeepLowerIndexFirst) {
  Tensor x = tensorOf(DType::Float32, {2, 5}, {1, 3, 3, 2, 3, 5, 4, 5, 4, 0});
  std::vector<Tensor> out;
  ASSERT_TRUE(runKernel("top_k", {x}, {{DType::Float32, {2, 3}}, {DType::Int64, {2, 3}}},
                        {AttrDesc::ofInt("k", 3)}, out)
                  .ok());
  expectClose(out[0], {3, 3, 3, 5, 5, 4}, 0, 0);
  expectClose(out[1], {1, 2, 4, 0, 2, 1}, 0, 0);
  ASSERT_TRUE(runKernel("top_k", {x}, {{DType::Float32, {2, 2}}, {DType::Int64, {2, 2}}},
                        {AttrDesc::ofInt("k", 2), AttrDesc::ofInt("largest", 0)}, out)
                  .ok());
  expectClose(out[0], {1, 2, 0, 4}, 0, 0);
  expectClose(out[1], {0, 3, 4, 1}, 0, 0);
}

TEST(TopKKernel, RandomAgainstSort) {
  std::mt19937_64 rng(15);
  Tensor x = randomTensor(DType::Float64, {4, 9}, rng);
  std::vector<Tensor> out;
  ASSERT_TRUE(runKernel("top_k", {x}, {{DType::Float64, {4, 4}}, {DType::Int64, {4, 4}}},
                        {AttrDesc::ofInt("k", 4)}, out)
                  .ok());
  for (int r = 0; r < 4; ++r) {
    std::vector<std::pair<double, int64_t>> row;
    for (int c = 0; c < 9; ++c)
      row.push_back({-elementAt(x, r * 9 + c), c});
    std::sort(row.begin(), row.end());
    for (int j = 0; j < 4; ++j) {
      EXPECT_EQ(elementAt(out[0], r * 4 + j), -row[j].first);
      EXPECT_EQ(elementAt(out[1], r * 4 + j), double(row[j].second));
    }
  }
}

TEST(AccuracyKernel, CountsRowsWithLabelAmongK) {
  Tensor indices = tensorOf(DType::Int64, {4, 2}, {0, 1, 2, 3, 1, 0, 3, 2});
  Tensor label = tensorOf(DType::Int32, {4, 1}, {1, 1, 0, 0});
  std::vector<Tensor> out;
  ASSERT_TRUE(runKernel("accuracy", {indices, label},
                        {{DType::Float32, {1}}, {DType::Int32, {1}}, {DType::Int32, {1}}}, {}, out)
                  .ok());
  expectClose(out[0], {0.5}, 0, 0);
  expectClose(out[1], {2}, 0, 0);
  expectClose(out[2], {4}, 0, 0);
  Tensor none(DType::Int64, {0, 1});
  Tensor noLabel(DType::Int64, {0, 1});
  ASSERT_TRUE(runKernel("accuracy", {none, noLabel},
                        {{DType::Float32, {1}}, {DType::Int32, {1}}, {DType::Int32, {1}}}, {}, out)
                  .ok());
  expectClose(out[0], {0}, 0, 0);
}

} // namespace
