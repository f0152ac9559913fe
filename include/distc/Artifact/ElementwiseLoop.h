//===- ElementwiseLoop.h - Instructions of generated element-wise loops -*- C++ -*-===//
//
// The vocabulary of the `fused_elementwise` kernel: a chain of element-wise
// ops the compiler fused (enable_auto_fusion, fuse_elewise_add_act_ops)
// becomes one loop whose body is a short program over registers, decoded
// once per call and run tile by tile, so every intermediate value stays in
// cache instead of making a round trip through memory per op.
//
// The program is three attributes of the call:
//   code     4 integers per instruction: opcode, operand a, operand b,
//            index of its first immediate (-1 where unused);
//   imms     the immediates (scale's factors, clip's bounds), as floats;
//   outputs  for each output of the call, the register it receives.
// Registers 0..n-1 are the call's n inputs; instruction i writes register
// n + i. An input register holds either the loop's whole shape (the
// shape of out0) or a trailing part of it, broadcast over the leading
// dims (a bias row, a scalar).
//
// Shared by the compiler (which writes programs, one instruction per pd op,
// PdOps.td's `loopOp`) and the runtime (which runs them); each opcode
// computes exactly what the op's own kernel computes, with the same
// per-element formula, so fusing never changes a result.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_ARTIFACT_ELEMENTWISELOOP_H
#define DISTC_ARTIFACT_ELEMENTWISELOOP_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace distc::artifact {

enum class LoopOp : int64_t {
  // a ∘ b
  Add,
  Sub,
  Mul,
  Div,
  Max,
  Min,
  // f(a)
  Relu,
  Sigmoid,
  Tanh,
  Gelu,
  GeluTanh,
  Square,
  Sqrt,
  Exp,
  Log,
  Abs,
  Neg,
  // f(a) with immediates
  Scale,
  Clip,
  // the gradient of f at a (f's output or input, as the unary_grad kernel
  // reads it) times b, the output gradient
  ReluGrad,
  SigmoidGrad,
  TanhGrad,
  SqrtGrad,
  GeluGrad,
  GeluTanhGrad,
  SquareGrad,
  ClipGrad,
};

struct LoopOpInfo {
  LoopOp op;
  /// The name the compiler's op table (PdOps.td `loopOp`) uses.
  const char *name;
  /// Register operands (1 or 2) and immediates it reads.
  int8_t operands;
  int8_t immediates;
  /// What it computes, for docs/kernels.md and distc-dump.
  const char *meaning;
};

/// Every opcode, in enum order (kLoopOps[int(op)].op == op).
inline constexpr LoopOpInfo kLoopOps[] = {
    {LoopOp::Add, "add", 2, 0, "a + b"},
    {LoopOp::Sub, "sub", 2, 0, "a − b"},
    {LoopOp::Mul, "mul", 2, 0, "a · b"},
    {LoopOp::Div, "div", 2, 0, "a / b"},
    {LoopOp::Max, "max", 2, 0, "max(a, b)"},
    {LoopOp::Min, "min", 2, 0, "min(a, b)"},
    {LoopOp::Relu, "relu", 1, 0, "max(a, 0)"},
    {LoopOp::Sigmoid, "sigmoid", 1, 0, "1 / (1 + exp(−a))"},
    {LoopOp::Tanh, "tanh", 1, 0, "tanh(a)"},
    {LoopOp::Gelu, "gelu", 1, 0, "a·Φ(a)"},
    {LoopOp::GeluTanh, "gelu_tanh", 1, 0, "GELU's tanh approximation"},
    {LoopOp::Square, "square", 1, 0, "a·a"},
    {LoopOp::Sqrt, "sqrt", 1, 0, "sqrt(a)"},
    {LoopOp::Exp, "exp", 1, 0, "exp(a)"},
    {LoopOp::Log, "log", 1, 0, "log(a)"},
    {LoopOp::Abs, "abs", 1, 0, "|a|"},
    {LoopOp::Neg, "neg", 1, 0, "−a"},
    {LoopOp::Scale, "scale", 1, 3,
     "a·s + c if k else (a + c)·s, immediates s, c, k (scale, bias, bias_after_scale)"},
    {LoopOp::Clip, "clip", 1, 2, "a limited to [lo, hi], immediates lo, hi"},
    {LoopOp::ReluGrad, "relu_grad", 2, 0, "b where a > 0, else 0 (a = relu's output)"},
    {LoopOp::SigmoidGrad, "sigmoid_grad", 2, 0, "b·a·(1 − a) (a = sigmoid's output)"},
    {LoopOp::TanhGrad, "tanh_grad", 2, 0, "b·(1 − a²) (a = tanh's output)"},
    {LoopOp::SqrtGrad, "sqrt_grad", 2, 0, "b / (2a) (a = sqrt's output)"},
    {LoopOp::GeluGrad, "gelu_grad", 2, 0, "b·(Φ(a) + a·φ(a)) (a = gelu's input)"},
    {LoopOp::GeluTanhGrad, "gelu_tanh_grad", 2, 0,
     "b times the derivative of GELU's tanh approximation at a (its input)"},
    {LoopOp::SquareGrad, "square_grad", 2, 0, "2·a·b (a = square's input)"},
    {LoopOp::ClipGrad, "clip_grad", 2, 2,
     "b where lo ≤ a ≤ hi, else 0 (a = clip's input), immediates lo, hi"},
};

