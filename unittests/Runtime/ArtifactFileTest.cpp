//===- ArtifactFileTest.cpp - header checks, atomic writes, validation ----===//

#include "TestArtifacts.h"

#include "distc/Artifact/KernelSignatures.h"
#include "distc/Runtime/ArtifactPrinter.h"
#include "distc/Runtime/Kernel.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>

using namespace distc::testing;
using distc::artifact::LoadedArtifact;

namespace {

/// x: f32[?,4] -> relu -> y, in predict mode.
ArtifactBuilder tinyArtifact() {
  ArtifactBuilder b;
  int s = b.symbol("x.dim0");
  int x =
      b.buffer("x", DType::Float32, {DimDesc::symbolic(s), DimDesc::fixed(4)}, BufferKind::Feed);
  int y = b.buffer("y", DType::Float32, {DimDesc::symbolic(s), DimDesc::fixed(4)});
  auto &p = b.program("predict");
  p.feeds = {{"x", x}};
  p.fetches = {{"y", y}};
  b.call(p, "unary", {x}, {y}, {AttrDesc::ofString("op", "relu")}, "relu -> y");
  return b;
}

std::string loadError(std::vector<uint8_t> bytes) {
  std::string error;
  auto loaded = LoadedArtifact::loadBytes(std::move(bytes), "a.distc", error);
  EXPECT_FALSE(loaded);
  return error;
}

std::string loadError(const ArtifactBuilder &b) { return loadError(b.fileBytes()); }

TEST(ArtifactFile, ValidArtifactLoads) {
  std::string error;
  auto loaded = tinyArtifact().load(error);
  ASSERT_TRUE(loaded) << error;
  EXPECT_EQ(loaded->formatVersion(), distc::artifact::kFormatVersion);
  EXPECT_EQ(loaded->artifact()->buffers()->size(), 2u);
}

TEST(ArtifactFile, RejectsShortForeignNewerTruncatedCorrupt) {
  std::vector<uint8_t> good = tinyArtifact().fileBytes();
  EXPECT_CONTAINS(loadError(std::vector<uint8_t>{}), "a.distc: too short");
  EXPECT_CONTAINS(loadError(std::vector<uint8_t>(good.begin(), good.begin() + 12)),
                  "a.distc: too short for a distc artifact header");
  std::vector<uint8_t> foreign(100, 'z');
  EXPECT_CONTAINS(loadError(foreign), "not a distc artifact");
  std::vector<uint8_t> newer = good;
  newer[8] = distc::artifact::kFormatVersion + 1;
  EXPECT_CONTAINS(loadError(newer), "format version " +
                                        std::to_string(distc::artifact::kFormatVersion + 1) +
                                        " is newer");
  std::vector<uint8_t> truncated(good.begin(), good.end() - 5);
  EXPECT_CONTAINS(loadError(truncated), "truncated");
  std::vector<uint8_t> corrupt = good;
  corrupt[good.size() / 2] ^= 0x40;
  EXPECT_CONTAINS(loadError(corrupt), "corrupt: payload checksum mismatch");
}

TEST(ArtifactFile, RejectsPayloadFailingTheVerifier) {
  // A well-formed header around a payload that is not a valid FlatBuffer.
  std::vector<uint8_t> payload(64, 0xff);
  payload[4] = 'D';
  payload[5] = 'S';
  payload[6] = 'T';
  payload[7] = 'C';
  EXPECT_CONTAINS(loadError(distc::artifact::makeArtifactFileBytes(payload)),
                  "fails FlatBuffers verification");
  EXPECT_CONTAINS(loadError(distc::artifact::makeArtifactFileBytes({1, 2, 3})),
                  "payload of 3 bytes is too short");
  std::vector<uint8_t> noId(64, 0);
  EXPECT_CONTAINS(loadError(distc::artifact::makeArtifactFileBytes(noId)), "file identifier");
}

TEST(ArtifactFile, ValidationRejectsOutOfRangeAndMalformedCalls) {
  {
    auto b = tinyArtifact();
    b.desc.programs[0].calls[0].inputs = {7};
    EXPECT_CONTAINS(loadError(b), "input 0 refers to out-of-range buffer 7");
  }
  {
    auto b = tinyArtifact();
    b.desc.programs[0].fetches[0].buffer = 9;
    EXPECT_CONTAINS(loadError(b), "fetch 'y' refers to out-of-range buffer 9");
  }
  {
    auto b = tinyArtifact();
    b.desc.programs[0].calls[0].kernel = "frobnicate";
    EXPECT_CONTAINS(loadError(b), "unknown kernel 'frobnicate'");
  }
  {
    auto b = tinyArtifact();
    b.desc.programs[0].calls[0].inputs = {0, 0};
    EXPECT_CONTAINS(loadError(b), "has 2 inputs, expected 1");
  }
  {
    auto b = tinyArtifact();
    b.desc.programs[0].calls[0].attrs.clear();
    EXPECT_CONTAINS(loadError(b), "missing attribute 'op' (String)");
  }
  {
    auto b = tinyArtifact();
    b.desc.programs[0].calls[0].attrs = {AttrDesc::ofInt("op", 1)};
    EXPECT_CONTAINS(loadError(b), "attribute 'op' has type Int, expected String");
  }
  {
    auto b = tinyArtifact();
    b.desc.buffers[1].dims[0].div = 0;
    EXPECT_CONTAINS(loadError(b), "buffer %1 'y' dim 0 has div 0");
  }
  {
    auto b = tinyArtifact();
    b.desc.buffers[1].dims[0].sym = 3;
    EXPECT_CONTAINS(loadError(b), "uses symbol 3");
  }
  {
    auto b = tinyArtifact();
    b.desc.programs[0].calls[0].inputs = {-1};
    EXPECT_CONTAINS(loadError(b), "out-of-range buffer -1");
  }
  {
    auto b = tinyArtifact();
    b.desc.programs[0].feeds[0].buffer = 1;
    EXPECT_CONTAINS(loadError(b), "which is not a Feed buffer");
  }
}

TEST(ArtifactFile, ValidationRejectsBadViews) {
  {
    auto b = tinyArtifact();
    b.buffer("v", DType::Float64, {DimDesc::fixed(4)}, BufferKind::View, 1);
    EXPECT_CONTAINS(loadError(b), "with a different dtype");
  }
  {
    auto b = tinyArtifact();
    b.buffer("v0", DType::Float32, {DimDesc::fixed(4)}, BufferKind::View, 3);
    b.buffer("v1", DType::Float32, {DimDesc::fixed(4)}, BufferKind::View, 2);
    EXPECT_CONTAINS(loadError(b), "cycle of views");
  }
  {
    auto b = tinyArtifact();
    b.buffer("v", DType::Float32, {DimDesc::fixed(4)}, BufferKind::View, 42);
    EXPECT_CONTAINS(loadError(b), "view of out-of-range buffer 42");
  }
}

TEST(ArtifactFile, ValidationChecksViewOffsets) {
  auto slice = [](int64_t offset, int64_t count) {
    auto b = tinyArtifact();
    int base = b.buffer("bucket", DType::Float32, Shape{6});
    int v = b.buffer("v", DType::Float32, {DimDesc::fixed(count)}, BufferKind::View, base);
    b.desc.buffers[v].offset = offset;
    return b;
  };
  std::string error;
  EXPECT_TRUE(slice(2, 4).load(error)) << error;
  EXPECT_TRUE(slice(0, 3).load(error)) << error;
  EXPECT_CONTAINS(loadError(slice(3, 4)),
                  "buffer %3 'v' (4 elements at offset 3) does not fit in buffer %2 'bucket' "
                  "(6 elements)");
  EXPECT_CONTAINS(loadError(slice(-1, 2)), "has negative offset -1");
  {
    auto b = tinyArtifact();
    b.desc.buffers[1].offset = 1;
    EXPECT_CONTAINS(loadError(b), "has an offset but is not a view");
  }
  {
    auto b = tinyArtifact();
    int s = b.symbol("n");
    int base = b.buffer("t", DType::Float32, {DimDesc::symbolic(s)});
    int v = b.buffer("v", DType::Float32, {DimDesc::fixed(1)}, BufferKind::View, base);
    b.desc.buffers[v].offset = 1;
    EXPECT_CONTAINS(loadError(b), "has offset 1 but it or buffer %2 't' has a symbolic shape");
  }
}

/// tinyArtifact on a world of 4 with the rings of a 2x2 mesh (axis 0:
/// [0, 2] [1, 3]; axis 1: [0, 1] [2, 3]) and a c_allreduce over `ringId`.
ArtifactBuilder ringArtifact(int64_t ringId) {
  auto b = tinyArtifact();
  b.desc.worldSize = 4;
  b.desc.rings = {{1, 2, {0, 2, 1, 3}}, {2, 2, {0, 1, 2, 3}}};
  int sum = b.buffer("sum", DType::Float32, Shape{1, 4});
  int x = b.buffer("x1", DType::Float32, Shape{1, 4});
  b.call(b.desc.programs[0], "c_allreduce", {x}, {sum},
         {AttrDesc::ofInt("ring_id", ringId), AttrDesc::ofString("op", "sum")});
  return b;
}

TEST(ArtifactFile, RingTableLoadsAndPrints) {
  std::string error;
  auto loaded = ringArtifact(2).load(error);
  ASSERT_TRUE(loaded) << error;
  const auto *rings = loaded->artifact()->rings();
  ASSERT_TRUE(rings);
  ASSERT_EQ(rings->size(), 2u);
  EXPECT_EQ(rings->Get(0)->id(), 1);
  EXPECT_EQ(rings->Get(0)->group_size(), 2);
  EXPECT_EQ(rings->Get(0)->ranks()->Get(1), 2);
  std::FILE *f = std::tmpfile();
  ASSERT_TRUE(f);
  distc::runtime::printArtifact(*loaded, f);
  std::rewind(f);
  std::string text;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;)
    text.append(buf, n);
  std::fclose(f);
  EXPECT_CONTAINS(text,
                  "  world size: 4 ranks\n  ring 1: [0, 2] [1, 3]\n  ring 2: [0, 1] [2, 3]\n");
  // Without rings the table is absent, as in artifacts from before it.
  auto plain = tinyArtifact().load(error);
  ASSERT_TRUE(plain) << error;
  EXPECT_FALSE(plain->artifact()->rings());
  EXPECT_TRUE(ringArtifact(0).load(error)) << error;
}

