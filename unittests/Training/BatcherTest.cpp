//===- BatcherTest.cpp - Epochs, batches and resumable positions ----------===//

#include "distc/Training/Batcher.h"

#include "TestUtil.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace distc::training;
using namespace distc::training::test;

namespace {

Dataset rows(int64_t n) {
  Dataset d;
  std::vector<int64_t> ids(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    ids[static_cast<size_t>(i)] = i;
  EXPECT_TRUE(addColumn(d, "id", fromI64({n}, ids)).ok());
  EXPECT_TRUE(addColumn(d, "x", iotaF32({n, 2})).ok());
  return d;
}

std::vector<int64_t> ids(const Batch &b) {
  const Tensor &t = b.columns.at("id");
  return std::vector<int64_t>(t.data<int64_t>(), t.data<int64_t>() + t.numel());
}

Batcher make(int64_t n, BatcherOptions o) {
  Batcher b;
  Status st = Batcher::create(rows(n), o, b);
  EXPECT_TRUE(st.ok()) << st.message();
  return b;
}

} // namespace

TEST(BatcherTest, InOrderWithSmallerLastBatch) {
  BatcherOptions o;
  o.batchSize = 4;
  o.shuffle = false;
  Batcher b = make(10, o);
  EXPECT_EQ(b.batchesPerEpoch(), 3);
  Batch first = b.next();
  EXPECT_EQ(ids(first), (std::vector<int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(first.columns.at("x").shape(), (Shape{4, 2}));
  EXPECT_EQ(first.columns.at("x").data<float>()[2], 2.0f); // row 1
  EXPECT_FALSE(first.lastInEpoch);
  EXPECT_EQ(ids(b.next()), (std::vector<int64_t>{4, 5, 6, 7}));
  Batch last = b.next();
  EXPECT_EQ(ids(last), (std::vector<int64_t>{8, 9}));
  EXPECT_EQ(last.rows, 2);
  EXPECT_EQ(last.index, 2);
  EXPECT_TRUE(last.lastInEpoch);
  EXPECT_EQ(b.epoch(), 1);
  Batch again = b.next();
  EXPECT_EQ(again.epoch, 1);
  EXPECT_EQ(ids(again), (std::vector<int64_t>{0, 1, 2, 3}));
}

TEST(BatcherTest, DropLast) {
  BatcherOptions o;
  o.batchSize = 4;
  o.shuffle = false;
  o.dropLast = true;
  Batcher b = make(10, o);
  EXPECT_EQ(b.batchesPerEpoch(), 2);
  b.next();
  EXPECT_TRUE(b.next().lastInEpoch);
  EXPECT_EQ(b.next().epoch, 1);
  o.batchSize = 11;
  Batcher none;
  Status st = Batcher::create(rows(10), o, none);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(),
            "a batch size of 11 with drop-last leaves no batch: the data has 10 rows");
}

TEST(BatcherTest, ShuffledEpochsArePermutationsThatDiffer) {
  BatcherOptions o;
  o.batchSize = 3;
  o.seed = 5;
  Batcher b = make(20, o);
  std::vector<std::vector<int64_t>> epochs(2);
  for (auto &seen : epochs) {
    for (int64_t i = 0; i < b.batchesPerEpoch(); ++i) {
      std::vector<int64_t> v = ids(b.next());
      seen.insert(seen.end(), v.begin(), v.end());
    }
  }
  EXPECT_NE(epochs[0], epochs[1]);
  for (auto seen : epochs) {
    std::sort(seen.begin(), seen.end());
    ASSERT_EQ(seen.size(), 20u);
    for (int64_t i = 0; i < 20; ++i)
      EXPECT_EQ(seen[static_cast<size_t>(i)], i);
  }
  // Same seed, same order; another seed, another.
  Batcher same = make(20, o);
  EXPECT_EQ(same.epochOrder(1), b.epochOrder(1));
  o.seed = 6;
  EXPECT_NE(make(20, o).epochOrder(0), b.epochOrder(0));
}

TEST(BatcherTest, ResumeSeesTheSameBatches) {
  BatcherOptions o;
  o.batchSize = 4;
  o.seed = 1234;
  Batcher straight = make(10, o);
  std::vector<std::vector<int64_t>> expected;
  for (int i = 0; i < 12; ++i)
    expected.push_back(ids(straight.next()));

  for (int stopAfter : {0, 1, 2, 3, 5, 7}) {
    Batcher first = make(10, o);
    for (int i = 0; i < stopAfter; ++i)
      first.next();
    // Through JSON, as a checkpoint carries it.
    nlohmann::json saved = nlohmann::json::parse(first.state().toJson().dump());
    BatcherState state;
    ASSERT_TRUE(BatcherState::fromJson(saved, state).ok());
    BatcherOptions other = o;
    other.seed = 999; // the saved seed wins
    Batcher resumed = make(10, other);
    ASSERT_TRUE(resumed.restore(state).ok());
    for (int i = stopAfter; i < 12; ++i)
      EXPECT_EQ(ids(resumed.next()), expected[static_cast<size_t>(i)]) << "stop " << stopAfter;
  }
}

TEST(BatcherTest, StateSurvivesLargeSeeds) {
  BatcherState s;
  s.seed = 18446744073709551615ULL;
  s.epoch = 3;
  s.nextRow = 8;
  s.rows = 10;
  s.shuffle = false;
  BatcherState back;
  ASSERT_TRUE(BatcherState::fromJson(nlohmann::json::parse(s.toJson().dump()), back).ok());
  EXPECT_EQ(back.seed, s.seed);
  EXPECT_EQ(back.epoch, 3);
  EXPECT_EQ(back.nextRow, 8);
  EXPECT_FALSE(back.shuffle);
  nlohmann::json bad = s.toJson();
  bad["seed"] = "12x";
  Status st = BatcherState::fromJson(bad, back);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "batcher state: 'seed' is '12x', not an unsigned decimal");
  bad = s.toJson();
  bad.erase("next_row");
  st = BatcherState::fromJson(bad, back);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "batcher state: 'next_row' is missing or not an integer");
}

