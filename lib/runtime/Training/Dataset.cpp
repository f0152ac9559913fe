//===- Dataset.cpp - Columns, row selection, splits and feed checks -------===//

#include "distc/Training/Dataset.h"

#include "distc/Training/Random.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace distc::training {

namespace {

std::string formatDims(const std::vector<int64_t> &dims, size_t from) {
  std::string out = "[";
  for (size_t i = from; i < dims.size(); ++i)
    out += (i > from ? "," : "") + std::to_string(dims[i]);
  return out + "]";
}

std::string joinKeys(const TensorMap &map) {
  std::string out;
  for (const auto &entry : map)
    out += (out.empty() ? "" : ", ") + entry.first;
  return out.empty() ? "none" : out;
}

} // namespace

int64_t Dataset::numRows() const {
  if (columns.empty())
    return 0;
  const Tensor &first = columns.begin()->second;
  return first.rank() > 0 ? first.dim(0) : 0;
}

std::string Dataset::describeColumn(const std::string &name) const {
  auto it = sources.find(name);
  if (it == sources.end() || it->second.empty())
    return "column '" + name + "'";
  return "column '" + name + "' (from " + it->second + ")";
}

Status addColumn(Dataset &dataset, const std::string &name, Tensor column, std::string source) {
  std::string described =
      "column '" + name + "'" + (source.empty() ? "" : " (from " + source + ")");
  if (name.empty())
    return Status::error("a data column needs a name" +
                         (source.empty() ? "" : " (from " + source + ")"));
  if (dataset.columns.count(name))
    return Status::error("data " + described + " is given twice; the first is " +
                         dataset.describeColumn(name));
  if (!column.defined() || column.rank() == 0)
    return Status::error("data " + described +
                         " is a scalar; a column needs a leading dimension of rows");
  if (!dataset.columns.empty() && column.dim(0) != dataset.numRows()) {
    const std::string &other = dataset.columns.begin()->first;
    return Status::error(described + " has " + std::to_string(column.dim(0)) + " rows but " +
                         dataset.describeColumn(other) + " has " +
                         std::to_string(dataset.numRows()));
  }
  dataset.columns.emplace(name, std::move(column));
  if (!source.empty())
    dataset.sources[name] = std::move(source);
  return Status::success();
}

Status appendRows(Dataset &into, const Dataset &from) {
  if (into.empty()) {
    into = from;
    return Status::success();
  }
  auto names = [](const Dataset &d) {
    std::string list;
    for (const auto &[name, column] : d.columns)
      list += (list.empty() ? "" : ", ") + name;
    return list;
  };
  if (names(into) != names(from))
    return Status::error("cannot append rows with columns " + names(from) + " to rows with " +
                         names(into));
  Dataset joined;
  for (const auto &[name, head] : into.columns) {
    const Tensor &tail = from.columns.at(name);
    Shape headRow(head.shape().begin() + 1, head.shape().end());
    Shape tailRow(tail.shape().begin() + 1, tail.shape().end());
    if (head.dtype() != tail.dtype() || headRow != tailRow)
      return Status::error(from.describeColumn(name) + " has rows of " +
                           runtime::formatType(tail.dtype(), tailRow) + " but " +
                           into.describeColumn(name) + " has rows of " +
                           runtime::formatType(head.dtype(), headRow));
    Shape shape = head.shape();
    shape[0] += tail.dim(0);
    Tensor column(head.dtype(), shape);
    std::memcpy(column.data(), head.data(), head.byteSize());
    std::memcpy(static_cast<char *>(column.data()) + head.byteSize(), tail.data(),
                tail.byteSize());
    joined.columns.emplace(name, std::move(column));
    // Messages name the first file; the rest are summed up.
    auto first = into.sources.find(name);
    if (first != into.sources.end()) {
      const std::string more = " and further files";
      const std::string &s = first->second;
      joined.sources[name] =
          s.size() >= more.size() && s.compare(s.size() - more.size(), more.size(), more) == 0
              ? s
              : s + more;
    }
  }
  into = std::move(joined);
  return Status::success();
}

Status mergeDatasets(Dataset &into, Dataset from) {
  // Into a copy first (columns share storage, so this is cheap): a failure
  // leaves `into` as it was.
  Dataset merged = into;
  for (auto &[name, column] : from.columns) {
    auto it = from.sources.find(name);
    std::string source = it == from.sources.end() ? std::string() : it->second;
    if (Status st = addColumn(merged, name, column, source); !st.ok())
      return st;
  }
  for (auto &[name, classes] : from.classNames)
    merged.classNames[name] = std::move(classes);
  into = std::move(merged);
  return Status::success();
}

