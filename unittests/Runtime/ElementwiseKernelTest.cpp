//===- ElementwiseKernelTest.cpp - fill, cast, scale, binary, unary -------===//

#include "TestArtifacts.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace distc::testing;

namespace {

TEST(FillKernel, EveryDtype) {
  for (DType dt : {DType::Bool, DType::Int8, DType::UInt8, DType::Int16, DType::Int32, DType::Int64,
                   DType::Float16, DType::Float32, DType::Float64}) {
    std::vector<Tensor> out;
    ASSERT_TRUE(runKernel("fill", {}, {{dt, {2, 3}}}, {AttrDesc::ofFloat("value", 3.0)}, out).ok());
    double expected = dt == DType::Bool ? 1.0 : 3.0;
    expectClose(out[0], std::vector<double>(6, expected), 0, 0);
  }
}

TEST(CastKernel, BetweenDtypes) {
  Tensor x = tensorOf(DType::Float32, {5}, {-2.7, 0, 0.5, 3.9, 100});
  std::vector<Tensor> out;
  ASSERT_TRUE(runKernel("cast", {x}, {{DType::Int32, {5}}}, {}, out).ok());
  expectClose(out[0], {-2, 0, 0, 3, 100}, 0, 0);
  ASSERT_TRUE(runKernel("cast", {x}, {{DType::Bool, {5}}}, {}, out).ok());
  expectClose(out[0], {1, 0, 1, 1, 1}, 0, 0);
  ASSERT_TRUE(runKernel("cast", {x}, {{DType::Float16, {5}}}, {}, out).ok());
  expectClose(out[0], {-2.69921875, 0, 0.5, 3.900390625, 100}, 0, 0);
  Tensor big = tensorOf(DType::Int64, {1}, {0});
  big.data<int64_t>()[0] = (int64_t(1) << 53) + 1; // exact through integer paths
  ASSERT_TRUE(runKernel("cast", {big}, {{DType::Int64, {1}}}, {}, out).ok());
  EXPECT_EQ(out[0].data<int64_t>()[0], (int64_t(1) << 53) + 1);
}

TEST(ScaleKernel, BiasBeforeAndAfter) {
  std::mt19937_64 rng(1);
  Tensor x = randomTensor(DType::Float64, {3, 4}, rng);
  for (int after : {0, 1}) {
    std::vector<Tensor> out;
    ASSERT_TRUE(runKernel("scale", {x}, {{DType::Float64, {3, 4}}},
                          {AttrDesc::ofFloat("scale", 2.5), AttrDesc::ofFloat("bias", -1),
                           AttrDesc::ofInt("bias_after_scale", after)},
                          out)
                    .ok());
    std::vector<double> ref;
    for (int i = 0; i < 12; ++i) {
      double v = x.data<double>()[i];
      ref.push_back(after ? v * 2.5 - 1 : (v - 1) * 2.5);
    }
    expectClose(out[0], ref, 1e-15, 0);
  }
  Tensor xi = tensorOf(DType::Int64, {3}, {1, 2, 3});
  std::vector<Tensor> out;
  ASSERT_TRUE(
      runKernel("scale", {xi}, {{DType::Int64, {3}}}, {AttrDesc::ofFloat("scale", 3)}, out).ok());
  expectClose(out[0], {3, 6, 9}, 0, 0);
}

TEST(BinaryKernel, BroadcastingAllOps) {
  std::mt19937_64 rng(2);
  struct Case {
    Shape x, y, out;
  };
  std::vector<Case> cases = {{{2, 3, 4}, {2, 3, 4}, {2, 3, 4}}, {{2, 3, 4}, {1, 3, 1}, {2, 3, 4}},
                             {{2, 1, 4}, {1, 3, 1}, {2, 3, 4}}, {{1, 1}, {5, 7}, {5, 7}},
                             {{4, 1}, {1, 6}, {4, 6}},          {{}, {}, {}}};
  struct Op {
    const char *name;
    double (*f)(double, double);
  } ops[] = {{"add", [](double a, double b) { return a + b; }},
             {"sub", [](double a, double b) { return a - b; }},
             {"mul", [](double a, double b) { return a * b; }},
             {"div", [](double a, double b) { return a / b; }}};
  for (DType dt : {DType::Float32, DType::Float64})
    for (const Case &c : cases)
      for (const Op &op : ops) {
        Tensor x = randomTensor(dt, c.x, rng, 0.5, 2);
        Tensor y = randomTensor(dt, c.y, rng, 0.5, 2);
        std::vector<Tensor> out;
        Status s =
            runKernel("binary", {x, y}, {{dt, c.out}}, {AttrDesc::ofString("op", op.name)}, out);
        ASSERT_TRUE(s.ok()) << s.message();
        expectClose(out[0], broadcastRef(x, y, c.out, op.f), dt == DType::Float32 ? 1e-6 : 1e-15,
                    0);
      }
}

TEST(BinaryKernel, IntegerOpsAndDivisionByZero) {
  Tensor x = tensorOf(DType::Int32, {2, 2}, {7, -7, 9, 4});
  Tensor y = tensorOf(DType::Int32, {1, 2}, {2, 3});
  std::vector<Tensor> out;
  ASSERT_TRUE(
      runKernel("binary", {x, y}, {{DType::Int32, {2, 2}}}, {AttrDesc::ofString("op", "div")}, out)
          .ok());
  expectClose(out[0], {3, -2, 4, 1}, 0, 0);
  Tensor zero = tensorOf(DType::Int32, {1, 2}, {1, 0});
  Status s = runKernel("binary", {x, zero}, {{DType::Int32, {2, 2}}},
                       {AttrDesc::ofString("op", "div")}, out);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("division by zero"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("binary -> out0"), std::string::npos) << s.message();
}

TEST(BinaryKernel, RejectsNonBroadcastableShapes) {
  Tensor x(DType::Float32, {2, 3}), y(DType::Float32, {2, 2});
  std::vector<Tensor> out;
  Status s = runKernel("binary", {x, y}, {{DType::Float32, {2, 3}}},
                       {AttrDesc::ofString("op", "add")}, out);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("do not broadcast"), std::string::npos) << s.message();
}