TEST(ArtifactFile, ValidationRejectsBadRingTables) {
  auto withRings = [](std::vector<distc::artifact::RingDesc> rings) {
    auto b = ringArtifact(0);
    b.desc.rings = std::move(rings);
    return b;
  };
  EXPECT_EQ(loadError(withRings({{0, 2, {0, 1, 2, 3}}})),
            "a.distc: invalid artifact: ring table entry 0 has id 0; ring ids are positive (ring "
            "0, the world, is implicit)");
  EXPECT_CONTAINS(loadError(withRings({{-3, 2, {0, 1, 2, 3}}})), "ring table entry 0 has id -3");
  EXPECT_CONTAINS(loadError(withRings({{1, 2, {0, 1, 2, 3}}, {1, 4, {0, 1, 2, 3}}})),
                  "ring 1 appears twice in the ring table (entries 0 and 1)");
  EXPECT_CONTAINS(loadError(withRings({{1, 0, {0, 1, 2, 3}}})),
                  "ring 1 has group size 0, not a rank count");
  EXPECT_CONTAINS(loadError(withRings({{1, 3, {0, 1, 2, 3}}})),
                  "ring 1: group size 3 does not divide its 4 ranks");
  EXPECT_CONTAINS(loadError(withRings({{1, 2, {0, 1, 2}}})),
                  "ring 1 lists 3 ranks for a world of 4");
  EXPECT_CONTAINS(loadError(withRings({{1, 2, {}}})), "ring 1 lists 0 ranks for a world of 4");
  EXPECT_CONTAINS(loadError(withRings({{2, 2, {0, 1, 2, 4}}})),
                  "ring 2 lists rank 4, outside the world of 4 ranks");
  EXPECT_CONTAINS(loadError(withRings({{2, 2, {0, -1, 2, 3}}})), "ring 2 lists rank -1, outside");
  EXPECT_CONTAINS(loadError(withRings({{1, 2, {0, 2, 2, 3}}})), "ring 1 lists rank 2 twice");
  // A call over a ring the table does not have.
  EXPECT_CONTAINS(loadError(ringArtifact(3)),
                  "call 1 ('c_allreduce', from 'c_allreduce -> test'): ring_id 3 is not in the "
                  "artifact's ring table (rings: 0, 1, 2)");
  {
    auto b = tinyArtifact();
    int o = b.buffer("o", DType::Float32, Shape{4});
    b.call(b.desc.programs[0], "c_allreduce", {0}, {o},
           {AttrDesc::ofString("op", "sum"), AttrDesc::ofInt("ring_id", 1)});
    EXPECT_CONTAINS(loadError(b), "ring_id 1 is not in the artifact's ring table (rings: 0)");
  }
}

