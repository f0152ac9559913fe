//===- CheckpointTest.cpp - Crash-safe checkpoints ------------------------===//

#include "distc/Training/Checkpoint.h"

#include "TestUtil.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

using namespace distc::training;
using namespace distc::training::test;
namespace fs = std::filesystem;

namespace {

TensorMap params() {
  return {{"fc_0.w_0", iotaF32({64, 16}, 0.01f)},
          {"fc_0.b_0", iotaF32({16})},
          {"fc_0.w_0@moment1", iotaF32({64, 16}, -1.0f)},
          {"scope/step", fromI64({1}, {42})}};
}

VarSpecs specsOf(const TensorMap &tensors) {
  VarSpecs specs;
  for (const auto &[name, t] : tensors)
    specs[name] = {t.dtype(), t.shape()};
  return specs;
}

TrainingState stateAt(int64_t step) {
  TrainingState s;
  s.step = step;
  s.epoch = step / 10;
  BatcherState b;
  b.seed = 77;
  b.epoch = s.epoch;
  b.nextRow = 32;
  b.rows = 1438;
  s.batcher = b;
  s.extra = {{"artifact_checksum", "0123abcd"}, {"lr", 0.05}};
  return s;
}

} // namespace

TEST(CheckpointTest, FileNamesEncodeReversibly) {
  EXPECT_EQ(encodeVarFileName("fc_0.w_0"), "fc_0.w_0.npy");
  EXPECT_EQ(encodeVarFileName("fc_0.w_0@GRAD"), "fc_0.w_0@GRAD.npy");
  EXPECT_EQ(encodeVarFileName("a/b c%"), "a%2Fb%20c%25.npy");
  EXPECT_EQ(encodeVarFileName(".."), "%2E..npy");
  for (std::string name : {"fc_0.w_0", "a/b c%", "..", ".hidden", "x\n\xff", "%41"})
    EXPECT_EQ(decodeVarFileName(encodeVarFileName(name)), name) << name;
  EXPECT_EQ(decodeVarFileName("x.txt"), std::nullopt);
  EXPECT_EQ(decodeVarFileName("%4.npy"), std::nullopt);
  EXPECT_EQ(decodeVarFileName("a%2fb.npy"), std::nullopt); // lower-case hex is never written
  EXPECT_EQ(decodeVarFileName("a b.npy"), std::nullopt);
}

TEST(CheckpointTest, RoundTripsTensorsAndState) {
  TempDir dir;
  TensorMap saved = params();
  std::string where;
  Status st = saveCheckpoint(dir.path(), saved, stateAt(120), {}, &where);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(where, dir.file("step-120"));
  EXPECT_EQ(readText(dir.file("latest")), "step-120\n");
  EXPECT_TRUE(fs::exists(dir.file("step-120/scope%2Fstep.npy")));
  EXPECT_TRUE(fs::exists(dir.file("step-120/fc_0.w_0@moment1.npy")));

  for (const std::string &path : {dir.path(), dir.file("step-120")}) {
    TensorMap loaded;
    TrainingState state;
    VarSpecs specs = specsOf(saved);
    st = loadCheckpoint(path, &specs, loaded, state);
    ASSERT_TRUE(st.ok()) << st.message();
    ASSERT_EQ(loaded.size(), saved.size());
    for (const auto &[name, t] : saved)
      EXPECT_TRUE(sameTensor(loaded.at(name), t)) << name;
    EXPECT_EQ(state.step, 120);
    EXPECT_EQ(state.epoch, 12);
    ASSERT_TRUE(state.batcher.has_value());
    EXPECT_EQ(state.batcher->seed, 77u);
    EXPECT_EQ(state.batcher->nextRow, 32);
    EXPECT_EQ(state.extra.at("artifact_checksum"), "0123abcd");
    EXPECT_EQ(state.extra.at("lr"), 0.05);
  }
}

TEST(CheckpointTest, ReportsAnotherProgramsVariables) {
  TempDir dir;
  ASSERT_TRUE(saveCheckpoint(dir.path(), params(), stateAt(1)).ok());
  TensorMap loaded = {{"untouched", iotaF32({1})}};
  TrainingState state;
  VarSpecs specs = specsOf(params());

  specs["fc_0.w_0"].shape = {64, 32};
  Status st = loadCheckpoint(dir.path(), &specs, loaded, state);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(),
            "checkpoint from another program: variable 'fc_0.w_0' has shape [64,16], expected "
            "[64,32]");
  EXPECT_EQ(loaded.count("untouched"), 1u); // nothing loaded partially

  specs = specsOf(params());
  specs["fc_0.b_0"].dtype = DType::Float64;
  st = loadCheckpoint(dir.path(), &specs, loaded, state);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(),
            "checkpoint from another program: variable 'fc_0.b_0' is f32, expected f64");

  specs = specsOf(params());
  specs["fc_1.w_0"] = {DType::Float32, {16, 10}};
  st = loadCheckpoint(dir.path(), &specs, loaded, state);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "checkpoint from another program: " + dir.file("step-1") +
                              " has no variable 'fc_1.w_0'");

  specs = specsOf(params());
  specs.erase("scope/step");
  st = loadCheckpoint(dir.path(), &specs, loaded, state);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "checkpoint from another program: " + dir.file("step-1") +
                              " has variable 'scope/step', which the program does not have");
}

