//===- ParameterServerRules.cpp - Parameter-server op inference -----------===//
//
// send and send_barrier write one dummy control-dependence value each
// (PdTypes.h); fetch_barrier passes its inputs through; recv's results are
// what the servers hold, which the transpiler declares; split_byref cuts X
// along dim 0 like split; split_selected_rows cuts a row-sparse X into
// row-sparse blocks.
//
//===----------------------------------------------------------------------===//

#include "Inference/InferContext.h"

#include "distc/Dialect/Pd/PdDialect.h"
#include "distc/Dialect/Pd/PdTypes.h"

#include <optional>

using namespace mlir;

namespace distc::pd::infer {

LogicalResult inferSend(InferContext &c) {
  c.setResult(0, controlDependenceType(c.getContext()));
  return success();
}

LogicalResult inferRecv(InferContext &c) {
  ArrayRef<Type> declared = c.declaredResults(0);
  if (declared.empty())
    return c.error() << "the types of output slot 'Out' are what the servers hold: the "
                        "parameter-server transpile declares them, they cannot be inferred";
  for (Type type : declared) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || !tensor.hasStaticShape())
      return c.error() << "output slot 'Out' must be tensors of static shape, got " << type;
    c.addResult(0, tensor.getShape(), tensor.getElementType());
  }
  return success();
}

LogicalResult inferFetchBarrier(InferContext &c) {
  for (RankedTensorType x : c.inputs(0))
    c.addResult(0, x.getShape(), x.getElementType());
  return success();
}

LogicalResult inferSplitByref(InferContext &c) {
  RankedTensorType x = c.input(0);
  if (x.getRank() < 1)
    return c.error() << "input slot 'X' " << x << " has no dim 0 to split";
  int64_t rows = x.getDimSize(0);
  SmallVector<int64_t> sections = c.getInts("sections");
  Dims part(x.getShape());
  if (sections.empty()) {
    int64_t num = c.getInt("num");
    if (num <= 0)
      num = c.getNumVariadicResults();
    if (num <= 0)
      return c.error() << "needs attribute 'num' > 0 or 'sections' to split input slot 'X' " << x;
    if (!ShapedType::isDynamic(rows) && rows % num != 0)
      return c.error() << "attribute 'num' = " << num << " does not divide dim 0 (" << rows
                       << ") of input slot 'X' " << x;
    part[0] = ShapedType::isDynamic(rows) ? kDyn : rows / num;
    for (int64_t i = 0; i < num; ++i)
      c.addResult(0, part, x.getElementType());
    return success();
  }
  int64_t total = 0;
  for (int64_t s : sections) {
    if (s <= 0)
      return c.error() << "attribute 'sections' = " << formatDims(sections)
                       << " must hold positive row counts";
    total += s;
  }
  if (!ShapedType::isDynamic(rows) && total != rows)
    return c.error() << "attribute 'sections' = " << formatDims(sections) << " sums to " << total
                     << ", not dim 0 (" << rows << ") of input slot 'X' " << x;
  for (int64_t s : sections) {
    part[0] = s;
    c.addResult(0, part, x.getElementType());
  }
  return success();
}

/// The row counts of `height_sections`, checked to be positive and, for a
/// tensor X of known height (dim 0), to sum to it.
static FailureOr<SmallVector<int64_t>> heightSections(InferContext &c,
                                                      std::optional<int64_t> height) {
  SmallVector<int64_t> sections = c.getInts("height_sections");
  if (sections.empty())
    return c.error() << "attribute 'height_sections' names no block";
  int64_t total = 0;
  for (int64_t s : sections) {
    if (s <= 0)
      return c.error() << "attribute 'height_sections' = " << formatDims(sections)
                       << " must hold positive row counts";
    total += s;
  }
  if (height && total != *height)
    return c.error() << "attribute 'height_sections' = " << formatDims(sections) << " sums to "
                     << total << ", not the height " << *height << " of input slot 'X'";
  return sections;
}

LogicalResult inferSplitSelectedRows(InferContext &c) {
  RankedTensorType x = c.input(0);
  if (!isSelectedRows(x))
    return c.error() << "input slot 'X' must be row-sparse (#pd.selected_rows), got " << x;
  if (x.getRank() < 1 || ShapedType::isDynamic(x.getDimSize(0)))
    return c.error() << "input slot 'X' " << x << " needs a static height (dim 0)";
  FailureOr<SmallVector<int64_t>> sections = heightSections(c, x.getDimSize(0));
  if (failed(sections))
    return failure();
  Dims part(x.getShape());
  for (int64_t s : *sections) {
    part[0] = s;
    c.addResult(0, withSelectedRows(RankedTensorType::get(part, x.getElementType()),
                                    /*sparse=*/true));
  }
  return success();
}

LogicalResult inferSplitIds(InferContext &c) {
  RankedTensorType ids = c.input(0);
  if (isSelectedRows(ids))
    return inferSplitSelectedRows(c);
  if (!isIndexType(ids.getElementType()))
    return c.error() << "input slot 'Ids' " << ids << " must hold i32 or i64 ids";
  FailureOr<SmallVector<int64_t>> sections = heightSections(c, std::nullopt);
  if (failed(sections))
    return failure();
  for (int64_t s : *sections)
    c.addResult(0, {s}, IntegerType::get(c.getContext(), 64));
  return success();
}

LogicalResult inferPrefetch(InferContext &c) {
  ArrayRef<Type> declared = c.declaredResults(0);
  SmallVector<RankedTensorType> xs = c.inputs(0);
  if (declared.size() != xs.size())
    return c.error() << "output slot 'Out' holds the rows of each of X's " << xs.size()
                     << " id lists; the parameter-server transpile declares their types";
  for (auto [x, type] : llvm::zip_equal(xs, declared)) {
    auto rows = dyn_cast<RankedTensorType>(type);
    if (x.getRank() != 1 || !rows || rows.getRank() != 2 || !rows.hasStaticShape() ||
        rows.getDimSize(0) != x.getDimSize(0))
      return c.error() << "output slot 'Out' must be one static [n, width] row block per id "
                          "list [n] of X, got "
                       << type << " for " << x;
    c.addResult(0, rows);
  }
  return success();
}

LogicalResult inferMergeIds(InferContext &c) {
  RankedTensorType ids = c.input(0);
  SmallVector<RankedTensorType> rows = c.inputs(1), values = c.inputs(2);
  if (!isIndexType(ids.getElementType()))
    return c.error() << "input slot 'Ids' " << ids << " must hold i32 or i64 ids";
  if (rows.empty() || rows.size() != values.size())
    return c.error() << "needs one row block X per id list Rows, got " << values.size()
                     << " for " << rows.size();
  for (RankedTensorType v : values)
    if (v.getRank() != 2 || v.getDimSize(1) != values.front().getDimSize(1) ||
        v.getElementType() != values.front().getElementType())
      return c.error() << "input slot 'X' must be [n, width] row blocks of one width and "
                          "dtype, got "
                       << v;
  if (failed(heightSections(c, std::nullopt)))
    return failure();
  Dims out(ids.getShape());
  out.push_back(values.front().getDimSize(1));
  c.setResult(0, out, values.front().getElementType());
  return success();
}

} // namespace distc::pd::infer
