//===- CreationRules.cpp - fill_constant and random initializer inference ===//

#include "Inference/InferContext.h"

using namespace mlir;

namespace distc::pd::infer {

/// Out has the `shape` attribute (-1 is a dynamic dim) and `dtype`.
LogicalResult inferCreation(InferContext &c) {
  SmallVector<int64_t> shape = c.getInts("shape");
  Dims out;
  for (int64_t d : shape) {
    if (d < -1)
      return c.error() << "attribute 'shape' = " << formatDims(shape) << " has invalid size " << d;
    out.push_back(d == -1 ? kDyn : d);
  }
  FailureOr<Type> elementType = c.getDTypeAttr("dtype");
  if (failed(elementType))
    return failure();
  c.setResult(0, out, *elementType);
  return success();
}

/// The catalog models feed/fetch with Paddle's slots (X, Out) although the
/// IR's pd.feed has no operand and pd.fetch no result: the feed-list
/// variable is implicit. Given an operand, Out is typed like it.
LogicalResult inferFeedFetch(InferContext &c) {
  c.setResult(0, c.input(0));
  return success();
}

} // namespace distc::pd::infer
