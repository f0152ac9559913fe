//===- FusedElementwise.cpp - generated element-wise loops ----------------===//
//
// fused_elementwise runs the program the compiler generated for a group of
// element-wise ops (distc/Artifact/ElementwiseLoop.h). The loop walks the
// output in tiles of kTile elements: each instruction computes its register
// for the tile from registers already computed, then the output registers
// are stored. A tile's registers stay in L1, so a group of n ops reads its
// inputs and writes its outputs once, where n separate kernels would make n
// round trips through memory. An instruction whose register is an output
// writes the output's memory directly, unless that memory is also an input
// (an in-place loop), and the tiles live in scratch kept from call to call.
//
// Each opcode applies the same per-element formula as the kernel of the op
// it stands for (ActivationMath.h, the `unary`, `binary`, `scale` and
// `clip` kernels), so a fused program computes the same values.
//
//===----------------------------------------------------------------------===//

#include "ActivationMath.h"
#include "KernelUtils.h"
#include "Parallel.h"
#include "Registration.h"
#include "VectorMath.h"

#include "distc/Artifact/ElementwiseLoop.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

namespace distc::runtime::kernels {
namespace {

using artifact::LoopOp;

/// Elements per tile: the registers of a long program (a few dozen) still
/// fit in L1 and L2 beside the inputs.
constexpr int64_t kTile = 256;

struct Instruction {
  LoopOp op;
  int64_t a, b, imm;
};

/// An input of the loop: its data and its period (its element count: the
/// loop's for an input of the loop's shape, fewer for a trailing part of it
/// that repeats over the leading dims).
template <typename T> struct LoopInput {
  const T *data;
  int64_t period;
};

template <typename T> DISTC_ALWAYS_INLINE T expOf(T v) {
  if constexpr (std::is_same_v<T, float>)
    return vmath::exp(v);
  else
    return std::exp(v);
}

/// dst[0, n) = the instruction over its operands' registers. Inlined into
/// the vectorized() instances that call it (KernelUtils.h).
template <typename T>
DISTC_ALWAYS_INLINE void runInstruction(const Instruction &in, const T *a, const T *b,
                                        const double *imm, T *dst, int64_t n, T geluK) {
  switch (in.op) {
  case LoopOp::Add:
    return mapElements(a, b, dst, n, [](T x, T y) { return x + y; });
  case LoopOp::Sub:
    return mapElements(a, b, dst, n, [](T x, T y) { return x - y; });
  case LoopOp::Mul:
    return mapElements(a, b, dst, n, [](T x, T y) { return x * y; });
  case LoopOp::Div:
    return mapElements(a, b, dst, n, [](T x, T y) { return x / y; });
  case LoopOp::Max:
    return mapElements(a, b, dst, n, [](T x, T y) { return x < y ? y : x; });
  case LoopOp::Min:
    return mapElements(a, b, dst, n, [](T x, T y) { return y < x ? y : x; });
  case LoopOp::Relu:
    return mapElements(a, dst, n, [](T v) { return act::relu(v); });
  case LoopOp::Sigmoid:
    if constexpr (std::is_same_v<T, float>)
      return mapElements(a, dst, n, [](T v) { return T(1) / (T(1) + expOf(-v)); });
    else
      return mapScalar(a, dst, n, [](T v) { return T(1) / (T(1) + expOf(-v)); });
  case LoopOp::Tanh:
    return mapScalar(a, dst, n, [](T v) { return std::tanh(v); });
  case LoopOp::Gelu:
    if constexpr (std::is_same_v<T, float>)
      return mapElements(a, dst, n, [](T v) { return act::gelu(v); });
    else
      return mapScalar(a, dst, n, [](T v) { return act::gelu(v); });
  case LoopOp::GeluTanh:
    if constexpr (std::is_same_v<T, float>)
      return mapElements(a, dst, n, [geluK](T v) { return act::geluTanh(v, geluK); });
    else
      return mapScalar(a, dst, n, [geluK](T v) { return act::geluTanh(v, geluK); });
  case LoopOp::Square:
    return mapElements(a, dst, n, [](T v) { return v * v; });
  case LoopOp::Sqrt:
    return mapElements(a, dst, n, [](T v) { return std::sqrt(v); });
  case LoopOp::Exp:
    if constexpr (std::is_same_v<T, float>)
      return mapElements(a, dst, n, [](T v) { return expOf(v); });
    else
      return mapScalar(a, dst, n, [](T v) { return expOf(v); });
  case LoopOp::Log:
    return mapScalar(a, dst, n, [](T v) { return std::log(v); });
  case LoopOp::Abs:
    return mapElements(a, dst, n, [](T v) { return std::abs(v); });
  case LoopOp::Neg:
    return mapElements(a, dst, n, [](T v) { return -v; });
  case LoopOp::Scale: {
    // As the scale kernel: the factors converted to T first.
    const T s = T(imm[0]), c = T(imm[1]);
    if (imm[2] != 0)
      return mapElements(a, dst, n, [s, c](T v) { return v * s + c; });
    return mapElements(a, dst, n, [s, c](T v) { return (v + c) * s; });
  }
  case LoopOp::Clip: {
    const T lo = T(imm[0]), hi = T(imm[1]);
    return mapElements(a, dst, n, [lo, hi](T v) { return v < lo ? lo : (v > hi ? hi : v); });
  }
  case LoopOp::ReluGrad:
    return mapElements(a, b, dst, n, [](T out, T g) { return act::reluGrad(out, g); });
  case LoopOp::SigmoidGrad:
    return mapElements(a, b, dst, n, [](T out, T g) { return g * out * (T(1) - out); });
  case LoopOp::TanhGrad:
    return mapElements(a, b, dst, n, [](T out, T g) { return g * (T(1) - out * out); });
  case LoopOp::SqrtGrad:
    return mapElements(a, b, dst, n, [](T out, T g) { return g / (T(2) * out); });
  case LoopOp::GeluGrad:
    if constexpr (std::is_same_v<T, float>)
      return mapElements(a, b, dst, n, [](T x, T g) { return act::geluGrad(x, g); });
    else
      return mapScalar(a, b, dst, n, [](T x, T g) { return act::geluGrad(x, g); });
  case LoopOp::GeluTanhGrad:
    if constexpr (std::is_same_v<T, float>)
      return mapElements(a, b, dst, n,
                         [geluK](T x, T g) { return act::geluTanhGrad(x, g, geluK); });
    else
      return mapScalar(a, b, dst, n, [geluK](T x, T g) { return act::geluTanhGrad(x, g, geluK); });
  case LoopOp::SquareGrad:
    return mapElements(a, b, dst, n, [](T x, T g) { return T(2) * x * g; });
  case LoopOp::ClipGrad: {
    const T lo = T(imm[0]), hi = T(imm[1]);
    return mapElements(a, b, dst, n, [lo, hi](T v, T g) { return v >= lo && v <= hi ? g : T(0); });
  }
  }
}

/// Whether the op's own kernel computes `op` in T outside vectorized(), as
/// a plain loop of C library calls (KernelUtils.h's mapScalar): the loop
/// does the same, since the AVX2 instance may contract a·b + c into one
/// FMA and round differently from the op's kernel.
template <typename T> bool runsScalar(LoopOp op) {
  switch (op) {
  case LoopOp::Tanh:
  case LoopOp::Log:
    return true;
  case LoopOp::Sigmoid:
  case LoopOp::Exp:
  case LoopOp::Gelu:
  case LoopOp::GeluTanh:
  case LoopOp::GeluGrad:
  case LoopOp::GeluTanhGrad:
    return !std::is_same_v<T, float>;
  default:
    return false;
  }
}

/// Runs the program over elements [begin, end) of the loop. `scratch`
/// holds a tile per register; `regs` the registers' current pointers;
/// `inPlaceOutput[r]` the output register r writes directly, or -1.
template <typename T>
void runTiles(const std::vector<Instruction> &program, const std::vector<double> &imms,
              const std::vector<LoopInput<T>> &inputs, const std::vector<int64_t> &outputRegs,
              const std::vector<T *> &outputs, const std::vector<int64_t> &inPlaceOutput,
              int64_t total, int64_t begin, int64_t end, T *scratch, const T **regs) {
  const int64_t numInputs = int64_t(inputs.size());
  const T geluK = act::geluTanhK<T>();
  for (int64_t t = begin; t < end; t += kTile) {
    const int64_t n = std::min(kTile, end - t);
    for (int64_t i = 0; i < numInputs; ++i) {
      const LoopInput<T> &input = inputs[i];
      const int64_t at = input.period == total ? t : t % input.period;
      if (at + n <= input.period) {
        regs[i] = input.data + at; // read in place
        continue;
      }
      // A trailing part of the loop's shape that wraps within the tile:
      // element j of the loop reads element j mod period.
      T *tile = scratch + i * kTile;
      int64_t k = at;
      for (int64_t j = 0; j < n; ++j) {
        tile[j] = input.data[k];
        if (++k == input.period)
          k = 0;
      }
      regs[i] = tile;
    }
    for (size_t p = 0; p < program.size(); ++p) {
      const Instruction &in = program[p];
      const int64_t reg = numInputs + int64_t(p);
      T *dst = inPlaceOutput[reg] >= 0 ? outputs[inPlaceOutput[reg]] + t : scratch + reg * kTile;
      const T *a = regs[in.a], *b = in.b >= 0 ? regs[in.b] : nullptr;
      const double *imm = in.imm >= 0 ? imms.data() + in.imm : nullptr;
      if (runsScalar<T>(in.op))
        runInstruction<T>(in, a, b, imm, dst, n, geluK);
      else
        vectorized(
            [&in, a, b, imm, dst, n, geluK] { runInstruction<T>(in, a, b, imm, dst, n, geluK); });
      regs[reg] = dst;
    }
    for (size_t o = 0; o < outputs.size(); ++o)
      if (inPlaceOutput[outputRegs[o]] != int64_t(o))
        std::memcpy(outputs[o] + t, regs[outputRegs[o]], size_t(n) * sizeof(T));
  }
}

/// The program of `ctx`, checked against its operands.
std::vector<Instruction> decodeProgram(const KernelContext &ctx, const std::vector<int64_t> &code,
                                       size_t numImms, const std::vector<int64_t> &outputRegs) {
  const std::string error = artifact::loopProgramError(
      code.data(), code.size(), ctx.numInputs(), numImms, outputRegs.data(), outputRegs.size());
  if (!error.empty())
    ctx.fail(error);
  if (int64_t(outputRegs.size()) != ctx.numOutputs())
    ctx.fail(std::to_string(outputRegs.size()) + " output registers for " +
             std::to_string(ctx.numOutputs()) + " outputs");
  std::vector<Instruction> program;
  for (size_t i = 0; i < code.size(); i += artifact::kLoopInstructionWidth)
    program.push_back({artifact::loopOpInfo(code[i])->op, code[i + 1], code[i + 2], code[i + 3]});
  return program;
}

/// The period of input `x` in a loop over `shape`: its element count when
/// it is `shape`, or a trailing part of it after leading 1s.
int64_t periodOf(const KernelContext &ctx, const Tensor &x, int i, const Tensor &out) {
  if (x.numel() == out.numel())
    return out.numel();
  if (x.numel() == 1)
    return 1;
  std::vector<int64_t> dims(x.shape().begin(), x.shape().end());
  while (!dims.empty() && dims.front() == 1)
    dims.erase(dims.begin());
  const auto &loop = out.shape();
  bool trailing = dims.size() <= loop.size() &&
                  std::equal(dims.begin(), dims.end(), loop.end() - int64_t(dims.size()));
  if (!trailing)
    ctx.fail("input " + std::to_string(i) + " " + formatShape(x.shape()) +
             " is neither the loop's shape " + formatShape(out.shape()) +
             " nor a trailing part of it");
  return x.numel();
}

void fusedElementwiseKernel(KernelContext &ctx) {
  const std::vector<int64_t> code = ctx.intsAttr("code");
  const std::vector<double> imms = ctx.floatsAttr("imms");
  const std::vector<int64_t> outputRegs = ctx.intsAttr("outputs");
  const std::vector<Instruction> program = decodeProgram(ctx, code, imms.size(), outputRegs);
  const Tensor &first = ctx.output(0);
  const int64_t total = first.numel();
  for (int o = 0; o < ctx.numOutputs(); ++o) {
    const std::string name = "out" + std::to_string(o);
    expectSameDtype(ctx, ctx.output(o), first, name.c_str(), "out0");
    expectNumel(ctx, ctx.output(o), total, name.c_str());
  }
  std::vector<int64_t> periods;
  for (int i = 0; i < ctx.numInputs(); ++i) {
    const std::string name = "x" + std::to_string(i);
    expectSameDtype(ctx, ctx.input(i), first, name.c_str(), "out0");
    periods.push_back(periodOf(ctx, ctx.input(i), i, first));
  }
  dispatchFloat(ctx, first.dtype(), [&](auto tag) {
    using T = decltype(tag);
    std::vector<LoopInput<T>> inputs;
    for (int i = 0; i < ctx.numInputs(); ++i)
      inputs.push_back({ctx.input(i).template data<T>(), periods[i]});
    std::vector<T *> outputs;
    for (int o = 0; o < ctx.numOutputs(); ++o)
      outputs.push_back(ctx.output(o).template data<T>());
    const size_t numRegs = inputs.size() + program.size();
    // An instruction writes its output's memory directly unless an input
    // overlaps it (a later instruction of the tile may still read that
    // input there) or an earlier output already took the register.
    std::vector<int64_t> inPlaceOutput(numRegs, -1);
    for (size_t o = 0; o < outputs.size(); ++o) {
      const int64_t reg = outputRegs[o];
      const T *begin = outputs[o], *end = outputs[o] + total;
      bool overlaps = std::any_of(inputs.begin(), inputs.end(), [&](const LoopInput<T> &in) {
        return in.data < end && begin < in.data + in.period;
      });
      if (reg >= int64_t(inputs.size()) && !overlaps && inPlaceOutput[reg] < 0)
        inPlaceOutput[reg] = int64_t(o);
    }
    // Pieces of whole tiles (every tile but the last starts at a multiple
    // of kTile), their scratch taken before the threads start.
    const int64_t tiles = (total + kTile - 1) / kTile;
    const int64_t grain = std::max<int64_t>(1, kCostlyGrain / kTile);
    const int64_t pieces = std::clamp<int64_t>(tiles / grain, 1, 2 * int64_t(kernelThreads()));
    const int64_t pieceSize = int64_t(numRegs) * kTile;
    struct Tiles {};
    T *scratch = scratchBuffer<T, Tiles>(size_t(pieces * pieceSize));
    const T **regs = scratchBuffer<const T *, Tiles>(size_t(pieces) * numRegs);
    parallelFor(pieces, 1, [&](int64_t begin, int64_t end) {
      for (int64_t p = begin; p < end; ++p)
        runTiles<T>(program, imms, inputs, outputRegs, outputs, inPlaceOutput, total,
                    std::min(total, p * tiles / pieces * kTile),
                    std::min(total, (p + 1) * tiles / pieces * kTile), scratch + p * pieceSize,
                    regs + p * numRegs);
    });
  });
}

} // namespace

void registerFusedElementwiseKernels(KernelRegistry &r) {
  r.add("fused_elementwise", fusedElementwiseKernel);
}

} // namespace distc::runtime::kernels
