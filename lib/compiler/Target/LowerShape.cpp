//===- LowerShape.cpp - reshape, transpose, concat, split, slice ----------===//
//
// Reshapes are views (no copy); Paddle's `0` and `-1` shape entries are
// resolved here against possibly unknown dims.
//
//===----------------------------------------------------------------------===//

#include "ProgramLowering.h"

#include "distc/Dialect/Pd/OpCatalog.h"

using namespace mlir;

namespace distc::target {

LogicalResult ProgramLowering::lowerReshape(Operation *op) {
  Value x = op->getOperand(0);
  const SymShape &xd = dimsOf(x);
  std::vector<int64_t> shape = pd::OpAttributes(op).getInts("shape");
  std::optional<DimDesc> total = product(xd);
  if (!total)
    return error(op) << "cannot reshape " << describe(xd) << ": several unknown dims";
  SymShape out(shape.size(), DimDesc::fixed(1));
  int inferred = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0) {
      if (i >= xd.size())
        return error(op) << "shape entry " << i << " is 0 but X " << describe(xd)
                         << " has no dim " << i;
      out[i] = xd[i];
    } else if (shape[i] == -1) {
      if (inferred >= 0)
        return error(op) << "shape has more than one -1";
      inferred = static_cast<int>(i);
    } else if (shape[i] > 0) {
      out[i] = DimDesc::fixed(shape[i]);
    } else {
      return error(op) << "invalid shape entry " << shape[i];
    }
  }
  if (inferred >= 0) {
    SymShape known = out;
    known.erase(known.begin() + inferred);
    std::optional<DimDesc> knownCount = product(known);
    std::optional<DimDesc> rest = knownCount ? divide(*total, *knownCount) : std::nullopt;
    if (!rest)
      return error(op) << "cannot infer the -1 entry reshaping " << describe(xd) << " to "
                       << describe(out);
    out[inferred] = *rest;
  }
  std::optional<DimDesc> outCount = product(out);
  if (!outCount || (outCount->isStatic() && total->isStatic() && outCount->value != total->value))
    return error(op) << "cannot reshape " << describe(xd) << " to " << describe(out);
  if (failed(defineView(op->getResult(0), bufferOf(x), out)))
    return failure();
  return bindXShape(op);
}

/// XShape (reshape2, transpose2, squeeze2, ...) carries no data: Paddle's
/// gradient ops read only its shape, which their lowering takes from the
/// forward op's input. It is bound to X's buffer so those ops find an
/// operand; a use by anything but the op's own gradient op is an error.
LogicalResult ProgramLowering::bindXShape(Operation *op) {
  if (op->getNumResults() < 2 || op->getResult(1).use_empty())
    return success();
  const pd::OpSpec *spec = pd::lookupOp(op->getName().stripDialect());
  for (Operation *user : op->getResult(1).getUsers())
    if (!spec || spec->gradOp.empty() || user->getName().stripDialect() != StringRef(spec->gradOp.data(), spec->gradOp.size()))
      return error(op) << "XShape is only meaningful to gradient ops";
  bind(op->getResult(1), bufferOf(op->getOperand(0)));
  return success();
}

LogicalResult ProgramLowering::lowerTranspose(Operation *op) {
  Value x = op->getOperand(0);
  const SymShape &xd = dimsOf(x);
  std::vector<int64_t> perm = pd::OpAttributes(op).getInts("axis");
  if (perm.size() != xd.size())
    return error(op) << "axis has " << perm.size() << " entries for X " << describe(xd);
  SymShape out;
  std::vector<bool> seen(xd.size(), false);
  for (int64_t &p : perm) {
    auto axis = normalizeAxis(p, static_cast<int64_t>(xd.size()));
    if (!axis || seen[*axis])
      return error(op) << "axis is not a permutation of 0.." << xd.size() - 1;
    seen[*axis] = true;
    p = *axis;
    out.push_back(xd[p]);
  }
  FailureOr<int32_t> result = defineResult(op->getResult(0), out);
  if (failed(result))
    return failure();
  if (failed(bindXShape(op)))
    return failure();
  emit("transpose", {bufferOf(x)}, {*result}, {AttrDesc::ofInts("perm", perm)});
  return success();
}

LogicalResult ProgramLowering::lowerConcat(Operation *op) {
  if (op->getNumOperands() == 0)
    return error(op) << "concat of nothing";
  SymShape out = dimsOf(op->getOperand(0));
  auto axis = normalizeAxis(pd::OpAttributes(op).getInt("axis"), static_cast<int64_t>(out.size()));
  if (!axis)
    return error(op) << "axis out of range for rank " << out.size();
  std::vector<int32_t> inputs = {bufferOf(op->getOperand(0))};
  for (Value x : op->getOperands().drop_front()) {
    const SymShape &xd = dimsOf(x);
    if (xd.size() != out.size())
      return error(op) << "inputs of different ranks: " << describe(out) << " and "
                       << describe(xd);
    for (size_t i = 0; i < xd.size(); ++i) {
      if (static_cast<int64_t>(i) != *axis) {
        if (xd[i].isStatic() != out[i].isStatic() ||
            (xd[i].isStatic() && xd[i].value != out[i].value))
          return error(op) << "inputs differ off the concat axis: " << describe(out) << " and "
                           << describe(xd);
        unify(out[i], xd[i]);
        continue;
      }
      const DimDesc &a = out[i], &b = xd[i];
      if (a.isStatic() && b.isStatic())
        out[i] = DimDesc::fixed(a.value + b.value);
      else if (!a.isStatic() && !b.isStatic() && a.sym == b.sym && a.div == b.div)
        out[i] = DimDesc::symbolic(a.sym, a.value + b.value, a.div);
      else
        return error(op) << "cannot concatenate unknown dims " << describe({a}) << " and "
                         << describe({b});
    }
    inputs.push_back(bufferOf(x));
  }
  FailureOr<int32_t> result = defineResult(op->getResult(0), out);
  if (failed(result))
    return failure();
  emit("concat", inputs, {*result}, {AttrDesc::ofInt("axis", *axis)});
  return success();
}

