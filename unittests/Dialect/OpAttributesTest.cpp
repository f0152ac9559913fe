//===- OpAttributesTest.cpp - attribute reads with catalogue defaults -----===//
//
// Every catalogue default parses to an attribute of its declared kind, and
// reads of given and omitted attributes agree with what the op means.
//
//===----------------------------------------------------------------------===//

#include "distc/Dialect/Pd/OpAttributes.h"
#include "distc/Dialect/Pd/PdDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace distc::pd;

namespace {

TEST(OpAttributesTest, EveryCatalogueDefaultParses) {
  MLIRContext ctx;
  for (const OpSpec &op : opCatalog())
    for (const AttrSpec &attr : op.attrs) {
      if (attr.required)
        continue;
      EXPECT_TRUE(catalogDefault(&ctx, attr))
          << op.type << "." << attr.name << " default '" << attr.defaultValue << "'";
    }
}

TEST(OpAttributesTest, RequiredAttributesHaveNoDefault) {
  MLIRContext ctx;
  AttrSpec shape{"shape", AttrKind::Ints, "", /*required=*/true};
  EXPECT_FALSE(catalogDefault(&ctx, shape));
}

TEST(OpAttributesTest, ListAndScalarLiterals) {
  MLIRContext ctx;
  auto ints = dyn_cast_or_null<DenseI32ArrayAttr>(
      catalogDefault(&ctx, AttrSpec{"axis", AttrKind::Ints, "[1, -2]"}));
  ASSERT_TRUE(ints);
  EXPECT_EQ(ints.asArrayRef(), ArrayRef<int32_t>({1, -2}));
  auto empty = dyn_cast_or_null<DenseI64ArrayAttr>(
      catalogDefault(&ctx, AttrSpec{"dims", AttrKind::Longs, "[]"}));
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty.empty());
  EXPECT_FALSE(catalogDefault(&ctx, AttrSpec{"axis", AttrKind::Int, "one"}));
  EXPECT_FALSE(catalogDefault(&ctx, AttrSpec{"axis", AttrKind::Int, "4294967296"}));
  EXPECT_FALSE(catalogDefault(&ctx, AttrSpec{"flag", AttrKind::Boolean, "yes"}));
}

TEST(OpAttributesTest, GivenValuesWinOverDefaults) {
  MLIRContext ctx;
  Builder b(&ctx);
  const OpSpec *scale = lookupOp("scale");
  ASSERT_TRUE(scale);
  OpAttributes omitted(&ctx, b.getDictionaryAttr({}), scale);
  EXPECT_DOUBLE_EQ(omitted.getFloat("scale"), 1.0);
  EXPECT_TRUE(omitted.getBool("bias_after_scale"));
  EXPECT_FALSE(omitted.isGiven("scale"));

  OpAttributes given(&ctx,
                     b.getDictionaryAttr({b.getNamedAttr("scale", b.getF32FloatAttr(0.5f)),
                                          b.getNamedAttr("bias_after_scale", b.getBoolAttr(false))}),
                     scale);
  EXPECT_DOUBLE_EQ(given.getFloat("scale"), 0.5);
  EXPECT_FALSE(given.getBool("bias_after_scale"));
  EXPECT_TRUE(given.isGiven("scale"));
}

TEST(OpAttributesTest, StringAndListDefaults) {
  MLIRContext ctx;
  Builder b(&ctx);
  OpAttributes dropout(&ctx, b.getDictionaryAttr({}), lookupOp("dropout"));
  EXPECT_EQ(dropout.getString("dropout_implementation"), "downgrade_in_infer");
  OpAttributes transpose(
      &ctx, b.getDictionaryAttr({b.getNamedAttr("axis", b.getDenseI32ArrayAttr({1, 0}))}),
      lookupOp("transpose2"));
  EXPECT_EQ(transpose.getInts("axis"), (std::vector<int64_t>{1, 0}));
  EXPECT_TRUE(transpose.getInts("no_such_attribute").empty());
}

} // namespace
