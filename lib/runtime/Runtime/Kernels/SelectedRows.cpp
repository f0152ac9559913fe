//===- SelectedRows.cpp - Row-sparse gradients (Paddle's SelectedRows) ----===//
//
// A row-sparse value (docs/parameter-server.md, "Sparse embeddings") is a
// list of parts, each an Int64 vector of row ids beside a [n, D] tensor of
// those rows' values; id -1 marks an unused entry. Duplicated ids add up.
// These kernels make the parts of a sparse lookup's gradient
// (`lookup_rows`), cut them into the row ranges of the servers' blocks with
// duplicates merged (`merge_rows`, Paddle's split_selected_rows) and turn
// them back into a dense tensor (`rows_to_dense`) for an op that needs one.
// A distributed table's lookup splits its ids over the servers' blocks
// (`split_ids`) and puts the prefetched rows back in the ids' order
// (`merge_ids`).
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

/// The first row of each of `heights`' blocks, and the table's rows last.
std::vector<int64_t> blockOffsets(KernelContext &ctx, const std::vector<int64_t> &heights) {
  std::vector<int64_t> offsets(heights.size() + 1, 0);
  for (size_t k = 0; k < heights.size(); ++k) {
    if (heights[k] <= 0)
      ctx.fail("height_sections must be positive");
    offsets[k + 1] = offsets[k] + heights[k];
  }
  return offsets;
}

/// The block of `id` (offsets from blockOffsets); an id outside the table
/// is an error naming it and its position.
size_t blockOf(KernelContext &ctx, const std::vector<int64_t> &offsets, int64_t id, int64_t at) {
  if (id < 0 || id >= offsets.back())
    ctx.fail("id " + std::to_string(id) + " at position " + std::to_string(at) +
             " is outside [0, " + std::to_string(offsets.back()) + ")");
  return size_t(std::upper_bound(offsets.begin(), offsets.end(), id) - offsets.begin()) - 1;
}

