//===- GradKernelTest.cpp - unary_grad, softmax_grad, layer_norm_grad,
//    softmax_cross_entropy_grad, gather_rows_grad, broadcast, slice_grad ===//
//
// Every gradient kernel is checked against central finite differences of
// its forward kernel in float64: for a random upstream gradient w, the
// analytic gradient must equal d/dx sum(w * forward(x)).
//
//===----------------------------------------------------------------------===//

#include "TestArtifacts.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace distc::testing;

namespace {

/// Finite differences in float64 agree with the analytic gradient to about
/// 1e-6 relative; atol covers entries that are (nearly) zero.
constexpr double kFdRtol = 1e-6, kFdAtol = 1e-7;

/// Runs a kernel that must succeed.
std::vector<Tensor> run(const std::string &kernel, const std::vector<Tensor> &inputs,
                        const std::vector<OutputSpec> &specs, const std::vector<AttrDesc> &attrs,
                        const std::vector<bool> &absentOutputs = {}) {
  std::vector<Tensor> out;
  Status s = runKernel(kernel, inputs, specs, attrs, out, absentOutputs);
  EXPECT_TRUE(s.ok()) << kernel << ": " << s.message();
  return out;
}

/// The message of a kernel run that must fail.
std::string runError(const std::string &kernel, const std::vector<Tensor> &inputs,
                     const std::vector<OutputSpec> &specs, const std::vector<AttrDesc> &attrs) {
  std::vector<Tensor> out;
  Status s = runKernel(kernel, inputs, specs, attrs, out);
  EXPECT_FALSE(s.ok()) << kernel << " succeeded";
  return s.message();
}

std::vector<double> valuesOf(const Tensor &t) {
  std::vector<double> v(t.numel());
  for (int64_t i = 0; i < t.numel(); ++i)
    v[i] = elementAt(t, i);
  return v;
}

Tensor toDtype(const Tensor &t, DType dtype) { return tensorOf(dtype, t.shape(), valuesOf(t)); }

//===----------------------------------------------------------------------===//
// unary_grad
//===----------------------------------------------------------------------===//

struct UnaryCase {
  const char *op;
  bool takesOutput; // the first operand is the forward output
  double lo, hi;    // input domain
};

const UnaryCase kUnaryCases[] = {
    {"relu", true, -2, 2},       {"sigmoid", true, -4, 4}, {"tanh", true, -2, 2},
    {"exp", true, -2, 2},        {"sqrt", true, 0.2, 3},   {"gelu", false, -3, 3},
    {"gelu_tanh", false, -3, 3}, {"square", false, -2, 2}, {"log", false, 0.2, 3},
    {"abs", false, -2, 2},       {"neg", false, -2, 2},
};

/// Random inputs in [lo, hi) kept 0.05 away from 0, where relu and abs
/// have no derivative.
Tensor unaryInput(const UnaryCase &c, DType dt, const Shape &shape, std::mt19937_64 &rng) {
  Tensor x = randomTensor(DType::Float64, shape, rng, c.lo, c.hi);
  for (int64_t i = 0; i < x.numel(); ++i) {
    double &v = x.data<double>()[i];
    if (std::abs(v) < 0.05)
      v = v < 0 ? -0.05 - v : 0.05 + v;
  }
  return toDtype(x, dt);
}

/// unary_grad's operands for `c` at x: (out or x, dout) -> dx.
Tensor unaryGrad(const UnaryCase &c, const Tensor &x, const Tensor &dout) {
  const Shape &shape = x.shape();
  Tensor first = x;
  if (c.takesOutput)
    first = run("unary", {x}, {{x.dtype(), shape}}, {AttrDesc::ofString("op", c.op)})[0];
  return run("unary_grad", {first, dout}, {{x.dtype(), shape}},
             {AttrDesc::ofString("op", c.op)})[0];
}

TEST(UnaryGradKernel, EveryOpMatchesFiniteDifferences) {
  std::mt19937_64 rng(100);
  const Shape shape = {3, 5};
  for (const UnaryCase &c : kUnaryCases) {
    SCOPED_TRACE(c.op);
    Tensor x = unaryInput(c, DType::Float64, shape, rng);
    Tensor dout = randomTensor(DType::Float64, shape, rng);
    std::vector<double> fd = numericGradient("unary", {x}, {{DType::Float64, shape}},
                                             {AttrDesc::ofString("op", c.op)}, 0, dout, 0);
    expectClose(unaryGrad(c, x, dout), fd, kFdRtol, kFdAtol);
  }
}

TEST(UnaryGradKernel, Float32MatchesFloat64) {
  std::mt19937_64 rng(101);
  const Shape shape = {2, 7};
  for (const UnaryCase &c : kUnaryCases) {
    SCOPED_TRACE(c.op);
    Tensor x = unaryInput(c, DType::Float64, shape, rng);
    Tensor dout = randomTensor(DType::Float64, shape, rng);
    Tensor x32 = toDtype(x, DType::Float32), dout32 = toDtype(dout, DType::Float32);
    expectClose(unaryGrad(c, x32, dout32), valuesOf(unaryGrad(c, x, dout)), 1e-5, 1e-6);
  }
}

TEST(UnaryGradKernel, UnknownOpIsNamed) {
  Tensor x(DType::Float32, {2});
  std::string msg = runError("unary_grad", {x, x}, {{DType::Float32, {2}}},
                             {AttrDesc::ofString("op", "softplus")});
  EXPECT_CONTAINS(msg, "unknown unary op 'softplus'");
  EXPECT_CONTAINS(msg, "unary_grad -> out0");
}

TEST(UnaryGradKernel, RejectsMismatchedDout) {
  Tensor x(DType::Float32, {2, 3}), dout(DType::Float32, {2, 2});
  std::string msg = runError("unary_grad", {x, dout}, {{DType::Float32, {2, 3}}},
                             {AttrDesc::ofString("op", "relu")});
  EXPECT_CONTAINS(msg, "dout has 4 elements");
}

//===----------------------------------------------------------------------===//
// softmax_grad
//===----------------------------------------------------------------------===//

TEST(SoftmaxGradKernel, EveryAxisMatchesFiniteDifferences) {
  std::mt19937_64 rng(102);
  const Shape shape = {3, 4, 5};
  for (int axis = 0; axis < 3; ++axis) {
    SCOPED_TRACE(axis);
    Tensor x = randomTensor(DType::Float64, shape, rng, -3, 3);
    Tensor dout = randomTensor(DType::Float64, shape, rng);
    const std::vector<AttrDesc> attrs = {AttrDesc::ofInt("axis", axis)};
    Tensor out = run("softmax", {x}, {{DType::Float64, shape}}, attrs)[0];
    Tensor dx = run("softmax_grad", {out, dout}, {{DType::Float64, shape}}, attrs)[0];
    expectClose(dx, numericGradient("softmax", {x}, {{DType::Float64, shape}}, attrs, 0, dout, 0),
                kFdRtol, kFdAtol);
    // Float32 agrees with the float64 result.
    Tensor dx32 = run("softmax_grad", {toDtype(out, DType::Float32), toDtype(dout, DType::Float32)},
                      {{DType::Float32, shape}}, attrs)[0];
    expectClose(dx32, valuesOf(dx), 1e-5, 1e-6);
  }
}

TEST(SoftmaxGradKernel, RejectsBadAxis) {
  Tensor t(DType::Float64, {2, 3});
  EXPECT_CONTAINS(
      runError("softmax_grad", {t, t}, {{DType::Float64, {2, 3}}}, {AttrDesc::ofInt("axis", 2)}),
      "axis 2 is out of range for rank 2");
}

//===----------------------------------------------------------------------===//
// layer_norm_grad
//===----------------------------------------------------------------------===//

TEST(LayerNormGradKernel, MatchesFiniteDifferencesWithAndWithoutAffine) {
  std::mt19937_64 rng(103);
  const Shape shape = {2, 3, 4};
  const double eps = 1e-5;
  for (int bna : {1, 2})
    for (bool withScale : {false, true})
      for (bool withBias : {false, true}) {
        SCOPED_TRACE("begin_norm_axis " + std::to_string(bna) + " scale " +
                     std::to_string(withScale) + " bias " + std::to_string(withBias));
        const int64_t left = bna == 1 ? 2 : 6, right = 24 / left;
        Tensor x = randomTensor(DType::Float64, shape, rng, -2, 3);
        Tensor scale = withScale ? randomTensor(DType::Float64, {right}, rng, 0.5, 2) : Tensor();
        Tensor bias = withBias ? randomTensor(DType::Float64, {right}, rng) : Tensor();
        Tensor dy = randomTensor(DType::Float64, shape, rng);
        const std::vector<AttrDesc> attrs = {AttrDesc::ofInt("begin_norm_axis", bna),
                                             AttrDesc::ofFloat("epsilon", eps)};
        const std::vector<OutputSpec> fwdSpecs = {
            {DType::Float64, shape}, {DType::Float64, {left}}, {DType::Float64, {left}}};
        const std::vector<Tensor> fwdInputs = {x, scale, bias};
        std::vector<Tensor> grads = run(
            "layer_norm_grad", {x, scale, dy},
            {{DType::Float64, shape}, {DType::Float64, {right}}, {DType::Float64, {right}}}, attrs);
        ASSERT_EQ(grads.size(), 3u);
        expectClose(grads[0], numericGradient("layer_norm", fwdInputs, fwdSpecs, attrs, 0, dy, 0),
                    kFdRtol, kFdAtol);
        if (withScale)
          expectClose(grads[1], numericGradient("layer_norm", fwdInputs, fwdSpecs, attrs, 0, dy, 1),
                      kFdRtol, kFdAtol);
        if (withBias)
          expectClose(grads[2], numericGradient("layer_norm", fwdInputs, fwdSpecs, attrs, 0, dy, 2),
                      kFdRtol, kFdAtol);
        // Without a scale the forward is x^ (+ bias): dscale is still sum(dy * x^).
        if (!withScale) {
          Tensor ones = tensorOf(DType::Float64, {right}, std::vector<double>(right, 1.0));
          expectClose(grads[1],
                      numericGradient("layer_norm", {x, ones, bias}, fwdSpecs, attrs, 0, dy, 1),
                      kFdRtol, kFdAtol);
        }
      }
}

TEST(LayerNormGradKernel, OptionalOutputsAndFloat32) {
  std::mt19937_64 rng(104);
  const Shape shape = {4, 6};
  Tensor x = randomTensor(DType::Float64, shape, rng, -1, 1);
  Tensor scale = randomTensor(DType::Float64, {6}, rng);
  Tensor dy = randomTensor(DType::Float64, shape, rng);
  const std::vector<AttrDesc> attrs = {AttrDesc::ofInt("begin_norm_axis", 1),
                                       AttrDesc::ofFloat("epsilon", 1e-5)};
  const std::vector<OutputSpec> specs = {
      {DType::Float64, shape}, {DType::Float64, {6}}, {DType::Float64, {6}}};
  std::vector<Tensor> all = run("layer_norm_grad", {x, scale, dy}, specs, attrs);
  std::vector<Tensor> dxOnly =
      run("layer_norm_grad", {x, scale, dy}, specs, attrs, {false, true, true});
  expectClose(dxOnly[0], valuesOf(all[0]), 0, 0);
  EXPECT_FALSE(dxOnly[1].defined());
  std::vector<Tensor> f32 =
      run("layer_norm_grad",
          {toDtype(x, DType::Float32), toDtype(scale, DType::Float32), toDtype(dy, DType::Float32)},
          {{DType::Float32, shape}, {DType::Float32, {6}}, {DType::Float32, {6}}}, attrs);
  for (int i = 0; i < 3; ++i)
    expectClose(f32[i], valuesOf(all[i]), 1e-4, 1e-5);
}

TEST(LayerNormGradKernel, RejectsBadShapes) {
  Tensor x(DType::Float64, {2, 3}), dy(DType::Float64, {2, 4}), scale(DType::Float64, {2});
  const std::vector<AttrDesc> attrs = {AttrDesc::ofInt("begin_norm_axis", 1),
                                       AttrDesc::ofFloat("epsilon", 1e-5)};
  EXPECT_CONTAINS(runError("layer_norm_grad", {x, Tensor(), dy}, {{DType::Float64, {2, 3}}}, attrs),
                  "dy has 8 elements");
  EXPECT_CONTAINS(runError("layer_norm_grad", {x, scale, x}, {{DType::Float64, {2, 3}}}, attrs),
                  "scale has 2 elements");
}

//===----------------------------------------------------------------------===//
// softmax_cross_entropy_grad
//===----------------------------------------------------------------------===//

struct CeCase {
  Shape logits;
  int axis;
};

void setIndex(Tensor &t, int64_t i, int64_t v) {
  if (t.dtype() == DType::Int32)
    t.data<int32_t>()[i] = int32_t(v);
  else
    t.data<int64_t>()[i] = v;
}

TEST(SoftmaxCrossEntropyGradKernel, HardLabelsMatchFiniteDifferences) {
  std::mt19937_64 rng(105);
  for (DType lt : {DType::Int32, DType::Int64})
    for (int64_t ignoreIndex : {int64_t(-100), int64_t(2)})
      for (CeCase c : {CeCase{{6, 5}, 1}, CeCase{{2, 5, 3}, 1}, CeCase{{5, 4}, 0}}) {
        SCOPED_TRACE("axis " + std::to_string(c.axis) + " ignore_index " +
                     std::to_string(ignoreIndex));
        Tensor logits = randomTensor(DType::Float64, c.logits, rng, -4, 4);
        Shape ls = c.logits;
        ls[c.axis] = 1;
        Tensor label = randomTensor(lt, ls, rng, 0, double(c.logits[c.axis] - 1));
        setIndex(label, 0, ignoreIndex); // one ignored row
        setIndex(label, 1, 2);           // ignored too when ignore_index is 2
        Tensor dloss = randomTensor(DType::Float64, ls, rng, 0.5, 2);
        const std::vector<AttrDesc> attrs = {AttrDesc::ofInt("axis", c.axis),
                                             AttrDesc::ofInt("ignore_index", ignoreIndex)};
        const std::vector<OutputSpec> fwdSpecs = {{DType::Float64, c.logits}, {DType::Float64, ls}};
        Tensor softmax = run("softmax_cross_entropy", {logits, label}, fwdSpecs, attrs)[0];
        Tensor dlogits = run("softmax_cross_entropy_grad", {softmax, label, dloss},
                             {{DType::Float64, c.logits}}, attrs)[0];
        expectClose(
            dlogits,
            numericGradient("softmax_cross_entropy", {logits, label}, fwdSpecs, attrs, 1, dloss, 0),
            kFdRtol, kFdAtol);
        // Ignored rows are exactly zero.
        for (int64_t r = 0; r < label.numel(); ++r) {
          if (int64_t(elementAt(label, r)) != ignoreIndex)
            continue;
          auto idx = unflatIndex(ls, r);
          for (int64_t k = 0; k < c.logits[c.axis]; ++k) {
            idx[c.axis] = k;
            EXPECT_EQ(elementAt(dlogits, flatIndex(c.logits, idx)), 0.0);
          }
        }
      }
}

TEST(SoftmaxCrossEntropyGradKernel, DefaultIgnoreIndexAndFloat32) {
  Tensor softmax = tensorOf(DType::Float32, {2, 3}, {0.2, 0.3, 0.5, 0.1, 0.6, 0.3});
  Tensor label = tensorOf(DType::Int64, {2, 1}, {-100, 1});
  Tensor dloss = tensorOf(DType::Float32, {2, 1}, {3, 2});
  Tensor dlogits = run("softmax_cross_entropy_grad", {softmax, label, dloss},
                       {{DType::Float32, {2, 3}}}, {AttrDesc::ofInt("axis", 1)})[0];
  expectClose(dlogits, {0, 0, 0, 0.2, -0.8, 0.6}, 1e-6, 1e-7);
}

TEST(SoftmaxCrossEntropyGradKernel, SoftLabelsMatchFiniteDifferences) {
  std::mt19937_64 rng(107);
  for (CeCase c : {CeCase{{4, 6}, 1}, CeCase{{3, 4, 2}, 1}}) {
    Tensor logits = randomTensor(DType::Float64, c.logits, rng, -3, 3);
    // Soft labels are distributions along the axis.
    Tensor label = run("softmax", {randomTensor(DType::Float64, c.logits, rng, -2, 2)},
                       {{DType::Float64, c.logits}}, {AttrDesc::ofInt("axis", c.axis)})[0];
    Shape ls = c.logits;
    ls[c.axis] = 1;
    Tensor dloss = randomTensor(DType::Float64, ls, rng, 0.5, 2);
    const std::vector<AttrDesc> attrs = {AttrDesc::ofInt("axis", c.axis),
                                         AttrDesc::ofInt("soft_label", 1)};
    const std::vector<OutputSpec> fwdSpecs = {{DType::Float64, c.logits}, {DType::Float64, ls}};
    Tensor softmax = run("softmax_cross_entropy", {logits, label}, fwdSpecs, attrs)[0];
    Tensor dlogits = run("softmax_cross_entropy_grad", {softmax, label, dloss},
                         {{DType::Float64, c.logits}}, attrs)[0];
    expectClose(
        dlogits,
        numericGradient("softmax_cross_entropy", {logits, label}, fwdSpecs, attrs, 1, dloss, 0),
        kFdRtol, kFdAtol);
  }
}

TEST(SoftmaxCrossEntropyGradKernel, BadLabelIsNamed) {
  Tensor softmax(DType::Float32, {2, 3}), dloss(DType::Float32, {2, 1});
  Tensor label = tensorOf(DType::Int32, {2, 1}, {1, 7});
  std::string msg = runError("softmax_cross_entropy_grad", {softmax, label, dloss},
                             {{DType::Float32, {2, 3}}}, {AttrDesc::ofInt("axis", 1)});
  EXPECT_CONTAINS(msg, "label 7 at position 1 is outside [0, 3)");
  EXPECT_CONTAINS(msg, "softmax_cross_entropy_grad -> out0");
  Tensor negative = tensorOf(DType::Int64, {2, 1}, {-1, 0});
  EXPECT_CONTAINS(runError("softmax_cross_entropy_grad", {softmax, negative, dloss},
                           {{DType::Float32, {2, 3}}}, {AttrDesc::ofInt("axis", 1)}),
                  "label -1 at position 0");
  Tensor floatLabel(DType::Float32, {2, 1});
  EXPECT_CONTAINS(runError("softmax_cross_entropy_grad", {softmax, floatLabel, dloss},
                           {{DType::Float32, {2, 3}}}, {AttrDesc::ofInt("axis", 1)}),
                  "label has dtype f32, expected i32 or i64");
  Tensor wideLoss(DType::Float32, {2, 3});
  EXPECT_CONTAINS(runError("softmax_cross_entropy_grad", {softmax, label, wideLoss},
                           {{DType::Float32, {2, 3}}}, {AttrDesc::ofInt("axis", 1)}),
                  "dloss has 6 elements");
}

//===----------------------------------------------------------------------===//
// gather_rows_grad
//===----------------------------------------------------------------------===//

TEST(GatherRowsGradKernel, MatchesFiniteDifferencesWithDuplicatesAndPadding) {
  std::mt19937_64 rng(108);
  const int64_t V = 6, D = 3;
  for (DType it : {DType::Int32, DType::Int64})
    for (int64_t padding : {int64_t(-1), int64_t(2)}) {
      SCOPED_TRACE("padding_idx " + std::to_string(padding));
      Tensor ids = tensorOf(it, {2, 4}, {4, 0, 2, 4, 5, 2, 4, 1}); // repeats 4 and 2
      Tensor table = randomTensor(DType::Float64, {V, D}, rng);
      Tensor dout = randomTensor(DType::Float64, {2, 4, D}, rng);
      const std::vector<AttrDesc> attrs = {AttrDesc::ofInt("padding_idx", padding)};
      Tensor dtable = run("gather_rows_grad", {ids, dout}, {{DType::Float64, {V, D}}}, attrs)[0];
      expectClose(dtable,
                  numericGradient("gather_rows", {ids, table}, {{DType::Float64, {2, 4, D}}}, attrs,
                                  0, dout, 1),
                  kFdRtol, kFdAtol);
      // Row 3 is never looked up; the padding row gets nothing.
      for (int64_t c = 0; c < D; ++c) {
        EXPECT_EQ(elementAt(dtable, 3 * D + c), 0.0);
        if (padding == 2)
          EXPECT_EQ(elementAt(dtable, 2 * D + c), 0.0);
      }
    }
}

TEST(GatherRowsGradKernel, DefaultPaddingAndFloat32) {
  Tensor ids = tensorOf(DType::Int64, {3}, {1, 1, 0});
  Tensor dout = tensorOf(DType::Float32, {3, 2}, {1, 2, 3, 4, 5, 6});
  Tensor dtable = run("gather_rows_grad", {ids, dout}, {{DType::Float32, {3, 2}}}, {})[0];
  expectClose(dtable, {5, 6, 4, 6, 0, 0}, 0, 0);
}

TEST(GatherRowsGradKernel, BadIdIsNamed) {
  Tensor ids = tensorOf(DType::Int64, {2}, {1, 9});
  Tensor dout(DType::Float32, {2, 3});
  std::string msg = runError("gather_rows_grad", {ids, dout}, {{DType::Float32, {5, 3}}}, {});
  EXPECT_CONTAINS(msg, "id 9 at position 1 is outside [0, 5)");
  EXPECT_CONTAINS(msg, "gather_rows_grad -> out0");
  Tensor shortDout(DType::Float32, {2, 2});
  EXPECT_CONTAINS(runError("gather_rows_grad", {ids, shortDout}, {{DType::Float32, {5, 3}}}, {}),
                  "dout has 4 elements");
  EXPECT_CONTAINS(runError("gather_rows_grad", {ids, dout}, {{DType::Float32, {15}}}, {}),
                  "must have rank 2");
}

//===----------------------------------------------------------------------===//
// broadcast
//===----------------------------------------------------------------------===//

struct BroadcastCase {
  Shape x, out;
};

const BroadcastCase kBroadcastCases[] = {
    {{1, 4, 1}, {3, 4, 5}},
    {{3, 1, 5}, {3, 4, 5}},
    {{1, 1, 1}, {2, 3, 4}},
    {{2, 3}, {2, 3}},
    {{1}, {7}},
    {{}, {}},
    {{4, 1}, {4, 0}},
};

TEST(BroadcastKernel, AgainstReferenceForEveryDtype) {
  std::mt19937_64 rng(109);
  for (DType dt : {DType::Float32, DType::Float64, DType::Int64, DType::UInt8, DType::Bool})
    for (const BroadcastCase &c : kBroadcastCases) {
      Tensor x = randomTensor(dt, c.x, rng, 0, 1);
      Tensor out = run("broadcast", {x}, {{dt, c.out}}, {})[0];
      std::vector<double> ref(distc::runtime::shapeNumel(c.out));
      for (int64_t f = 0; f < int64_t(ref.size()); ++f) {
        auto idx = unflatIndex(c.out, f);
        for (size_t d = 0; d < idx.size(); ++d)
          if (c.x[d] == 1)
            idx[d] = 0;
        ref[f] = elementAt(x, flatIndex(c.x, idx));
      }
      expectClose(out, ref, 0, 0);
    }
}

// broadcast is the gradient of a sum reduction that keeps the reduced axes.
TEST(BroadcastKernel, IsTheGradientOfReduceSum) {
  std::mt19937_64 rng(110);
  const Shape shape = {3, 4, 5};
  for (auto axes : {std::vector<int64_t>{0, 2}, std::vector<int64_t>{1}}) {
    const DType dt = DType::Float64;
    Shape kept = shape;
    for (int64_t a : axes)
      kept[a] = 1;
    Tensor x = randomTensor(dt, shape, rng);
    Tensor dout = randomTensor(dt, kept, rng);
    const std::vector<AttrDesc> attrs = {AttrDesc::ofString("op", "sum"),
                                         AttrDesc::ofInts("axes", axes)};
    Tensor dx = run("broadcast", {dout}, {{dt, shape}}, {})[0];
    expectClose(dx, numericGradient("reduce", {x}, {{dt, kept}}, attrs, 0, dout, 0), kFdRtol,
                kFdAtol);
  }
}

TEST(BroadcastKernel, RejectsIncompatibleShapes) {
  Tensor x(DType::Float32, {2, 3});
  EXPECT_CONTAINS(runError("broadcast", {x}, {{DType::Float32, {4, 3}}}, {}),
                  "x [2,3] does not broadcast to out [4,3] in dim 0");
  EXPECT_CONTAINS(runError("broadcast", {x}, {{DType::Float32, {1, 2, 3}}}, {}),
                  "must have equal ranks");
  EXPECT_CONTAINS(runError("broadcast", {x}, {{DType::Float64, {2, 3}}}, {}),
                  "x has dtype f32 but out has f64");
}

//===----------------------------------------------------------------------===//
// slice_grad
//===----------------------------------------------------------------------===//

struct SliceCase {
  std::vector<int64_t> axes, starts, ends;
  Shape out;
};

TEST(SliceGradKernel, MatchesFiniteDifferencesOfSlice) {
  std::mt19937_64 rng(111);
  const Shape shape = {4, 5, 6};
  // Negative indices, clamping past the end, several axes, an empty slice.
  const SliceCase cases[] = {
      {{1}, {1}, {4}, {4, 3, 6}},
      {{0, 2}, {-3, 1}, {100, -1}, {3, 5, 4}},
      {{2, 0}, {-100, 2}, {3, 3}, {1, 5, 3}},
      {{1}, {3}, {2}, {4, 0, 6}},
  };
  for (const SliceCase &c : cases) {
    const std::vector<AttrDesc> attrs = {AttrDesc::ofInts("axes", c.axes),
                                         AttrDesc::ofInts("starts", c.starts),
                                         AttrDesc::ofInts("ends", c.ends)};
    Tensor x = randomTensor(DType::Float64, shape, rng);
    Tensor dout = randomTensor(DType::Float64, c.out, rng);
    Tensor dx = run("slice_grad", {dout}, {{DType::Float64, shape}}, attrs)[0];
    expectClose(dx, numericGradient("slice", {x}, {{DType::Float64, c.out}}, attrs, 0, dout, 0),
                kFdRtol, kFdAtol);
    // slice(slice_grad(dout)) == dout, in any dtype.
    Tensor dout32 = toDtype(dout, DType::Int32);
    Tensor dx32 = run("slice_grad", {dout32}, {{DType::Int32, shape}}, attrs)[0];
    expectClose(run("slice", {dx32}, {{DType::Int32, c.out}}, attrs)[0], valuesOf(dout32), 0, 0);
  }
}

TEST(SliceGradKernel, RejectsDoutThatDisagreesWithTheSlice) {
  Tensor dout(DType::Float32, {4, 2, 6});
  const std::vector<AttrDesc> attrs = {AttrDesc::ofInts("axes", {1}),
                                       AttrDesc::ofInts("starts", {1}),
                                       AttrDesc::ofInts("ends", {4})};
  EXPECT_CONTAINS(runError("slice_grad", {dout}, {{DType::Float32, {4, 5, 6}}}, attrs),
                  "dout has shape [4,2,6], expected [4,3,6]");
  const std::vector<AttrDesc> badAxis = {AttrDesc::ofInts("axes", {3}),
                                         AttrDesc::ofInts("starts", {1}),
                                         AttrDesc::ofInts("ends", {4})};
  EXPECT_CONTAINS(runError("slice_grad", {dout}, {{DType::Float32, {4, 5, 6}}}, badAxis),
                  "slice axis 3 is out of range");
}

} // namespace
