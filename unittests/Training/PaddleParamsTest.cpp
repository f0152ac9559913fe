//===- PaddleParamsTest.cpp - Paddle parameter files and --init-from ------===//

#include "distc/Training/PaddleParams.h"

#include "TestUtil.h"

#include "distc/Runtime/Npy.h"

#include <gtest/gtest.h>

#include <filesystem>

using namespace distc::training;
using namespace distc::training::test;
namespace fs = std::filesystem;

namespace {

TensorMap params() {
  Tensor half(DType::Float16, {2});
  half.data<uint16_t>()[0] = distc::runtime::floatToHalf(0.5f);
  half.data<uint16_t>()[1] = distc::runtime::floatToHalf(-3.0f);
  return {{"fc_0.w_0", iotaF32({4, 3}, 0.25f)},
          {"fc_0.b_0", iotaF32({3})},
          {"emb@step", fromI64({1}, {9})},
          {"scale_half", half}};
}

VarSpecs specsOf(const TensorMap &tensors) {
  VarSpecs specs;
  for (const auto &[name, t] : tensors)
    specs[name] = {t.dtype(), t.shape()};
  return specs;
}

void expectSame(const TensorMap &a, const TensorMap &b) {
  ASSERT_EQ(a.size(), b.size());
  for (const auto &[name, t] : a)
    EXPECT_TRUE(sameTensor(t, b.at(name))) << name;
}

} // namespace

TEST(PaddleParamsTest, DTypesMapBothWays) {
  using distc::runtime::DType;
  for (DType d : {DType::Bool, DType::Int8, DType::UInt8, DType::Int16, DType::Int32, DType::Int64,
                  DType::Float16, DType::BFloat16, DType::Float32, DType::Float64}) {
    EXPECT_EQ(fromPaddleDType(toPaddleDType(d)), d);
    EXPECT_EQ(distc::programdesc::elementSize(toPaddleDType(d)), distc::runtime::dtypeSize(d));
  }
  EXPECT_EQ(toPaddleDType(DType::Float32), pdproto::VarType::FP32);
  EXPECT_EQ(toPaddleDType(DType::Int64), pdproto::VarType::INT64);
  EXPECT_EQ(fromPaddleDType(pdproto::VarType::COMPLEX64), std::nullopt);
  EXPECT_EQ(fromPaddleDType(pdproto::VarType::LOD_TENSOR), std::nullopt);
}

TEST(PaddleParamsTest, PersistablesRoundTrip) {
  TempDir dir;
  TensorMap saved = params();
  saved["block/sub.w"] = iotaF32({2, 2});
  Status st = savePersistables(dir.path(), saved);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_TRUE(fs::is_regular_file(dir.file("fc_0.w_0")));
  EXPECT_TRUE(fs::is_regular_file(dir.file("emb@step")));
  EXPECT_TRUE(fs::is_regular_file(dir.file("block/sub.w")));

  // Each file is exactly one Paddle record.
  distc::programdesc::TensorRecord record;
  std::string error;
  ASSERT_TRUE(distc::programdesc::loadTensorFile(dir.file("fc_0.w_0"), record, error)) << error;
  EXPECT_EQ(record.dtype, pdproto::VarType::FP32);
  EXPECT_EQ(record.dims, (std::vector<int64_t>{4, 3}));

  TensorMap loaded;
  st = loadParameters(dir.path(), specsOf(saved), loaded);
  ASSERT_TRUE(st.ok()) << st.message();
  expectSame(saved, loaded);

  for (const char *bad : {"", "/abs", "a//b", "a/../b", "."}) {
    st = savePersistables(dir.path(), {{bad, iotaF32({1})}});
    EXPECT_FALSE(st.ok()) << bad;
  }
}

