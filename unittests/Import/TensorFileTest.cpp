//===- TensorFileTest.cpp - Paddle parameter records -----------------------===//

#include "distc/ProgramDesc/TensorFile.h"
#include "distc/Support/InputFile.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <unistd.h>

using namespace distc::programdesc;

namespace {

TensorRecord floats(std::vector<int64_t> dims, std::vector<float> values) {
  TensorRecord record;
  record.dtype = proto::VarType::FP32;
  record.dims = std::move(dims);
  record.data.assign(reinterpret_cast<const char *>(values.data()), values.size() * 4);
  return record;
}

std::string tempPath(const char *name) {
  return std::string(::testing::TempDir()) + "/" + std::to_string(::getpid()) + "_" + name;
}

TEST(TensorFile, RecordLayoutMatchesPaddle) {
  TensorRecord record = floats({2}, {1.0f, 2.0f});
  std::string bytes, error;
  ASSERT_TRUE(appendTensorRecord(record, bytes, error)) << error;
  // uint32 0 | uint64 lod_level 0 | uint32 0 | int32 desc size | desc | data
  uint32_t version = 1;
  std::memcpy(&version, bytes.data(), 4);
  EXPECT_EQ(version, 0u);
  int32_t descSize = 0;
  std::memcpy(&descSize, bytes.data() + 16, 4);
  proto::VarType::TensorDesc desc;
  ASSERT_TRUE(desc.ParseFromArray(bytes.data() + 20, descSize));
  EXPECT_EQ(desc.data_type(), proto::VarType::FP32);
  EXPECT_EQ(bytes.size(), 20u + descSize + 8u);

  size_t offset = 0;
  TensorRecord back;
  ASSERT_TRUE(readTensorRecord(bytes, offset, back, error)) << error;
  EXPECT_EQ(offset, bytes.size());
  EXPECT_EQ(back.dims, record.dims);
  EXPECT_EQ(back.data, record.data);
}

TEST(TensorFile, LoDIsKept) {
  TensorRecord record = floats({3, 1}, {1, 2, 3});
  record.lod = {{0, 1, 3}};
  std::string bytes, error;
  ASSERT_TRUE(appendTensorRecord(record, bytes, error));
  size_t offset = 0;
  TensorRecord back;
  ASSERT_TRUE(readTensorRecord(bytes, offset, back, error)) << error;
  EXPECT_EQ(back.lod, record.lod);
}

TEST(TensorFile, CombinedFileIsSortedByName) {
  std::map<std::string, TensorRecord> records;
  records["fc_0.w_0"] = floats({2, 2}, {1, 2, 3, 4});
  records["fc_0.b_0"] = floats({2}, {5, 6});
  std::string path = tempPath("params"), error;
  ASSERT_TRUE(saveCombinedTensorFile(path, records, error)) << error;

  // fc_0.b_0 sorts first: its record opens the file.
  std::string bytes;
  ASSERT_TRUE(distc::support::readInputFile(path, bytes, error));
  size_t offset = 0;
  TensorRecord first;
  ASSERT_TRUE(readTensorRecord(bytes, offset, first, error));
  EXPECT_EQ(first.dims, std::vector<int64_t>{2});

  std::map<std::string, TensorRecord> loaded;
  ASSERT_TRUE(loadCombinedTensorFile(path, {"fc_0.w_0", "fc_0.b_0"}, loaded, error)) << error;
  EXPECT_EQ(loaded["fc_0.w_0"].data, records["fc_0.w_0"].data);
  EXPECT_FALSE(loadCombinedTensorFile(path, {"fc_0.w_0"}, loaded, error));
  EXPECT_NE(error.find("unexpected bytes"), std::string::npos) << error;
  EXPECT_FALSE(loadCombinedTensorFile(path, {"a", "b", "c"}, loaded, error));
  std::remove(path.c_str());
}

TEST(TensorFile, DamagedRecordsFailWithoutCrashing) {
  std::string bytes, error;
  ASSERT_TRUE(appendTensorRecord(floats({4}, {1, 2, 3, 4}), bytes, error));
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    size_t offset = 0;
    TensorRecord record;
    EXPECT_FALSE(readTensorRecord(std::string_view(bytes).substr(0, cut), offset, record, error));
  }
  std::string huge = bytes;
  uint64_t lodLevel = ~0ull;
  std::memcpy(huge.data() + 4, &lodLevel, 8);
  size_t offset = 0;
  TensorRecord record;
  EXPECT_FALSE(readTensorRecord(huge, offset, record, error));
  std::string wrongVersion = bytes;
  wrongVersion[0] = 7;
  offset = 0;
  EXPECT_FALSE(readTensorRecord(wrongVersion, offset, record, error));
  EXPECT_NE(error.find("expected format version 0, found 7"), std::string::npos) << error;
  EXPECT_FALSE(appendTensorRecord(floats({3}, {1, 2}), bytes, error));
}

} // namespace
