//===- ShapeInferenceTest.cpp - Paddle shape inference through the API ----===//
//
// The importer calls inferResultTypes directly; these tests use it the same
// way (types by slot, attributes by Paddle name) and check results and the
// one-line errors.
//
//===----------------------------------------------------------------------===//

#include "distc/Dialect/Pd/ShapeInference.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace mlir;
using namespace distc::pd;

namespace {

class ShapeInferenceTest : public ::testing::Test {
protected:
  using Groups = SmallVector<SmallVector<Type, 1>>;

  Type t(StringRef text) { return parseType(text, &ctx); }

  /// Runs inference; returns the results printed as "slot0a,slot0b;slot1"
  /// or "error: <message>".
  std::string infer(StringRef op, Groups operands, ArrayRef<NamedAttribute> attrs = {},
                    unsigned numVariadic = 0) {
    std::string error;
    ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &diag) {
      error = diag.str();
      return success();
    });
    SmallVector<SmallVector<Type, 1>> results;
    if (failed(inferResultTypes(&ctx, UnknownLoc::get(&ctx), op, operands,
                                b.getDictionaryAttr(attrs), results, numVariadic)))
      return "error: " + error;
    std::string text;
    llvm::raw_string_ostream os(text);
    llvm::interleave(
        results, os, [&](const SmallVector<Type, 1> &group) { llvm::interleave(group, os, ","); },
        ";");
    return text;
  }

  MLIRContext ctx;
  Builder b{&ctx};
};

TEST_F(ShapeInferenceTest, ElementwiseBroadcastsWithAxis) {
  EXPECT_EQ(infer("elementwise_add", {{t("tensor<?x3x4xf32>")}, {t("tensor<3xf32>")}},
                  {b.getNamedAttr("axis", b.getI32IntegerAttr(1))}),
            "tensor<?x3x4xf32>");
  // Dynamic dims: ? vs 1 -> ?, ? vs n -> n.
  EXPECT_EQ(infer("elementwise_mul", {{t("tensor<?x?xf32>")}, {t("tensor<1x5xf32>")}}),
            "tensor<?x5xf32>");
  EXPECT_EQ(infer("elementwise_add", {{t("tensor<2x3xf32>")}, {t("tensor<4xf32>")}}),
            "error: pd.elementwise_add: input slots 'X' 'tensor<2x3xf32>' and 'Y' "
            "'tensor<4xf32>' do not broadcast (axis -1): dim 1 is 3 vs 4");
}

TEST_F(ShapeInferenceTest, MissingAttributesTakeCatalogDefaults) {
  // mul defaults: x_num_col_dims = y_num_col_dims = 1.
  EXPECT_EQ(infer("mul", {{t("tensor<8x3x4xf32>")}, {t("tensor<12x5xf32>")}}), "tensor<8x5xf32>");
  // reduce_sum defaults to dim [0].
  EXPECT_EQ(infer("reduce_sum", {{t("tensor<8x3xf32>")}}), "tensor<3xf32>");
}

TEST_F(ShapeInferenceTest, MatmulPromotesVectors) {
  EXPECT_EQ(infer("matmul_v2", {{t("tensor<4xf32>")}, {t("tensor<2x4x6xf32>")}}),
            "tensor<2x6xf32>");
  EXPECT_EQ(infer("matmul_v2", {{t("tensor<2x3x4xf32>")}, {t("tensor<4xf32>")}}),
            "tensor<2x3xf32>");
}

TEST_F(ShapeInferenceTest, ReshapeInfersMinusOneThroughCopiedDynamicDims) {
  EXPECT_EQ(infer("reshape2", {{t("tensor<?x4x8xf32>")}},
                  {b.getNamedAttr("shape", b.getDenseI32ArrayAttr({0, -1}))}),
            "tensor<?x32xf32>;tensor<0x?x4x8xf32>");
}

TEST_F(ShapeInferenceTest, SplitTakesCountFromCaller) {
  EXPECT_EQ(infer("split", {{t("tensor<6x2xf32>")}}, {}, 3),
            "tensor<2x2xf32>,tensor<2x2xf32>,tensor<2x2xf32>");
  EXPECT_EQ(infer("split", {{t("tensor<6x2xf32>")}}),
            "error: pd.split: needs attribute 'num' > 0 or 'sections' to split input slot "
            "'X' 'tensor<6x2xf32>'");
}

TEST_F(ShapeInferenceTest, LayerNormStatisticsAndOptionalSlots) {
  EXPECT_EQ(infer("layer_norm", {{t("tensor<?x4x8xbf16>")}, {}, {t("tensor<32xf32>")}}),
            "tensor<?x4x8xbf16>;tensor<?xf32>;tensor<?xf32>");
}

