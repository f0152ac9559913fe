//===- LowerGrad.cpp - backward ops to runtime kernels --------------------===//
//
// Paddle's `<op>_grad` ops become the training kernels of docs/kernels.md
// plus views, matmuls and reductions. Broadcasting in the forward op shows
// up here as a sum over the broadcast axes. A gradient result nothing uses
// (Paddle would not have asked for it) is not computed.
//
//===----------------------------------------------------------------------===//

#include "ProgramLowering.h"

#include "distc/Artifact/ElementwiseLoop.h"
#include "distc/Dialect/Pd/PdDialect.h"
#include "distc/Dialect/Pd/PdOps.h"

#include <algorithm>

using namespace mlir;

namespace distc::target {
namespace {

/// `dims` right-aligned (Paddle's axis = -1) or placed at `axis` within
/// `rank` dims, padded with 1s: how an element-wise operand was broadcast.
SymShape alignTo(const SymShape &dims, int64_t axis, size_t rank) {
  size_t start = axis < 0 ? rank - dims.size() : static_cast<size_t>(axis);
  SymShape out(start, DimDesc::fixed(1));
  out.insert(out.end(), dims.begin(), dims.end());
  out.resize(rank, DimDesc::fixed(1));
  return out;
}

} // namespace

bool ProgramLowering::isNeeded(Value result) const { return !result.use_empty(); }

int32_t ProgramLowering::temp(const std::string &name, int32_t like, SymShape dims) {
  return addBuffer(name, state.desc.buffers[like].dtype, std::move(dims), BufferKind::Temp);
}

/// Sums `grad` (with `full` dims) down to the forward operand's `own`
/// dims, `aligned` being them padded to full's rank; writes `result`.
LogicalResult ProgramLowering::emitReduceTo(int32_t grad, const SymShape &full,
                                            const SymShape &aligned, const SymShape &own,
                                            Value result) {
  std::vector<int64_t> axes;
  for (size_t i = 0; i < full.size(); ++i)
    if (isOne(aligned[i]) && !isOne(full[i]))
      axes.push_back(static_cast<int64_t>(i));
  if (axes.empty()) // nothing was broadcast: the gradient is dOut itself
    return failed(defineView(result, grad, own)) ? failure() : success();
  FailureOr<int32_t> out = defineResult(result, own);
  if (failed(out))
    return failure();
  emit("reduce", {grad}, {view(*out, aligned)},
       {AttrDesc::ofString("op", "sum"), AttrDesc::ofInts("axes", axes)});
  return success();
}

LogicalResult ProgramLowering::lowerElementwiseGrad(Operation *op, StringRef kind) {
  Value x = op->getOperand(0), y = op->getOperand(1), dout = op->getOperand(2);
  Value dx = op->getResult(0), dy = op->getResult(1);
  const SymShape &xd = dimsOf(x), &yd = dimsOf(y), &od = dimsOf(dout);
  int64_t axis = pd::OpAttributes(op).getInt("axis");
  size_t rank = od.size();
  if (xd.size() > rank || yd.size() > rank)
    return error(op) << "Out@GRAD " << describe(od) << " has lower rank than X or Y";
  SymShape xa = xd.size() == rank ? xd : alignTo(xd, axis, rank);
  SymShape ya = yd.size() == rank ? yd : alignTo(yd, axis, rank);
  int32_t g = bufferOf(dout);

  auto gradFor = [&](Value result, const SymShape &own, const SymShape &aligned, Value other,
                     const SymShape &otherAligned, bool isX) -> LogicalResult {
    if (!isNeeded(result))
      return success();
    std::string name = nameOf(result);
    int32_t full = g;
    if (kind == "sub" && !isX) {
      full = temp(name + ".neg", g, od);
      emit("scale", {g}, {full}, {AttrDesc::ofFloat("scale", -1.0), AttrDesc::ofFloat("bias", 0)});
    } else if (kind == "mul") {
      full = temp(name + ".full", g, od);
      emit("binary", {g, view(bufferOf(other), otherAligned)}, {full},
           {AttrDesc::ofString("op", "mul")});
    } else if (kind == "max" || kind == "min") {
      // Out@GRAD where this operand is the one chosen: X strictly (a tie
      // goes to Y, as in Paddle).
      const char *mask = kind == "max" ? (isX ? "gt" : "le") : (isX ? "lt" : "ge");
      int32_t chosen = temp(name + ".chosen", g, od);
      emit("binary", {view(bufferOf(x), xa), view(bufferOf(y), ya)}, {chosen},
           {AttrDesc::ofString("op", mask)});
      full = temp(name + ".full", g, od);
      emit("binary", {g, chosen}, {full}, {AttrDesc::ofString("op", "mul")});
    } else if (kind == "div" && isX) {
      full = temp(name + ".full", g, od);
      emit("binary", {g, view(bufferOf(y), ya)}, {full}, {AttrDesc::ofString("op", "div")});
    } else if (kind == "div") {
      // d(x/y)/dy = -x/y^2.
      int32_t q = temp(name + ".q", g, od), q2 = temp(name + ".q2", g, od);
      full = temp(name + ".full", g, od);
      emit("binary", {view(bufferOf(x), xa), view(bufferOf(y), ya)}, {q},
           {AttrDesc::ofString("op", "div")});
      emit("binary", {q, view(bufferOf(y), ya)}, {q2}, {AttrDesc::ofString("op", "div")});
      emit("binary", {g, q2}, {full}, {AttrDesc::ofString("op", "mul")});
      int32_t neg = temp(name + ".neg", g, od);
      emit("scale", {full}, {neg}, {AttrDesc::ofFloat("scale", -1.0), AttrDesc::ofFloat("bias", 0)});
      full = neg;
    }
    return emitReduceTo(full, od, aligned, own, result);
  };
  if (failed(gradFor(dx, xd, xa, y, ya, true)) || failed(gradFor(dy, yd, ya, x, xa, false)))
    return failure();
  return success();
}

LogicalResult ProgramLowering::lowerFusedElemwiseActivationGrad(Operation *op) {
  auto grad = cast<pd::FusedElemwiseAddActivationGradOp>(op);
  std::vector<std::string> functors = pd::OpAttributes(op).getStrings("functor_list");
  const bool addFirst = functors[0] == "elementwise_add_grad"; // of X + act(Y)
  const int64_t actGrad = int64_t(artifact::findLoopOp(functors[addFirst ? 1 : 0])->op);
  Value dout = op->getOperand(op->getNumOperands() - 1);
  Value dx = grad.getResult(0), dy = grad.getResult(1), dInter = grad.getResult(2);
  const SymShape od = dimsOf(dout), yd = dimsOf(grad.getY());
  const SymShape xd = grad.getX() ? dimsOf(grad.getX()) : od;
  const int64_t axis = pd::OpAttributes(op).getInt("axis");
  const SymShape xa = xd.size() == od.size() ? xd : alignTo(xd, axis, od.size());
  const SymShape ya = yd.size() == od.size() ? yd : alignTo(yd, axis, od.size());
  // act'(v)·g as a one-instruction loop into `result` (or a temporary).
  auto activationGrad = [&](Value v, Value result, const SymShape &dims) -> FailureOr<int32_t> {
    int32_t d;
    if (isNeeded(result)) {
      FailureOr<int32_t> b = defineResult(result, dims);
      if (failed(b))
        return failure();
      d = *b;
    } else {
      d = temp(nameOf(dout) + ".act_grad", bufferOf(dout), dims);
    }
    emitLoop({bufferOf(v), bufferOf(dout)}, {d}, {actGrad, 0, 1, -1}, {}, {2});
    return d;
  };
  if (!addFirst) {
    // act(X + Y): d = act'(Out)·dOut, then the add's gradient of d.
    if (!isNeeded(dx) && !isNeeded(dy) && !isNeeded(dInter))
      return success();
    FailureOr<int32_t> d = activationGrad(grad.getOut(), dInter, od);
    if (failed(d))
      return failure();
    if (isNeeded(dx) && failed(emitReduceTo(*d, od, xa, xd, dx)))
      return failure();
    if (isNeeded(dy) && failed(emitReduceTo(*d, od, ya, yd, dy)))
      return failure();
    return success();
  }
  // X + act(Y): dX and the intermediate's gradient are dOut; dY = act'·dOut.
  if (isNeeded(dx) && failed(emitReduceTo(bufferOf(dout), od, xa, xd, dx)))
    return failure();
  if (isNeeded(dInter) && failed(defineView(dInter, bufferOf(dout), yd)))
    return failure();
  if (isNeeded(dy) && failed(activationGrad(grad.getIntermediateOut(), dy, yd)))
    return failure();
  return success();
}

LogicalResult ProgramLowering::lowerMulGrad(Operation *op) {
  Value x = op->getOperand(0), y = op->getOperand(1), dout = op->getOperand(2);
  const SymShape &xd = dimsOf(x), &yd = dimsOf(y);
  pd::OpAttributes attrs(op);
  int64_t xn = attrs.getInt("x_num_col_dims"), yn = attrs.getInt("y_num_col_dims");
  auto m = product(SymShape(xd.begin(), xd.begin() + xn));
  auto k = product(SymShape(xd.begin() + xn, xd.end()));
  auto n = product(SymShape(yd.begin() + yn, yd.end()));
  if (!m || !k || !n)
    return error(op) << "cannot flatten X " << describe(xd) << " or Y " << describe(yd);
  int32_t g = view(bufferOf(dout), {*m, *n});
  if (isNeeded(op->getResult(0))) { // dX = dOut · Yᵀ
    FailureOr<int32_t> dx = defineResult(op->getResult(0), xd);
    if (failed(dx))
      return failure();
    emit("matmul", {g, view(bufferOf(y), {*k, *n})}, {view(*dx, {*m, *k})},
         {AttrDesc::ofInt("trans_a", 0), AttrDesc::ofInt("trans_b", 1)});
  }
  if (isNeeded(op->getResult(1))) { // dY = Xᵀ · dOut
    FailureOr<int32_t> dy = defineResult(op->getResult(1), yd);
    if (failed(dy))
      return failure();
    emit("matmul", {view(bufferOf(x), {*m, *k}), g}, {view(*dy, {*k, *n})},
         {AttrDesc::ofInt("trans_a", 1), AttrDesc::ofInt("trans_b", 0)});
  }
  return success();
}

LogicalResult ProgramLowering::lowerMatmulGrad(Operation *op) {
  pd::OpAttributes attrs(op);
  return lowerMatmulGradAs(op, attrs.getBool("trans_x"), attrs.getBool("trans_y"),
                           bufferOf(op->getOperand(2)));
}

LogicalResult ProgramLowering::lowerMatmulGradAs(Operation *op, bool tx, bool ty, int32_t g) {
  Value x = op->getOperand(0), y = op->getOperand(1), dout = op->getOperand(2);
  SymShape xd = dimsOf(x), yd = dimsOf(y), od = dimsOf(dout);
  if (xd.size() < 2 || yd.size() < 2)
    return error(op) << "matmul_v2_grad of 1-D operands is not supported yet (X "
                     << describe(xd) << ", Y " << describe(yd) << ")";
  int32_t xb = bufferOf(x), yb = bufferOf(y);
  // A 2-D operand shared by every batch (a weight): flatten the batch into
  // rows, so its gradient is one GEMM over all of them.
  bool yShared = yd.size() == 2 && xd.size() > 2 && !tx;
  bool xShared = xd.size() == 2 && yd.size() > 2;
  if (xShared)
    return error(op) << "matmul_v2_grad with a 2-D X and batched Y is not supported yet";
  if (!yShared) {
    if (xd.size() != yd.size())
      return error(op) << "matmul_v2_grad needs equal ranks or a 2-D Y (X " << describe(xd)
                       << ", Y " << describe(yd) << ")";
    for (size_t i = 0; i + 2 < xd.size(); ++i)
      if (!sameDim(xd[i], yd[i]))
        return error(op) << "matmul_v2_grad with broadcast batch dims is not supported yet (X "
                         << describe(xd) << ", Y " << describe(yd) << ")";
  }
  if (yShared) {
    auto rows = product(SymShape(xd.begin(), xd.end() - 1));
    if (!rows)
      return error(op) << "cannot flatten X " << describe(xd);
    xd = {*rows, xd.back()};
    od = {*rows, od.back()};
    xb = view(xb, xd);
    g = view(g, od);
  }
  auto matmul = [&](int32_t a, bool ta, int32_t b, bool tb, Value result,
                    const SymShape &resultDims, const SymShape &viewDims) -> LogicalResult {
    FailureOr<int32_t> out = defineResult(result, resultDims);
    if (failed(out))
      return failure();
    emit("matmul", {a, b}, {view(*out, viewDims)},
         {AttrDesc::ofInt("trans_a", ta), AttrDesc::ofInt("trans_b", tb)});
    return success();
  };
  Value dx = op->getResult(0), dy = op->getResult(1);
  const SymShape &dxDims = dimsOf(x);
  if (isNeeded(dx)) {
    LogicalResult r = !tx ? matmul(g, false, yb, !ty, dx, dxDims, xd)   // dOut·Yᵀ or dOut·Y
                      : !ty ? matmul(yb, false, g, true, dx, dxDims, xd) // Y·dOutᵀ
                            : matmul(yb, true, g, true, dx, dxDims, xd); // Yᵀ·dOutᵀ
    if (failed(r))
      return failure();
  }
  if (isNeeded(dy)) {
    LogicalResult r = !ty ? matmul(xb, !tx, g, false, dy, yd, yd)      // Xᵀ·dOut or X·dOut
                      : !tx ? matmul(g, true, xb, false, dy, yd, yd)  // dOutᵀ·X
                            : matmul(g, true, xb, true, dy, yd, yd);  // dOutᵀ·Xᵀ
    if (failed(r))
      return failure();
  }
  return success();
}

LogicalResult ProgramLowering::lowerUnaryGrad(Operation *op, StringRef unaryOp) {
  if (!isNeeded(op->getResult(0)))
    return success();
  Value in = op->getOperand(0), dout = op->getOperand(1);
  FailureOr<int32_t> dx = defineResult(op->getResult(0), dimsOf(dout));
  if (failed(dx))
    return failure();
  emit("unary_grad", {bufferOf(in), bufferOf(dout)}, {*dx},
       {AttrDesc::ofString("op", unaryOp.str())});
  return success();
}

LogicalResult ProgramLowering::lowerSoftmaxGrad(Operation *op) {
  Value out = op->getOperand(0), dout = op->getOperand(1);
  int64_t rank = static_cast<int64_t>(dimsOf(out).size());
  auto axis = normalizeAxis(pd::OpAttributes(op).getInt("axis"), rank);
  if (!axis)
    return error(op) << "axis out of range for rank " << rank;
  FailureOr<int32_t> dx = defineResult(op->getResult(0), dimsOf(out));
  if (failed(dx))
    return failure();
  emit("softmax_grad", {bufferOf(out), bufferOf(dout)}, {*dx}, {AttrDesc::ofInt("axis", *axis)});
  return success();
}

/// reduce_sum/reduce_mean/mean: the output gradient broadcast back over the
/// reduced axes (divided by their size for a mean).
LogicalResult ProgramLowering::lowerReduceGrad(Operation *op, bool isMean, bool all) {
  Value x = op->getOperand(0), dout = op->getOperand(1);
  const SymShape &xd = dimsOf(x);
  int64_t rank = static_cast<int64_t>(xd.size());
  std::vector<bool> reduced(rank, all);
  if (!all) {
    pd::OpAttributes attrs(op);
    if (attrs.getBool("reduce_all"))
      reduced.assign(rank, true);
    else
      for (int64_t d : attrs.getInts("dim"))
        if (auto axis = normalizeAxis(d, rank))
          reduced[*axis] = true;
  }
  SymShape kept;
  for (int64_t i = 0; i < rank; ++i)
    kept.push_back(reduced[i] ? DimDesc::fixed(1) : xd[i]);
  FailureOr<int32_t> dx = defineResult(op->getResult(0), xd);
  if (failed(dx))
    return failure();
  std::vector<AttrDesc> attrs;
  if (isMean)
    attrs.push_back(AttrDesc::ofInt("mean", 1));
  emit("broadcast", {view(bufferOf(dout), kept)}, {*dx}, attrs);
  return success();
}

/// reshape2_grad/transpose2_grad get XShape, not X: X (and its dims) is the
/// input of the forward op that produced XShape.
FailureOr<Value> ProgramLowering::forwardInputOfXShape(Operation *op) {
  Operation *forward = op->getOperand(0).getDefiningOp();
  if (!forward || forward->getNumOperands() == 0 || !buffers.count(forward->getOperand(0)))
    return error(op) << "XShape does not come from a forward op of this program";
  return forward->getOperand(0);
}

LogicalResult ProgramLowering::lowerReshapeGrad(Operation *op) {
  FailureOr<Value> x = forwardInputOfXShape(op);
  if (failed(x))
    return failure();
  FailureOr<int32_t> dx = defineView(op->getResult(0), bufferOf(op->getOperand(1)), dimsOf(*x));
  return failed(dx) ? failure() : success();
}

LogicalResult ProgramLowering::lowerTransposeGrad(Operation *op) {
  FailureOr<Value> x = forwardInputOfXShape(op);
  if (failed(x))
    return failure();
  Value dout = op->getOperand(1);
  std::vector<int64_t> perm = pd::OpAttributes(op).getInts("axis");
  std::vector<int64_t> inverse(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) {
    auto axis = normalizeAxis(perm[i], static_cast<int64_t>(perm.size()));
    if (!axis)
      return error(op) << "bad permutation";
    inverse[*axis] = static_cast<int64_t>(i);
  }
  FailureOr<int32_t> dx = defineResult(op->getResult(0), dimsOf(*x));
  if (failed(dx))
    return failure();
  emit("transpose", {bufferOf(dout)}, {*dx}, {AttrDesc::ofInts("perm", inverse)});
  return success();
}

LogicalResult ProgramLowering::lowerConcatGrad(Operation *op) {
  unsigned n = op->getNumResults();
  Value dout = op->getOperand(n);
  int64_t rank = static_cast<int64_t>(dimsOf(dout).size());
  auto axis = normalizeAxis(pd::OpAttributes(op).getInt("axis"), rank);
  if (!axis)
    return error(op) << "axis out of range for rank " << rank;
  std::vector<int32_t> outs;
  for (unsigned i = 0; i < n; ++i) {
    Value result = op->getResult(i);
    const SymShape &dims = dimsOf(op->getOperand(i));
    if (isNeeded(result)) {
      FailureOr<int32_t> b = defineResult(result, dims);
      if (failed(b))
        return failure();
      outs.push_back(*b);
    } else {
      outs.push_back(temp(nameOf(dout) + ".unused" + std::to_string(i), bufferOf(dout), dims));
    }
  }
  emit("split", {bufferOf(dout)}, outs, {AttrDesc::ofInt("axis", *axis)});
  return success();
}

LogicalResult ProgramLowering::lowerSliceGrad(Operation *op) {
  Value input = op->getOperand(0), dout = op->getOperand(1);
  pd::OpAttributes attrs(op);
  const SymShape &id = dimsOf(input);
  std::vector<int64_t> axes = attrs.getInts("axes");
  // Restore the axes a decrease_axis slice dropped, as size 1.
  SymShape outDims = dimsOf(dout);
  for (int64_t d : attrs.getInts("decrease_axis"))
    if (d >= 0 && static_cast<size_t>(d) <= outDims.size())
      outDims.insert(outDims.begin() + d, DimDesc::fixed(1));
  if (outDims.size() != id.size())
    return error(op) << "Out@GRAD " << describe(dimsOf(dout)) << " does not match Input "
                     << describe(id);
  FailureOr<int32_t> dx = defineResult(op->getResult(0), id);
  if (failed(dx))
    return failure();
  emit("slice_grad", {view(bufferOf(dout), outDims)}, {*dx},
       {AttrDesc::ofInts("axes", axes), AttrDesc::ofInts("starts", attrs.getInts("starts")),
        AttrDesc::ofInts("ends", attrs.getInts("ends"))});
  return success();
}

LogicalResult ProgramLowering::lowerLookupTableGrad(Operation *op) {
  if (pd::isSelectedRows(op->getResult(0).getType()))
    return lowerSparseLookupGrad(op);
  Value ids = op->getOperand(0), w = op->getOperand(1), dout = op->getOperand(2);
  FailureOr<int32_t> dw = defineResult(op->getResult(0), dimsOf(w));
  if (failed(dw))
    return failure();
  emit("gather_rows_grad", {bufferOf(ids), bufferOf(dout)}, {*dw},
       {AttrDesc::ofInt("padding_idx", pd::OpAttributes(op).getInt("padding_idx"))});
  return success();
}

LogicalResult ProgramLowering::lowerLayerNormGrad(Operation *op) {
  // Operands: X, Scale?, Bias?, Mean, Variance, Y@GRAD (segment sizes say
  // which optional ones are present); the kernel recomputes the statistics.
  auto segments = op->getAttrOfType<DenseI32ArrayAttr>("operandSegmentSizes");
  bool hasScale = segments && segments[1] > 0, hasBias = segments && segments[2] > 0;
  Value x = op->getOperand(0);
  Value scale = hasScale ? op->getOperand(1) : Value();
  Value dy = op->getOperand(op->getNumOperands() - 1);
  pd::OpAttributes attrs(op);
  std::vector<int32_t> outs;
  FailureOr<int32_t> dx = defineResult(op->getResult(0), dimsOf(x));
  if (failed(dx))
    return failure();
  outs.push_back(*dx);
  for (unsigned i : {1u, 2u}) {
    Value result = op->getResult(i);
    bool present = i == 1 ? hasScale : hasBias;
    if (!present || !isNeeded(result)) {
      outs.push_back(-1);
      continue;
    }
    // Bias is operand 2 after a Scale, operand 1 without one.
    unsigned operand = i == 1 ? 1 : (hasScale ? 2 : 1);
    FailureOr<int32_t> b = defineResult(result, dimsOf(op->getOperand(operand)));
    if (failed(b))
      return failure();
    outs.push_back(*b);
  }
  emit("layer_norm_grad", {bufferOf(x), scale ? bufferOf(scale) : -1, bufferOf(dy)}, outs,
       {AttrDesc::ofInt("begin_norm_axis", attrs.getInt("begin_norm_axis")),
        AttrDesc::ofFloat("epsilon", attrs.getFloat("epsilon"))});
  return success();
}

/// The gradient of the dropout lowerDropout emitted: the training form
/// (train program, not is_test) multiplies by the step's mask; the
/// inference form is the identity (upscale_in_train) or a scale by 1 − p.
LogicalResult ProgramLowering::lowerDropoutGrad(Operation *op) {
  pd::OpAttributes attrs(op);
  return emitDropoutGrad(op, op->getOperand(0), op->getOperand(1), op->getResult(0),
                         attrs.getFloat("dropout_prob"), attrs.getString("dropout_implementation"));
}

/// fused_dropout_add's gradient: dropout's for X@GRAD, and Out@GRAD itself
/// (a view) for Y@GRAD.
LogicalResult ProgramLowering::lowerFusedDropoutAddGrad(Operation *op) {
  pd::OpAttributes attrs(op);
  Value dout = op->getOperand(1);
  if (isNeeded(op->getResult(1)) &&
      failed(defineView(op->getResult(1), bufferOf(dout), dimsOf(dout))))
    return failure();
  if (!isNeeded(op->getResult(0)))
    return success();
  return emitDropoutGrad(op, op->getOperand(0), dout, op->getResult(0), attrs.getFloat("p"),
                         attrs.getString("mode"));
}

LogicalResult ProgramLowering::emitDropoutGrad(Operation *op, Value mask, Value dout, Value dx,
                                               double p, StringRef impl) {
  int32_t dy = bufferOf(dout);
  FailureOr<int32_t> result =
      emitDropoutGradOf(mask, dy, p, impl == "upscale_in_train", isTrainingDropout(op),
                        [&] { return defineResult(dx, dimsOf(dout)); });
  if (failed(result))
    return failure();
  if (*result == dy && failed(defineView(dx, dy, dimsOf(dout))))
    return failure();
  return success();
}

FailureOr<int32_t>
ProgramLowering::emitDropoutGradOf(Value mask, int32_t dy, double p, bool upscale, bool training,
                                   llvm::function_ref<FailureOr<int32_t>()> defineOut) {
  if (!training && upscale)
    return dy;
  FailureOr<int32_t> dx = defineOut();
  if (failed(dx))
    return failure();
  if (training)
    emit("dropout_grad", {bufferOf(mask), dy}, {*dx},
         {AttrDesc::ofFloat("p", p), AttrDesc::ofInt("upscale", upscale)});
  else
    emit("scale", {dy}, {*dx},
         {AttrDesc::ofFloat("scale", 1.0 - p), AttrDesc::ofFloat("bias", 0.0),
          AttrDesc::ofInt("bias_after_scale", 1)});
  return *dx;
}

FailureOr<int32_t> ProgramLowering::emitFusedDropoutGrad(Operation *op, const std::string &prefix,
                                                         int32_t dy, Value mask,
                                                         const SymShape &dims,
                                                         const std::string &name) {
  pd::OpAttributes attrs(op);
  double p = attrs.getFloat(prefix + "_rate");
  if (p == 0)
    return dy;
  return emitDropoutGradOf(
      mask, dy, p, attrs.getString(prefix + "_implementation") == "upscale_in_train",
      isTrainingDropout(op),
      [&]() -> FailureOr<int32_t> { return temp(name + "." + prefix + "_grad", dy, dims); });
}

FailureOr<int32_t> ProgramLowering::defineIfNeeded(Value result, SymShape dims) {
  if (!result || !isNeeded(result))
    return -1;
  return defineResult(result, std::move(dims));
}

LogicalResult ProgramLowering::emitLayerNormGrad(int32_t in, Value scale, Value bias, int32_t dy,
                                                 int32_t dIn, Value dScale, Value dBias,
                                                 const SymShape &dims, double epsilon) {
  const SymShape vector = {dims.back()};
  FailureOr<int32_t> ds = defineIfNeeded(scale ? dScale : Value(), vector);
  FailureOr<int32_t> db = defineIfNeeded(bias ? dBias : Value(), vector);
  if (failed(ds) || failed(db))
    return failure();
  emit("layer_norm_grad", {in, scale ? bufferOf(scale) : -1, dy}, {dIn, *ds, *db},
       {AttrDesc::ofInt("begin_norm_axis", static_cast<int64_t>(dims.size()) - 1),
        AttrDesc::ofFloat("epsilon", epsilon)});
  return success();
}

LogicalResult ProgramLowering::lowerSoftmaxCrossEntropyGrad(Operation *op) {
  Value label = op->getOperand(0), softmax = op->getOperand(1), dloss = op->getOperand(2);
  pd::OpAttributes attrs(op);
  int64_t rank = static_cast<int64_t>(dimsOf(softmax).size());
  auto axis = normalizeAxis(attrs.getInt("axis"), rank);
  if (!axis)
    return error(op) << "axis out of range for rank " << rank;
  FailureOr<int32_t> dlogits = defineResult(op->getResult(0), dimsOf(softmax));
  if (failed(dlogits))
    return failure();
  emit("softmax_cross_entropy_grad", {bufferOf(softmax), bufferOf(label), bufferOf(dloss)},
       {*dlogits},
       {AttrDesc::ofInt("axis", *axis), AttrDesc::ofInt("soft_label", attrs.getBool("soft_label")),
        AttrDesc::ofInt("ignore_index", attrs.getInt("ignore_index"))});
  return success();
}

LogicalResult ProgramLowering::lowerSum(Operation *op) {
  if (llvm::all_of(op->getOperands(), [&](Value v) { return isRowSparse(v); }) &&
      pd::isSelectedRows(op->getResult(0).getType()))
    return lowerSparseSum(op);
  if (failed(densifyOperands(op)))
    return failure();
  Value first = op->getOperand(0);
  FailureOr<int32_t> out = defineResult(op->getResult(0), dimsOf(first));
  if (failed(out))
    return failure();
  if (op->getNumOperands() == 1) {
    emit("copy", {bufferOf(first)}, {*out});
    return success();
  }
  // Accumulate pairwise into the result: out = x0 + x1, out += xi.
  emit("binary", {bufferOf(first), bufferOf(op->getOperand(1))}, {*out},
       {AttrDesc::ofString("op", "add")});
  for (unsigned i = 2; i < op->getNumOperands(); ++i)
    emit("binary", {*out, bufferOf(op->getOperand(i))}, {*out}, {AttrDesc::ofString("op", "add")});
  return success();
}

} // namespace distc::target
