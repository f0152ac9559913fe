//===- FusedElementwiseKernelTest.cpp - generated element-wise loops ------===//
//
// fused_elementwise against the kernels of the ops its instructions stand
// for: each opcode alone, and a chain with a broadcast bias row, give the
// same bits as the unfused kernels (both dtypes, sizes that end inside a
// tile and that split over threads); several outputs, an output written
// over an input's storage, and the errors of malformed programs.
//
//===----------------------------------------------------------------------===//

#include "TestArtifacts.h"

#include "distc/Artifact/ElementwiseLoop.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace distc::testing;
using distc::artifact::LoopOp;

namespace {

/// One instruction: opcode, registers a and b, first immediate (-1: none).
std::vector<int64_t> instr(LoopOp op, int64_t a, int64_t b = -1, int64_t imm = -1) {
  return {int64_t(op), a, b, imm};
}

std::vector<int64_t> concat(std::initializer_list<std::vector<int64_t>> parts) {
  std::vector<int64_t> out;
  for (const auto &p : parts)
    out.insert(out.end(), p.begin(), p.end());
  return out;
}

std::vector<AttrDesc> program(std::vector<int64_t> code, std::vector<double> imms,
                              std::vector<int64_t> outputs) {
  return {AttrDesc::ofInts("code", std::move(code)), AttrDesc::ofFloats("imms", std::move(imms)),
          AttrDesc::ofInts("outputs", std::move(outputs))};
}

/// The unfused kernel call each opcode stands for: kernel, attributes and
/// immediates. Operands: x (and y) in [-2, 2], positive where needed.
struct Reference {
  LoopOp op;
  std::string kernel;
  std::vector<AttrDesc> attrs;
  std::vector<double> imms;
};

std::vector<Reference> references() {
  auto binary = [](LoopOp op, const char *name) {
    return Reference{op, "binary", {AttrDesc::ofString("op", name)}, {}};
  };
  auto unary = [](LoopOp op, const char *name) {
    return Reference{op, "unary", {AttrDesc::ofString("op", name)}, {}};
  };
  auto grad = [](LoopOp op, const char *name) {
    return Reference{op, "unary_grad", {AttrDesc::ofString("op", name)}, {}};
  };
  return {binary(LoopOp::Add, "add"),
          binary(LoopOp::Sub, "sub"),
          binary(LoopOp::Mul, "mul"),
          binary(LoopOp::Div, "div"),
          binary(LoopOp::Max, "max"),
          binary(LoopOp::Min, "min"),
          unary(LoopOp::Relu, "relu"),
          unary(LoopOp::Sigmoid, "sigmoid"),
          unary(LoopOp::Tanh, "tanh"),
          unary(LoopOp::Gelu, "gelu"),
          unary(LoopOp::GeluTanh, "gelu_tanh"),
          unary(LoopOp::Square, "square"),
          unary(LoopOp::Sqrt, "sqrt"),
          unary(LoopOp::Exp, "exp"),
          unary(LoopOp::Log, "log"),
          unary(LoopOp::Abs, "abs"),
          unary(LoopOp::Neg, "neg"),
          {LoopOp::Scale,
           "scale",
           {AttrDesc::ofFloat("scale", 0.7), AttrDesc::ofFloat("bias", -0.25),
            AttrDesc::ofInt("bias_after_scale", 1)},
           {0.7, -0.25, 1}},
          {LoopOp::Scale,
           "scale",
           {AttrDesc::ofFloat("scale", 0.7), AttrDesc::ofFloat("bias", -0.25),
            AttrDesc::ofInt("bias_after_scale", 0)},
           {0.7, -0.25, 0}},
          {LoopOp::Clip,
           "clip",
           {AttrDesc::ofFloat("min", -0.5), AttrDesc::ofFloat("max", 0.8)},
           {-0.5, 0.8}},
          grad(LoopOp::ReluGrad, "relu"),
          grad(LoopOp::SigmoidGrad, "sigmoid"),
          grad(LoopOp::TanhGrad, "tanh"),
          grad(LoopOp::SqrtGrad, "sqrt"),
          grad(LoopOp::GeluGrad, "gelu"),
          grad(LoopOp::GeluTanhGrad, "gelu_tanh"),
          grad(LoopOp::SquareGrad, "square"),
          {LoopOp::ClipGrad,
           "clip_grad",
           {AttrDesc::ofFloat("min", -0.5), AttrDesc::ofFloat("max", 0.8)},
           {-0.5, 0.8}}};
}

TEST(FusedElementwiseKernel, EveryOpcodeMatchesItsKernel) {
  std::mt19937_64 rng(7);
  for (DType dtype : {DType::Float32, DType::Float64})
    for (int64_t n : {int64_t(5), int64_t(300), int64_t(70000)})
      for (const Reference &r : references()) {
        const distc::artifact::LoopOpInfo &info = distc::artifact::kLoopOps[int64_t(r.op)];
        const bool positive = r.op == LoopOp::Sqrt || r.op == LoopOp::Log ||
                              r.op == LoopOp::SqrtGrad || r.op == LoopOp::Div;
        std::vector<Tensor> inputs = {randomTensor(dtype, {n}, rng, positive ? 0.1 : -2, 2)};
        if (info.operands == 2)
          inputs.push_back(randomTensor(dtype, {n}, rng, positive ? 0.1 : -2, 2));
        const std::string what = std::string(info.name) + " " + std::to_string(n) +
                                 (dtype == DType::Float32 ? " f32" : " f64");
        Tensor want = run1(r.kernel, inputs, {dtype, {n}}, r.attrs);
        int64_t b = info.operands == 2 ? 1 : -1;
        Tensor got = run1(
            "fused_elementwise", inputs, {dtype, {n}},
            program(instr(r.op, 0, b, r.imms.empty() ? -1 : 0), r.imms, {int64_t(inputs.size())}));
        expectSameBits(got, want, what);
      }
}

TEST(FusedElementwiseKernel, ABiasChainMatchesTheUnfusedKernels) {
  // relu(x + b) * 2 + 1 with b a row broadcast over the batch, two
  // outputs (the sum and the result).
  std::mt19937_64 rng(3);
  for (DType dtype : {DType::Float32, DType::Float64})
    for (Shape shape : {Shape{3, 5}, Shape{257, 33}, Shape{2, 3, 7}}) {
      Shape row = {shape.back()};
      Tensor x = randomTensor(dtype, shape, rng), b = randomTensor(dtype, row, rng);
      Shape bAligned(shape.size(), 1);
      bAligned.back() = shape.back();
      Tensor sum = run1("binary", {x, Tensor::view(b, bAligned)}, {dtype, shape},
                        {AttrDesc::ofString("op", "add")});
      Tensor act = run1("unary", {sum}, {dtype, shape}, {AttrDesc::ofString("op", "relu")});
      Tensor out = run1("scale", {act}, {dtype, shape},
                        {AttrDesc::ofFloat("scale", 2), AttrDesc::ofFloat("bias", 1)});
      std::vector<Tensor> got;
      Status s = runKernel("fused_elementwise", {x, b}, {{dtype, shape}, {dtype, shape}},
                           program(concat({instr(LoopOp::Add, 0, 1), instr(LoopOp::Relu, 2),
                                           instr(LoopOp::Scale, 3, -1, 0)}),
                                   {2, 1, 1}, {4, 2}),
                           got);
      ASSERT_TRUE(s.ok()) << s.message();
      expectSameBits(got[0], out, "result");
      expectSameBits(got[1], sum, "sum");
    }
}

TEST(FusedElementwiseKernel, AnOutputOverAnInputKeepsTheInputForLaterInstructions) {
  // out0 = relu(x + b) written over x's own buffer (as the compiler plans
  // element-wise results in place), out1 = 2x + 1 computed after it from
  // the same x: the loop must not write out0 into x while a later
  // instruction of the tile still reads x. Large enough for several tiles
  // and threads; out1 is written straight into its own buffer.
  std::mt19937_64 rng(11);
  const Shape shape = {300, 130}, row = {130};
  ArtifactBuilder builder;
  int x = builder.buffer("x", DType::Float32, shape, BufferKind::Feed);
  int b = builder.buffer("b", DType::Float32, row, BufferKind::Feed);
  int y = builder.buffer("y", DType::Float32, shape);
  auto &p = builder.program("predict");
  p.feeds = {{"x", x}, {"b", b}};
  p.fetches = {{"x", x}, {"y", y}};
  builder.call(p, "fused_elementwise", {x, b}, {x, y},
               program(concat({instr(LoopOp::Add, 0, 1), instr(LoopOp::Relu, 2),
                               instr(LoopOp::Scale, 0, -1, 0)}),
                       {2, 1, 1}, {3, 4}));
  auto session = builder.session();
  ASSERT_TRUE(session);
  TensorMap feeds = {{"x", randomTensor(DType::Float32, shape, rng)},
                     {"b", randomTensor(DType::Float32, row, rng)}};
  Shape aligned = {1, 130};
  Tensor sum = run1("binary", {feeds["x"], Tensor::view(feeds["b"], aligned)},
                    {DType::Float32, shape}, {AttrDesc::ofString("op", "add")});
  Tensor want0 = run1("unary", {sum}, {DType::Float32, shape}, {AttrDesc::ofString("op", "relu")});
  Tensor want1 = run1("scale", {feeds["x"]}, {DType::Float32, shape},
                      {AttrDesc::ofFloat("scale", 2), AttrDesc::ofFloat("bias", 1)});
  for (int threads : {1, 3}) {
    KernelThreads scope(threads);
    TensorMap run = {{"x", randomTensor(DType::Float32, shape, rng)}, {"b", feeds["b"]}};
    std::memcpy(run["x"].data<float>(), feeds["x"].data<float>(), 300 * 130 * sizeof(float));
    TensorMap fetches;
    Status s = session->run("predict", run, fetches);
    ASSERT_TRUE(s.ok()) << s.message();
    expectSameBits(fetches["x"], want0, "relu(x + b) over x");
    expectSameBits(fetches["y"], want1, "2x + 1");
  }
}

TEST(FusedElementwiseKernel, AScalarInputIsBroadcast) {
  Tensor x = tensorOf(DType::Float32, {2, 2}, {1, 2, 3, 4});
  Tensor s = tensorOf(DType::Float32, {1}, {10});
  Tensor got = run1("fused_elementwise", {x, s}, {DType::Float32, {2, 2}},
                    program(instr(LoopOp::Mul, 0, 1), {}, {2}));
  expectClose(got, {10, 20, 30, 40}, 0, 0);
}

TEST(FusedElementwiseKernel, MalformedProgramsAreRefused) {
  Tensor x = tensorOf(DType::Float32, {4}, {1, 2, 3, 4});
  Tensor row = tensorOf(DType::Float32, {3}, {1, 2, 3});
  auto error = [&](const std::vector<Tensor> &inputs, std::vector<AttrDesc> attrs) {
    std::vector<Tensor> out;
    Status s = runKernel("fused_elementwise", inputs, {{DType::Float32, {4}}}, attrs, out);
    EXPECT_FALSE(s.ok());
    return s.message();
  };
  EXPECT_CONTAINS(error({x}, program({6, 0, -1}, {}, {1})), "a nonzero multiple of 4");
  EXPECT_CONTAINS(error({x}, program({99, 0, -1, -1}, {}, {1})), "unknown opcode 99");
  EXPECT_CONTAINS(error({x}, program(instr(LoopOp::Relu, 1), {}, {1})),
                  "instruction 0 (relu) operand 0 is register 1; it must be defined before it");
  EXPECT_CONTAINS(error({x}, program(instr(LoopOp::Scale, 0, -1, 0), {1}, {1})),
                  "instruction 0 (scale) reads 3 immediates at 0 of 1");
  EXPECT_CONTAINS(error({x}, program(instr(LoopOp::Relu, 0), {}, {0})),
                  "output register 0 is no instruction's");
  EXPECT_CONTAINS(error({x, row}, program(instr(LoopOp::Add, 0, 1), {}, {2})),
                  "nor a trailing part of it");
}

} // namespace
