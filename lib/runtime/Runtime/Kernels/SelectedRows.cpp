//===- SelectedRows.cpp - Row-sparse gradients (Paddle's SelectedRows) ----===//
//
// A row-sparse value (docs/parameter-server.md, "Sparse embeddings") is a
// list of parts, each an Int64 vector of row ids beside a [n, D] tensor of
// those rows' values; id -1 marks an unused entry. Duplicated ids add up.
// These kernels make the parts of a sparse lookup's gradient
// (`lookup_rows`), cut them into the row ranges of the servers' blocks with
// duplicates merged (`merge_rows`, Paddle's split_selected_rows) and turn
// them back into a dense tensor (`rows_to_dense`) for an op that needs one.
// The row values add up in the order the ids come, as gather_rows_grad's
// do, so a dense gradient and the merged rows agree bit for bit.
//
//===----------------------------------------------------------------------===//

#include "KernelUtils.h"
#include "Registration.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace distc::runtime::kernels {
namespace {

/// rows[i] = ids[i], or -1 where ids[i] is `padding_idx` (not -1); an id
/// outside [0, height) is an error naming it.
void lookupRowsKernel(KernelContext &ctx) {
  const Tensor &ids = ctx.input(0);
  Tensor &rows = ctx.output(0);
  const int64_t paddingIdx = ctx.intAttr("padding_idx");
  const int64_t height = ctx.intAttr("height");
  if (rows.dtype() != DType::Int64)
    ctx.fail("rows must be Int64");
  expectNumel(ctx, rows, ids.numel(), "rows");
  int64_t *out = rows.data<int64_t>();
  dispatchIndex(ctx, ids.dtype(), "ids", [&](auto itag) {
    using I = decltype(itag);
    const I *idp = ids.data<I>();
    for (int64_t i = 0; i < ids.numel(); ++i) {
      const int64_t id = int64_t(idp[i]);
      if (id == paddingIdx && paddingIdx != -1) {
        out[i] = -1;
        continue;
      }
      if (id < 0 || id >= height)
        ctx.fail("id " + std::to_string(id) + " at position " + std::to_string(i) +
                 " is outside [0, " + std::to_string(height) + ")");
      out[i] = id;
    }
  });
}

} // namespace

std::vector<RowsPart> rowsParts(KernelContext &ctx, int first, int64_t width, const Tensor &like) {
  if ((ctx.numInputs() - first) % 2 != 0)
    ctx.fail("takes its parts as (rows, values) pairs, got " +
             std::to_string(ctx.numInputs() - first) + " inputs");
  std::vector<RowsPart> parts;
  for (int i = first; i < ctx.numInputs(); i += 2) {
    const Tensor &rows = ctx.input(i), &values = ctx.input(i + 1);
    if (rows.dtype() != DType::Int64)
      ctx.fail("part " + std::to_string((i - first) / 2) + ": rows must be Int64");
    expectSameDtype(ctx, values, like, "values", "the output");
    expectNumel(ctx, values, rows.numel() * width, "values");
    parts.push_back({rows.data<int64_t>(), values.data(), rows.numel()});
  }
  return parts;
}

template <typename T>
std::vector<int64_t> sumRowsById(KernelContext &ctx, const std::vector<RowsPart> &parts,
                                 int64_t height, int64_t width, std::vector<T> &sums) {
  std::vector<int64_t> ids, entry(size_t(height), -1);
  sums.clear();
  for (const RowsPart &part : parts) {
    const T *src = static_cast<const T *>(part.values);
    for (int64_t i = 0; i < part.count; ++i) {
      const int64_t id = part.rows[i];
      if (id < 0)
        continue;
      if (id >= height)
        ctx.fail("row " + std::to_string(id) + " is outside the " + std::to_string(height) +
                 " rows");
      int64_t &slot = entry[size_t(id)];
      if (slot < 0) {
        slot = int64_t(ids.size());
        ids.push_back(id);
        sums.resize(sums.size() + size_t(width), T(0));
      }
      T *dst = sums.data() + slot * width;
      for (int64_t c = 0; c < width; ++c)
        dst[c] += src[i * width + c];
    }
  }
  return ids;
}

template std::vector<int64_t> sumRowsById<float>(KernelContext &, const std::vector<RowsPart> &,
                                                 int64_t, int64_t, std::vector<float> &);
template std::vector<int64_t> sumRowsById<double>(KernelContext &, const std::vector<RowsPart> &,
                                                  int64_t, int64_t, std::vector<double> &);