LogicalResult ProgramLowering::lowerSplit(Operation *op) {
  Value x = op->getOperand(0);
  const SymShape &xd = dimsOf(x);
  pd::OpAttributes attrs(op);
  auto axis = normalizeAxis(attrs.getInt("axis"), static_cast<int64_t>(xd.size()));
  if (!axis)
    return error(op) << "axis out of range for X " << describe(xd);
  unsigned count = op->getNumResults();
  std::vector<int64_t> sections = attrs.getInts("sections");
  const DimDesc &whole = xd[*axis];
  std::vector<DimDesc> pieces;
  if (sections.empty()) {
    std::optional<DimDesc> piece = divide(whole, DimDesc::fixed(count));
    if (!piece)
      return error(op) << "cannot split " << describe({whole}) << " into " << count
                       << " equal pieces";
    pieces.assign(count, *piece);
  } else {
    if (!whole.isStatic())
      return error(op) << "sections of an unknown dim " << describe({whole})
                       << " are not supported";
    int64_t known = 0, unknownAt = -1;
    for (size_t i = 0; i < sections.size(); ++i) {
      if (sections[i] == -1)
        unknownAt = static_cast<int64_t>(i);
      else
        known += sections[i];
    }
    for (int64_t s : sections)
      pieces.push_back(DimDesc::fixed(s));
    if (unknownAt >= 0)
      pieces[unknownAt] = DimDesc::fixed(whole.value - known);
    if (pieces.size() != count)
      return error(op) << sections.size() << " sections for " << count << " outputs";
  }
  std::vector<int32_t> outputs;
  for (unsigned i = 0; i < count; ++i) {
    SymShape out = xd;
    out[*axis] = pieces[i];
    FailureOr<int32_t> result = defineResult(op->getResult(i), out);
    if (failed(result))
      return failure();
    outputs.push_back(*result);
  }
  emit("split", {bufferOf(x)}, outputs, {AttrDesc::ofInt("axis", *axis)});
  return success();
}

LogicalResult ProgramLowering::lowerSlice(Operation *op) {
  Value x = op->getOperand(0);
  const SymShape &xd = dimsOf(x);
  pd::OpAttributes attrs(op);
  std::vector<int64_t> axes = attrs.getInts("axes"), starts = attrs.getInts("starts"),
                       ends = attrs.getInts("ends"), decrease = attrs.getInts("decrease_axis");
  if (axes.size() != starts.size() || axes.size() != ends.size())
    return error(op) << "axes, starts and ends differ in length";
  int64_t rank = static_cast<int64_t>(xd.size());
  SymShape full = xd;
  for (size_t i = 0; i < axes.size(); ++i) {
    auto axis = normalizeAxis(axes[i], rank);
    if (!axis)
      return error(op) << "slice axis " << axes[i] << " out of range for rank " << rank;
    axes[i] = *axis;
    const DimDesc &d = xd[*axis];
    if (!d.isStatic()) {
      // An unknown dim can only be kept whole: its extent is still the symbol.
      if (starts[i] != 0 || ends[i] < (int64_t(1) << 30))
        return error(op) << "slicing the unknown dim " << *axis << " of " << describe(xd)
                         << " is only supported over its full range";
      continue;
    }
    auto clampIndex = [&](int64_t v) {
      if (v < 0)
        v += d.value;
      return std::clamp<int64_t>(v, 0, d.value);
    };
    full[*axis] = DimDesc::fixed(std::max<int64_t>(0, clampIndex(ends[i]) - clampIndex(starts[i])));
  }
  SymShape out;
  for (int64_t i = 0; i < rank; ++i)
    if (std::find(decrease.begin(), decrease.end(), i) == decrease.end())
      out.push_back(full[i]);
  std::vector<AttrDesc> kernelAttrs = {AttrDesc::ofInts("axes", axes),
                                       AttrDesc::ofInts("starts", starts),
                                       AttrDesc::ofInts("ends", ends)};
  if (decrease.empty()) {
    FailureOr<int32_t> result = defineResult(op->getResult(0), full);
    if (failed(result))
      return failure();
    emit("slice", {bufferOf(x)}, {*result}, kernelAttrs);
    return success();
  }
  FailureOr<artifact::DType> dtype =
      toArtifactDType(cast<RankedTensorType>(op->getResult(0).getType()).getElementType());
  if (failed(dtype))
    return error(op) << "unsupported element type";
  int32_t sliced = addBuffer(nameOf(op->getResult(0)) + ".full", *dtype, full, BufferKind::Temp);
  emit("slice", {bufferOf(x)}, {sliced}, kernelAttrs);
  return defineView(op->getResult(0), sliced, out.empty() ? SymShape{} : out);
}

} // namespace distc::target