TEST(BatcherTest, RestoreRejectsForeignStates) {
  BatcherOptions o;
  o.batchSize = 4;
  Batcher b = make(10, o);
  BatcherState s = b.state();
  s.rows = 11;
  Status st = b.restore(s);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "cannot resume: the saved batcher position is for 11 rows of data but "
                          "the data now has 10");
  s = b.state();
  s.shuffle = false;
  st = b.restore(s);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "cannot resume: the saved batcher position was made without shuffling "
                          "but this run is with it");
  s = b.state();
  s.nextRow = 3;
  EXPECT_FALSE(b.restore(s).ok());
  s.nextRow = 12;
  EXPECT_FALSE(b.restore(s).ok());
}

TEST(BatcherTest, RejectsBadInputs) {
  Batcher b;
  BatcherOptions o;
  o.batchSize = 0;
  EXPECT_FALSE(Batcher::create(rows(3), o, b).ok());
  o.batchSize = 1;
  EXPECT_FALSE(Batcher::create(Dataset(), o, b).ok());
  EXPECT_FALSE(Batcher::create(rows(0), o, b).ok());
}

// Data parallelism: N ranks with batch b see, step by step, exactly the rows
// of a serial run with batch N·b; the partial last batch is shared evenly.
TEST(BatcherTest, RanksShareTheSerialGlobalBatch) {
  const int64_t n = 23, b = 3;
  for (int64_t world : {2, 4}) {
    BatcherOptions serialOptions;
    serialOptions.batchSize = b * world;
    serialOptions.seed = 7;
    Batcher serial = make(n, serialOptions);
    std::vector<Batcher> ranks;
    for (int64_t r = 0; r < world; ++r) {
      BatcherOptions o = serialOptions;
      o.batchSize = b;
      o.rank = r;
      o.worldSize = world;
      ranks.push_back(make(n, o));
    }
    EXPECT_EQ(ranks[0].batchesPerEpoch(), serial.batchesPerEpoch());
    for (int step = 0; step < 3 * serial.batchesPerEpoch(); ++step) {
      Batch whole = serial.next();
      std::vector<int64_t> joined;
      for (int64_t r = 0; r < world; ++r) {
        Batch part = ranks[static_cast<size_t>(r)].next();
        EXPECT_EQ(part.epoch, whole.epoch);
        EXPECT_EQ(part.index, whole.index);
        EXPECT_EQ(part.lastInEpoch, whole.lastInEpoch);
        EXPECT_GE(part.rows, 1);
        std::vector<int64_t> got = ids(part);
        joined.insert(joined.end(), got.begin(), got.end());
      }
      EXPECT_EQ(joined, ids(whole)) << "world " << world << " step " << step;
    }
    // Positions are global: every rank's state equals the serial one's.
    EXPECT_EQ(ranks[1].state().toJson(), serial.state().toJson());
  }
}

TEST(BatcherTest, TailTooSmallForEveryRankIsDropped) {
  // 10 rows, global batch 4·2 = 8: the tail of 2 rows cannot feed 4 ranks.
  BatcherOptions o;
  o.batchSize = 2;
  o.worldSize = 4;
  o.shuffle = false;
  o.rank = 3;
  Batcher b = make(10, o);
  EXPECT_EQ(b.batchesPerEpoch(), 1);
  EXPECT_EQ(ids(b.next()), (std::vector<int64_t>{6, 7}));
  EXPECT_EQ(b.next().epoch, 1);

  Batcher none;
  o.batchSize = 1;
  o.worldSize = 4;
  Status st = Batcher::create(rows(3), o, none);
  EXPECT_EQ(st.message(), "a batch size of 1 on each of 4 ranks leaves no batch: the data has 3 rows");
  o.rank = 4;
  st = Batcher::create(rows(30), o, none);
  EXPECT_EQ(st.message(), "rank 4 is not one of 4 ranks");
}

TEST(BatcherTest, EqualSharesReadAnUnevenTailWhole) {
  // 11 rows, 2 replicas of 2 rows: global batches of 4, 4 and a tail of 3
  // that two replicas cannot share equally, so each reads all 3.
  BatcherOptions o;
  o.batchSize = 2;
  o.worldSize = 2;
  o.shuffle = false;
  o.equalShares = true;
  for (int64_t replica = 0; replica < 2; ++replica) {
    o.rank = replica;
    Batcher b = make(11, o);
    EXPECT_EQ(b.batchesPerEpoch(), 3);
    Batch first = b.next();
    EXPECT_EQ(ids(first), replica == 0 ? (std::vector<int64_t>{0, 1})
                                       : (std::vector<int64_t>{2, 3}));
    EXPECT_EQ(first.globalRows, 4);
    b.next();
    Batch tail = b.next();
    EXPECT_EQ(ids(tail), (std::vector<int64_t>{8, 9, 10}));
    EXPECT_EQ(tail.rows, 3);
    EXPECT_EQ(tail.globalRows, 3);
    EXPECT_TRUE(tail.lastInEpoch);
  }
  // A tail smaller than the replicas is read whole, not dropped: 9 rows
  // over 4 replicas of 2 leave 1.
  o.worldSize = 4;
  o.rank = 3;
  Batcher b = make(9, o);
  EXPECT_EQ(b.batchesPerEpoch(), 2);
  b.next();
  EXPECT_EQ(ids(b.next()), (std::vector<int64_t>{8}));
}