TEST(CheckpointTest, DetectsCorruptFiles) {
  TempDir dir;
  ASSERT_TRUE(saveCheckpoint(dir.path(), params(), stateAt(3)).ok());
  std::string file = dir.file("step-3/fc_0.b_0.npy");
  std::string bytes = readText(file);
  bytes[bytes.size() - 3] ^= 1;
  writeText(file, bytes);
  TensorMap loaded;
  TrainingState state;
  Status st = loadCheckpoint(dir.path(), nullptr, loaded, state);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message().rfind("corrupt checkpoint file " + file + ": CRC32 is ", 0), 0u)
      << st.message();

  writeText(file, bytes.substr(0, 10));
  st = loadCheckpoint(dir.path(), nullptr, loaded, state);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message().rfind("corrupt checkpoint file " + file + ": 10 bytes", 0), 0u)
      << st.message();

  fs::remove(file);
  st = loadCheckpoint(dir.path(), nullptr, loaded, state);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("checkpoint variable 'fc_0.b_0': " + file + ": cannot open"),
            std::string::npos)
      << st.message();
  EXPECT_TRUE(loaded.empty());

  writeText(dir.file("step-3/checkpoint.json"), "{\"format\": \"distc-checkpoint\", \"vers");
  st = loadCheckpoint(dir.path(), nullptr, loaded, state);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), dir.file("step-3/checkpoint.json") + ": corrupt: not a JSON object");

  writeText(dir.file("step-3/checkpoint.json"),
            R"({"format": "distc-checkpoint", "version": 2, "state": {}, "variables": {}})");
  st = loadCheckpoint(dir.path(), nullptr, loaded, state);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("newer distc (checkpoint format version 2; this one reads 1)"),
            std::string::npos);

  writeText(dir.file("step-3/checkpoint.json"),
            R"({"format": "distc-checkpoint", "version": 1, "state": {"step": 3, "epoch": 0},
                "variables": {"x": {"file": "../x.npy", "dtype": "f32", "shape": [1],
                                    "bytes": 132, "crc32": "00000000"}}})");
  st = loadCheckpoint(dir.path(), nullptr, loaded, state);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("variable 'x': 'file' is '../x.npy', not a plain file name"),
            std::string::npos);
}

TEST(CheckpointTest, ResolvesPaths) {
  TempDir dir;
  std::string resolved;
  Status st = resolveCheckpoint(dir.path(), resolved);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(),
            dir.path() + ": not a checkpoint: it has neither checkpoint.json nor a 'latest' file");
  st = resolveCheckpoint(dir.file("nowhere"), resolved);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), dir.file("nowhere") + ": no such checkpoint directory");
  writeText(dir.file("latest"), "../../etc\n");
  st = resolveCheckpoint(dir.path(), resolved);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), dir.file("latest") + ": names '../../etc', not a step-<N> checkpoint");
}

TEST(CheckpointTest, PrunesAndKeepsTheLatest) {
  TempDir dir;
  CheckpointOptions keep2;
  keep2.keepLast = 2;
  for (int64_t step : {10, 20, 30, 40})
    ASSERT_TRUE(saveCheckpoint(dir.path(), params(), stateAt(step), keep2).ok());
  std::vector<int64_t> steps;
  ASSERT_TRUE(listCheckpoints(dir.path(), steps).ok());
  EXPECT_EQ(steps, (std::vector<int64_t>{30, 40}));
  EXPECT_EQ(readText(dir.file("latest")), "step-40\n");

  // Saving an older step (a run restarted from step 30) keeps it even though
  // newer ones exist, and points latest at it.
  ASSERT_TRUE(saveCheckpoint(dir.path(), params(), stateAt(35), keep2).ok());
  ASSERT_TRUE(listCheckpoints(dir.path(), steps).ok());
  EXPECT_EQ(steps, (std::vector<int64_t>{35, 40}));
  EXPECT_EQ(readText(dir.file("latest")), "step-35\n");

  CheckpointOptions all;
  all.keepLast = 0;
  ASSERT_TRUE(saveCheckpoint(dir.path(), params(), stateAt(50), all).ok());
  ASSERT_TRUE(listCheckpoints(dir.path(), steps).ok());
  EXPECT_EQ(steps.size(), 3u);
}

TEST(CheckpointTest, ResavingAStepReplacesIt) {
  TempDir dir;
  ASSERT_TRUE(saveCheckpoint(dir.path(), params(), stateAt(5)).ok());
  TensorMap changed = params();
  changed["fc_0.b_0"] = iotaF32({16}, 2.0f);
  ASSERT_TRUE(saveCheckpoint(dir.path(), changed, stateAt(5)).ok());
  TensorMap loaded;
  TrainingState state;
  ASSERT_TRUE(loadCheckpoint(dir.path(), nullptr, loaded, state).ok());
  EXPECT_TRUE(sameTensor(loaded.at("fc_0.b_0"), changed.at("fc_0.b_0")));
  // Nothing but the checkpoint and latest is left behind.
  int entries = 0;
  for (const auto &entry : fs::directory_iterator(dir.path())) {
    (void)entry;
    ++entries;
  }
  EXPECT_EQ(entries, 2);
}

