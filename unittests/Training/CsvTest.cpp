//===- CsvTest.cpp - CSV column mapping and loading -----------------------===//

#include "distc/Training/Dataset.h"

#include "TestUtil.h"

#include <gtest/gtest.h>

#include <filesystem>

using namespace distc::training;
using namespace distc::training::test;

namespace {

CsvOptions options(const std::string &mapping, std::map<std::string, DType> dtypes = {}) {
  CsvOptions o;
  Status st = parseCsvColumnMapping(mapping, o.columns);
  EXPECT_TRUE(st.ok()) << st.message();
  for (CsvColumn &c : o.columns)
    if (dtypes.count(c.feed))
      c.dtype = dtypes[c.feed];
  return o;
}

std::string loadError(const std::string &path, const CsvOptions &o) {
  Dataset d;
  Status st = loadCsv(d, path, o);
  EXPECT_FALSE(st.ok());
  EXPECT_TRUE(d.empty());
  return st.message();
}

} // namespace

TEST(CsvTest, ParsesColumnMappings) {
  std::vector<CsvColumn> cols;
  ASSERT_TRUE(parseCsvColumnMapping("x=0:64,label=64", cols).ok());
  ASSERT_EQ(cols.size(), 2u);
  EXPECT_EQ(cols[0].feed, "x");
  EXPECT_EQ(cols[0].begin, 0);
  EXPECT_EQ(cols[0].end, 64);
  EXPECT_TRUE(cols[0].range);
  EXPECT_EQ(cols[1].begin, 64);
  EXPECT_EQ(cols[1].end, 65);
  EXPECT_FALSE(cols[1].range);

  Status st = parseCsvColumnMapping("x=3:3", cols);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "column mapping 'x=3:3': 'x=3:3' is an empty range: END must be greater "
                          "than BEGIN (END is exclusive)");
  for (const char *bad : {"x", "=1", "x=", "x=a", "x=-1", "x=1:", "x=:2", "x=1,,y=2", "x=1:2:3"})
    EXPECT_FALSE(parseCsvColumnMapping(bad, cols).ok()) << bad;
  st = parseCsvColumnMapping("x=1,x=2", cols);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "column mapping 'x=1,x=2': 'x=2' maps feed 'x' a second time");
}

TEST(CsvTest, LoadsWithAutoDetectedHeader) {
  TempDir dir;
  std::string path = dir.file("d.csv");
  writeText(path, "a,b,c,class\r\n1,2.5,-3,1\r\n\r\n4, 5e-1 ,6,0.0\r\n");
  Dataset d;
  Status st = loadCsv(d, path, options("x=0:3,y=3", {{"y", DType::Int64}}));
  ASSERT_TRUE(st.ok()) << st.message();
  ASSERT_EQ(d.numRows(), 2);
  const Tensor &x = d.columns.at("x");
  EXPECT_EQ(x.shape(), (Shape{2, 3}));
  EXPECT_EQ(x.dtype(), DType::Float32);
  EXPECT_FLOAT_EQ(x.data<float>()[1], 2.5f);
  EXPECT_FLOAT_EQ(x.data<float>()[2], -3.0f);
  EXPECT_FLOAT_EQ(x.data<float>()[4], 0.5f);
  const Tensor &y = d.columns.at("y");
  EXPECT_EQ(y.shape(), (Shape{2, 1}));
  EXPECT_EQ(y.data<int64_t>()[0], 1);
  EXPECT_EQ(y.data<int64_t>()[1], 0);
  EXPECT_EQ(d.describeColumn("x"), "column 'x' (from " + path + " columns 0:3)");
  EXPECT_EQ(d.describeColumn("y"), "column 'y' (from " + path + " column 3)");
}

TEST(CsvTest, HeaderDetectionLooksOnlyAtMappedFields) {
  TempDir dir;
  std::string path = dir.file("d.csv");
  writeText(path, "id7,1,2\nid8,3,4\n");
  Dataset d;
  ASSERT_TRUE(loadCsv(d, path, options("x=1:3")).ok());
  EXPECT_EQ(d.numRows(), 2);
  Dataset forced;
  CsvOptions o = options("x=1:3");
  o.header = CsvHeader::Present;
  ASSERT_TRUE(loadCsv(forced, path, o).ok());
  EXPECT_EQ(forced.numRows(), 1);
}