TEST(ArtifactFile, SplitVariablesAndDataRingLoadAndAreChecked) {
  // A 4x8 variable split by ring 2 on its columns, replicas along ring 1.
  auto withSplit = [](BufferKind kind, std::vector<int32_t> split, int32_t dataRing) {
    auto b = ringArtifact(0);
    int w = b.buffer("w", DType::Float32, Shape{4, 8}, kind);
    b.desc.buffers[size_t(w)].splitRings = std::move(split);
    b.desc.dataRing = dataRing;
    return b;
  };
  std::string error;
  auto loaded = withSplit(BufferKind::Persistent, {-1, 2}, 1).load(error);
  ASSERT_TRUE(loaded) << error;
  EXPECT_EQ(loaded->artifact()->data_ring(), 1);
  const auto *w = loaded->artifact()->buffers()->Get(loaded->artifact()->buffers()->size() - 1);
  ASSERT_TRUE(w->split_rings());
  EXPECT_EQ(w->split_rings()->Get(1), 2);
  // Artifacts without a mesh: every rank its own replica, nothing split.
  auto plain = tinyArtifact().load(error);
  ASSERT_TRUE(plain) << error;
  EXPECT_EQ(plain->artifact()->data_ring(), 0);
  EXPECT_TRUE(withSplit(BufferKind::Persistent, {}, -1).load(error)) << error;

  EXPECT_CONTAINS(loadError(withSplit(BufferKind::Persistent, {-1, 2}, 3)),
                  "data_ring 3 is not a ring (rings: 0, 1, 2)");
  EXPECT_CONTAINS(loadError(withSplit(BufferKind::Temp, {-1, 2}, 1)),
                  "has split_rings but is not persistent");
  EXPECT_CONTAINS(loadError(withSplit(BufferKind::Persistent, {2}, 1)),
                  "has 1 split_rings entries for 2 dims");
  EXPECT_CONTAINS(loadError(withSplit(BufferKind::Persistent, {-1, 7}, 1)),
                  "dim 1 is split by ring 7, not a ring of the table (rings: 0, 1, 2)");
  EXPECT_CONTAINS(loadError(withSplit(BufferKind::Persistent, {0, -1}, 1)),
                  "dim 0 is split by ring 0, not a ring of the table");
  EXPECT_CONTAINS(loadError(withSplit(BufferKind::Persistent, {1, 1}, 1)),
                  "is split by ring 1 on dims 0 and 1");
}

