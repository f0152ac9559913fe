//===- NormRules.cpp - batch_norm, affine_channel, matmul v1, arg_max -----===//
//
// Shape and dtype inference of the ops of PdNormOps.td, following Paddle's
// InferShape of each (batch_norm_op.cc, affine_channel_op.cc, matmul_op.cc,
// arg_min_max_op_base.h): what Paddle would refuse is refused here with
// the slot or attribute named, and what distc does not support (oneDNN
// fusion attributes, fuse_with_relu) is named as such.
//
//===----------------------------------------------------------------------===//

#include "Inference/InferContext.h"

using namespace mlir;

namespace distc::pd::infer {

/// The channel dim of `x` under data_layout `layout`: 1 for NCHW (and
/// AnyLayout, which Paddle's affine_channel reads as NCHW), the last for
/// NHWC; -1 (after an error) for anything else.
static int64_t channelDim(InferContext &c, RankedTensorType x, llvm::StringRef layout,
                          bool allowAny) {
  if (layout == "NCHW" || (allowAny && layout == "AnyLayout"))
    return 1;
  if (layout == "NHWC")
    return x.getRank() - 1;
  c.error() << "attribute 'data_layout' = \"" << layout << "\" must be \"NCHW\" or \"NHWC\"";
  return -1;
}

/// Checks that per-channel input slot `slot` (named `name`) is 1-D of size
/// `channels` with X's element type.
static LogicalResult requireChannelVector(InferContext &c, unsigned slot, llvm::StringRef name,
                                          RankedTensorType x, int64_t channels) {
  RankedTensorType t = c.input(slot);
  if (t.getRank() != 1 || !mergeEqualDim(t.getDimSize(0), channels))
    return c.error() << "input slot '" << name << "' " << t << " must be 1-D of size "
                     << (ShapedType::isDynamic(channels) ? -1 : channels)
                     << " (the channels of input slot 'X' " << x << ")";
  if (t.getElementType() != x.getElementType())
    return c.error() << "input slot '" << name << "' " << t
                     << " must have the element type of input slot 'X' " << x;
  return success();
}

/// Y is like X; the statistics outputs are [C]; ReserveSpace (cuDNN's
/// workspace, unused on the CPU) is [-1] of uint8, as Paddle's
/// BatchNormInferMeta declares it.
/// batch_norm's shapes with X in input slot 0 and Scale, Bias, Mean and
/// Variance from slot `firstParam` on.
static LogicalResult inferBatchNormShapes(InferContext &c, unsigned firstParam) {
  RankedTensorType x = c.input(0);
  if (x.getRank() < 2 || x.getRank() > 5)
    return c.error() << "input slot 'X' " << x << " must have rank 2 to 5";
  if (!isa<FloatType>(x.getElementType()))
    return c.error() << "input slot 'X' " << x << " must hold floats";
  int64_t dim = channelDim(c, x, c.getString("data_layout"), /*allowAny=*/false);
  if (dim < 0)
    return failure();
  int64_t channels = x.getDimSize(dim);
  static constexpr const char *kNames[] = {"Scale", "Bias", "Mean", "Variance"};
  for (unsigned i = 0; i < 4; ++i)
    if (failed(requireChannelVector(c, firstParam + i, kNames[i], x, channels)))
      return failure();
  c.setResult(0, x);
  for (unsigned r = 1; r <= 4; ++r)
    c.setResult(r, {channels}, x.getElementType());
  c.setResult(5, {kDyn}, IntegerType::get(c.getContext(), 8, IntegerType::Unsigned));
  return success();
}

LogicalResult inferBatchNorm(InferContext &c) {
  if (c.getBool("fuse_with_relu"))
    return c.error() << "attribute 'fuse_with_relu' (a oneDNN fusion) is not supported; "
                        "use a separate relu";
  return inferBatchNormShapes(c, 1);
}

/// The activation of the fused batch norms: relu, as Paddle's passes fuse.
static LogicalResult requireFusedActivation(InferContext &c) {
  return c.requireStringIn("act_type", {"relu"});
}

/// fused_batch_norm_act: batch_norm's shapes. fused_bn_add_activation: and
/// Z (slot 1, before Scale) of X's type.
LogicalResult inferFusedBatchNorm(InferContext &c) {
  if (failed(requireFusedActivation(c)))
    return failure();
  bool withZ = c.getSpec().type == "fused_bn_add_activation";
  if (withZ && c.input(1) != c.input(0))
    return c.error() << "input slot 'Z' " << c.input(1) << " must have the type of input slot 'X' "
                     << c.input(0);
  return inferBatchNormShapes(c, withZ ? 2 : 1);
}

/// X@GRAD (and Z@GRAD) have X's type; Scale@GRAD and Bias@GRAD Scale's
/// and Bias's. Y and Y@GRAD are like X.
LogicalResult inferFusedBatchNormGrad(InferContext &c) {
  if (failed(requireFusedActivation(c)))
    return failure();
  RankedTensorType x = c.input(0);
  static constexpr const char *kLikeX[] = {"Y", "Y@GRAD"};
  for (unsigned slot = 1; slot <= 2; ++slot)
    if (c.input(slot) != x)
      return c.error() << "input slot '" << kLikeX[slot - 1] << "' " << c.input(slot)
                       << " must have the type of input slot 'X' " << x;
  bool withZ = c.getSpec().type == "fused_bn_add_activation_grad";
  c.setResult(0, x);
  if (withZ)
    c.setResult(1, x);
  c.setResult(withZ ? 2 : 1, c.input(3));
  c.setResult(withZ ? 3 : 2, c.input(4));
  return success();
}

LogicalResult inferAffineChannel(InferContext &c) {
  RankedTensorType x = c.input(0);
  if (x.getRank() < 2)
    return c.error() << "input slot 'X' " << x << " must have rank >= 2";
  int64_t dim = channelDim(c, x, c.getString("data_layout"), /*allowAny=*/true);
  if (dim < 0)
    return failure();
  int64_t channels = x.getDimSize(dim);
  if (failed(requireChannelVector(c, 1, "Scale", x, channels)) ||
      failed(requireChannelVector(c, 2, "Bias", x, channels)))
    return failure();
  c.setResult(0, x);
  return success();
}

/// X@GRAD has X's type; Scale@GRAD and Bias@GRAD have Scale's (Paddle's
/// affine_channel_grad does not take Bias).
LogicalResult inferAffineChannelGrad(InferContext &c) {
  c.setResult(0, c.input(0));
  c.setResult(1, c.input(1));
  c.setResult(2, c.input(1));
  return success();
}

/// Paddle's matmul (v1): a 1-D X is a row [1, K], a 1-D Y a column [K, 1]
/// (distc refuses transposing either); the batch dims of an operand of
/// rank > 2 are the output's, and when both have them they must be equal.
/// Out is [batch..., M, N] with the vectors' unit dims dropped; two
/// vectors give [1].
LogicalResult inferMatmulV1(InferContext &c) {
  RankedTensorType x = c.input(0), y = c.input(1);
  if (failed(c.requireSameElementType(0, 1)))
    return failure();
  for (llvm::StringRef fused : {"fused_reshape_X", "fused_reshape_Y", "fused_transpose_X",
                                "fused_transpose_Y", "fused_reshape_Out", "fused_transpose_Out"})
    if (!c.getInts(fused).empty())
      return c.error() << "attribute '" << fused
                       << "' (a oneDNN fusion) is not supported; it must be empty";
  if (c.getInt("head_number") != 1)
    return c.error() << "attribute 'head_number' = " << c.getInt("head_number")
                     << " is not supported; it must be 1";
  if (x.getRank() == 0 || y.getRank() == 0)
    return c.error() << "input slots 'X' " << x << " and 'Y' " << y << " must have rank >= 1";
  bool transX = c.getBool("transpose_X"), transY = c.getBool("transpose_Y");
  if ((x.getRank() == 1 && transX) || (y.getRank() == 1 && transY))
    return c.error() << "transposing a 1-D operand (X " << x << ", Y " << y << ") is not supported";
  Dims xs(x.getShape()), ys(y.getShape());
  if (xs.size() == 1)
    xs.insert(xs.begin(), 1);
  if (ys.size() == 1)
    ys.push_back(1);
  size_t xr = xs.size(), yr = ys.size();
  int64_t m = transX ? xs[xr - 1] : xs[xr - 2];
  int64_t kx = transX ? xs[xr - 2] : xs[xr - 1];
  int64_t ky = transY ? ys[yr - 1] : ys[yr - 2];
  int64_t n = transY ? ys[yr - 2] : ys[yr - 1];
  if (!mergeEqualDim(kx, ky))
    return c.error() << "input slots 'X' " << x << " (transpose_X " << transX << ") and 'Y' " << y
                     << " (transpose_Y " << transY << ") have mismatched contraction sizes " << kx
                     << " vs " << ky;
  ArrayRef<int64_t> xb = ArrayRef<int64_t>(xs).drop_back(2);
  ArrayRef<int64_t> yb = ArrayRef<int64_t>(ys).drop_back(2);
  Dims out;
  if (!xb.empty() && !yb.empty()) {
    if (xb.size() != yb.size())
      return c.error() << "input slots 'X' " << x << " and 'Y' " << y
                       << " have batch dims of different ranks (not supported)";
    for (auto [a, b] : llvm::zip_equal(xb, yb)) {
      std::optional<int64_t> merged = mergeEqualDim(a, b);
      if (!merged)
        return c.error() << "input slots 'X' " << x << " and 'Y' " << y
                         << " have different batch dims";
      out.push_back(*merged);
    }
  } else {
    out.append(xb.empty() ? yb.begin() : xb.begin(), xb.empty() ? yb.end() : xb.end());
  }
  if (x.getRank() != 1)
    out.push_back(m);
  if (y.getRank() != 1)
    out.push_back(n);
  if (out.empty())
    out.push_back(1);
  c.setResult(0, out, x.getElementType());
  return success();
}

/// Out drops `axis` (keeps it as 1 with keepdims), or is [1] with flatten;
/// dtype 2 gives i32 indices, 3 (or -1) i64.
LogicalResult inferArgMax(InferContext &c) {
  RankedTensorType x = c.input(0);
  int64_t dtype = c.getInt("dtype");
  Type index;
  if (dtype == 2)
    index = IntegerType::get(c.getContext(), 32);
  else if (dtype == 3 || dtype == -1)
    index = IntegerType::get(c.getContext(), 64);
  else
    return c.error() << "attribute 'dtype' = " << dtype << " must be 2 (int32) or 3 (int64)";
  if (c.getBool("flatten")) {
    c.setResult(0, Dims{1}, index);
    return success();
  }
  if (x.getRank() == 0)
    return c.error() << "input slot 'X' " << x << " must have rank >= 1 (or set flatten)";
  FailureOr<int64_t> axis = c.normalizeAxis(c.getInt("axis"), x.getRank(), "axis", x);
  if (failed(axis))
    return failure();
  Dims out;
  for (int64_t i = 0; i < x.getRank(); ++i) {
    if (i != *axis)
      out.push_back(x.getDimSize(i));
    else if (c.getBool("keepdims"))
      out.push_back(1);
  }
  c.setResult(0, out, index);
  return success();
}

} // namespace distc::pd::infer
