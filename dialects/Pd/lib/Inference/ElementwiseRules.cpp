//===- ElementwiseRules.cpp - Unary and element-wise inference ------------===//
//
// Paddle's element-wise broadcast (GetBroadcastDimsArrays): with axis = -1
// the shorter operand aligns with the trailing dims of the longer one;
// otherwise its dims start at `axis` of the longer one. Aligned sizes must be
// equal or one of them 1. Dynamic sizes follow Paddle: ? vs 1 -> ?,
// ? vs n -> n, ? vs ? -> ?.
//
//===----------------------------------------------------------------------===//

#include "Inference/InferContext.h"

using namespace mlir;

namespace distc::pd::infer {

LogicalResult inferElementwise(InferContext &c) {
  RankedTensorType x = c.input(0), y = c.input(1);
  if (failed(c.requireSameElementType(0, 1)))
    return failure();
  ArrayRef<int64_t> xDims = x.getShape(), yDims = y.getShape();
  int64_t xRank = xDims.size(), yRank = yDims.size();
  int64_t maxRank = std::max(xRank, yRank);
  int64_t axis = c.getInt("axis");
  if (axis == -1)
    axis = std::abs(xRank - yRank);
  // Paddle requires 0 <= axis <= max rank (axis == max rank only happens
  // for a 0-D operand, which aligns with nothing).
  if (axis < 0 || axis > maxRank)
    return c.error() << "attribute 'axis' = " << c.getInt("axis")
                     << " is out of range for input slots 'X' " << x << " and 'Y' " << y;

  // Pad the shorter operand with 1s so both have the longer rank.
  Dims xs(maxRank, 1), ys(maxRank, 1);
  auto place = [&](ArrayRef<int64_t> dims, Dims &into) -> bool {
    if (static_cast<int64_t>(dims.size()) == maxRank) {
      llvm::copy(dims, into.begin());
      return true;
    }
    if (axis + static_cast<int64_t>(dims.size()) > maxRank)
      return false;
    llvm::copy(dims, into.begin() + axis);
    return true;
  };
  if (!place(xDims, xs) || !place(yDims, ys))
    return c.error() << "attribute 'axis' = " << c.getInt("axis") << " places input slot '"
                     << (xRank < yRank ? "X" : "Y") << "' past the end of the other operand: "
                     << "'X' " << x << ", 'Y' " << y;

  Dims out(maxRank);
  for (int64_t i = 0; i < maxRank; ++i) {
    int64_t a = xs[i], b = ys[i];
    bool aDyn = ShapedType::isDynamic(a), bDyn = ShapedType::isDynamic(b);
    if (!aDyn && !bDyn) {
      if (a != b && a != 1 && b != 1)
        return c.error() << "input slots 'X' " << x << " and 'Y' " << y
                         << " do not broadcast (axis " << c.getInt("axis") << "): dim " << i
                         << " is " << a << " vs " << b;
      out[i] = a == 1 ? b : a;
    } else if (aDyn && bDyn) {
      out[i] = kDyn;
    } else {
      int64_t known = aDyn ? b : a;
      out[i] = known == 1 ? kDyn : known;
    }
  }
  c.setResult(0, out, x.getElementType());
  return success();
}

LogicalResult inferSameAsX(InferContext &c) {
  c.setResult(0, c.input(0));
  return success();
}

LogicalResult inferSoftmax(InferContext &c) {
  RankedTensorType x = c.input(0);
  // A 0-D input behaves as rank 1 for the axis check (Paddle accepts -1, 0).
  if (failed(c.normalizeAxis(c.getInt("axis"), std::max<int64_t>(x.getRank(), 1), "axis", x)))
    return failure();
  c.setResult(0, x);
  return success();
}

LogicalResult inferCast(InferContext &c) {
  RankedTensorType x = c.input(0);
  FailureOr<Type> inType = c.getDTypeAttr("in_dtype");
  if (failed(inType))
    return failure();
  if (*inType != x.getElementType())
    return c.error() << "attribute 'in_dtype' = " << c.getInt("in_dtype") << " (" << *inType
                     << ") does not match input slot 'X' " << x;
  FailureOr<Type> outType = c.getDTypeAttr("out_dtype");
  if (failed(outType))
    return failure();
  c.setResult(0, x.getShape(), *outType);
  return success();
}

} // namespace distc::pd::infer