inline constexpr int kNumLoopOps = int(sizeof(kLoopOps) / sizeof(kLoopOps[0]));

constexpr bool loopOpsInEnumOrder() {
  for (int i = 0; i < kNumLoopOps; ++i)
    if (int64_t(kLoopOps[i].op) != i)
      return false;
  return true;
}
static_assert(loopOpsInEnumOrder(), "kLoopOps must list the opcodes in enum order");

/// Integers per instruction in `code`.
inline constexpr int kLoopInstructionWidth = 4;

/// The opcode with this encoding, or null.
inline const LoopOpInfo *loopOpInfo(int64_t code) {
  return code >= 0 && code < kNumLoopOps ? &kLoopOps[code] : nullptr;
}

/// The opcode named `name`, or null.
inline const LoopOpInfo *findLoopOp(std::string_view name) {
  for (const LoopOpInfo &info : kLoopOps)
    if (name == info.name)
      return &info;
  return nullptr;
}

/// Why `code` (`size` integers) is no valid program over `numInputs`
/// input registers and `numImms` immediates whose outputs are the
/// `numOutputs` registers `outputs`, or "" when it is: every opcode known,
/// every operand register written before it is read and every unused one
/// -1, every immediate inside `imms`, and every output an instruction's
/// register. The compiler's verifier and the runtime's kernel both check
/// this, with the same messages.
inline std::string loopProgramError(const int64_t *code, size_t size, int64_t numInputs,
                                    size_t numImms, const int64_t *outputs, size_t numOutputs) {
  if (size == 0 || size % kLoopInstructionWidth != 0)
    return "code has " + std::to_string(size) + " integers; it must be a nonzero multiple of " +
           std::to_string(kLoopInstructionWidth);
  const int64_t numInstructions = int64_t(size / kLoopInstructionWidth);
  for (int64_t i = 0; i < numInstructions; ++i) {
    const int64_t *instruction = code + i * kLoopInstructionWidth;
    const LoopOpInfo *info = loopOpInfo(instruction[0]);
    const std::string what = "instruction " + std::to_string(i);
    if (!info)
      return what + " has unknown opcode " + std::to_string(instruction[0]);
    for (int k = 0; k < 2; ++k) {
      const int64_t reg = instruction[1 + k];
      if (k < info->operands ? reg < 0 || reg >= numInputs + i : reg != -1)
        return what + " (" + info->name + ") operand " + std::to_string(k) + " is register " +
               std::to_string(reg) + "; " +
               (k < info->operands ? "it must be defined before it"
                                   : "an unused operand must be -1");
    }
    const int64_t imm = instruction[3];
    if (info->immediates ? imm < 0 || size_t(imm) + size_t(info->immediates) > numImms : imm != -1)
      return what + " (" + info->name + ") reads " + std::to_string(info->immediates) +
             " immediates at " + std::to_string(imm) + " of " + std::to_string(numImms);
  }
  for (size_t o = 0; o < numOutputs; ++o)
    if (outputs[o] < numInputs || outputs[o] >= numInputs + numInstructions)
      return "output register " + std::to_string(outputs[o]) + " is no instruction's";
  return "";
}

} // namespace distc::artifact

#endif // DISTC_ARTIFACT_ELEMENTWISELOOP_H
