//===- NpzTest.cpp - .npz archives ----------------------------------------===//

#include "distc/Training/Npz.h"
#include "distc/Training/Dataset.h"

#include "TestUtil.h"

#include <gtest/gtest.h>

using namespace distc::training;
using namespace distc::training::test;

namespace {

const std::string kInputs = DISTC_TRAINING_TEST_INPUTS;

void expectNumpyArrays(const TensorMap &arrays) {
  ASSERT_EQ(arrays.size(), 3u);
  const Tensor &x = arrays.at("x");
  EXPECT_EQ(x.typeString(), "f32[4,3]");
  EXPECT_FLOAT_EQ(x.data<float>()[5], 1.25f);
  const Tensor &label = arrays.at("label");
  EXPECT_EQ(label.typeString(), "i64[4,1]");
  EXPECT_EQ(label.data<int64_t>()[2], 3);
  const Tensor &w = arrays.at("w");
  EXPECT_EQ(w.typeString(), "f64[2]");
  EXPECT_EQ(w.data<double>()[1], -2.0);
}

} // namespace

TEST(NpzTest, ReadsNumpySavez) {
  TensorMap arrays;
  Status st = readNpz(kInputs + "/numpy-stored.npz", arrays);
  ASSERT_TRUE(st.ok()) << st.message();
  expectNumpyArrays(arrays);
}

TEST(NpzTest, ReadsNumpySavezCompressed) {
  TensorMap arrays;
  Status st = readNpz(kInputs + "/numpy-deflated.npz", arrays);
  ASSERT_TRUE(st.ok()) << st.message();
  expectNumpyArrays(arrays);
  std::vector<std::string> members;
  ASSERT_TRUE(listNpzMembers(kInputs + "/numpy-deflated.npz", members).ok());
  EXPECT_EQ(members, (std::vector<std::string>{"x.npy", "label.npy", "w.npy"}));
}

TEST(NpzTest, RoundTripsStoredAndDeflated) {
  TempDir dir;
  TensorMap arrays = {{"a", iotaF32({100, 8}, 0.5f)}, {"b@GRAD", fromI64({3}, {7, -8, 9})}};
  for (bool compress : {false, true}) {
    std::string path = dir.file(compress ? "c.npz" : "s.npz");
    ASSERT_TRUE(writeNpz(path, arrays, compress).ok());
    TensorMap back;
    Status st = readNpz(path, back);
    ASSERT_TRUE(st.ok()) << st.message();
    ASSERT_EQ(back.size(), 2u);
    EXPECT_TRUE(sameTensor(back.at("a"), arrays.at("a")));
    EXPECT_TRUE(sameTensor(back.at("b@GRAD"), arrays.at("b@GRAD")));
  }
  // Deflate shrinks the regular data.
  EXPECT_LT(readText(dir.file("c.npz")).size(), readText(dir.file("s.npz")).size());
}

TEST(NpzTest, MapsFeedsToMembers) {
  std::vector<NpzFeed> feeds;
  ASSERT_TRUE(parseNpzMapping("x,y=label", feeds).ok());
  ASSERT_EQ(feeds.size(), 2u);
  EXPECT_EQ(feeds[0].member, "x");
  EXPECT_EQ(feeds[1].feed, "y");
  EXPECT_EQ(feeds[1].member, "label");
  EXPECT_FALSE(parseNpzMapping("x,x=label", feeds).ok());
  EXPECT_FALSE(parseNpzMapping("x=", feeds).ok());
  EXPECT_FALSE(parseNpzMapping("", feeds).ok());

  std::string path = kInputs + "/numpy-deflated.npz";
  Dataset d;
  ASSERT_TRUE(parseNpzMapping("x,y=label.npy", feeds).ok());
  Status st = loadNpzColumns(d, path, feeds);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(d.columns.size(), 2u);
  EXPECT_EQ(d.columns.at("y").typeString(), "i64[4,1]");
  EXPECT_EQ(d.describeColumn("y"), "column 'y' (from " + path + " member 'label.npy')");

  Dataset missing;
  ASSERT_TRUE(parseNpzMapping("x,label=labels", feeds).ok());
  st = loadNpzColumns(missing, path, feeds);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), path + ": no member 'labels' (members: x, label, w)");
  EXPECT_TRUE(missing.empty());

  // No mapping: every member, and here their rows disagree (w has 2).
  Dataset all;
  st = loadNpzColumns(all, path, {});
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("has 2 rows"), std::string::npos) << st.message();
}

