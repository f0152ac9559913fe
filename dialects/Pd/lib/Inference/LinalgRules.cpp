//===- LinalgRules.cpp - mul and matmul_v2 inference ----------------------===//

#include "Inference/InferContext.h"

using namespace mlir;

namespace distc::pd::infer {

/// `mul` flattens X to [prod(x[:xn]), prod(x[xn:])] and Y to
/// [prod(y[:yn]), prod(y[yn:])]; Out keeps the unflattened outer dims:
/// x[:xn] ++ y[yn:].
LogicalResult inferMul(InferContext &c) {
  RankedTensorType x = c.input(0), y = c.input(1);
  if (failed(c.requireSameElementType(0, 1)))
    return failure();
  int64_t xn = c.getInt("x_num_col_dims"), yn = c.getInt("y_num_col_dims");
  if (xn < 1 || xn >= x.getRank())
    return c.error() << "attribute 'x_num_col_dims' = " << xn
                     << " must be in [1, rank) for input slot 'X' " << x;
  if (yn < 1 || yn >= y.getRank())
    return c.error() << "attribute 'y_num_col_dims' = " << yn
                     << " must be in [1, rank) for input slot 'Y' " << y;
  int64_t xWidth = product(x.getShape().drop_front(xn));
  int64_t yHeight = product(y.getShape().take_front(yn));
  if (!mergeEqualDim(xWidth, yHeight))
    return c.error() << "input slots 'X' " << x << " (x_num_col_dims " << xn << ") and 'Y' " << y
                     << " (y_num_col_dims " << yn << ") have mismatched inner sizes " << xWidth
                     << " vs " << yHeight;
  Dims out(x.getShape().take_front(xn));
  llvm::append_range(out, y.getShape().drop_front(yn));
  c.setResult(0, out, x.getElementType());
  return success();
}

/// NumPy matmul: 1-D X is [1, k] and 1-D Y is [k, 1] with the added dim
/// removed again; trans_x/trans_y swap the last two dims; batch dims
/// broadcast.
LogicalResult inferMatmulV2(InferContext &c) {
  RankedTensorType x = c.input(0), y = c.input(1);
  if (failed(c.requireSameElementType(0, 1)))
    return failure();
  if (x.getRank() == 0 || y.getRank() == 0)
    return c.error() << "input slots 'X' " << x << " and 'Y' " << y << " must have rank >= 1";
  bool transX = c.getBool("trans_x"), transY = c.getBool("trans_y");
  Dims xs(x.getShape()), ys(y.getShape());
  bool xVector = xs.size() == 1, yVector = ys.size() == 1;
  // Transposing a vector is a no-op, as in Paddle's kernel.
  if (xVector) {
    xs.insert(xs.begin(), 1);
    transX = false;
  }
  if (yVector) {
    ys.push_back(1);
    transY = false;
  }
  size_t xr = xs.size(), yr = ys.size();
  int64_t m = transX ? xs[xr - 1] : xs[xr - 2];
  int64_t kx = transX ? xs[xr - 2] : xs[xr - 1];
  int64_t ky = transY ? ys[yr - 1] : ys[yr - 2];
  int64_t n = transY ? ys[yr - 2] : ys[yr - 1];
  if (!mergeEqualDim(kx, ky))
    return c.error() << "input slots 'X' " << x << " (trans_x " << c.getBool("trans_x")
                     << ") and 'Y' " << y << " (trans_y " << c.getBool("trans_y")
                     << ") have mismatched contraction sizes " << kx << " vs " << ky;

  // Broadcast the batch dims, right-aligned.
  ArrayRef<int64_t> xb = ArrayRef<int64_t>(xs).drop_back(2);
  ArrayRef<int64_t> yb = ArrayRef<int64_t>(ys).drop_back(2);
  size_t batchRank = std::max(xb.size(), yb.size());
  Dims out(batchRank);
  for (size_t i = 0; i < batchRank; ++i) {
    int64_t a = i + xb.size() >= batchRank ? xb[i + xb.size() - batchRank] : 1;
    int64_t b = i + yb.size() >= batchRank ? yb[i + yb.size() - batchRank] : 1;
    if (a == 1)
      out[i] = b;
    else if (b == 1)
      out[i] = a;
    else if (std::optional<int64_t> merged = mergeEqualDim(a, b))
      out[i] = *merged;
    else
      return c.error() << "input slots 'X' " << x << " and 'Y' " << y
                       << " have batch dims that do not broadcast: " << a << " vs " << b;
  }
  if (!xVector)
    out.push_back(m);
  if (!yVector)
    out.push_back(n);
  c.setResult(0, out, x.getElementType());
  return success();
}

} // namespace distc::pd::infer