TEST_F(ShapeInferenceTest, BatchNormStatisticsFollowTheLayout) {
  const SmallVector<Type, 1> c = {t("tensor<3xf32>")};
  EXPECT_EQ(infer("batch_norm", {{t("tensor<?x3x8x8xf32>")}, c, c, c, c}),
            "tensor<?x3x8x8xf32>;tensor<3xf32>;tensor<3xf32>;tensor<3xf32>;tensor<3xf32>;"
            "tensor<?xui8>");
  EXPECT_EQ(infer("batch_norm", {{t("tensor<?x8x8x3xf32>")}, c, c, c, c},
                  {b.getNamedAttr("data_layout", b.getStringAttr("NHWC"))}),
            "tensor<?x8x8x3xf32>;tensor<3xf32>;tensor<3xf32>;tensor<3xf32>;tensor<3xf32>;"
            "tensor<?xui8>");
  EXPECT_EQ(infer("affine_channel", {{t("tensor<?x3x4xf32>")}, c, c}), "tensor<?x3x4xf32>");
}

TEST_F(ShapeInferenceTest, OptimizerOutputsTakeTheirStatesTypes) {
  const SmallVector<Type, 1> p = {t("tensor<4x3xf32>")}, lr = {t("tensor<1xf32>")};
  EXPECT_EQ(infer("adagrad", {p, p, p, lr}), "tensor<4x3xf32>;tensor<4x3xf32>");
  EXPECT_EQ(infer("decayed_adagrad", {p, p, p, lr}), "tensor<4x3xf32>;tensor<4x3xf32>");
  // ftrl's SquaredAccumOut and LinearAccumOut update SquaredAccumulator and
  // LinearAccumulator.
  EXPECT_EQ(infer("ftrl", {p, p, p, p, lr}), "tensor<4x3xf32>;tensor<4x3xf32>;tensor<4x3xf32>");
  // rmsprop (Param, MeanSquare, MeanGrad, LearningRate, Grad, Moment): without
  // MeanGrad, MeanGradOut still has the parameter's type.
  EXPECT_EQ(infer("rmsprop", {p, p, p, lr, p, p}),
            "tensor<4x3xf32>;tensor<4x3xf32>;tensor<4x3xf32>;tensor<4x3xf32>");
  EXPECT_EQ(infer("rmsprop", {p, p, {}, lr, p, p}),
            "tensor<4x3xf32>;tensor<4x3xf32>;tensor<4x3xf32>;tensor<4x3xf32>");
  EXPECT_EQ(
      infer("rmsprop", {p, p, {}, lr, p, p}, {b.getNamedAttr("centered", b.getBoolAttr(true))}),
      "error: pd.rmsprop: centered RMSProp needs input slot 'MeanGrad' (the moving "
      "average of the gradient)");
  EXPECT_EQ(
      infer("ftrl", {p, p, p, {t("tensor<3x4xf32>")}, lr}),
      "error: pd.ftrl: Param 'tensor<4x3xf32>' and Grad 'tensor<3x4xf32>' must have one type");
}

TEST_F(ShapeInferenceTest, MatmulV1BatchAndVectors) {
  EXPECT_EQ(infer("matmul", {{t("tensor<?x3x4xf32>")}, {t("tensor<5x4xf32>")}},
                  {b.getNamedAttr("transpose_Y", b.getBoolAttr(true))}),
            "tensor<?x3x5xf32>");
  EXPECT_EQ(infer("matmul", {{t("tensor<4x5xf32>")}, {t("tensor<2x5x6xf32>")}}),
            "tensor<2x4x6xf32>");
  EXPECT_EQ(infer("matmul", {{t("tensor<4xf32>")}, {t("tensor<4xf32>")}}), "tensor<1xf32>");
  EXPECT_EQ(infer("matmul", {{t("tensor<2x3x4xf32>")}, {t("tensor<4xf32>")}}), "tensor<2x3xf32>");
}

TEST_F(ShapeInferenceTest, ArgMaxDropsOrKeepsTheAxis) {
  EXPECT_EQ(infer("arg_max", {{t("tensor<?x10xf32>")}}), "tensor<?xi64>");
  EXPECT_EQ(infer("arg_max", {{t("tensor<?x10xf32>")}},
                  {b.getNamedAttr("axis", b.getI64IntegerAttr(0)),
                   b.getNamedAttr("keepdims", b.getBoolAttr(true)),
                   b.getNamedAttr("dtype", b.getI32IntegerAttr(2))}),
            "tensor<1x10xi32>");
  EXPECT_EQ(
      infer("arg_max", {{t("tensor<?x10xf32>")}}, {b.getNamedAttr("flatten", b.getBoolAttr(true))}),
      "tensor<1xi64>");
}

