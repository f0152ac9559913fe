//===- LowerConv.cpp - convolutions and pooling ---------------------------===//
//
// conv2d, depthwise_conv2d, conv2d_transpose and pool2d and their gradients
// onto the `conv2d*` and `pool2d*` kernels. Paddle's padding rules
// (ConvGeometry.h, shared with shape inference) are resolved here, so the
// kernels get explicit [top, bottom, left, right] paddings; global pooling
// becomes adaptive pooling to 1x1, which takes the same whole-plane windows.
// The batch dim may be symbolic; channels and spatial dims must be static
// (the result's spatial size is the one shape inference computed).
//
//===----------------------------------------------------------------------===//

#include "ProgramLowering.h"

#include "distc/Dialect/Pd/ConvGeometry.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;

namespace distc::target {
namespace {

/// True when boolean-like attribute `name` of `op` is set.
bool flagSet(Operation *op, StringRef name) {
  Attribute attr = op->getAttr(name);
  if (auto b = dyn_cast_or_null<BoolAttr>(attr))
    return b.getValue();
  if (auto i = dyn_cast_or_null<IntegerAttr>(attr))
    return i.getValue() != 0;
  return false;
}

float floatAttrOr(Operation *op, StringRef name, float otherwise) {
  if (auto f = dyn_cast_or_null<FloatAttr>(op->getAttr(name)))
    return static_cast<float>(f.getValueAsDouble());
  return otherwise;
}

/// The activation a fused convolution applies to its output, as the
/// kernel call that computes it.
struct FusedActivation {
  std::string kernel;
  std::vector<AttrDesc> attrs;
};

/// oneDNN's fused form (Paddle's conv_activation_mkldnn_fuse_pass): the
/// activation named by `fuse_activation` (or the older `fuse_relu`), its
/// parameters in `fuse_alpha`/`fuse_beta` as that pass moves them there
/// (relu6's threshold is fuse_alpha in Paddle 2.2 and fuse_beta later: the
/// positive one counts). Null when the op applies none.
FailureOr<std::optional<FusedActivation>> fusedActivation(ProgramLowering &lowering,
                                                          Operation *op) {
  std::string name;
  if (auto s = dyn_cast_or_null<StringAttr>(op->getAttr("fuse_activation")))
    name = s.getValue().str();
  if (name.empty() && flagSet(op, "fuse_relu"))
    name = "relu";
  if (name.empty() || name == "identity")
    return std::optional<FusedActivation>();
  const float alpha = floatAttrOr(op, "fuse_alpha", 0.0f);
  const float beta = floatAttrOr(op, "fuse_beta", 0.0f);
  auto unary = [](const char *which) {
    return FusedActivation{"unary", {AttrDesc::ofString("op", which)}};
  };
  if (name == "relu" || name == "sigmoid" || name == "tanh" || name == "abs" || name == "sqrt" ||
      name == "exp")
    return std::optional<FusedActivation>(unary(name.c_str()));
  if (name == "gelu")
    return std::optional<FusedActivation>(
        unary(flagSet(op, "fuse_approximate") ? "gelu_tanh" : "gelu"));
  if (name == "relu6") {
    const float threshold = beta > 0 ? beta : alpha > 0 ? alpha : 6.0f;
    return std::optional<FusedActivation>(
        FusedActivation{"relu6", {AttrDesc::ofFloat("threshold", threshold)}});
  }
  if (name == "leaky_relu")
    return std::optional<FusedActivation>(
        FusedActivation{"leaky_relu", {AttrDesc::ofFloat("alpha", alpha)}});
  if (name == "swish")
    return std::optional<FusedActivation>(
        FusedActivation{"swish", {AttrDesc::ofFloat("beta", alpha)}});
  if (name == "hard_swish")
    return std::optional<FusedActivation>(
        FusedActivation{"hard_swish",
                        {AttrDesc::ofFloat("offset", 3.0), AttrDesc::ofFloat("scale", 6.0),
                         AttrDesc::ofFloat("threshold", 6.0)}});
  if (name == "hard_sigmoid")
    return std::optional<FusedActivation>(FusedActivation{
        "hard_sigmoid", {AttrDesc::ofFloat("offset", beta), AttrDesc::ofFloat("slope", alpha)}});
  if (name == "clip")
    return std::optional<FusedActivation>(
        FusedActivation{"clip", {AttrDesc::ofFloat("max", beta), AttrDesc::ofFloat("min", alpha)}});
  return lowering.error(op) << "attribute 'fuse_activation' = '" << name
                            << "' is not an activation distc fuses (relu, relu6, leaky_relu, "
                               "swish, hard_swish, hard_sigmoid, sigmoid, tanh, gelu, clip, abs, "
                               "sqrt, exp)";
}

/// The attributes exporters add for one backend that change what the op
/// computes (oneDNN's residual sum and int8 quantization, the addto form
/// of the gradient): distc runs the plain op, so these are refused by name
/// rather than ignored. Pure performance hints (use_cudnn, use_mkldnn,
/// workspace_size_MB, exhaustive_search, ...) are accepted; a fused
/// activation is computed (fusedActivation), except by the gradient, which
/// refuses it: the fused forms are inference programs' only.
LogicalResult refuseFusedForms(ProgramLowering &lowering, Operation *op, bool gradient = false) {
  if (gradient) {
    FailureOr<std::optional<FusedActivation>> act = fusedActivation(lowering, op);
    if (failed(act))
      return failure();
    if (*act)
      return lowering.error(op) << "the gradient of a convolution with a fused activation is "
                                   "not supported; train the program without the fusion";
  }
  for (StringRef flag : {"fuse_residual_connection", "fuse_relu_before_depthwise_conv", "use_addto",
                         "use_quantizer", "force_fp32_output"}) {
    Attribute attr = op->getAttr(flag);
    bool set = false;
    if (auto b = dyn_cast_or_null<BoolAttr>(attr))
      set = b.getValue();
    else if (auto i = dyn_cast_or_null<IntegerAttr>(attr))
      set = i.getValue() != 0;
    if (set)
      return lowering.error(op) << "attribute '" << flag
                                << "' asks for a fused or quantized form, which distc does not "
                                   "run; export the program without it";
  }
  if (auto s = dyn_cast_or_null<StringAttr>(op->getAttr("mkldnn_data_type")))
    if (s.getValue() != "float32")
      return lowering.error(op) << "attribute 'mkldnn_data_type' = '" << s.getValue()
                                << "' (reduced precision) is not supported";
  return success();
}

/// The static [C, H, W] of a rank-4 activation in NCHW order.
FailureOr<std::array<int64_t, 3>> staticChw(ProgramLowering &lowering, Operation *op,
                                            const SymShape &dims, bool nhwc, StringRef what) {
  if (dims.size() != 4)
    return lowering.error(op) << what << " must be 4-D, got " << lowering.describe(dims);
  for (size_t i = 1; i < 4; ++i)
    if (!dims[i].isStatic())
      return lowering.error(op) << what << " " << lowering.describe(dims)
                                << " needs static channel and spatial dims (only the batch "
                                   "dim may be symbolic)";
  if (nhwc)
    return std::array<int64_t, 3>{dims[3].value, dims[1].value, dims[2].value};
  return std::array<int64_t, 3>{dims[1].value, dims[2].value, dims[3].value};
}

/// `batch` followed by the static non-batch dims of `result`'s type.
FailureOr<SymShape> resultDims(ProgramLowering &lowering, Operation *op, Value result,
                               DimDesc batch) {
  auto type = cast<RankedTensorType>(result.getType());
  SymShape dims = {batch};
  for (int64_t i = 1; i < type.getRank(); ++i) {
    if (ShapedType::isDynamic(type.getDimSize(i)))
      return lowering.error(op) << "result " << type << " needs static non-batch dims";
    dims.push_back(DimDesc::fixed(type.getDimSize(i)));
  }
  return dims;
}

std::vector<int64_t> toVector(const std::array<int64_t, 2> &a) { return {a[0], a[1]}; }

/// The kernel attributes of a convolution (conv2d or conv2d_transpose and
/// their gradients): Paddle's window resolved for `inputHW` (the spatial
/// size of Input) and the Filter's window.
FailureOr<std::vector<AttrDesc>> convAttrs(ProgramLowering &lowering, Operation *op,
                                           const SymShape &input, const SymShape &filter) {
  pd::OpAttributes attrs(op);
  std::string format = attrs.getString("data_format");
  if (!pd::conv::isDataFormat(format))
    return lowering.error(op) << "unknown data_format '" << format << "'";
  bool nhwc = pd::conv::isChannelLast(format);
  FailureOr<std::array<int64_t, 3>> chw = staticChw(lowering, op, input, nhwc, "Input");
  if (failed(chw))
    return failure();
  if (filter.size() != 4 || !filter[2].isStatic() || !filter[3].isStatic())
    return lowering.error(op) << "Filter must be 4-D with a static window, got "
                              << lowering.describe(filter);
  pd::conv::Window w;
  std::string message = pd::conv::resolveWindow(
      {filter[2].value, filter[3].value}, attrs.getInts("strides"), attrs.getInts("paddings"),
      attrs.getInts("dilations"), attrs.getString("padding_algorithm"), {(*chw)[1], (*chw)[2]}, w);
  if (!message.empty())
    return lowering.error(op) << message;
  return std::vector<AttrDesc>{
      AttrDesc::ofInts("dilations", toVector(w.dilations)),
      AttrDesc::ofInt("groups", attrs.getInt("groups")), AttrDesc::ofInt("nhwc", nhwc),
      AttrDesc::ofInts("paddings", {w.paddings[0], w.paddings[1], w.paddings[2], w.paddings[3]}),
      AttrDesc::ofInts("strides", toVector(w.strides))};
}

/// The kernel attributes of pool2d and pool2d_grad.
FailureOr<std::vector<AttrDesc>> poolAttrs(ProgramLowering &lowering, Operation *op,
                                           const SymShape &input) {
  pd::OpAttributes attrs(op);
  std::string format = attrs.getString("data_format");
  if (!pd::conv::isDataFormat(format))
    return lowering.error(op) << "unknown data_format '" << format << "'";
  bool nhwc = pd::conv::isChannelLast(format);
  FailureOr<std::array<int64_t, 3>> chw = staticChw(lowering, op, input, nhwc, "X");
  if (failed(chw))
    return failure();
  std::vector<int64_t> ksize = attrs.getInts("ksize");
  if (ksize.size() != 2)
    return lowering.error(op) << "attribute 'ksize' must have 2 values";
  bool adaptive = attrs.getBool("adaptive") || attrs.getBool("global_pooling");
  pd::conv::Window w;
  if (!adaptive) {
    std::string message =
        pd::conv::resolveWindow(ksize, attrs.getInts("strides"), attrs.getInts("paddings"), {1, 1},
                                attrs.getString("padding_algorithm"), {(*chw)[1], (*chw)[2]}, w);
    if (!message.empty())
      return lowering.error(op) << message;
  }
  return std::vector<AttrDesc>{
      AttrDesc::ofInt("adaptive", adaptive),
      AttrDesc::ofInt("exclusive", attrs.getBool("exclusive")),
      AttrDesc::ofInts("ksize", toVector(w.kernel)),
      AttrDesc::ofInt("nhwc", nhwc),
      AttrDesc::ofInts("paddings", {w.paddings[0], w.paddings[1], w.paddings[2], w.paddings[3]}),
      AttrDesc::ofInts("strides", toVector(w.strides)),
      AttrDesc::ofString("type", attrs.getString("pooling_type"))};
}

/// Defines the op's result (`dims`) and emits `kernel` into it, followed
/// by the fused activation when the op has one: the convolution then goes
/// into a temporary and the activation's own kernel into the result.
LogicalResult emitConvolution(ProgramLowering &lowering, Operation *op, StringRef kernel,
                              std::vector<int32_t> inputs, const SymShape &dims,
                              const std::vector<AttrDesc> &attrs) {
  FailureOr<std::optional<FusedActivation>> act = fusedActivation(lowering, op);
  if (failed(act))
    return failure();
  FailureOr<int32_t> out = lowering.defineResult(op->getResult(0), dims);
  if (failed(out))
    return failure();
  if (!*act) {
    lowering.emit(kernel, std::move(inputs), {*out}, attrs);
    return success();
  }
  int32_t conv = lowering.temp(kernel.str(), *out, dims);
  lowering.emit(kernel, std::move(inputs), {conv}, attrs);
  lowering.emit((*act)->kernel, {conv}, {*out}, (*act)->attrs);
  return success();
}

} // namespace

/// A forward convolution onto `kernel`. The window is resolved against
/// Input's spatial size (for conv2d_transpose too, as Paddle's
/// ConvTransposeInferMeta does); Output's size is the inferred result
/// type's. conv2d's fused form passes its optional Bias (the third operand).
static LogicalResult lowerConvolution(ProgramLowering &lowering, Operation *op, StringRef kernel,
                                      bool takesBias) {
  if (failed(refuseFusedForms(lowering, op)))
    return failure();
  Value x = op->getOperand(0), filter = op->getOperand(1);
  FailureOr<std::vector<AttrDesc>> attrs =
      convAttrs(lowering, op, lowering.dimsOf(x), lowering.dimsOf(filter));
  if (failed(attrs))
    return failure();
  FailureOr<SymShape> dims = resultDims(lowering, op, op->getResult(0), lowering.dimsOf(x)[0]);
  if (failed(dims))
    return failure();
  std::vector<int32_t> inputs = {lowering.bufferOf(x), lowering.bufferOf(filter)};
  if (takesBias)
    inputs.push_back(op->getNumOperands() > 2 ? lowering.bufferOf(op->getOperand(2)) : -1);
  return emitConvolution(lowering, op, kernel, std::move(inputs), *dims, *attrs);
}

/// conv2d and depthwise_conv2d: one kernel, the groups say which.
LogicalResult ProgramLowering::lowerConv2d(Operation *op) {
  return lowerConvolution(*this, op, "conv2d", /*takesBias=*/true);
}

LogicalResult ProgramLowering::lowerConv2dTranspose(Operation *op) {
  return lowerConvolution(*this, op, "conv2d_transpose", /*takesBias=*/false);
}

/// Input@GRAD and Filter@GRAD of a convolution (and conv2d_grad's Bias@GRAD,
/// [M]); `kernel` is conv2d_grad or conv2d_transpose_grad. A gradient
/// nobody uses is not computed.
static LogicalResult lowerConvGradOf(ProgramLowering &lowering, Operation *op, StringRef kernel) {
  if (failed(refuseFusedForms(lowering, op, /*gradient=*/true)))
    return failure();
  // conv2d_grad's optional Bias sits before Output@GRAD: dout is the last.
  Value x = op->getOperand(0), filter = op->getOperand(1);
  Value dout = op->getOperand(op->getNumOperands() - 1);
  FailureOr<std::vector<AttrDesc>> attrs =
      convAttrs(lowering, op, lowering.dimsOf(x), lowering.dimsOf(filter));
  if (failed(attrs))
    return failure();
  std::vector<int32_t> outs;
  bool any = false;
  for (auto [result, like] :
       {std::pair{op->getResult(0), x}, std::pair{op->getResult(1), filter}}) {
    if (!lowering.isNeeded(result)) {
      outs.push_back(-1);
      continue;
    }
    FailureOr<int32_t> buffer = lowering.defineResult(result, lowering.dimsOf(like));
    if (failed(buffer))
      return failure();
    outs.push_back(*buffer);
    any = true;
  }
  if (op->getNumResults() > 2) {
    Value dbias = op->getResult(2);
    int32_t buffer = -1;
    if (lowering.isNeeded(dbias)) {
      FailureOr<int32_t> b = lowering.defineResult(dbias, {lowering.dimsOf(filter)[0]});
      if (failed(b))
        return failure();
      buffer = *b;
      any = true;
    }
    outs.push_back(buffer);
  }
  if (any)
    lowering.emit(kernel,
                  {lowering.bufferOf(x), lowering.bufferOf(filter), lowering.bufferOf(dout)}, outs,
                  *attrs);
  return success();
}

LogicalResult ProgramLowering::lowerConv2dGrad(Operation *op) {
  return lowerConvGradOf(*this, op, "conv2d_grad");
}

LogicalResult ProgramLowering::lowerConv2dTransposeGrad(Operation *op) {
  return lowerConvGradOf(*this, op, "conv2d_transpose_grad");
}

LogicalResult ProgramLowering::lowerPool2d(Operation *op) {
  Value x = op->getOperand(0);
  FailureOr<std::vector<AttrDesc>> attrs = poolAttrs(*this, op, dimsOf(x));
  if (failed(attrs))
    return failure();
  FailureOr<SymShape> dims = resultDims(*this, op, op->getResult(0), dimsOf(x)[0]);
  if (failed(dims))
    return failure();
  FailureOr<int32_t> out = defineResult(op->getResult(0), *dims);
  if (failed(out))
    return failure();
  emit("pool2d", {bufferOf(x)}, {*out}, *attrs);
  return success();
}

/// X@GRAD of pool2d from X, Out (the max gradient finds the maximum by
/// comparing with it) and Out@GRAD.
LogicalResult ProgramLowering::lowerPool2dGrad(Operation *op) {
  Value x = op->getOperand(0), out = op->getOperand(1), dout = op->getOperand(2);
  if (!isNeeded(op->getResult(0)))
    return success();
  FailureOr<std::vector<AttrDesc>> attrs = poolAttrs(*this, op, dimsOf(x));
  if (failed(attrs))
    return failure();
  FailureOr<int32_t> dx = defineResult(op->getResult(0), dimsOf(x));
  if (failed(dx))
    return failure();
  emit("pool2d_grad", {bufferOf(x), bufferOf(out), bufferOf(dout)}, {*dx}, *attrs);
  return success();
}

} // namespace distc::target