Status checkRowCounts(const Dataset &dataset) {
  const std::string *firstName = nullptr;
  int64_t rows = 0;
  for (const auto &[name, column] : dataset.columns) {
    if (!column.defined() || column.rank() == 0)
      return Status::error("data " + dataset.describeColumn(name) +
                           " is a scalar; a column needs a leading dimension of rows");
    if (!firstName) {
      firstName = &name;
      rows = column.dim(0);
    } else if (column.dim(0) != rows) {
      return Status::error(dataset.describeColumn(name) + " has " + std::to_string(column.dim(0)) +
                           " rows but " + dataset.describeColumn(*firstName) + " has " +
                           std::to_string(rows));
    }
  }
  return Status::success();
}

Dataset selectRows(const Dataset &dataset, const std::vector<int64_t> &rows) {
  Dataset out;
  out.sources = dataset.sources;
  out.classNames = dataset.classNames;
  for (const auto &[name, column] : dataset.columns) {
    Shape shape = column.shape();
    int64_t total = shape[0];
    shape[0] = static_cast<int64_t>(rows.size());
    Tensor gathered(column.dtype(), shape);
    size_t rowBytes = total > 0 ? column.byteSize() / static_cast<size_t>(total) : 0;
    const auto *src = static_cast<const uint8_t *>(column.data());
    auto *dst = static_cast<uint8_t *>(gathered.data());
    for (size_t i = 0; i < rows.size() && rowBytes > 0; ++i)
      std::memcpy(dst + i * rowBytes, src + static_cast<size_t>(rows[i]) * rowBytes, rowBytes);
    out.columns.emplace(name, std::move(gathered));
  }
  return out;
}

Status splitDataset(const Dataset &all, double heldOutFraction, uint64_t seed, Dataset &train,
                    Dataset &heldOut) {
  if (!(heldOutFraction >= 0.0 && heldOutFraction < 1.0))
    return Status::error("the held-out fraction must lie in [0, 1), got " +
                         std::to_string(heldOutFraction));
  if (Status st = checkRowCounts(all); !st.ok())
    return st;
  int64_t rows = all.numRows();
  auto count = static_cast<int64_t>(std::floor(heldOutFraction * static_cast<double>(rows) + 0.5));
  if (count >= rows)
    return Status::error("a held-out fraction of " + std::to_string(heldOutFraction) + " of " +
                         std::to_string(rows) + " rows leaves no training rows");
  std::vector<int64_t> order = seededPermutation(rows, mixSeed(seed));
  std::vector<int64_t> held(order.begin(), order.begin() + count);
  std::vector<int64_t> kept(order.begin() + count, order.end());
  std::sort(held.begin(), held.end());
  std::sort(kept.begin(), kept.end());
  Dataset t = selectRows(all, kept);
  Dataset h = selectRows(all, held);
  train = std::move(t);
  heldOut = std::move(h);
  return Status::success();
}

Status checkColumnFitsFeed(const Dataset &dataset, const std::string &columnName,
                           const std::string &feed, const FeedSpec &spec) {
  auto it = dataset.columns.find(columnName);
  if (it == dataset.columns.end())
    return Status::error("the data has no column for feed '" + feed +
                         "'; it has: " + joinKeys(dataset.columns));
  const Tensor &column = it->second;
  std::string feedType = runtime::formatType(spec.dtype, spec.dims);
  std::string prefix = dataset.describeColumn(columnName) + " does not fit feed '" + feed + "': ";
  if (column.dtype() != spec.dtype)
    return Status::error(prefix + "its elements are " + runtime::dtypeName(column.dtype()) +
                         " but the program expects " + runtime::dtypeName(spec.dtype) + " (feed " +
                         feedType + ")");
  const Shape &shape = column.shape();
  bool fits = spec.dims.size() == shape.size() && !spec.dims.empty();
  for (size_t i = 1; fits && i < shape.size(); ++i)
    fits = spec.dims[i] < 0 || spec.dims[i] == shape[i];
  if (!fits) {
    std::string expected = spec.dims.empty() ? std::string("a scalar") : formatDims(spec.dims, 1);
    return Status::error(prefix + "rows have shape " + formatDims(shape, 1) +
                         " but the program expects " + expected + " (feed " + feedType + ")");
  }
  return Status::success();
}

Status checkDatasetFeeds(const Dataset &dataset, const std::map<std::string, FeedSpec> &feeds) {
  if (Status st = checkRowCounts(dataset); !st.ok())
    return st;
  for (const auto &[feed, spec] : feeds)
    if (Status st = checkColumnFitsFeed(dataset, feed, feed, spec); !st.ok())
      return st;
  for (const auto &entry : dataset.columns) {
    if (feeds.count(entry.first))
      continue;
    std::string names;
    for (const auto &f : feeds)
      names += (names.empty() ? "" : ", ") + f.first;
    return Status::error(
        "the data has " + dataset.describeColumn(entry.first) +
        ", which is not a feed of the program; feeds: " + (names.empty() ? "none" : names));
  }
  return Status::success();
}

} // namespace distc::training
