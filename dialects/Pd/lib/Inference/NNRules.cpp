//===- NNRules.cpp - Embedding, normalization, loss and metric inference --===//

#include "Inference/InferContext.h"

using namespace mlir;

namespace distc::pd::infer {

LogicalResult inferLookupTableV2(InferContext &c) {
  RankedTensorType ids = c.input(0), w = c.input(1);
  if (!isIndexType(ids.getElementType()))
    return c.error() << "input slot 'Ids' " << ids << " must hold i32 or i64 indices";
  if (w.getRank() != 2)
    return c.error() << "input slot 'W' " << w << " must be a 2-D embedding table";
  Dims out(ids.getShape());
  out.push_back(w.getDimSize(1));
  c.setResult(0, out, w.getElementType());
  return success();
}

/// Y is like X; Mean and Variance hold one value per normalized row,
/// [prod(x[:begin_norm_axis])], in f32 for f16/bf16 inputs as in Paddle.
LogicalResult inferLayerNorm(InferContext &c) {
  RankedTensorType x = c.input(0);
  int64_t begin = c.getInt("begin_norm_axis");
  if (begin < 1 || begin >= x.getRank())
    return c.error() << "attribute 'begin_norm_axis' = " << begin
                     << " must be in [1, rank) for input slot 'X' " << x;
  int64_t left = product(x.getShape().take_front(begin));
  int64_t right = product(x.getShape().drop_front(begin));
  for (unsigned slot : {1u, 2u}) {
    RankedTensorType param = c.input(slot);
    if (!param)
      continue;
    StringRef name = slot == 1 ? "Scale" : "Bias";
    if (param.getRank() != 1 || !mergeEqualDim(param.getDimSize(0), right))
      return c.error() << "input slot '" << name << "' " << param << " must be 1-D of size "
                       << (ShapedType::isDynamic(right) ? -1 : right)
                       << " (the normalized size of input slot 'X' " << x
                       << " from begin_norm_axis " << begin << ")";
  }
  Type statType = x.getElementType();
  if (statType.isF16() || statType.isBF16())
    statType = Float32Type::get(c.getContext());
  c.setResult(0, x);
  c.setResult(1, {left}, statType);
  c.setResult(2, {left}, statType);
  return success();
}

LogicalResult inferDropout(InferContext &c) {
  RankedTensorType x = c.input(0);
  c.setResult(0, x);
  c.setResult(1, x.getShape(), IntegerType::get(c.getContext(), 8, IntegerType::Unsigned));
  return success();
}

/// Softmax is like Logits; Loss is Logits with size 1 on `axis`. A hard
/// Label has Logits' rank with size 1 on `axis` and i32/i64 elements; a soft
/// Label is shaped like Logits.
LogicalResult inferSoftmaxWithCrossEntropy(InferContext &c) {
  RankedTensorType logits = c.input(0), label = c.input(1);
  int64_t rank = logits.getRank();
  if (rank == 0)
    return c.error() << "input slot 'Logits' " << logits << " must have rank >= 1";
  FailureOr<int64_t> axis = c.normalizeAxis(c.getInt("axis"), rank, "axis", logits);
  if (failed(axis))
    return failure();
  bool soft = c.getBool("soft_label");
  if (label.getRank() != rank)
    return c.error() << "input slots 'Logits' " << logits << " and 'Label' " << label
                     << " must have the same rank";
  if (soft && label.getElementType() != logits.getElementType())
    return c.error() << "input slot 'Label' " << label << " must have the element type of 'Logits' "
                     << logits << " with soft_label";
  if (!soft && !isIndexType(label.getElementType()))
    return c.error() << "input slot 'Label' " << label
                     << " must hold i32 or i64 class ids without soft_label";
  for (int64_t d = 0; d < rank; ++d) {
    int64_t expected = (d == *axis && !soft) ? 1 : logits.getDimSize(d);
    if (!mergeEqualDim(label.getDimSize(d), expected))
      return c.error() << "input slot 'Label' " << label << " does not match 'Logits' " << logits
                       << " in dim " << d << " (expected "
                       << (ShapedType::isDynamic(expected) ? -1 : expected) << ", "
                       << (soft ? "soft" : "hard") << " labels, axis " << *axis << ")";
  }
  Dims loss(logits.getShape());
  loss[*axis] = 1;
  c.setResult(0, logits);
  c.setResult(1, loss, logits.getElementType());
  return success();
}

LogicalResult inferTopKV2(InferContext &c) {
  RankedTensorType x = c.input(0);
  int64_t k = c.getInt("k");
  Type i64 = IntegerType::get(c.getContext(), 64);
  if (k < 1)
    return c.error() << "attribute 'k' = " << k << " must be >= 1";
  if (x.getRank() == 0) {
    // Paddle accepts a 0-D input with k = 1 and returns 0-D outputs.
    if (failed(c.normalizeAxis(c.getInt("axis"), 1, "axis", x)))
      return failure();
    if (k != 1)
      return c.error() << "attribute 'k' = " << k << " must be 1 for 0-D input slot 'X' " << x;
    c.setResult(0, x);
    c.setResult(1, {}, i64);
    return success();
  }
  FailureOr<int64_t> axis = c.normalizeAxis(c.getInt("axis"), x.getRank(), "axis", x);
  if (failed(axis))
    return failure();
  int64_t size = x.getDimSize(*axis);
  if (!ShapedType::isDynamic(size) && k > size)
    return c.error() << "attribute 'k' = " << k << " exceeds dim " << *axis << " (" << size
                     << ") of input slot 'X' " << x;
  Dims out(x.getShape());
  out[*axis] = k;
  c.setResult(0, out, x.getElementType());
  c.setResult(1, out, i64);
  return success();
}

/// Indices is the [N, k] output of top_k, Label [N, 1] class ids; the
/// results are scalars kept as [1] like Paddle's accuracy op declares them.
LogicalResult inferAccuracy(InferContext &c) {
  RankedTensorType indices = c.input(1), label = c.input(2);
  if (indices.getRank() != 2)
    return c.error() << "input slot 'Indices' " << indices << " must be 2-D [N, k]";
  if (label.getRank() != 2 || !mergeEqualDim(label.getDimSize(1), 1))
    return c.error() << "input slot 'Label' " << label << " must be 2-D [N, 1]";
  if (!mergeEqualDim(indices.getDimSize(0), label.getDimSize(0)))
    return c.error() << "input slots 'Indices' " << indices << " and 'Label' " << label
                     << " must have the same batch size";
  Type i32 = IntegerType::get(c.getContext(), 32);
  c.setResult(0, {1}, Float32Type::get(c.getContext()));
  c.setResult(1, {1}, i32);
  c.setResult(2, {1}, i32);
  return success();
}

} // namespace distc::pd::infer
