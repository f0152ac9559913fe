//===- TensorBoardTest.cpp - CRC-32C and TensorBoard event files ----------===//

#include "distc/Training/TensorBoard.h"
#include "distc/Training/Crc32c.h"
#include "distc/Training/tensorboard_event.pb.h"

#include "TestUtil.h"

#include <gtest/gtest.h>

#include <filesystem>

using namespace distc::training;
using namespace distc::training::test;

namespace {

uint64_t littleEndian(const std::string &bytes, size_t at, int size) {
  uint64_t value = 0;
  for (int i = size - 1; i >= 0; --i)
    value = (value << 8) | static_cast<unsigned char>(bytes.at(at + size_t(i)));
  return value;
}

/// The records of a TFRecord file, checking both CRCs of each.
std::vector<std::string> readRecords(const std::string &bytes) {
  std::vector<std::string> records;
  size_t at = 0;
  while (at < bytes.size()) {
    const uint64_t length = littleEndian(bytes, at, 8);
    EXPECT_EQ(littleEndian(bytes, at + 8, 4), maskCrc32c(crc32c(bytes.data() + at, 8)));
    std::string data = bytes.substr(at + 12, length);
    EXPECT_EQ(littleEndian(bytes, at + 12 + length, 4),
              maskCrc32c(crc32c(data.data(), data.size())));
    records.push_back(std::move(data));
    at += 16 + length;
  }
  EXPECT_EQ(at, bytes.size());
  return records;
}

} // namespace

TEST(TensorBoardTest, Crc32cMatchesPublishedValues) {
  // The check value of the CRC catalogue and the vectors of RFC 3720, B.4.
  EXPECT_EQ(crc32c("123456789", 9), 0xe3069283u);
  EXPECT_EQ(crc32c(std::string(32, '\0').data(), 32), 0x8a9136aau);
  EXPECT_EQ(crc32c(std::string(32, '\xff').data(), 32), 0x62a8ab43u);
  std::string ascending;
  for (int i = 0; i < 32; ++i)
    ascending.push_back(static_cast<char>(i));
  EXPECT_EQ(crc32c(ascending.data(), ascending.size()), 0x46dd794eu);
  EXPECT_EQ(crc32c("", 0), 0u);
  EXPECT_EQ(maskCrc32c(0), 0xa282ead8u);
  EXPECT_EQ(maskCrc32c(0x00008000u), 0xa282ead9u);
}

TEST(TensorBoardTest, FramesRecordsAndNamesFiles) {
  const std::string framed = frameRecord("abc");
  ASSERT_EQ(framed.size(), 3u + 16u);
  EXPECT_EQ(littleEndian(framed, 0, 8), 3u);
  EXPECT_EQ(framed.substr(12, 3), "abc");
  EXPECT_EQ(readRecords(framed), std::vector<std::string>{"abc"});
  EXPECT_EQ(eventFileName(1700000000, "node7"), "events.out.tfevents.1700000000.node7");
  EXPECT_EQ(eventFileName(5, "h"), "events.out.tfevents.0000000005.h");
}

TEST(TensorBoardTest, NamesScalarsAfterTheMetrics) {
  MetricsRecord r;
  r.loss = 0.5;
  r.lr = 0.01;
  r.samplesPerSec = 1000;
  r.extra = {{"eval_loss", 0.25}, {"eval_acc", 0.9}, {"note", "text"}};
  Scalars expected = {{"train/loss", 0.5},
                      {"train/lr", 0.01},
                      {"train/samples_per_sec", 1000},
                      {"eval/acc", 0.9},
                      {"eval/loss", 0.25}};
  EXPECT_EQ(tensorBoardScalars(r), expected);
}

TEST(TensorBoardTest, WritesAVersionEventThenScalars) {
  TempDir dir;
  const std::string logdir = dir.file("runs/a");
  EventFileWriter writer;
  ASSERT_TRUE(writer.open(logdir).ok());
  const std::string name = std::filesystem::path(writer.path()).filename().string();
  EXPECT_EQ(name.rfind("events.out.tfevents.", 0), 0u) << name;
  // Flushed at once: TensorBoard sees the file as soon as it exists.
  EXPECT_EQ(readRecords(readText(writer.path())).size(), 1u);
  ASSERT_TRUE(writer.write(7, {{"train/loss", 0.5}, {"eval/acc", 0.75}}).ok());
  ASSERT_TRUE(writer.write(8, {{"train/loss", 0.25}}).ok());
  ASSERT_TRUE(writer.close().ok());

  std::vector<std::string> records = readRecords(readText(dir.file("runs/a/" + name)));
  ASSERT_EQ(records.size(), 3u);
  distc::tensorboard::Event first, second, third;
  ASSERT_TRUE(first.ParseFromString(records[0]));
  EXPECT_EQ(first.file_version(), "brain.Event:2");
  EXPECT_GT(first.wall_time(), 1.6e9);
  ASSERT_TRUE(second.ParseFromString(records[1]));
  EXPECT_EQ(second.step(), 7);
  EXPECT_GE(second.wall_time(), first.wall_time());
  ASSERT_EQ(second.summary().value_size(), 2);
  EXPECT_EQ(second.summary().value(0).tag(), "train/loss");
  EXPECT_EQ(second.summary().value(0).simple_value(), 0.5f);
  EXPECT_EQ(second.summary().value(1).tag(), "eval/acc");
  EXPECT_EQ(second.summary().value(1).simple_value(), 0.75f);
  ASSERT_TRUE(third.ParseFromString(records[2]));
  EXPECT_EQ(third.step(), 8);

  // A second writer in the same directory (and maybe second) gets a file
  // of its own.
  EventFileWriter again, third_writer;
  ASSERT_TRUE(again.open(logdir).ok());
  ASSERT_TRUE(third_writer.open(logdir).ok());
  EXPECT_NE(again.path(), writer.path());
  EXPECT_NE(again.path(), third_writer.path());
}

TEST(TensorBoardTest, NamesTheDirectoryItCannotCreate) {
  TempDir dir;
  writeText(dir.file("plain"), "x");
  EventFileWriter writer;
  distc::runtime::Status s = writer.open(dir.file("plain/runs"));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message().rfind(
                "--tensorboard " + dir.file("plain/runs") + ": cannot create the directory: ", 0),
            0u)
      << s.message();
  EXPECT_FALSE(writer.write(1, {}).ok());
}