TEST(PaddleParamsTest, CombinedRoundTripInSortedOrder) {
  TempDir dir;
  TensorMap saved = params();
  std::string path = dir.file("model.pdiparams");
  ASSERT_TRUE(saveCombinedParams(path, saved).ok());

  // The file is the per-variable records concatenated in sorted name order.
  std::string expected;
  for (const auto &[name, t] : saved) {
    std::string error;
    ASSERT_TRUE(distc::programdesc::appendTensorRecord(tensorToRecord(t), expected, error));
  }
  EXPECT_EQ(readText(path), expected);

  TensorMap loaded;
  Status st = loadCombinedParams(path, specsOf(saved), loaded);
  ASSERT_TRUE(st.ok()) << st.message();
  expectSame(saved, loaded);
  // loadParameters takes a file as a combined file.
  st = loadParameters(path, specsOf(saved), loaded);
  ASSERT_TRUE(st.ok()) << st.message();
  expectSame(saved, loaded);

  VarSpecs fewer = specsOf(saved);
  fewer.erase("scale_half");
  st = loadParameters(path, fewer, loaded);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("unexpected bytes after the last record"), std::string::npos);
}

TEST(PaddleParamsTest, InitFromNpyDirectoryPrefersNpy) {
  TempDir dir;
  TensorMap saved = params();
  ASSERT_TRUE(savePersistables(dir.path(), saved).ok());
  // An .npy beside Paddle's file wins.
  Tensor other = iotaF32({3}, 10.0f);
  ASSERT_TRUE(distc::runtime::writeNpy(dir.file("fc_0.b_0.npy"), other).ok());
  TensorMap loaded;
  ASSERT_TRUE(loadParameters(dir.path(), specsOf(saved), loaded).ok());
  EXPECT_TRUE(sameTensor(loaded.at("fc_0.b_0"), other));

  VarSpecs wrong = specsOf(saved);
  wrong["fc_0.w_0"].shape = {4, 16};
  Status st = loadParameters(dir.path(), wrong, loaded);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "parameter 'fc_0.w_0' in " + dir.file("fc_0.w_0") +
                              " has shape [4,3], expected [4,16]");
  wrong = specsOf(saved);
  wrong["fc_1.w_0"] = {DType::Float32, {1}};
  st = loadParameters(dir.path(), wrong, loaded);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "cannot load parameter 'fc_1.w_0' from " + dir.path() +
                              ": neither fc_1.w_0.npy nor Paddle's 'fc_1.w_0' exists there");
  EXPECT_EQ(loaded.size(), saved.size()); // untouched by the failures

  writeText(dir.file("fc_0.w_0"), "garbage");
  fs::remove(dir.file("fc_0.b_0.npy"));
  st = loadParameters(dir.path(), specsOf(saved), loaded);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message().rfind("cannot load parameter 'fc_0.w_0': " + dir.file("fc_0.w_0"), 0), 0u)
      << st.message();
}

TEST(PaddleParamsTest, InitFromCheckpointTakesTheNamedVariables) {
  TempDir dir;
  TensorMap saved = params();
  saved["fc_0.w_0_moment1_0"] = iotaF32({4, 3});
  TrainingState state;
  state.step = 7;
  ASSERT_TRUE(saveCheckpoint(dir.path(), saved, state).ok());
  VarSpecs wanted = specsOf(params());
  TensorMap loaded;
  Status st = loadParameters(dir.path(), wanted, loaded);
  ASSERT_TRUE(st.ok()) << st.message();
  expectSame(params(), loaded);
  wanted["missing"] = {DType::Float32, {1}};
  st = loadParameters(dir.path(), wanted, loaded);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(),
            "cannot initialize from checkpoint " + dir.path() + ": it has no variable 'missing'");
}

TEST(PaddleParamsTest, RecordsWithLodOrForeignTypesAreRejected) {
  distc::programdesc::TensorRecord record = tensorToRecord(iotaF32({2}));
  record.lod = {{0, 1, 2}};
  Tensor t;
  Status st = recordToTensor(record, "p/w", t);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "p/w: the tensor has LoD (1 levels); parameters are plain dense tensors");
  record.lod.clear();
  record.dtype = pdproto::VarType::COMPLEX64;
  st = recordToTensor(record, "p/w", t);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "p/w: Paddle element type COMPLEX64 has no runtime tensor type");
  TensorMap none;
  st = loadParameters("/nonexistent/params", {}, none);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "/nonexistent/params: no such parameter directory or file");
}