TEST_F(ShapeInferenceTest, ScalarsAreZeroDAndAcceptOneElementSpelling) {
  EXPECT_EQ(infer("mean", {{t("tensor<?x4xf32>")}}), "tensor<f32>");
  EXPECT_TRUE(isCompatibleWithInferred(t("tensor<1xf32>"), t("tensor<f32>")));
  EXPECT_TRUE(isCompatibleWithInferred(t("tensor<?x4xf32>"), t("tensor<8x4xf32>")));
  EXPECT_FALSE(isCompatibleWithInferred(t("tensor<2xf32>"), t("tensor<f32>")));
  EXPECT_FALSE(isCompatibleWithInferred(t("tensor<1xf64>"), t("tensor<f32>")));
}

TEST_F(ShapeInferenceTest, CreationUsesShapeAndDType) {
  EXPECT_EQ(infer("fill_constant", {},
                  {b.getNamedAttr("shape", b.getDenseI64ArrayAttr({-1, 3})),
                   b.getNamedAttr("dtype", b.getI32IntegerAttr(3))}),
            "tensor<?x3xi64>");
  EXPECT_EQ(infer("uniform_random", {}, {b.getNamedAttr("dtype", b.getI32IntegerAttr(7))}),
            "error: pd.uniform_random: attribute 'dtype' = 7 is not a supported Paddle data "
            "type (expected one of 0-6, 20-22)");
}

TEST_F(ShapeInferenceTest, BadOperandGroupsAreErrorsNotCrashes) {
  EXPECT_EQ(infer("relu", {}), "error: pd.relu: expected 1 input slots, got 0");
  EXPECT_EQ(infer("relu", {{}}), "error: pd.relu: input slot 'X' is required but empty");
  EXPECT_EQ(infer("relu", {{t("f32")}}),
            "error: pd.relu: input slot 'X' must be a ranked tensor, got 'f32'");
  EXPECT_EQ(infer("no_such_op", {}),
            "error: pd.no_such_op: no Paddle shape inference for this op type");
}

TEST_F(ShapeInferenceTest, ConvOutputSizesFollowPaddle) {
  auto ints = [&](StringRef name, ArrayRef<int32_t> v) {
    return b.getNamedAttr(name, b.getDenseI32ArrayAttr(v));
  };
  auto str = [&](StringRef name, StringRef v) { return b.getNamedAttr(name, b.getStringAttr(v)); };
  // (9 + 1 + 0 - 3) / 2 + 1 = 4 rows, (9 + 2 + 1 - 3) / 2 + 1 = 5 columns;
  // the batch stays symbolic.
  EXPECT_EQ(infer("conv2d", {{t("tensor<?x4x9x9xf32>")}, {t("tensor<6x2x3x3xf32>")}, {}},
                  {ints("strides", {2, 2}), ints("paddings", {1, 0, 2, 1}),
                   b.getNamedAttr("groups", b.getI32IntegerAttr(2))}),
            "tensor<?x6x4x5xf32>");
  // SAME: ceil(in / stride), whatever the dilations; NHWC keeps C last.
  EXPECT_EQ(
      infer("depthwise_conv2d", {{t("tensor<2x7x7x3xf64>")}, {t("tensor<3x1x3x3xf64>")}, {}},
            {ints("strides", {2, 2}), ints("dilations", {3, 3}), str("padding_algorithm", "SAME"),
             str("data_format", "NHWC"), b.getNamedAttr("groups", b.getI32IntegerAttr(3))}),
      "tensor<2x4x4x3xf64>");
  // A dynamic spatial size gives a dynamic output size.
  EXPECT_EQ(infer("conv2d", {{t("tensor<1x3x?x8xf32>")}, {t("tensor<2x3x3x3xf32>")}, {}},
                  {str("padding_algorithm", "VALID"), ints("paddings", {5, 5})}),
            "tensor<1x2x?x6xf32>");
  // Transposed: (4 - 1) * 2 - 2 + 3 = 7, then output_size or output_padding.
  EXPECT_EQ(infer("conv2d_transpose", {{t("tensor<?x3x4x4xf32>")}, {t("tensor<3x2x3x3xf32>")}},
                  {ints("strides", {2, 2}), ints("paddings", {1, 1})}),
            "tensor<?x2x7x7xf32>");
  EXPECT_EQ(infer("conv2d_transpose", {{t("tensor<1x4x3x3xf32>")}, {t("tensor<4x3x3x3xf32>")}},
                  {ints("strides", {2, 2}), ints("output_size", {8, 7}),
                   b.getNamedAttr("groups", b.getI32IntegerAttr(2))}),
            "tensor<1x6x8x7xf32>");
  EXPECT_EQ(infer("conv2d_transpose", {{t("tensor<1x4x3x3xf32>")}, {t("tensor<4x3x3x3xf32>")}},
                  {ints("strides", {2, 2}), ints("output_size", {9, 7})}),
            "error: pd.conv2d_transpose: attribute 'output_size' 9 must be in [7, 9) for input "
            "slot 'Input' 'tensor<1x4x3x3xf32>'");
}

