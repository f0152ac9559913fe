//===- PdTypesTest.cpp - Paddle dtype <-> MLIR type conversions -----------===//

#include "distc/Dialect/Pd/PdTypes.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace distc::pd;

namespace {

TEST(PdTypesTest, EveryPaddleDTypeRoundTrips) {
  MLIRContext ctx;
  for (int64_t dtype : {0, 1, 2, 3, 4, 5, 6, 20, 21, 22}) {
    FailureOr<Type> type = convertPaddleDType(&ctx, dtype);
    ASSERT_TRUE(succeeded(type)) << "dtype " << dtype;
    FailureOr<VarDataType> back = getPaddleDType(*type);
    ASSERT_TRUE(succeeded(back)) << "dtype " << dtype;
    EXPECT_EQ(static_cast<int64_t>(*back), dtype);
    EXPECT_NE(paddleDTypeName(dtype), "unknown");
  }
}

TEST(PdTypesTest, MapsToTheDocumentedMlirTypes) {
  MLIRContext ctx;
  auto str = [&](int64_t dtype) {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << *convertPaddleDType(&ctx, dtype);
    return s;
  };
  EXPECT_EQ(str(0), "i1");
  EXPECT_EQ(str(1), "i16");
  EXPECT_EQ(str(2), "i32");
  EXPECT_EQ(str(3), "i64");
  EXPECT_EQ(str(4), "f16");
  EXPECT_EQ(str(5), "f32");
  EXPECT_EQ(str(6), "f64");
  EXPECT_EQ(str(20), "ui8");
  EXPECT_EQ(str(21), "i8");
  EXPECT_EQ(str(22), "bf16");
}

TEST(PdTypesTest, RejectsOtherValuesAndTypes) {
  MLIRContext ctx;
  for (int64_t dtype : {-1, 7, 8, 19, 23, 24, 25, 32, 100})
    EXPECT_TRUE(failed(convertPaddleDType(&ctx, dtype))) << "dtype " << dtype;
  EXPECT_TRUE(failed(getPaddleDType(IntegerType::get(&ctx, 32, IntegerType::Signed))));
  EXPECT_TRUE(failed(getPaddleDType(IntegerType::get(&ctx, 16, IntegerType::Unsigned))));
  EXPECT_TRUE(failed(getPaddleDType(IndexType::get(&ctx))));
  EXPECT_TRUE(failed(getPaddleDType(Float8E4M3FNType::get(&ctx))));
  EXPECT_EQ(paddleDTypeName(7), "unknown");
}

} // namespace
