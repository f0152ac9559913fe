//===- ResizeRules.cpp - flatten, squeeze, unsqueeze, shape, pad, interp ==//
//
// Inference of the shape-type ops of image classification models
// (PdShapeOps.td). Paddle's rules: flatten_contiguous_range merges a range
// of dims, squeeze2 drops size-1 dims, unsqueeze2 inserts them one axis
// after the other, pad2d/pad3d grow the spatial dims, the interpolate v2
// ops resize H and W.
//
//===----------------------------------------------------------------------===//

#include "Inference/InferContext.h"

#include "distc/Dialect/Pd/ResizeSpec.h"

#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;

namespace distc::pd::infer {

/// XShape = [0] ++ X.dims, as reshape2's.
static void setXShapeOf(InferContext &c, unsigned slot, RankedTensorType x) {
  Dims dims{0};
  llvm::append_range(dims, x.getShape());
  c.setResult(slot, dims, x.getElementType());
}

/// The gradient of a view with an XShape: X@GRAD has the dims XShape
/// carries ([0] ++ X.dims) and dOut's element type.
LogicalResult inferXShapeGrad(InferContext &c) {
  RankedTensorType xshape = c.input(0), dout = c.input(1);
  if (xshape.getRank() < 1)
    return c.error() << "input slot 'XShape' must have rank >= 1, got " << xshape;
  c.setResult(0, xshape.getShape().drop_front(), dout.getElementType());
  return success();
}

LogicalResult inferFlattenRange(InferContext &c) {
  RankedTensorType x = c.input(0);
  int64_t rank = x.getRank();
  if (rank == 0) { // Paddle flattens a 0-D tensor to [1]
    c.setResult(0, {1}, x.getElementType());
    setXShapeOf(c, 1, x);
    return success();
  }
  FailureOr<int64_t> start = c.normalizeAxis(c.getInt("start_axis"), rank, "start_axis", x);
  if (failed(start))
    return failure();
  FailureOr<int64_t> stop = c.normalizeAxis(c.getInt("stop_axis"), rank, "stop_axis", x);
  if (failed(stop))
    return failure();
  if (*start > *stop)
    return c.error() << "attribute 'start_axis' (" << *start << ") is after 'stop_axis' (" << *stop
                     << ") for input slot 'X' " << x;
  Dims out(x.getShape().take_front(*start));
  out.push_back(product(x.getShape().slice(*start, *stop - *start + 1)));
  llvm::append_range(out, x.getShape().drop_front(*stop + 1));
  c.setResult(0, out, x.getElementType());
  setXShapeOf(c, 1, x);
  return success();
}

/// Paddle's squeeze2: empty `axes` drops every size-1 dim; otherwise each
/// listed dim is dropped when its size is 1 and kept otherwise. A listed
/// dynamic dim cannot be decided and is an error.
LogicalResult inferSqueeze2(InferContext &c) {
  RankedTensorType x = c.input(0);
  int64_t rank = x.getRank();
  SmallVector<int64_t> axes = c.getInts("axes");
  llvm::SmallBitVector drop(rank);
  if (axes.empty()) {
    for (int64_t d = 0; d < rank; ++d)
      if (x.getDimSize(d) == 1)
        drop.set(d);
  }
  for (int64_t a : axes) {
    FailureOr<int64_t> axis = c.normalizeAxis(a, rank, "axes", x);
    if (failed(axis))
      return failure();
    if (x.isDynamicDim(*axis))
      return c.error() << "attribute 'axes' = " << formatDims(axes) << " squeezes dim " << *axis
                       << " of input slot 'X' " << x << ", whose size is unknown";
    if (x.getDimSize(*axis) == 1)
      drop.set(*axis);
  }
  Dims out;
  for (int64_t d = 0; d < rank; ++d)
    if (!drop.test(d))
      out.push_back(x.getDimSize(d));
  c.setResult(0, out, x.getElementType());
  setXShapeOf(c, 1, x);
  return success();
}

/// Paddle's unsqueeze2: each axis in turn is normalized against the rank
/// reached so far (a negative one counts from the end of that rank + 1) and
/// a size-1 dim is inserted there.
LogicalResult inferUnsqueeze2(InferContext &c) {
  RankedTensorType x = c.input(0);
  SmallVector<int64_t> axes = c.getInts("axes");
  Dims out(x.getShape());
  for (int64_t a : axes) {
    int64_t rank = static_cast<int64_t>(out.size());
    int64_t axis = a < 0 ? a + rank + 1 : a;
    if (axis < 0 || axis > rank)
      return c.error() << "attribute 'axes' = " << formatDims(axes) << " inserts at " << a
                       << ", outside [" << -rank - 1 << ", " << rank << "] for input slot 'X' "
                       << x;
    out.insert(out.begin() + axis, 1);
  }
  c.setResult(0, out, x.getElementType());
  setXShapeOf(c, 1, x);
  return success();
}

/// shape: the dims of Input as int32 [rank].
LogicalResult inferShapeOf(InferContext &c) {
  RankedTensorType x = c.input(0);
  c.setResult(0, {x.getRank()}, IntegerType::get(c.getContext(), 32));
  return success();
}

/// A channel shuffle: 4-D X whose channel count (dim `channelAxis`) the
/// attribute `groupAttr` divides; Out like X.
static LogicalResult inferShuffle(InferContext &c, StringRef groupAttr, int64_t channelAxis) {
  RankedTensorType x = c.input(0);
  int64_t group = c.getInt(groupAttr);
  if (x.getRank() != 4)
    return c.error() << "input slot 'X' " << x << " must be 4-D";
  if (group <= 0)
    return c.error() << "attribute '" << groupAttr << "' = " << group << " must be positive";
  if (!x.isDynamicDim(channelAxis) && x.getDimSize(channelAxis) % group != 0)
    return c.error() << "attribute '" << groupAttr << "' = " << group << " does not divide the "
                     << x.getDimSize(channelAxis) << " channels of input slot 'X' " << x;
  c.setResult(0, x);
  return success();
}

/// shuffle_channel: NCHW X.
LogicalResult inferShuffleChannel(InferContext &c) { return inferShuffle(c, "group", 1); }

/// channel_shuffle: NCHW or NHWC X (`data_format`).
LogicalResult inferChannelShuffle(InferContext &c) {
  std::string format = c.getString("data_format");
  if (format != "NCHW" && format != "NHWC")
    return c.error() << "attribute 'data_format' = '" << format << "' is not NCHW or NHWC";
  return inferShuffle(c, "groups", format == "NHWC" ? 3 : 1);
}

static LogicalResult inferPad(InferContext &c, bool innerFirst, int64_t rank, StringRef format) {
  RankedTensorType x = c.input(0);
  if (x.getRank() != rank)
    return c.error() << "input slot 'X' " << x << " must be " << rank << "-D";
  std::string formatValue = c.getString(format);
  SmallVector<int64_t> paddings = c.getInts("paddings");
  auto pads = padsPerDim(rank, std::vector<int64_t>(paddings.begin(), paddings.end()), formatValue,
                         innerFirst);
  if (!pads)
    return c.error() << "attribute 'paddings' = " << formatDims(paddings) << " with '" << format
                     << "' = \"" << formatValue << "\" must have " << 2 * (rank - 2)
                     << " entries and a known layout";
  std::string mode = c.getString("mode");
  std::string kernelMode = padKernelMode(mode);
  if (kernelMode.empty() ||
      (rank == 4 && mode != "constant" && mode != "reflect" && mode != "edge"))
    return c.error() << "attribute 'mode' = \"" << mode << "\" is not a padding mode"
                     << (rank == 4 ? " (constant, reflect, edge)"
                                   : " (constant, reflect, replicate, circular)");
  Dims out(x.getShape());
  for (int64_t d = 0; d < rank; ++d) {
    auto [before, after] = (*pads)[d];
    if (before < 0 || after < 0)
      return c.error() << "attribute 'paddings' = " << formatDims(paddings)
                       << " has a negative entry";
    if (out[d] == kDyn || (before == 0 && after == 0))
      continue;
    if (kernelMode == "reflect" && (before >= out[d] || after >= out[d]))
      return c.error() << "attribute 'paddings' = " << formatDims(paddings) << " reflects dim " << d
                       << " of input slot 'X' " << x
                       << " by as much as its size (reflect needs paddings < size)";
    if (kernelMode != "constant" && out[d] == 0)
      return c.error() << "mode \"" << mode << "\" cannot pad the empty dim " << d
                       << " of input slot 'X' " << x;
    out[d] += before + after;
  }
  c.setResult(0, out, x.getElementType());
  return success();
}

LogicalResult inferPad2d(InferContext &c) { return inferPad(c, false, 4, "data_format"); }
LogicalResult inferPad3d(InferContext &c) { return inferPad(c, true, 5, "data_format"); }

/// The interpolate v2 ops on 4-D X: the output's H and W are int(in ·
/// scale) when `scale` is given, else out_h and out_w.
LogicalResult inferInterpV2(InferContext &c) {
  RankedTensorType x = c.input(0);
  if (x.getRank() != 4)
    return c.error() << "input slot 'X' " << x << " must be 4-D (only 2-D resizes are supported)";
  std::string layout = c.getString("data_layout");
  std::optional<int64_t> h = firstSpatialDim(layout, 2);
  if (!h)
    return c.error() << "attribute 'data_layout' = \"" << layout
                     << "\" is not a 4-D layout (NCHW, NHWC)";
  std::string method = c.getString("interp_method");
  if (method != "bilinear" && method != "nearest")
    return c.error() << "attribute 'interp_method' = \"" << method
                     << "\" is not supported (bilinear, nearest)";
  int64_t alignMode = c.getInt("align_mode");
  if (alignMode != 0 && alignMode != 1)
    return c.error() << "attribute 'align_mode' = " << alignMode << " must be 0 or 1";
  std::vector<double> scale = c.getFloats("scale");
  auto scales = interpScales(scale);
  if (!scales)
    return c.error() << "attribute 'scale' must hold one or two positive factors";
  Dims out(x.getShape());
  const std::pair<const char *, double> attrs[2] = {{"out_h", scales->first},
                                                    {"out_w", scales->second}};
  for (int i = 0; i < 2; ++i) {
    int64_t d = *h + i, in = x.getDimSize(d);
    auto [attr, factor] = attrs[i];
    if (factor > 0) {
      out[d] = in == kDyn ? kDyn : interpOutSize(in, factor, 0);
    } else {
      out[d] = c.getInt(attr);
      if (out[d] <= 0)
        return c.error() << "attribute '" << attr << "' = " << out[d]
                         << " must be positive when 'scale' is not given";
    }
    if (out[d] == 0)
      return c.error() << "attribute 'scale' resizes dim " << d << " of input slot 'X' " << x
                       << " to 0";
  }
  c.setResult(0, out, x.getElementType());
  return success();
}

} // namespace distc::pd::infer
