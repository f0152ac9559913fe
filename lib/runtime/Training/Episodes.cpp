//===- Episodes.cpp - N-way K-shot episodes for few-shot learning ---------===//

#include "distc/Training/Episodes.h"

#include "distc/Training/Random.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

namespace distc::training {

namespace {

bool labelValue(const Tensor &column, int64_t row, double &value) {
  switch (column.dtype()) {
  case DType::Int64:
    value = double(column.data<int64_t>()[row]);
    return true;
  case DType::Int32:
    value = double(column.data<int32_t>()[row]);
    return true;
  case DType::Float32:
    value = double(column.data<float>()[row]);
    return true;
  case DType::Float64:
    value = column.data<double>()[row];
    return true;
  default:
    return false;
  }
}

/// The first `take` entries of a partial Fisher-Yates shuffle of `values`:
/// for i = 0.. take-1, swap values[i] with values[i + drawBelow(n - i)].
std::vector<int64_t> drawFront(std::vector<int64_t> values, int64_t take, std::mt19937_64 &engine) {
  const uint64_t n = values.size();
  for (uint64_t i = 0; i < uint64_t(take) && i + 1 < n; ++i)
    std::swap(values[i], values[i + drawBelow(engine, n - i)]);
  values.resize(size_t(take));
  return values;
}

} // namespace

Status indexClasses(const Dataset &dataset, const std::string &labelFeed, ClassIndex &out) {
  auto it = dataset.columns.find(labelFeed);
  if (it == dataset.columns.end())
    return Status::error("episodes need the label column '" + labelFeed +
                         "', which the data does not have");
  const Tensor &column = it->second;
  const int64_t rows = column.shape().empty() ? 0 : column.dim(0);
  if (column.shape().size() > 2 || (column.shape().size() == 2 && column.dim(1) != 1) ||
      (rows > 0 && column.numel() != rows))
    return Status::error(dataset.describeColumn(labelFeed) +
                         " holds more than one value per row; episodes need one class per row");
  std::map<int64_t, std::vector<int64_t>> byLabel;
  for (int64_t r = 0; r < rows; ++r) {
    double v = 0;
    if (!labelValue(column, r, v))
      return Status::error(dataset.describeColumn(labelFeed) + " is " +
                           runtime::formatType(column.dtype(), column.shape()) +
                           "; episodes need integer class labels");
    if (!(std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9.0e15))
      return Status::error(dataset.describeColumn(labelFeed) + ": row " + std::to_string(r) +
                           " holds " + std::to_string(v) + ", not an integer class label");
    byLabel[int64_t(v)].push_back(r);
  }
  ClassIndex index;
  index.labelFeed = labelFeed;
  index.source = dataset.describeColumn(labelFeed);
  auto names = dataset.classNames.find(labelFeed);
  for (auto &[label, members] : byLabel) {
    bool named =
        names != dataset.classNames.end() && label >= 0 && label < int64_t(names->second.size());
    index.names.push_back(named ? names->second[size_t(label)] : "label " + std::to_string(label));
    index.labels.push_back(label);
    index.rows.push_back(std::move(members));
  }
  out = std::move(index);
  return Status::success();
}

Status checkEpisodes(const ClassIndex &classes, const EpisodeOptions &o) {
  if (o.ways < 1 || o.shots < 1 || o.queries < 0)
    return Status::error("episodes need at least 1 way and 1 shot and no negative queries");
  const std::string what = "cannot draw " + std::to_string(o.ways) + "-way " +
                           std::to_string(o.shots) + "-shot episodes with " +
                           std::to_string(o.queries) + (o.queries == 1 ? " query" : " queries") +
                           " from " + classes.source;
  const int64_t n = int64_t(classes.rows.size());
  if (n < o.ways)
    return Status::error(what + ": it has " + std::to_string(n) + (n == 1 ? " class" : " classes"));
  size_t smallest = 0;
  for (size_t c = 1; c < classes.rows.size(); ++c)
    if (classes.rows[c].size() < classes.rows[smallest].size())
      smallest = c;
  const int64_t have = int64_t(classes.rows[smallest].size());
  if (have < o.shots + o.queries)
    return Status::error(what + ": class " + classes.names[smallest] + " has " +
                         std::to_string(have) + (have == 1 ? " row" : " rows") +
                         ", each class needs " + std::to_string(o.shots + o.queries));
  return Status::success();
}

Episode drawEpisode(const ClassIndex &classes, const EpisodeOptions &o, uint64_t seed,
                    uint64_t index) {
  std::mt19937_64 engine(mixSeed(mixSeed(seed) + index));
  std::vector<int64_t> all(classes.rows.size());
  for (size_t c = 0; c < all.size(); ++c)
    all[c] = int64_t(c);
  Episode e;
  e.classes = drawFront(std::move(all), o.ways, engine);
  for (int64_t way = 0; way < o.ways; ++way) {
    std::vector<int64_t> rows =
        drawFront(classes.rows[size_t(e.classes[size_t(way)])], o.shots + o.queries, engine);
    for (int64_t k = 0; k < o.shots + o.queries; ++k) {
      bool support = k < o.shots;
      (support ? e.supportRows : e.queryRows).push_back(rows[size_t(k)]);
      (support ? e.supportLabels : e.queryLabels).push_back(way);
    }
  }
  // Class by class: support rows first, then query rows (both already are).
  return e;
}

Dataset episodeBatch(const Dataset &dataset, const std::string &labelFeed,
                     const std::vector<int64_t> &rows, const std::vector<int64_t> &labels) {
  Dataset batch = selectRows(dataset, rows);
  Tensor &column = batch.columns.at(labelFeed);
  for (size_t i = 0; i < labels.size(); ++i) {
    const int64_t v = labels[i];
    switch (column.dtype()) {
    case DType::Int64:
      column.data<int64_t>()[i] = v;
      break;
    case DType::Int32:
      column.data<int32_t>()[i] = int32_t(v);
      break;
    case DType::Float32:
      column.data<float>()[i] = float(v);
      break;
    case DType::Float64:
      column.data<double>()[i] = double(v);
      break;
    default:
      break; // indexClasses refused other dtypes
    }
  }
  return batch;
}

std::pair<int64_t, int64_t> episodeShare(int64_t count, int rank, int ranks) {
  if (ranks < 1 || rank < 0 || rank >= ranks || count <= 0)
    return {0, 0};
  const int64_t block = count / ranks, longer = count % ranks;
  const int64_t begin = rank * block + std::min<int64_t>(rank, longer);
  return {begin, begin + block + (rank < longer ? 1 : 0)};
}

} // namespace distc::training
