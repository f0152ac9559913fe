//===- ReduceKernelTest.cpp - sum/mean/max/min over several axes ----------===//

#include "TestArtifacts.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

using namespace distc::testing;

namespace {

TEST(ReduceKernel, SeveralAxesAllOps) {
  std::mt19937_64 rng(5);
  const Shape shape = {3, 4, 5};
  std::vector<std::vector<int64_t>> axesList = {{0}, {1}, {2}, {0, 2}, {1, 2}, {0, 1, 2}, {}};
  for (DType dt : {DType::Float32, DType::Float64, DType::Int32, DType::Int64})
    for (const auto &axes : axesList)
      for (const char *op : {"sum", "mean", "max", "min"}) {
        if (std::string(op) == "mean" && (dt == DType::Int32 || dt == DType::Int64))
          continue;
        Tensor x = randomTensor(dt, shape, rng, -10, 10);
        Shape outShape = shape;
        for (int64_t a : axes)
          outShape[a] = 1; // keep_dim form; element count is what matters
        std::vector<Tensor> out;
        Status s = runKernel("reduce", {x}, {{dt, outShape}},
                             {AttrDesc::ofString("op", op), AttrDesc::ofInts("axes", axes)}, out);
        ASSERT_TRUE(s.ok()) << s.message();
        SCOPED_TRACE(std::string(op) + " over " + std::to_string(axes.size()) + " axes");
        expectClose(out[0], reduceRef(x, axes, op), dt == DType::Float32 ? 1e-5 : 1e-12, 1e-5);
      }
}

TEST(ReduceKernel, DroppedAxesAndBadAxes) {
  Tensor x = tensorOf(DType::Float32, {2, 3}, {1, 2, 3, 4, 5, 6});
  std::vector<Tensor> out;
  ASSERT_TRUE(runKernel("reduce", {x}, {{DType::Float32, {2}}},
                        {AttrDesc::ofString("op", "sum"), AttrDesc::ofInts("axes", {1})}, out)
                  .ok());
  expectClose(out[0], {6, 15}, 0, 0);
  Status s = runKernel("reduce", {x}, {{DType::Float32, {2}}},
                       {AttrDesc::ofString("op", "sum"), AttrDesc::ofInts("axes", {2})}, out);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("reduce axis 2 is out of range"), std::string::npos) << s.message();
}

} // namespace
