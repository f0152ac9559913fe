//===- ArenaTest.cpp - Programs whose temporaries share one arena ---------===//
//
// The layout facts the compiler plans with and the validator checks with
// (ArenaLayout.h), a session running a program from its arena against the
// same program without one, and plans the loader must refuse.
//
//===----------------------------------------------------------------------===//

#include "TestArtifacts.h"

#include "distc/Artifact/ArenaLayout.h"

#include <gtest/gtest.h>

#include <random>

using namespace distc::testing;
using namespace distc::artifact;

namespace {

TEST(ArenaLayout, FootprintsOfStaticScaledAndOtherDims) {
  ArenaFootprint f = arenaFootprint({{-1, 4, 1}, {-1, 3, 1}}, 4);
  EXPECT_EQ(f.kind, ArenaFootprint::Kind::Static);
  EXPECT_EQ(f.bytes, 48);
  f = arenaFootprint({{2, 1, 1}, {-1, 3, 1}}, 8);
  EXPECT_EQ(f.kind, ArenaFootprint::Kind::Scaled);
  EXPECT_EQ(f.symbol, 2);
  EXPECT_EQ(f.bytes, 24); // per unit of symbol 2
  // A symbol times a factor is still a whole multiple.
  EXPECT_EQ(arenaFootprint({{0, 6, 1}}, 4).bytes, 24);
  // Two symbolic dims, a divided symbol, no elements: not planned.
  EXPECT_EQ(arenaFootprint({{0, 1, 1}, {1, 1, 1}}, 4).kind, ArenaFootprint::Kind::Unplanned);
  EXPECT_EQ(arenaFootprint({{0, 1, 2}}, 4).kind, ArenaFootprint::Kind::Unplanned);
  EXPECT_EQ(arenaFootprint({{-1, 0, 1}}, 4).kind, ArenaFootprint::Kind::Unplanned);
  EXPECT_EQ(arenaFootprint({{-1, int64_t(1) << 62}, {-1, 8, 1}}, 4).kind,
            ArenaFootprint::Kind::Unplanned);
}

TEST(ArenaLayout, LifetimesFollowViewsAndFetches) {
  // Buffers: 0 persistent, 1 temp, 2 view of 1, 3 temp, 4 temp (fetched).
  std::vector<int32_t> root = {0, 1, 1, 3, 4};
  std::vector<char> temp = {0, 1, 0, 1, 1};
  std::vector<std::vector<int32_t>> calls = {{0, 1}, {3}, {2, -1, 4}, {}, /*fetches*/ {4}};
  std::vector<TempLifetime> lives = tempLifetimes(root, temp, calls);
  ASSERT_EQ(lives.size(), 3u);
  EXPECT_EQ(lives[0].buffer, 1); // used directly at 0, through its view at 2
  EXPECT_EQ(lives[0].first, 0);
  EXPECT_EQ(lives[0].last, 2);
  EXPECT_EQ(lives[1].buffer, 3);
  EXPECT_EQ(lives[1].first, 1);
  EXPECT_EQ(lives[1].last, 1);
  EXPECT_EQ(lives[2].buffer, 4); // fetched: lives to the end
  EXPECT_EQ(lives[2].first, 2);
  EXPECT_EQ(lives[2].last, 4);
}

/// x [s,4] -> h = x.w [s,3] -> y = h + b -> p = softmax(y), fetched.
struct Mlp {
  ArtifactBuilder b;
  int h = 0, y = 0, p = 0;
  Mlp() {
    int s = b.symbol("x.dim0");
    int x = b.buffer("x", DType::Float32, {DimDesc::symbolic(s), DimDesc::fixed(4)},
                     BufferKind::Feed);
    int w = b.buffer("w", DType::Float32, Shape{4, 3}, BufferKind::Persistent);
    int bias = b.buffer("b", DType::Float32, Shape{3}, BufferKind::Persistent);
    int bv = b.buffer("b@row", DType::Float32, {DimDesc::fixed(1), DimDesc::fixed(3)},
                      BufferKind::View, bias);
    h = b.buffer("h", DType::Float32, {DimDesc::symbolic(s), DimDesc::fixed(3)});
    y = b.buffer("y", DType::Float32, {DimDesc::symbolic(s), DimDesc::fixed(3)});
    p = b.buffer("p", DType::Float32, {DimDesc::symbolic(s), DimDesc::fixed(3)});
    auto &start = b.program("predict", ProgramKind::Startup);
    b.call(start, "uniform_random", {}, {w},
           {AttrDesc::ofFloat("min", -1), AttrDesc::ofFloat("max", 1), AttrDesc::ofInt("seed", 1)});
    b.call(start, "fill", {}, {bias}, {AttrDesc::ofFloat("value", 0.1)});
    auto &main = b.program("predict");
    main.feeds = {{"x", x}};
    main.fetches = {{"p", p}};
    b.call(main, "matmul", {x, w}, {h},
           {AttrDesc::ofInt("trans_a", 0), AttrDesc::ofInt("trans_b", 0)});
    b.call(main, "binary", {h, bv}, {y}, {AttrDesc::ofString("op", "add")});
    b.call(main, "softmax", {y}, {p}, {AttrDesc::ofInt("axis", 1)});
  }
  /// h and p never live together: they share the scaled region's start.
  void plan() {
    ArenaDesc &arena = b.desc.programs.back().arena;
    arena.scaledSymbol = 0;
    arena.scaledUnitBytes = 64 + 12;
    arena.slots = {{h, 0, true}, {y, 64, true}, {p, 0, true}};
  }
  ArenaDesc &arena() { return b.desc.programs.back().arena; }
};

distc::runtime::Tensor run(const Mlp &m, int64_t rows) {
  auto session = m.b.session();
  EXPECT_TRUE(session);
  if (!session)
    return {};
  EXPECT_TRUE(session->initialize("predict").ok());
  std::mt19937_64 rng(7);
  distc::runtime::TensorMap fetches;
  Status s = session->run("predict", {{"x", randomTensor(DType::Float32, {rows, 4}, rng)}}, fetches);
  EXPECT_TRUE(s.ok()) << s.message();
  // A second, larger batch grows the arena.
  s = session->run("predict", {{"x", randomTensor(DType::Float32, {rows * 3, 4}, rng)}}, fetches);
  EXPECT_TRUE(s.ok()) << s.message();
  return fetches["p"];
}

TEST(Arena, ASessionRunsFromItsArenaAsWithout) {
  Mlp plain, planned;
  planned.plan();
  distc::runtime::Tensor a = run(plain, 5), b = run(planned, 5);
  ASSERT_TRUE(a.defined() && b.defined());
  ASSERT_EQ(a.typeString(), "f32[15,3]");
  ASSERT_EQ(b.typeString(), a.typeString());
  for (int64_t i = 0; i < a.numel(); ++i)
    EXPECT_EQ(a.data<float>()[i], b.data<float>()[i]) << i;
}

std::string loadError(const Mlp &m) {
  std::string error;
  auto loaded = m.b.load(error);
  EXPECT_FALSE(loaded);
  return error;
}

TEST(Arena, PlansThatOverlapLiveTemporariesAreRefused) {
  Mlp m;
  m.plan();
  m.arena().slots[1].offset = 0; // y now shares h's bytes, while both are live
  EXPECT_CONTAINS(loadError(m), "program predict/trainer/main: arena, scaled region (bytes per "
                                "unit): buffers 4 (steps [0, 2), bytes [0, 12)) and 5 (steps "
                                "[1, 3), bytes [0, 12)) are live together and overlap");
}

TEST(Arena, SlotsThatCannotHoldTheirBufferAreRefused) {
  {
    Mlp m;
    m.plan();
    m.arena().slots[0].scaled = false; // h has a batch dim
    EXPECT_CONTAINS(loadError(m), "arena slot 0 puts buffer %4 'h' in the static region, which "
                                  "its dims do not fit");
  }
  {
    Mlp m;
    m.plan();
    m.arena().slots[1].offset = 32;
    EXPECT_CONTAINS(loadError(m), "arena slot 1 puts buffer %5 'y' at offset 32, not a multiple "
                                  "of 64");
  }
  {
    Mlp m;
    m.plan();
    m.arena().slots[0].buffer = 1; // w is persistent
    EXPECT_CONTAINS(loadError(m), "arena slot 0 holds buffer %1 'w', which is not a Temp buffer");
  }
  {
    Mlp m;
    m.plan();
    m.arena().scaledUnitBytes = 70; // y ends at 76
    EXPECT_CONTAINS(loadError(m), "ends past the arena of 70 bytes");
  }
  {
    Mlp m;
    m.plan();
    m.arena().slots[2].buffer = m.h;
    EXPECT_CONTAINS(loadError(m), "arena slot 2 holds buffer %4 'h' a second time");
  }
}

} // namespace