TEST(UnaryKernel, AllOps) {
  std::mt19937_64 rng(3);
  struct Op {
    const char *name;
    double (*f)(double);
  } ops[] = {
      {"relu", [](double v) { return v > 0 ? v : 0; }},
      {"sigmoid", [](double v) { return 1 / (1 + std::exp(-v)); }},
      {"tanh", [](double v) { return std::tanh(v); }},
      {"gelu", [](double v) { return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0))); }},
      {"gelu_tanh",
       [](double v) {
         return 0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v)));
       }},
      {"square", [](double v) { return v * v; }},
      {"exp", [](double v) { return std::exp(v); }},
      {"log", [](double v) { return std::log(std::abs(v) + 0.1); }},
      {"sqrt", [](double v) { return std::sqrt(std::abs(v)); }},
      {"abs", [](double v) { return std::abs(v); }},
      {"neg", [](double v) { return -v; }},
  };
  for (DType dt : {DType::Float32, DType::Float64})
    for (const Op &op : ops) {
      Tensor x = randomTensor(dt, {3, 5}, rng, -3, 3);
      std::string name = op.name;
      // log and sqrt get positive inputs; the reference above mirrors that.
      if (name == "log" || name == "sqrt")
        for (int i = 0; i < 15; ++i) {
          double v = elementAt(x, i);
          double pos = name == "log" ? std::abs(v) + 0.1 : std::abs(v);
          if (dt == DType::Float32)
            x.data<float>()[i] = float(pos);
          else
            x.data<double>()[i] = pos;
        }
      std::vector<double> ref;
      for (int i = 0; i < 15; ++i) {
        double v = elementAt(x, i);
        ref.push_back(name == "log" ? std::log(v) : name == "sqrt" ? std::sqrt(v) : op.f(v));
      }
      std::vector<Tensor> out;
      Status s = runKernel("unary", {x}, {{dt, {3, 5}}}, {AttrDesc::ofString("op", op.name)}, out);
      ASSERT_TRUE(s.ok()) << s.message();
      SCOPED_TRACE(op.name);
      expectClose(out[0], ref, dt == DType::Float32 ? 2e-6 : 1e-14, 1e-7);
    }
}

} // namespace

namespace {

TEST(ClipKernel, ForwardAndGradientWithInclusiveBounds) {
  const std::vector<AttrDesc> bounds = {AttrDesc::ofFloat("min", -0.5),
                                        AttrDesc::ofFloat("max", 0.75)};
  for (DType dt : {DType::Float32, DType::Float64}) {
    // Below, at and above each bound.
    Tensor x = tensorOf(dt, {2, 3}, {-2.0, -0.5, 0.25, 0.75, 1.0, -0.25});
    std::vector<Tensor> out;
    ASSERT_TRUE(runKernel("clip", {x}, {{dt, {2, 3}}}, bounds, out).ok());
    expectClose(out[0], {-0.5, -0.5, 0.25, 0.75, 0.75, -0.25}, 0, 0);
    // Paddle's clip_grad passes the gradient where min <= x <= max.
    Tensor dout = tensorOf(dt, {2, 3}, {1, 2, 3, 4, 5, 6});
    ASSERT_TRUE(runKernel("clip_grad", {x, dout}, {{dt, {2, 3}}}, bounds, out).ok());
    expectClose(out[0], {0, 2, 3, 4, 0, 6}, 0, 0);
  }
}

TEST(ClipKernel, EmptyBoundsAreAnError) {
  Tensor x = tensorOf(DType::Float32, {2}, {0, 1});
  std::vector<Tensor> out;
  Status s = runKernel("clip", {x}, {{DType::Float32, {2}}},
                       {AttrDesc::ofFloat("min", 1.0), AttrDesc::ofFloat("max", 0.0)}, out);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("min 1.000000 is greater than max 0.000000"), std::string::npos)
      << s.message();
}

} // namespace
