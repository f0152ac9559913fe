//===- DataSpecTest.cpp - The --data argument -----------------------------===//

#include "distc/Training/DataSpec.h"

#include "TestUtil.h"

#include "distc/Runtime/Npy.h"
#include "distc/Training/Npz.h"

#include <gtest/gtest.h>

using namespace distc::training;
using namespace distc::training::test;

TEST(DataSpecTest, ParsesEachForm) {
  DataSpec s;
  ASSERT_TRUE(parseDataSpec("x=@data/x.npy", s).ok());
  EXPECT_EQ(s.kind, DataSpec::Kind::Npy);
  EXPECT_EQ(s.feed, "x");
  EXPECT_EQ(s.path, "data/x.npy");

  ASSERT_TRUE(parseDataSpec("d/train.npz", s).ok());
  EXPECT_EQ(s.kind, DataSpec::Kind::Npz);
  EXPECT_EQ(s.path, "d/train.npz");
  EXPECT_TRUE(s.npzFeeds.empty());

  ASSERT_TRUE(parseDataSpec("train.npz:x,label=y", s).ok());
  EXPECT_EQ(s.path, "train.npz");
  ASSERT_EQ(s.npzFeeds.size(), 2u);
  EXPECT_EQ(s.npzFeeds[1].member, "y");

  ASSERT_TRUE(parseDataSpec("digits.csv.gz:x=0:64,label=64", s).ok());
  EXPECT_EQ(s.kind, DataSpec::Kind::Csv);
  EXPECT_EQ(s.path, "digits.csv.gz");
  ASSERT_EQ(s.csvColumns.size(), 2u);
  EXPECT_EQ(s.csvColumns[0].end, 64);

  // A ':' inside the path before the suffix stays in the path.
  ASSERT_TRUE(parseDataSpec("run:1/d.csv:y=0", s).ok());
  EXPECT_EQ(s.path, "run:1/d.csv");
}

TEST(DataSpecTest, Errors) {
  DataSpec s;
  Status st = parseDataSpec("data.txt", s);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "--data 'data.txt': cannot tell the file's format; expected "
                          "NAME=@FILE.npy, FILE.npz[:MAPPING], FILE.csv[.gz]:MAPPING or "
                          "images=DIR[:OPTIONS]");
  st = parseDataSpec("d.csv", s);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(),
            "--data 'd.csv': a CSV file needs a column mapping, e.g. d.csv:x=0:64,label=64");
  st = parseDataSpec("d.csv:x=2:1", s);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message().rfind("--data 'd.csv:x=2:1': column mapping 'x=2:1': ", 0), 0u);
  EXPECT_FALSE(parseDataSpec("x=@", s).ok());
  EXPECT_FALSE(parseDataSpec("d.npz:x,x", s).ok());
}

TEST(DataSpecTest, LoadsWithTheProgramsDtypes) {
  TempDir dir;
  writeText(dir.file("d.csv"), "1,2,0\n3,4,1\n");
  ASSERT_TRUE(distc::runtime::writeNpy(dir.file("w.npy"), iotaF32({2, 5})).ok());
  ASSERT_TRUE(writeNpz(dir.file("a.npz"), {{"m", iotaF32({2})}}, true).ok());
  std::map<std::string, FeedSpec> feeds = {{"x", {DType::Float64, {-1, 2}}},
                                           {"label", {DType::Int32, {-1, 1}}},
                                           {"w", {DType::Float32, {-1, 5}}},
                                           {"m", {DType::Float32, {-1}}}};
  Dataset d;
  for (std::string text : {dir.file("d.csv") + ":x=0:2,label=2", "w=@" + dir.file("w.npy"),
                           dir.file("a.npz") + ":m"}) {
    DataSpec spec;
    ASSERT_TRUE(parseDataSpec(text, spec).ok()) << text;
    Status st = loadData(d, spec, feeds);
    ASSERT_TRUE(st.ok()) << st.message();
  }
  EXPECT_EQ(d.columns.at("x").dtype(), DType::Float64);
  EXPECT_EQ(d.columns.at("label").dtype(), DType::Int32);
  EXPECT_EQ(d.columns.at("label").data<int32_t>()[1], 1);
  Status st = checkDatasetFeeds(d, feeds);
  EXPECT_TRUE(st.ok()) << st.message();
}

TEST(DataSpecTest, WildcardPathsAreSortedFileLists) {
  TempDir dir;
  for (int i : {2, 0, 1})
    writeText(dir.file("part-" + std::to_string(i) + ".csv"),
              std::to_string(i) + "," + std::to_string(10 * i) + "\n" + std::to_string(i) +
                  ",7\n");
  DataSpec spec;
  ASSERT_TRUE(parseDataSpec(dir.file("part-*.csv") + ":x=0,label=1", spec).ok());
  ASSERT_TRUE(expandDataFiles(spec).ok());
  ASSERT_EQ(spec.files.size(), 3u);
  EXPECT_EQ(spec.files[0], dir.file("part-0.csv"));
  EXPECT_EQ(spec.files[2], dir.file("part-2.csv"));
  // The rows of the files, appended in order.
  Dataset data;
  ASSERT_TRUE(loadData(data, spec, {}).ok());
  ASSERT_EQ(data.numRows(), 6);
  const float *x = data.columns.at("x").data<float>();
  EXPECT_EQ(std::vector<float>(x, x + 6), (std::vector<float>{0, 0, 1, 1, 2, 2}));
  EXPECT_NE(data.describeColumn("x").find("and further files"), std::string::npos);

  DataSpec none;
  ASSERT_TRUE(parseDataSpec(dir.file("nothing-*.csv") + ":x=0", none).ok());
  Status s = expandDataFiles(none);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("no file matches"), std::string::npos) << s.message();

  DataSpec plain;
  ASSERT_TRUE(parseDataSpec("x=@one.npy", plain).ok());
  ASSERT_TRUE(expandDataFiles(plain).ok());
  EXPECT_EQ(plain.files, std::vector<std::string>{"one.npy"});
}

TEST(DataSpecTest, FileShardIsPaddlesSplitFiles) {
  // fleet.util.get_file_shard: contiguous blocks, the first n % workers
  // blocks one file longer.
  std::vector<std::string> files = {"a", "b", "c", "d", "e"};
  EXPECT_EQ(fileShard(files, 0, 2), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(fileShard(files, 1, 2), (std::vector<std::string>{"d", "e"}));
  EXPECT_EQ(fileShard(files, 0, 3), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(fileShard(files, 1, 3), (std::vector<std::string>{"c", "d"}));
  EXPECT_EQ(fileShard(files, 2, 3), (std::vector<std::string>{"e"}));
  EXPECT_EQ(fileShard(files, 0, 1), files);
  EXPECT_TRUE(fileShard(files, 5, 6).empty());
  EXPECT_TRUE(fileShard(files, 2, 2).empty()); // not a worker
}
