//===- ReduceRules.cpp - reduce_sum, reduce_mean and mean inference -------===//
//
// Paddle (>= 2.5) reduces to a 0-D tensor when every dim is reduced without
// keep_dim; older programs declare [1], which the verifiers also accept.
//
//===----------------------------------------------------------------------===//

#include "Inference/InferContext.h"

#include "distc/Dialect/Pd/PdTypes.h"

#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;

namespace distc::pd::infer {

LogicalResult inferReduce(InferContext &c) {
  RankedTensorType x = c.input(0);
  int64_t rank = x.getRank();
  SmallVector<int64_t> dims = c.getInts("dim");
  bool keepDim = c.getBool("keep_dim");

  // Which dims are reduced. Paddle reduces everything for reduce_all, an
  // empty `dim`, a 0-D input, or a `dim` naming every axis.
  llvm::SmallBitVector reduced(rank);
  bool reduceAll = c.getBool("reduce_all") || dims.empty() || rank == 0;
  if (!reduceAll) {
    for (int64_t d : dims) {
      FailureOr<int64_t> axis = c.normalizeAxis(d, rank, "dim", x);
      if (failed(axis))
        return failure();
      reduced.set(*axis);
    }
  }
  if (reduceAll)
    reduced.set();

  Dims out;
  for (int64_t i = 0; i < rank; ++i) {
    if (!reduced.test(i))
      out.push_back(x.getDimSize(i));
    else if (keepDim)
      out.push_back(1);
  }

  Type elementType = x.getElementType();
  if (c.getSpec().type == "reduce_sum") {
    // Paddle's sum: an explicit out_dtype wins; bool and int32 sum in int64.
    int64_t outDType = c.getInt("out_dtype");
    if (outDType != -1) {
      FailureOr<Type> t = c.getDTypeAttr("out_dtype");
      if (failed(t))
        return failure();
      elementType = *t;
    } else if (elementType.isInteger(1) || elementType.isSignlessInteger(32)) {
      elementType = IntegerType::get(c.getContext(), 64);
    }
  }
  c.setResult(0, out, elementType);
  return success();
}

LogicalResult inferMean(InferContext &c) {
  c.setResult(0, {}, c.input(0).getElementType());
  return success();
}

} // namespace distc::pd::infer