TEST_F(ShapeInferenceTest, PoolOutputSizesFollowPaddle) {
  auto ints = [&](StringRef name, ArrayRef<int32_t> v) {
    return b.getNamedAttr(name, b.getDenseI32ArrayAttr(v));
  };
  auto flag = [&](StringRef name) { return b.getNamedAttr(name, b.getBoolAttr(true)); };
  auto type = [&](StringRef v) { return b.getNamedAttr("pooling_type", b.getStringAttr(v)); };
  EXPECT_EQ(infer("pool2d", {{t("tensor<?x2x7x7xf32>")}},
                  {type("max"), ints("ksize", {2, 2}), ints("strides", {2, 2})}),
            "tensor<?x2x3x3xf32>");
  EXPECT_EQ(infer("pool2d", {{t("tensor<?x2x7x7xf32>")}},
                  {type("max"), ints("ksize", {2, 2}), ints("strides", {2, 2}), flag("ceil_mode")}),
            "tensor<?x2x4x4xf32>");
  EXPECT_EQ(infer("pool2d", {{t("tensor<2x3x9x5xf32>")}},
                  {type("avg"), ints("ksize", {3, 2}), flag("adaptive")}),
            "tensor<2x3x3x2xf32>");
  EXPECT_EQ(infer("pool2d", {{t("tensor<2x3x9x5xf32>")}},
                  {type("avg"), ints("ksize", {3, 3}), flag("global_pooling")}),
            "tensor<2x3x1x1xf32>");
  EXPECT_EQ(infer("pool2d", {{t("tensor<2x3x9x5xf32>")}}, {type("sum"), ints("ksize", {3, 3})}),
            "error: pd.pool2d: attribute 'pooling_type' must be max or avg, got 'sum'");
  EXPECT_EQ(infer("pool2d", {{t("tensor<2x3x2x5xf32>")}}, {type("max"), ints("ksize", {3, 3})}),
            "error: pd.pool2d: the 3x3 window is larger than the padded input slot 'X' "
            "'tensor<2x3x2x5xf32>'");
}

TEST_F(ShapeInferenceTest, ConvShapesThatDoNotFitAreOneLineErrors) {
  auto groups = [&](int32_t g) { return b.getNamedAttr("groups", b.getI32IntegerAttr(g)); };
  EXPECT_EQ(
      infer("conv2d", {{t("tensor<1x4x5x5xf32>")}, {t("tensor<6x1x3x3xf32>")}, {}}, {groups(3)}),
      "error: pd.conv2d: input slot 'Input' 'tensor<1x4x5x5xf32>' has 4 channels, not "
      "divisible by groups 3");
  EXPECT_EQ(infer("conv2d", {{t("tensor<1x4x5x5xf32>")}, {t("tensor<6x3x3x3xf32>")}, {}}),
            "error: pd.conv2d: input slot 'Filter' 'tensor<6x3x3x3xf32>' takes 3 channels per "
            "group, but input slot 'Input' 'tensor<1x4x5x5xf32>' has 4 channels in 1 groups");
  EXPECT_EQ(infer("conv2d", {{t("tensor<1x4x2x5xf32>")}, {t("tensor<6x4x3x3xf32>")}, {}}),
            "error: pd.conv2d: the dilated 3x3 kernel of input slot 'Filter' "
            "'tensor<6x4x3x3xf32>' is larger than the padded input slot 'Input' "
            "'tensor<1x4x2x5xf32>'");
  // The fused form's Bias has one value per output channel.
  EXPECT_EQ(infer("conv2d",
                  {{t("tensor<1x4x5x5xf32>")}, {t("tensor<6x4x3x3xf32>")}, {t("tensor<6xf32>")}}),
            "tensor<1x6x3x3xf32>");
  EXPECT_EQ(infer("conv2d",
                  {{t("tensor<1x4x5x5xf32>")}, {t("tensor<6x4x3x3xf32>")}, {t("tensor<4xf32>")}}),
            "error: pd.conv2d: input slot 'Bias' 'tensor<4xf32>' must be 1-D of size 6 (the output "
            "channels of input slot 'Filter' 'tensor<6x4x3x3xf32>')");
  EXPECT_EQ(infer("conv2d", {{t("tensor<1x4x5x5xf32>")}, {t("tensor<6x4x3x3xf32>")}, {}},
                  {b.getNamedAttr("data_format", b.getStringAttr("NCWH"))}),
            "error: pd.conv2d: attribute 'data_format' must be NCHW, NHWC or AnyLayout, got "
            "'NCWH'");
}

} // namespace