TEST(NpzTest, BadArchives) {
  TempDir dir;
  writeText(dir.file("not.npz"), "hello, this is not a zip file at all");
  TensorMap arrays;
  Status st = readNpz(dir.file("not.npz"), arrays);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message().rfind(dir.file("not.npz") + ": cannot open as an .npz (zip) archive: ", 0),
            0u)
      << st.message();
  st = readNpz(dir.file("none.npz"), arrays);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("No such file"), std::string::npos) << st.message();

  // Flip a byte in a deflated member's data: the CRC check reports it.
  std::string bytes = readText(kInputs + "/numpy-deflated.npz");
  std::string corrupt = bytes;
  corrupt[60] = static_cast<char>(corrupt[60] ^ 0x55);
  writeText(dir.file("corrupt.npz"), corrupt);
  st = readNpz(dir.file("corrupt.npz"), arrays);
  EXPECT_FALSE(st.ok());
  EXPECT_EQ(st.message().rfind(dir.file("corrupt.npz") + " member 'x.npy'", 0), 0u) << st.message();

  // Flip a data byte of a stored (uncompressed) member: nothing but the CRC
  // can notice, and the whole member must still be refused.
  TensorMap stored = {{"a", iotaF32({64})}};
  ASSERT_TRUE(writeNpz(dir.file("stored.npz"), stored, false).ok());
  std::string good = readText(dir.file("stored.npz"));
  std::string flipped = good;
  size_t data = flipped.find("\x93NUMPY") + 128 + 4;
  flipped[data] = static_cast<char>(flipped[data] ^ 0x01);
  writeText(dir.file("flipped.npz"), flipped);
  st = readNpz(dir.file("flipped.npz"), arrays);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message().rfind(dir.file("flipped.npz") + " member 'a.npy': corrupt", 0), 0u)
      << st.message();
  Tensor member;
  st = readNpzMember(dir.file("flipped.npz"), "a", member);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("member 'a.npy': corrupt"), std::string::npos) << st.message();

  // A corrupted CRC field in the central directory (offset 16 of "PK\1\2").
  std::string badCrc = good;
  size_t central = badCrc.find("PK\x01\x02");
  ASSERT_NE(central, std::string::npos);
  badCrc[central + 16] = static_cast<char>(badCrc[central + 16] ^ 0xff);
  writeText(dir.file("badcrc.npz"), badCrc);
  st = readNpz(dir.file("badcrc.npz"), arrays);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message().rfind(dir.file("badcrc.npz") + " member 'a.npy': corrupt", 0), 0u)
      << st.message();

  // An archive member that is not a .npy file.
  TensorMap one = {{"a", iotaF32({2})}};
  ASSERT_TRUE(writeNpz(dir.file("ok.npz"), one, false).ok());
  std::string ok = readText(dir.file("ok.npz"));
  size_t magic = ok.find("\x93NUMPY");
  ASSERT_NE(magic, std::string::npos);
  ok[magic + 1] = 'X';
  writeText(dir.file("badnpy.npz"), ok);
  st = readNpz(dir.file("badnpy.npz"), arrays);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message().rfind(dir.file("badnpy.npz") + " member 'a.npy'", 0), 0u) << st.message();
}

TEST(NpzTest, WritesAnEmptyArchive) {
  TempDir dir;
  ASSERT_TRUE(writeNpz(dir.file("e.npz"), {}, true).ok());
  TensorMap arrays = {{"stale", iotaF32({1})}};
  Status st = readNpz(dir.file("e.npz"), arrays);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_TRUE(arrays.empty());
}