/// Paddle's split_selected_rows, with duplicates merged: block k holds the
/// ids in [offset_k, offset_k + height_sections[k]), renumbered from 0, in
/// the order they first come, each with the sum of its values (zero first,
/// then each value in turn, sumRowsById); the rest of its entries are id
/// -1, value 0.
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
  const std::vector<int64_t> offsets = blockOffsets(ctx, heights);
  for (int k = 0; k < blocks; ++k) {
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
  dispatchFloat(ctx, firstValues.dtype(), [&](auto tag) {
    using T = decltype(tag);
    std::vector<T> sums;
    const std::vector<int64_t> ids = sumRowsById<T>(ctx, parts, offsets.back(), width, sums);
    std::vector<int64_t> used(size_t(blocks), 0);
    for (size_t n = 0; n < ids.size(); ++n) {
      const size_t k = blockOf(ctx, offsets, ids[n], int64_t(n));
      const int64_t slot = used[k]++;
      ctx.output(2 * int(k)).data<int64_t>()[slot] = ids[n] - offsets[k];
      std::copy_n(sums.data() + n * size_t(width), width,
                  ctx.output(2 * int(k) + 1).data<T>() + slot * width);
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

/// Paddle's split_ids over row-range blocks: shard k gets the distinct ids
/// of block k, renumbered from its first row, in the order they first
/// come, then -1; `padding_idx` (unless -1) is left out.
void splitIdsKernel(KernelContext &ctx) {
  const Tensor &ids = ctx.input(0);
  const std::vector<int64_t> heights = ctx.intsAttr("height_sections");
  const int64_t paddingIdx = ctx.intAttr("padding_idx");
  if (heights.empty() || ctx.numOutputs() != int(heights.size()))
    ctx.fail("needs one output per height section");
  const std::vector<int64_t> offsets = blockOffsets(ctx, heights);
  std::vector<int64_t *> shards;
  for (size_t k = 0; k < heights.size(); ++k) {
    Tensor &shard = ctx.output(int(k));
    if (shard.dtype() != DType::Int64)
      ctx.fail("output " + std::to_string(k) + " must be Int64");
    expectNumel(ctx, shard, heights[k], "a shard");
    std::fill_n(shard.data<int64_t>(), heights[k], int64_t(-1));
    shards.push_back(shard.data<int64_t>());
  }
  std::vector<bool> seen(size_t(offsets.back()), false);
  std::vector<int64_t> used(heights.size(), 0);
  dispatchIndex(ctx, ids.dtype(), "ids", [&](auto itag) {
    using I = decltype(itag);
    const I *idp = ids.data<I>();
    for (int64_t i = 0; i < ids.numel(); ++i) {
      const int64_t id = int64_t(idp[i]);
      if (id == paddingIdx && paddingIdx != -1)
        continue;
      const size_t k = blockOf(ctx, offsets, id, i);
      if (seen[size_t(id)])
        continue;
      seen[size_t(id)] = true;
      shards[k][used[k]++] = id - offsets[k];
    }
  });
}

/// Paddle's merge_ids: out row i = the prefetched row of ids[i] (inputs:
/// ids, then per block its shard of ids and their rows); `padding_idx`
/// (unless -1) gets zeros.
void mergeIdsKernel(KernelContext &ctx) {
  const Tensor &ids = ctx.input(0);
  Tensor &out = ctx.output(0);
  const std::vector<int64_t> heights = ctx.intsAttr("height_sections");
  const int64_t paddingIdx = ctx.intAttr("padding_idx");
  if (ctx.numInputs() != 1 + 2 * int(heights.size()) || heights.empty())
    ctx.fail("needs the ids, then a (shard, rows) pair per height section");
  const std::vector<int64_t> offsets = blockOffsets(ctx, heights);
  const int64_t width = ids.numel() ? out.numel() / ids.numel() : 0;
  expectNumel(ctx, out, ids.numel() * width, "out");
  // Where each id's row is: its block's rows, at its entry in the shard.
  std::vector<int64_t> entry(size_t(offsets.back()), -1);
  std::vector<const char *> rows;
  const size_t rowBytes = size_t(width) * dtypeSize(out.dtype());
  for (size_t k = 0; k < heights.size(); ++k) {
    const Tensor &shard = ctx.input(1 + 2 * int(k)), &values = ctx.input(2 + 2 * int(k));
    if (shard.dtype() != DType::Int64 || shard.numel() != heights[k])
      ctx.fail("shard " + std::to_string(k) + " must be Int64 [" + std::to_string(heights[k]) +
               "]");
    expectSameDtype(ctx, values, out, "rows", "out");
    expectNumel(ctx, values, heights[k] * width, "rows");
    const int64_t *local = shard.data<int64_t>();
    for (int64_t j = 0; j < heights[k] && local[j] >= 0; ++j)
      if (local[j] < heights[k])
        entry[size_t(offsets[k] + local[j])] = j;
    rows.push_back(static_cast<const char *>(values.data()));
  }
  char *dst = static_cast<char *>(out.data());
  dispatchIndex(ctx, ids.dtype(), "ids", [&](auto itag) {
    using I = decltype(itag);
    const I *idp = ids.data<I>();
    for (int64_t i = 0; i < ids.numel(); ++i) {
      const int64_t id = int64_t(idp[i]);
      char *row = dst + size_t(i) * rowBytes;
      if (id == paddingIdx && paddingIdx != -1) {
        std::memset(row, 0, rowBytes);
        continue;
      }
      const size_t k = blockOf(ctx, offsets, id, i);
      const int64_t j = entry[size_t(id)];
      if (j < 0)
        ctx.fail("id " + std::to_string(id) + " at position " + std::to_string(i) +
                 " was not prefetched");
      std::memcpy(row, rows[k] + size_t(j) * rowBytes, rowBytes);
    }
  });
}

} // namespace

void registerSelectedRowsKernels(KernelRegistry &r) {
  r.add("split_ids", splitIdsKernel);
  r.add("merge_ids", mergeIdsKernel);
  r.add("lookup_rows", lookupRowsKernel);
  r.add("merge_rows", mergeRowsKernel);
  r.add("rows_to_dense", rowsToDenseKernel);
}

} // namespace distc::runtime::kernels