// A save that died before publishing leaves only a hidden temporary
// directory: the previous checkpoint still loads, and the next save removes
// the leftover.
TEST(CheckpointTest, InterruptedSaveLeavesThePreviousOne) {
  TempDir dir;
  ASSERT_TRUE(saveCheckpoint(dir.path(), params(), stateAt(10)).ok());
  fs::create_directory(dir.file(".step-20.tmp-999-0"));
  writeText(dir.file(".step-20.tmp-999-0/fc_0.w_0.npy"), "partial");
  writeText(dir.file(".latest.tmp-999-1"), "step-2");
  TensorMap loaded;
  TrainingState state;
  ASSERT_TRUE(loadCheckpoint(dir.path(), nullptr, loaded, state).ok());
  EXPECT_EQ(state.step, 10);
  ASSERT_TRUE(saveCheckpoint(dir.path(), params(), stateAt(20)).ok());
  EXPECT_FALSE(fs::exists(dir.file(".step-20.tmp-999-0")));
  EXPECT_FALSE(fs::exists(dir.file(".latest.tmp-999-1")));
}

// A prune killed part way leaves either a renamed `.pruning-step-N` or, from
// a prune that deleted in place, a `step-N` holding some variables but no
// manifest. Neither is ever taken for a checkpoint, and the next start
// (resolving `latest` to resume, or saving) removes both.
TEST(CheckpointTest, InterruptedPruneIsCleanedUp) {
  TempDir dir;
  CheckpointOptions keep1;
  keep1.keepLast = 1;
  for (int64_t step : {10, 20, 30})
    ASSERT_TRUE(saveCheckpoint(dir.path(), params(), stateAt(step), keep1).ok());
  // Prunes rename before deleting: no step-10 or step-20 is left at all.
  EXPECT_FALSE(fs::exists(dir.file("step-10")));
  EXPECT_FALSE(fs::exists(dir.file("step-20")));

  // The states a kill leaves: after the rename, and after a partial delete.
  fs::create_directory(dir.file(".pruning-step-20"));
  writeText(dir.file(".pruning-step-20/fc_0.b_0.npy"), "partial");
  fs::create_directory(dir.file("step-25"));
  writeText(dir.file("step-25/fc_0.w_0.npy"), "partial");
  std::vector<int64_t> steps;
  ASSERT_TRUE(listCheckpoints(dir.path(), steps).ok());
  EXPECT_EQ(steps, (std::vector<int64_t>{30}));

  std::string resolved;
  ASSERT_TRUE(resolveCheckpoint(dir.path(), resolved).ok());
  EXPECT_EQ(resolved, dir.file("step-30"));
  EXPECT_FALSE(fs::exists(dir.file(".pruning-step-20")));
  EXPECT_FALSE(fs::exists(dir.file("step-25")));
  TensorMap loaded;
  TrainingState state;
  ASSERT_TRUE(loadCheckpoint(dir.path(), nullptr, loaded, state).ok());
  EXPECT_EQ(state.step, 30);

  // A save cleans up as well, before it writes anything.
  fs::create_directory(dir.file(".pruning-step-30"));
  fs::create_directory(dir.file("step-35"));
  writeText(dir.file("step-35/fc_0.w_0.npy"), "partial");
  ASSERT_TRUE(saveCheckpoint(dir.path(), params(), stateAt(40), keep1).ok());
  std::vector<std::string> names;
  for (const auto &entry : fs::directory_iterator(dir.path()))
    names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"latest", "step-40"}));
}

TEST(CheckpointTest, KeepsBfloat16) {
  TempDir dir;
  Tensor t(DType::BFloat16, {3});
  t.data<uint16_t>()[0] = distc::runtime::floatToBfloat16(1.5f);
  t.data<uint16_t>()[1] = distc::runtime::floatToBfloat16(-2.0f);
  t.data<uint16_t>()[2] = 0x7fc0;
  ASSERT_TRUE(saveCheckpoint(dir.path(), {{"w", t}}, stateAt(1)).ok());
  TensorMap loaded;
  TrainingState state;
  VarSpecs specs = {{"w", {DType::BFloat16, {3}}}};
  Status st = loadCheckpoint(dir.path(), &specs, loaded, state);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_TRUE(sameTensor(loaded.at("w"), t));
}

TEST(CheckpointTest, StateWithoutBatcher) {
  TrainingState s;
  s.step = 4;
  TrainingState back;
  ASSERT_TRUE(TrainingState::fromJson(s.toJson(), back).ok());
  EXPECT_FALSE(back.batcher.has_value());
  EXPECT_EQ(back.step, 4);
  nlohmann::json bad = s.toJson();
  bad["step"] = -1;
  Status st = TrainingState::fromJson(bad, back);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "training state: 'step' is missing or not an integer >= 0");
}