namespace {

/// Paddle's split_selected_rows, with duplicates merged: block k holds the
/// ids in [offset_k, offset_k + height_sections[k]), renumbered from 0, in
/// the order they first come, each with the sum of its values (zero first,
/// then each value in turn); the rest of its entries are id -1, value 0.
void mergeRowsKernel(KernelContext &ctx) {
  const std::vector<int64_t> heights = ctx.intsAttr("height_sections");
  const int blocks = static_cast<int>(heights.size());
  if (blocks == 0 || ctx.numOutputs() != 2 * blocks)
    ctx.fail("needs one (rows, values) output pair per height section (" +
             std::to_string(heights.size()) + " sections, " + std::to_string(ctx.numOutputs()) +
             " outputs)");
  Tensor &firstValues = ctx.output(1);
  const int64_t width = firstValues.rank() == 2 ? firstValues.dim(1) : -1;
  if (width < 0)
    ctx.fail("values " + formatShape(firstValues.shape()) + " must have rank 2 [rows, D]");
  std::vector<RowsPart> parts = rowsParts(ctx, 0, width, firstValues);
  // Which block holds each id, and where each block's rows start.
  std::vector<int64_t> offsets(size_t(blocks) + 1, 0);
  for (int k = 0; k < blocks; ++k) {
    if (heights[k] <= 0)
      ctx.fail("height_sections must be positive");
    offsets[k + 1] = offsets[k] + heights[k];
    Tensor &rows = ctx.output(2 * k), &values = ctx.output(2 * k + 1);
    if (rows.dtype() != DType::Int64)
      ctx.fail("block " + std::to_string(k) + ": rows must be Int64");
    expectNumel(ctx, rows, heights[k], "rows");
    expectSameDtype(ctx, values, firstValues, "values", "the first block's values");
    expectNumel(ctx, values, heights[k] * width, "values");
    std::fill_n(rows.data<int64_t>(), heights[k], int64_t(-1));
    if (values.byteSize())
      std::memset(values.data(), 0, values.byteSize());
  }
  const int64_t height = offsets.back();
  // The entry of each id in its block, -1 until it first comes.
  std::vector<int64_t> entry(size_t(height), -1);
  std::vector<int64_t> used(size_t(blocks), 0);
  dispatchFloat(ctx, firstValues.dtype(), [&](auto tag) {
    using T = decltype(tag);
    int block = 0;
    for (const RowsPart &part : parts) {
      const T *src = static_cast<const T *>(part.values);
      for (int64_t i = 0; i < part.count; ++i) {
        const int64_t id = part.rows[i];
        if (id < 0)
          continue;
        if (id >= height)
          ctx.fail("row " + std::to_string(id) + " is outside the " + std::to_string(height) +
                   " rows of the height sections");
        // Ids of one block tend to follow each other: look from the last.
        if (id < offsets[block] || id >= offsets[block + 1])
          block = int(std::upper_bound(offsets.begin(), offsets.end(), id) - offsets.begin()) - 1;
        int64_t &slot = entry[size_t(id)];
        if (slot < 0) {
          slot = used[block]++;
          ctx.output(2 * block).data<int64_t>()[slot] = id - offsets[block];
        }
        T *dst = ctx.output(2 * block + 1).data<T>() + slot * width;
        for (int64_t c = 0; c < width; ++c)
          dst[c] += src[i * width + c];
      }
    }
  });
}

/// dense [H, D] = 0, then each part's values added to their rows in order.
void rowsToDenseKernel(KernelContext &ctx) {
  Tensor &dense = ctx.output(0);
  if (dense.rank() != 2)
    ctx.fail("out " + formatShape(dense.shape()) + " must have rank 2 [H, D]");
  const int64_t height = dense.dim(0), width = dense.dim(1);
  std::vector<RowsPart> parts = rowsParts(ctx, 0, width, dense);
  if (dense.byteSize())
    std::memset(dense.data(), 0, dense.byteSize());
  dispatchFloat(ctx, dense.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T *dst = dense.data<T>();
    for (const RowsPart &part : parts) {
      const T *src = static_cast<const T *>(part.values);
      for (int64_t i = 0; i < part.count; ++i) {
        const int64_t id = part.rows[i];
        if (id < 0)
          continue;
        if (id >= height)
          ctx.fail("row " + std::to_string(id) + " is outside the " + std::to_string(height) +
                   " rows of out");
        for (int64_t c = 0; c < width; ++c)
          dst[id * width + c] += src[i * width + c];
      }
    }
  });
}

} // namespace

void registerSelectedRowsKernels(KernelRegistry &r) {
  r.add("lookup_rows", lookupRowsKernel);
  r.add("merge_rows", mergeRowsKernel);
  r.add("rows_to_dense", rowsToDenseKernel);
}

} // namespace distc::runtime::kernels
