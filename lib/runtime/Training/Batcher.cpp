//===- Batcher.cpp - Epochs of mini-batches -------------------------------===//

#include "distc/Training/Batcher.h"

#include "distc/Training/Random.h"

#include <numeric>

namespace distc::training {

nlohmann::json BatcherState::toJson() const {
  return {{"seed", std::to_string(seed)},
          {"epoch", epoch},
          {"next_row", nextRow},
          {"rows", rows},
          {"shuffle", shuffle}};
}

Status BatcherState::fromJson(const nlohmann::json &json, BatcherState &out) {
  if (!json.is_object())
    return Status::error("batcher state is not a JSON object");
  BatcherState s;
  auto integer = [&](const char *key, int64_t &value) {
    auto it = json.find(key);
    if (it == json.end() || !it->is_number_integer())
      return Status::error(std::string("batcher state: '") + key +
                           "' is missing or not an integer");
    value = it->get<int64_t>();
    if (value < 0)
      return Status::error(std::string("batcher state: '") + key + "' is negative");
    return Status::success();
  };
  auto seed = json.find("seed");
  if (seed == json.end() || !seed->is_string())
    return Status::error("batcher state: 'seed' is missing or not a decimal string");
  const std::string &text = seed->get_ref<const std::string &>();
  try {
    size_t used = 0;
    s.seed = std::stoull(text, &used);
    if (used != text.size() || text.empty() || text[0] == '-')
      throw std::invalid_argument(text);
  } catch (const std::exception &) {
    return Status::error("batcher state: 'seed' is '" + text + "', not an unsigned decimal");
  }
  for (auto [key, field] : {std::pair{"epoch", &s.epoch}, std::pair{"next_row", &s.nextRow},
                            std::pair{"rows", &s.rows}})
    if (Status st = integer(key, *field); !st.ok())
      return st;
  auto shuffle = json.find("shuffle");
  if (shuffle == json.end() || !shuffle->is_boolean())
    return Status::error("batcher state: 'shuffle' is missing or not a boolean");
  s.shuffle = shuffle->get<bool>();
  out = s;
  return Status::success();
}

Status Batcher::create(Dataset dataset, const BatcherOptions &options, Batcher &out) {
  if (dataset.columns.empty())
    return Status::error("cannot batch a dataset without columns");
  if (Status st = checkRowCounts(dataset); !st.ok())
    return st;
  int64_t rows = dataset.numRows();
  if (rows == 0)
    return Status::error("cannot batch a dataset without rows");
  if (options.batchSize < 1)
    return Status::error("the batch size must be at least 1, got " +
                         std::to_string(options.batchSize));
  if (options.worldSize < 1 || options.rank < 0 || options.rank >= options.worldSize)
    return Status::error("rank " + std::to_string(options.rank) + " is not one of " +
                         std::to_string(options.worldSize) + " ranks");
  // With fewer rows than a global batch, the only batch is the partial
  // tail, which drop-last (or too few rows for every rank to get one) drops.
  int64_t global = options.batchSize * options.worldSize;
  bool tailDropped =
      options.dropLast || (rows % global < options.worldSize && !options.equalShares);
  if (rows < global && tailDropped)
    return Status::error("a batch size of " + std::to_string(options.batchSize) +
                         (options.worldSize > 1
                              ? " on each of " + std::to_string(options.worldSize) + " ranks"
                              : std::string()) +
                         (options.dropLast ? " with drop-last" : "") +
                         " leaves no batch: the data has " + std::to_string(rows) + " rows");
  Batcher b;
  b.dataset_ = std::move(dataset);
  b.options_ = options;
  b.startEpoch(0);
  out = std::move(b);
  return Status::success();
}

std::vector<int64_t> Batcher::epochOrder(int64_t epoch) const {
  int64_t rows = dataset_.numRows();
  if (options_.shuffle)
    return seededPermutation(rows, mixSeed(mixSeed(options_.seed) + static_cast<uint64_t>(epoch)));
  std::vector<int64_t> order(static_cast<size_t>(rows));
  std::iota(order.begin(), order.end(), int64_t{0});
  return order;
}

void Batcher::startEpoch(int64_t epoch) {
  epoch_ = epoch;
  nextRow_ = 0;
  order_ = epochOrder(epoch);
}

int64_t Batcher::epochEnd() const {
  int64_t rows = dataset_.numRows();
  int64_t tail = rows % globalBatchSize();
  // A partial global batch too small to give every rank a row is dropped.
  bool dropTail =
      options_.dropLast || (tail > 0 && tail < options_.worldSize && !options_.equalShares);
  return dropTail ? rows - tail : rows;
}

int64_t Batcher::batchesPerEpoch() const {
  int64_t global = globalBatchSize();
  return epochEnd() / global + (epochEnd() % global ? 1 : 0);
}

Batch Batcher::next() {
  int64_t end = epochEnd();
  int64_t global = globalBatchSize();
  int64_t stop = std::min(nextRow_ + global, end);
  // This rank's contiguous share of the global batch [nextRow_, stop).
  int64_t m = stop - nextRow_, n = options_.worldSize, r = options_.rank;
  int64_t first = nextRow_ + r * m / n, last = nextRow_ + (r + 1) * m / n;
  if (options_.equalShares && m % n != 0) {
    first = nextRow_;
    last = stop;
  }
  std::vector<int64_t> rows(order_.begin() + first, order_.begin() + last);
  Batch batch;
  batch.columns = selectRows(dataset_, rows).columns;
  batch.epoch = epoch_;
  batch.index = nextRow_ / global;
  batch.rows = last - first;
  batch.globalRows = m;
  batch.lastInEpoch = stop >= end;
  nextRow_ = stop;
  if (batch.lastInEpoch)
    startEpoch(epoch_ + 1);
  return batch;
}

BatcherState Batcher::state() const {
  BatcherState s;
  s.seed = options_.seed;
  s.epoch = epoch_;
  s.nextRow = nextRow_;
  s.rows = dataset_.numRows();
  s.shuffle = options_.shuffle;
  return s;
}

Status Batcher::restore(const BatcherState &state) {
  if (state.rows != dataset_.numRows())
    return Status::error("cannot resume: the saved batcher position is for " +
                         std::to_string(state.rows) + " rows of data but the data now has " +
                         std::to_string(dataset_.numRows()));
  if (state.shuffle != options_.shuffle)
    return Status::error(std::string("cannot resume: the saved batcher position was made ") +
                         (state.shuffle ? "with" : "without") + " shuffling but this run is " +
                         (options_.shuffle ? "with" : "without") + " it");
  if (state.epoch < 0 || state.nextRow < 0 || state.nextRow >= epochEnd() ||
      state.nextRow % globalBatchSize() != 0)
    return Status::error("cannot resume: the saved batcher position (epoch " +
                         std::to_string(state.epoch) + ", row " + std::to_string(state.nextRow) +
                         ") is not the start of a batch of " + std::to_string(globalBatchSize()) +
                         " rows");
  options_.seed = state.seed;
  startEpoch(state.epoch);
  nextRow_ = state.nextRow;
  return Status::success();
}

} // namespace distc::training
