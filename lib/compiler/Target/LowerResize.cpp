//===- LowerResize.cpp - flatten, squeeze, unsqueeze, shape, pad, interp ==//
//
// The shape-type ops of image classification models (PdShapeOps.td).
// flatten_contiguous_range, squeeze2 and unsqueeze2 are views of X, as
// reshape2 is, so a symbolic batch dim passes through them; their XShape is
// bound as reshape2's (bindXShape) and their gradients are
// lowerReshapeGrad's views. shuffle_channel is a transpose between two
// views; pad2d/pad3d and the interpolate ops call the `pad` and `interp`
// kernels (and their `_grad`s) with the attributes normalized here
// (ResizeSpec.h), so the kernels never see Paddle's layouts.
//
//===----------------------------------------------------------------------===//

#include "ProgramLowering.h"

#include "distc/Dialect/Pd/PdOps.h"

#include "distc/Dialect/Pd/ResizeSpec.h"

using namespace mlir;

namespace distc::target {

LogicalResult ProgramLowering::lowerFlattenRange(Operation *op) {
  Value x = op->getOperand(0);
  SymShape xd = dimsOf(x);
  pd::OpAttributes attrs(op);
  int64_t rank = static_cast<int64_t>(xd.size());
  SymShape out;
  if (rank == 0) {
    out.push_back(DimDesc::fixed(1));
  } else {
    auto start = normalizeAxis(attrs.getInt("start_axis"), rank);
    auto stop = normalizeAxis(attrs.getInt("stop_axis"), rank);
    if (!start || !stop || *start > *stop)
      return error(op) << "start_axis " << attrs.getInt("start_axis") << " and stop_axis "
                       << attrs.getInt("stop_axis") << " are no range of X " << describe(xd);
    std::optional<DimDesc> merged = product(SymShape(xd.begin() + *start, xd.begin() + *stop + 1));
    if (!merged)
      return error(op) << "cannot merge dims " << *start << ".." << *stop << " of X "
                       << describe(xd) << ": several unknown dims";
    out.assign(xd.begin(), xd.begin() + *start);
    out.push_back(*merged);
    out.insert(out.end(), xd.begin() + *stop + 1, xd.end());
  }
  if (failed(defineView(op->getResult(0), bufferOf(x), out)))
    return failure();
  return bindXShape(op);
}

LogicalResult ProgramLowering::lowerSqueeze(Operation *op) {
  Value x = op->getOperand(0);
  SymShape xd = dimsOf(x);
  std::vector<int64_t> axes = pd::OpAttributes(op).getInts("axes");
  int64_t rank = static_cast<int64_t>(xd.size());
  std::vector<bool> drop(rank, false);
  if (axes.empty())
    for (int64_t d = 0; d < rank; ++d)
      drop[d] = xd[d].isStatic() && xd[d].value == 1;
  for (int64_t a : axes) {
    auto axis = normalizeAxis(a, rank);
    if (!axis)
      return error(op) << "squeeze axis " << a << " out of range for X " << describe(xd);
    if (!xd[*axis].isStatic())
      return error(op) << "cannot squeeze the unknown dim " << *axis << " of X " << describe(xd);
    drop[*axis] = drop[*axis] || xd[*axis].value == 1;
  }
  SymShape out;
  for (int64_t d = 0; d < rank; ++d)
    if (!drop[d])
      out.push_back(xd[d]);
  if (failed(defineView(op->getResult(0), bufferOf(x), out)))
    return failure();
  return bindXShape(op);
}

LogicalResult ProgramLowering::lowerUnsqueeze(Operation *op) {
  Value x = op->getOperand(0);
  SymShape out = dimsOf(x);
  for (int64_t a : pd::OpAttributes(op).getInts("axes")) {
    int64_t rank = static_cast<int64_t>(out.size());
    int64_t axis = a < 0 ? a + rank + 1 : a;
    if (axis < 0 || axis > rank)
      return error(op) << "unsqueeze axis " << a << " out of range for rank " << rank;
    out.insert(out.begin() + axis, DimDesc::fixed(1));
  }
  if (failed(defineView(op->getResult(0), bufferOf(x), out)))
    return failure();
  return bindXShape(op);
}

LogicalResult ProgramLowering::lowerShapeOf(Operation *op) {
  Value x = op->getOperand(0);
  FailureOr<int32_t> out =
      defineResult(op->getResult(0), {DimDesc::fixed(static_cast<int64_t>(dimsOf(x).size()))});
  if (failed(out))
    return failure();
  emit("shape", {bufferOf(x)}, {*out});
  return success();
}

/// shuffle_channel and channel_shuffle (`group` or `groups`; NHWC with
/// channel_shuffle's data_format). NCHW: Out = X viewed as [N, g, C/g,
/// H·W], transposed to [N, C/g, g, H·W]; NHWC: X viewed as [N·H·W, g, C/g,
/// 1], the same transpose. The gradient undoes it: the same shuffle with
/// the two factors swapped.
LogicalResult ProgramLowering::lowerShuffleChannel(Operation *op, bool grad) {
  Value x = op->getOperand(0);
  SymShape xd = dimsOf(x);
  pd::OpAttributes attrs(op);
  const bool legacy = !isa<pd::ChannelShuffleOp, pd::ChannelShuffleGradOp>(op);
  const int64_t group = legacy ? attrs.getInt("group") : attrs.getInt("groups");
  const bool nhwc = !legacy && attrs.getString("data_format") == "NHWC";
  const size_t channelAxis = nhwc ? 3 : 1;
  if (xd.size() != 4 || !xd[channelAxis].isStatic() || group <= 0 ||
      xd[channelAxis].value % group != 0)
    return error(op) << "groups " << group << " must divide the known channel count of "
                     << (nhwc ? "NHWC " : "NCHW ") << describe(xd);
  const int64_t channels = xd[channelAxis].value;
  std::optional<DimDesc> rows = nhwc ? product({xd[0], xd[1], xd[2]}) : product({xd[2], xd[3]});
  if (!rows)
    return error(op) << "cannot shuffle " << describe(xd) << ": several unknown dims";
  int64_t outer = grad ? channels / group : group;
  DimDesc a = DimDesc::fixed(outer), b = DimDesc::fixed(channels / outer);
  SymShape from = nhwc ? SymShape{*rows, a, b, DimDesc::fixed(1)} : SymShape{xd[0], a, b, *rows};
  SymShape to = nhwc ? SymShape{*rows, b, a, DimDesc::fixed(1)} : SymShape{xd[0], b, a, *rows};
  int32_t source = view(bufferOf(x), from);
  int32_t shuffled = temp(nameOf(op->getResult(0)) + ".shuffled", source, to);
  emit("transpose", {source}, {shuffled}, {AttrDesc::ofInts("perm", {0, 2, 1, 3})});
  return failed(defineView(op->getResult(0), shuffled, xd)) ? failure() : success();
}

/// The forward op: `kernel` from X into Out (`outDims`). Its gradient:
/// `kernel`_grad from Out@GRAD (operand 1) into X@GRAD (X's dims), unless
/// nobody uses X@GRAD.
static LogicalResult emitForwardOrGrad(ProgramLowering &lowering, Operation *op, bool grad,
                                       StringRef kernel, const SymShape &outDims,
                                       const std::vector<AttrDesc> &attrs) {
  Value x = op->getOperand(0), result = op->getResult(0);
  if (grad && !lowering.isNeeded(result))
    return success();
  FailureOr<int32_t> buffer = lowering.defineResult(result, grad ? lowering.dimsOf(x) : outDims);
  if (failed(buffer))
    return failure();
  lowering.emit(grad ? (kernel + "_grad").str() : kernel.str(),
                {lowering.bufferOf(grad ? op->getOperand(1) : x)}, {*buffer}, attrs);
  return success();
}

/// pad2d/pad3d and their gradients: `paddings` per dim of X, in X's dim
/// order (ResizeSpec.h's padsPerDim), and the kernel's mode name.
LogicalResult ProgramLowering::lowerPad(Operation *op, bool innerFirst, StringRef valueAttr) {
  bool grad = op->getNumOperands() == 2;
  Value x = op->getOperand(0);
  SymShape xd = dimsOf(x);
  pd::OpAttributes attrs(op);
  auto pads = pd::padsPerDim(static_cast<int64_t>(xd.size()), attrs.getInts("paddings"),
                             attrs.getString("data_format"), innerFirst);
  std::string mode = pd::padKernelMode(attrs.getString("mode"));
  if (!pads || mode.empty())
    return error(op) << "paddings or mode do not fit X " << describe(xd);
  std::vector<int64_t> flat;
  SymShape out = xd;
  for (size_t d = 0; d < xd.size(); ++d) {
    auto [before, after] = (*pads)[d];
    flat.push_back(before);
    flat.push_back(after);
    if (before == 0 && after == 0)
      continue;
    if (!xd[d].isStatic())
      return error(op) << "cannot pad the unknown dim " << d << " of X " << describe(xd);
    out[d] = DimDesc::fixed(xd[d].value + before + after);
  }
  std::vector<AttrDesc> kernelAttrs = {AttrDesc::ofInts("paddings", flat),
                                       AttrDesc::ofString("mode", mode)};
  if (!grad)
    kernelAttrs.push_back(AttrDesc::ofFloat("value", attrs.getFloat(valueAttr)));
  return emitForwardOrGrad(*this, op, grad, "pad", out, kernelAttrs);
}

/// The interpolate v2 ops and their gradients: the kernel takes the method,
/// the corner convention, the layout and the scales that set its sampling
/// ratio; the sizes are its operands' dims.
LogicalResult ProgramLowering::lowerInterp(Operation *op) {
  bool grad = op->getNumOperands() == 2;
  Value x = op->getOperand(0);
  SymShape xd = dimsOf(x);
  pd::OpAttributes attrs(op);
  std::string layout = attrs.getString("data_layout");
  std::optional<int64_t> h = pd::firstSpatialDim(layout, 2);
  auto scales = pd::interpScales(attrs.getFloats("scale"));
  if (xd.size() != 4 || !h || !scales)
    return error(op) << "X " << describe(xd) << ", data_layout or scale are not supported";
  SymShape out = xd;
  const std::pair<const char *, double> sizes[2] = {{"out_h", scales->first},
                                                    {"out_w", scales->second}};
  for (int i = 0; i < 2; ++i) {
    const DimDesc &in = xd[*h + i];
    if (!in.isStatic())
      return error(op) << "cannot resize the unknown dim " << *h + i << " of X " << describe(xd);
    out[*h + i] =
        DimDesc::fixed(pd::interpOutSize(in.value, sizes[i].second, attrs.getInt(sizes[i].first)));
  }
  std::vector<AttrDesc> kernelAttrs = {
      AttrDesc::ofString("method", attrs.getString("interp_method")),
      AttrDesc::ofInt("align_corners", attrs.getBool("align_corners")),
      AttrDesc::ofInt("align_mode", attrs.getInt("align_mode")),
      AttrDesc::ofString("layout", layout),
      AttrDesc::ofFloat("scale_h", scales->first),
      AttrDesc::ofFloat("scale_w", scales->second)};
  return emitForwardOrGrad(*this, op, grad, "interp", out, kernelAttrs);
}

} // namespace distc::target