TEST(CsvTest, DtypesAndIntegers) {
  TempDir dir;
  std::string path = dir.file("d.csv");
  writeText(path, "1,2,3,4\n5,6,7.000,8e0\n");
  Dataset d;
  ASSERT_TRUE(loadCsv(d, path,
                      options("a=0,b=1,c=2,d=3",
                              {{"a", DType::Float64}, {"c", DType::Int32}, {"d", DType::Int64}}))
                  .ok());
  EXPECT_EQ(d.columns.at("a").dtype(), DType::Float64);
  EXPECT_EQ(d.columns.at("b").dtype(), DType::Float32);
  EXPECT_EQ(d.columns.at("c").data<int32_t>()[1], 7);
  EXPECT_EQ(d.columns.at("d").data<int64_t>()[1], 8);

  writeText(path, "1,2\n3,4.5\n");
  EXPECT_EQ(loadError(path, options("x=0,label=1", {{"label", DType::Int64}})),
            path + ":2: field 1: '4.5' is not an integer (feed 'label' is i64)");
  writeText(path, "1,2\n3,4000000000\n");
  EXPECT_EQ(loadError(path, options("x=0,label=1", {{"label", DType::Int32}})),
            path + ":2: field 1: '4000000000' does not fit feed 'label' (i32)");
  CsvOptions bool_ = options("x=0");
  bool_.columns[0].dtype = DType::Bool;
  EXPECT_EQ(loadError(path, bool_),
            path + ": feed 'x' is b1; CSV columns can be f32, f64, i32 or i64");
}

TEST(CsvTest, ErrorsNameFileLineAndField) {
  TempDir dir;
  std::string path = dir.file("d.csv");
  writeText(path, "1,2,3\n4,5\n");
  EXPECT_EQ(loadError(path, options("x=0:3")), path + ":2: 2 fields, but line 1 has 3");
  writeText(path, "1,2,3\n\n4,abc,6\n");
  EXPECT_EQ(loadError(path, options("x=0:3")), path + ":3: field 1: 'abc' is not a number");
  writeText(path, "1,,3\n4,5,6\n");
  CsvOptions noHeader = options("x=0:3");
  noHeader.header = CsvHeader::Absent;
  EXPECT_EQ(loadError(path, noHeader), path + ":1: field 1: empty value (feed 'x')");
  writeText(path, "1,2,3\n");
  EXPECT_EQ(loadError(path, options("x=0:4")),
            path +
                ":1: 3 fields, but the column mapping uses field 3 (fields are numbered from 0)");
  writeText(path, "\n\n");
  EXPECT_EQ(loadError(path, options("x=0")), path + ": no data rows");
  writeText(path, "a,b\n");
  EXPECT_EQ(loadError(path, options("x=0")), path + ": no data rows after the header line");
  EXPECT_EQ(loadError(dir.file("none.csv"), options("x=0")),
            dir.file("none.csv") + ": cannot open: No such file or directory");
}

TEST(CsvTest, ReadsGzipByContent) {
  TempDir dir;
  std::string path = dir.file("d.data"); // the name does not matter
  writeGzip(path, "1,2\n3,4\n");
  Dataset d;
  ASSERT_TRUE(loadCsv(d, path, options("x=0:2")).ok());
  EXPECT_FLOAT_EQ(d.columns.at("x").data<float>()[3], 4.0f);

  // A truncated gzip stream is an error, not silently fewer rows.
  std::string big;
  for (int i = 0; i < 5000; ++i)
    big += std::to_string(i) + "," + std::to_string(i * 7 % 13) + "\n";
  writeGzip(path, big);
  std::string bytes = readText(path);
  writeText(path, bytes.substr(0, bytes.size() / 2));
  std::string message = loadError(path, options("x=0:2"));
  EXPECT_EQ(message, path + ": truncated gzip stream");
}

TEST(CsvTest, DigitsExample) {
  std::string path = DISTC_DIGITS_CSV;
  ASSERT_TRUE(std::filesystem::exists(path)) << path;
  Dataset d;
  Status st = loadCsv(d, path, options("x=0:64,label=64", {{"label", DType::Int64}}));
  ASSERT_TRUE(st.ok()) << st.message();
  ASSERT_EQ(d.numRows(), 1797);
  const Tensor &x = d.columns.at("x");
  const Tensor &label = d.columns.at("label");
  EXPECT_EQ(x.shape(), (Shape{1797, 64}));
  EXPECT_EQ(label.shape(), (Shape{1797, 1}));
  float lo = 1e9f, hi = -1e9f;
  for (int64_t i = 0; i < x.numel(); ++i) {
    lo = std::min(lo, x.data<float>()[i]);
    hi = std::max(hi, x.data<float>()[i]);
  }
  EXPECT_EQ(lo, 0.0f);
  EXPECT_EQ(hi, 16.0f);
  std::vector<int> perClass(10);
  for (int64_t i = 0; i < label.numel(); ++i) {
    int64_t c = label.data<int64_t>()[i];
    ASSERT_GE(c, 0);
    ASSERT_LT(c, 10);
    ++perClass[static_cast<size_t>(c)];
  }
  for (int n : perClass)
    EXPECT_GT(n, 150);
  // The program's feeds for a digits classifier.
  EXPECT_TRUE(
      checkDatasetFeeds(d, {{"x", {DType::Float32, {-1, 64}}}, {"label", {DType::Int64, {-1, 1}}}})
          .ok());
}
