//===- ConvRules.cpp - Convolution and pooling inference ------------------===//
//
// Paddle's ConvInferMeta, ConvTransposeInferMeta and PoolInferMeta: the
// channel checks of grouped convolutions and the output sizes of
// ConvGeometry.h. A dynamic spatial input size gives a dynamic output size.
//
//===----------------------------------------------------------------------===//

#include "Inference/InferContext.h"
#include "distc/Dialect/Pd/ConvGeometry.h"

using namespace mlir;

namespace distc::pd::infer {
namespace {

/// The dims of a rank-4 activation in NCHW order, whatever its layout.
struct Layout {
  bool channelLast = false;
  int64_t n = 0, c = 0, h = 0, w = 0;
};

FailureOr<Layout> activationLayout(InferContext &c, unsigned slot, StringRef slotName) {
  RankedTensorType type = c.input(slot);
  std::string format = c.getString("data_format");
  if (!conv::isDataFormat(format))
    return c.error() << "attribute 'data_format' must be NCHW, NHWC or AnyLayout, got '" << format
                     << "'";
  if (type.getRank() != 4)
    return c.error() << "input slot '" << slotName << "' " << type << " must be 4-D ("
                     << (conv::isChannelLast(format) ? "NHWC" : "NCHW") << ")";
  if (!isa<FloatType>(type.getElementType()))
    return c.error() << "input slot '" << slotName << "' " << type << " must hold floats";
  Layout l;
  l.channelLast = conv::isChannelLast(format);
  ArrayRef<int64_t> d = type.getShape();
  l.n = d[0];
  l.c = l.channelLast ? d[3] : d[1];
  l.h = l.channelLast ? d[1] : d[2];
  l.w = l.channelLast ? d[2] : d[3];
  return l;
}

int64_t known(int64_t d) { return ShapedType::isDynamic(d) ? conv::kUnknown : d; }
int64_t dimOf(int64_t d) { return d == conv::kUnknown ? kDyn : d; }

/// The result dims for `l`'s layout.
Dims layoutDims(const Layout &l, int64_t channels, int64_t h, int64_t w) {
  if (l.channelLast)
    return {l.n, dimOf(h), dimOf(w), channels};
  return {l.n, channels, dimOf(h), dimOf(w)};
}

/// Checks Filter (rank 4, static window, Input's element type) and returns
/// its dims.
FailureOr<ArrayRef<int64_t>> filterDims(InferContext &c) {
  RankedTensorType filter = c.input(1);
  if (filter.getRank() != 4)
    return c.error() << "input slot 'Filter' " << filter << " must be 4-D";
  if (!filter.hasStaticShape())
    return c.error() << "input slot 'Filter' " << filter << " must have a static shape";
  if (failed(c.requireSameElementType(0, 1)))
    return failure();
  return filter.getShape();
}

/// What conv2d and conv2d_transpose both check first: Input's layout,
/// Filter's dims and a positive `groups`.
struct ConvOperands {
  Layout layout;
  ArrayRef<int64_t> filter;
  int64_t groups;
};

FailureOr<ConvOperands> convOperands(InferContext &c) {
  FailureOr<Layout> l = activationLayout(c, 0, "Input");
  if (failed(l))
    return failure();
  FailureOr<ArrayRef<int64_t>> f = filterDims(c);
  if (failed(f))
    return failure();
  int64_t groups = c.getInt("groups");
  if (groups < 1)
    return c.error() << "attribute 'groups' = " << groups << " must be positive";
  return ConvOperands{*l, *f, groups};
}

FailureOr<conv::Window> window(InferContext &c, ArrayRef<int64_t> kernel, const Layout &l,
                               bool dilated) {
  conv::Window w;
  SmallVector<int64_t> dilations = dilated ? c.getInts("dilations") : SmallVector<int64_t>{1, 1};
  std::string message =
      conv::resolveWindow(kernel, c.getInts("strides"), c.getInts("paddings"), dilations,
                          c.getString("padding_algorithm"), {known(l.h), known(l.w)}, w);
  if (!message.empty())
    return c.error() << message;
  return w;
}

} // namespace

/// Output [N, M, oh, ow] (NHWC: [N, oh, ow, M]) for Filter [M, C / groups,
/// kh, kw]; C and M must be multiples of groups; Bias, when given, is [M].
LogicalResult inferConv2d(InferContext &c) {
  FailureOr<ConvOperands> ops = convOperands(c);
  if (failed(ops))
    return failure();
  const Layout &l = ops->layout;
  const ArrayRef<int64_t> f = ops->filter;
  const int64_t groups = ops->groups;
  RankedTensorType input = c.input(0), filter = c.input(1);
  if (!ShapedType::isDynamic(l.c) && l.c % groups != 0)
    return c.error() << "input slot 'Input' " << input << " has " << l.c
                     << " channels, not divisible by groups " << groups;
  if (!ShapedType::isDynamic(l.c) && l.c != f[1] * groups)
    return c.error() << "input slot 'Filter' " << filter << " takes " << f[1]
                     << " channels per group, but input slot 'Input' " << input << " has " << l.c
                     << " channels in " << groups << " groups";
  if (f[0] % groups != 0)
    return c.error() << "input slot 'Filter' " << filter << " has " << f[0]
                     << " output channels, not divisible by groups " << groups;
  FailureOr<conv::Window> w = window(c, f.drop_front(2), l, /*dilated=*/true);
  if (failed(w))
    return failure();
  int64_t oh = conv::convOutputSize(*w, 0, known(l.h));
  int64_t ow = conv::convOutputSize(*w, 1, known(l.w));
  if (oh == -2 || ow == -2)
    return c.error() << "the dilated " << f[2] << "x" << f[3] << " kernel of input slot 'Filter' "
                     << filter << " is larger than the padded input slot 'Input' " << input;
  if (RankedTensorType bias = c.input(2)) {
    if (bias.getRank() != 1 || !mergeEqualDim(bias.getDimSize(0), f[0]))
      return c.error() << "input slot 'Bias' " << bias << " must be 1-D of size " << f[0]
                       << " (the output channels of input slot 'Filter' " << filter << ")";
    if (failed(c.requireSameElementType(0, 2)))
      return failure();
  }
  c.setResult(0, layoutDims(l, f[0], oh, ow), input.getElementType());
  return success();
}

/// Input@GRAD like Input, Filter@GRAD like Filter, Bias@GRAD (of the fused
/// form's Bias) [M] for Filter [M, ...].
LogicalResult inferConv2dGrad(InferContext &c) {
  RankedTensorType input = c.input(0), filter = c.input(1);
  if (filter.getRank() != 4)
    return c.error() << "input slot 'Filter' " << filter << " must be 4-D";
  c.setResult(0, input);
  c.setResult(1, filter);
  c.setResult(2, {filter.getDimSize(0)}, filter.getElementType());
  return success();
}

/// Output [N, M, oh, ow] for Filter [C, M / groups, kh, kw], oh = (H - 1) *
/// stride - pads + dilated kh + output_padding, or output_size when given
/// (in [oh, oh + stride)).
LogicalResult inferConv2dTranspose(InferContext &c) {
  FailureOr<ConvOperands> ops = convOperands(c);
  if (failed(ops))
    return failure();
  const Layout &l = ops->layout;
  const ArrayRef<int64_t> f = ops->filter;
  const int64_t groups = ops->groups;
  RankedTensorType input = c.input(0), filter = c.input(1);
  if (!ShapedType::isDynamic(l.c) && l.c != f[0])
    return c.error() << "input slot 'Filter' " << filter << " takes " << f[0]
                     << " input channels, but input slot 'Input' " << input << " has " << l.c;
  if (f[0] % groups != 0)
    return c.error() << "input slot 'Input' " << input << " has " << f[0]
                     << " channels, not divisible by groups " << groups;
  FailureOr<conv::Window> w = window(c, f.drop_front(2), l, /*dilated=*/true);
  if (failed(w))
    return failure();
  SmallVector<int64_t> outputSize = c.getInts("output_size");
  SmallVector<int64_t> outputPadding = c.getInts("output_padding");
  if (!outputSize.empty() && outputSize.size() != 2)
    return c.error() << "attribute 'output_size' must be empty or have 2 values";
  if (!outputPadding.empty() && outputPadding.size() != 2)
    return c.error() << "attribute 'output_padding' must be empty or have 2 values";
  int64_t out[2];
  for (int i = 0; i < 2; ++i) {
    int64_t inferred = conv::transposeOutputSize(*w, i, known(i == 0 ? l.h : l.w));
    if (inferred != conv::kUnknown && inferred < 1)
      return c.error() << "output size " << inferred << " of input slot 'Input' " << input
                       << " is not positive (paddings too large)";
    out[i] = inferred;
    if (!outputSize.empty()) {
      if (inferred != conv::kUnknown &&
          (outputSize[i] < inferred || outputSize[i] >= inferred + w->strides[i]))
        return c.error() << "attribute 'output_size' " << outputSize[i] << " must be in ["
                         << inferred << ", " << inferred + w->strides[i] << ") for input slot "
                         << "'Input' " << input;
      out[i] = outputSize[i];
    } else if (!outputPadding.empty()) {
      if (outputPadding[i] < 0 || outputPadding[i] >= std::max(w->strides[i], w->dilations[i]))
        return c.error() << "attribute 'output_padding' " << outputPadding[i]
                         << " must be in [0, max(stride, dilation))";
      if (inferred != conv::kUnknown)
        out[i] = inferred + outputPadding[i];
    }
  }
  c.setResult(0, layoutDims(l, f[1] * groups, out[0], out[1]), input.getElementType());
  return success();
}

/// Out [N, C, oh, ow]: 1x1 with global_pooling, ksize when adaptive, else
/// the pooled size of ConvGeometry.h (ceil_mode rounding up).
LogicalResult inferPool2d(InferContext &c) {
  FailureOr<Layout> l = activationLayout(c, 0, "X");
  if (failed(l))
    return failure();
  std::string type = c.getString("pooling_type");
  if (type != "max" && type != "avg")
    return c.error() << "attribute 'pooling_type' must be max or avg, got '" << type << "'";
  SmallVector<int64_t> ksize = c.getInts("ksize");
  if (ksize.size() != 2)
    return c.error() << "attribute 'ksize' must have 2 values";
  RankedTensorType x = c.input(0);
  int64_t oh, ow;
  if (c.getBool("global_pooling")) {
    oh = ow = 1;
  } else if (c.getBool("adaptive")) {
    if (ksize[0] < 1 || ksize[1] < 1)
      return c.error() << "attribute 'ksize' (the adaptive output size) must be positive";
    oh = ksize[0];
    ow = ksize[1];
  } else {
    FailureOr<conv::Window> w = window(c, ksize, *l, /*dilated=*/false);
    if (failed(w))
      return failure();
    oh = conv::poolOutputSize(*w, 0, known(l->h), c.getBool("ceil_mode"));
    ow = conv::poolOutputSize(*w, 1, known(l->w), c.getBool("ceil_mode"));
    if (oh == -2 || ow == -2)
      return c.error() << "the " << ksize[0] << "x" << ksize[1]
                       << " window is larger than the padded input slot 'X' " << x;
  }
  c.setResult(0, layoutDims(*l, l->c, oh, ow), x.getElementType());
  return success();
}

} // namespace distc::pd::infer