TEST(ArtifactFile, WriteIsAtomicAndReportsErrors) {
  auto dir = std::filesystem::temp_directory_path() / "distc-artifact-write-test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::string path = (dir / "a.distc").string();
  std::string error;
  auto payload = distc::artifact::serializeArtifact(tinyArtifact().desc);
  ASSERT_TRUE(distc::artifact::writeArtifactFile(path, payload, error)) << error;
  auto loaded = LoadedArtifact::loadFile(path, error);
  ASSERT_TRUE(loaded) << error;
  // Only the artifact remains: no temporary files.
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir),
                          std::filesystem::directory_iterator()),
            1);
  std::string bad = (dir / "missing-dir" / "a.distc").string();
  EXPECT_FALSE(distc::artifact::writeArtifactFile(bad, payload, error));
  EXPECT_CONTAINS(error, bad);
  EXPECT_CONTAINS(error, "No such file or directory");
  EXPECT_FALSE(LoadedArtifact::loadFile(bad, error));
  EXPECT_CONTAINS(error, "cannot open");
  std::filesystem::remove_all(dir);
}

TEST(KernelSignatures, RegistryMatchesSignatureTable) {
  const auto &registry = distc::runtime::cpuKernelRegistry();
  std::vector<std::string> fromTable;
  for (const auto &sig : distc::artifact::kernelSignatures())
    fromTable.push_back(sig.name);
  EXPECT_EQ(registry.names(), fromTable);
}

} // namespace
