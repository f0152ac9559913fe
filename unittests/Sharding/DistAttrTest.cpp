//===- DistAttrTest.cpp - Meshes, dist attrs and placements ---------------===//

#include "distc/Sharding/DistAttr.h"

#include <gtest/gtest.h>

using namespace distc::sharding;

namespace {

std::string errorOf(llvm::Error err) { return err ? llvm::toString(std::move(err)) : ""; }

TEST(Placement, ParsesAndPrintsPaddleSpellings) {
  for (const char *text : {"Shard(0)", "Shard(2)", "Replicate()", "Partial(sum)", "Partial(max)",
                           "Partial(avg)", "Partial(min)"}) {
    llvm::Expected<Placement> p = Placement::parse(text);
    ASSERT_TRUE(bool(p)) << text << ": " << llvm::toString(p.takeError());
    EXPECT_EQ(p->str(), text);
  }
  EXPECT_EQ(Placement::parse("Partial()")->str(), "Partial(sum)");
  EXPECT_EQ(Placement::parse(" Partial(ReduceType.kRedMax) ")->str(), "Partial(max)");
  EXPECT_EQ(Placement::parse("S(1)")->str(), "Shard(1)");
  EXPECT_EQ(Placement::parse("R")->str(), "Replicate()");
}

TEST(Placement, RejectsMalformedSpellings) {
  for (const char *text : {"Shard()", "Shard(-1)", "Shard(x)", "Shard(0", "Replicate(1)",
                           "Partial(mul)", "Split(0)", ""}) {
    llvm::Expected<Placement> p = Placement::parse(text);
    EXPECT_FALSE(bool(p)) << text;
    if (!p)
      llvm::consumeError(p.takeError());
  }
}

TEST(Placement, ConvertsToAndFromDimsMapping) {
  // [Replicate(), Shard(1)] on a 2-D mesh: axis 1 split by mesh axis 1.
  llvm::Expected<TensorDistAttr> attr =
      fromPlacements({Placement::replicate(), Placement::shard(1)}, 2);
  ASSERT_TRUE(bool(attr));
  EXPECT_EQ(attr->dimsMapping, (std::vector<int64_t>{-1, 1}));
  EXPECT_EQ(formatPlacements(toPlacements(*attr, 2)), "[Replicate(), Shard(1)]");

  llvm::Expected<TensorDistAttr> partial =
      fromPlacements({Placement::partialOf(ReduceType::Max), Placement::shard(0)}, 3);
  ASSERT_TRUE(bool(partial));
  EXPECT_EQ(partial->dimsMapping, (std::vector<int64_t>{1, -1, -1}));
  EXPECT_EQ(partial->partialDims(), (std::vector<int64_t>{0}));
  EXPECT_EQ(partial->str(), "[1, -1, -1] partial(0:max)");
  EXPECT_EQ(formatPlacements(toPlacements(*partial, 2)), "[Partial(max), Shard(0)]");
}

TEST(Placement, RejectsTwoMeshAxesOnOneTensorAxis) {
  llvm::Expected<TensorDistAttr> attr =
      fromPlacements({Placement::shard(0), Placement::shard(0)}, 2);
  ASSERT_FALSE(bool(attr));
  EXPECT_EQ(llvm::toString(attr.takeError()),
            "tensor axis 0 is sharded by mesh axes 0 and 1; an axis may be split by one mesh "
            "axis only");
  llvm::Expected<TensorDistAttr> outOfRange = fromPlacements({Placement::shard(2)}, 2);
  ASSERT_FALSE(bool(outOfRange));
  EXPECT_EQ(llvm::toString(outOfRange.takeError()),
            "Shard(2) on mesh axis 0: the tensor has 2 axes");
}

TEST(DistAttr, VerifiesAgainstShapeAndMesh) {
  TensorDistAttr ok{{0, -1}, {{1, ReduceType::Sum}}};
  EXPECT_EQ(errorOf(verifyDistAttr(ok, {4, 3}, {2, 2})), "");
  EXPECT_EQ(errorOf(verifyDistAttr({{0, 0}, {}}, {4, 4}, {2, 2})),
            "dims_mapping [0, 0]: mesh axis 0 splits tensor axes 0 and 1; a mesh axis may split "
            "one tensor axis only");
  EXPECT_EQ(errorOf(verifyDistAttr({{2, -1}, {}}, {4, 4}, {2, 2})),
            "dims_mapping [2, -1]: mesh axis 2 is not one of the mesh's 2 axes");
  EXPECT_EQ(errorOf(verifyDistAttr({{0}, {}}, {4, 4}, {2})),
            "dims_mapping [0] has 1 entries for a tensor of 2 axes [4, 4]");
  EXPECT_EQ(errorOf(verifyDistAttr({{-1, 0}, {}}, {4, 3}, {2})),
            "tensor axis 1 of size 3 is not divisible by mesh axis 0 of size 2 (uneven shards "
            "are not supported)");
  // The batch: a dynamic size may be split; it is checked when bound.
  EXPECT_EQ(errorOf(verifyDistAttr({{0, -1}, {}}, {-1, 3}, {2})), "");
  EXPECT_EQ(errorOf(verifyDistAttr({{0, -1}, {{0, ReduceType::Sum}}}, {4, 3}, {2})),
            "mesh axis 0 both splits tensor axis 0 and is partial");
}

TEST(DistAttr, LocalShapeDividesSplitAxes) {
  EXPECT_EQ(localShape({8, 6, -1}, {{0, 1, -1}, {}}, {2, 3}), (std::vector<int64_t>{4, 2, -1}));
}

TEST(ProcessMesh, VerifiesShapeNamesAndIds) {
  ProcessMesh mesh{{2, 2}, {"dp", "mp"}, {}};
  EXPECT_EQ(errorOf(mesh.verify()), "");
  EXPECT_EQ(mesh.size(), 4);
  EXPECT_EQ(mesh.axisNamed("mp"), 1);
  EXPECT_EQ(mesh.axisNamed("pp"), -1);
  EXPECT_EQ(errorOf(ProcessMesh{{2, 0}, {}, {}}.verify()),
            "mesh axis 1 has size 0; sizes must be positive");
  EXPECT_EQ(errorOf(ProcessMesh{{2, 2}, {"dp", "dp"}, {}}.verify()),
            "mesh axis name 'dp' is used twice");
  EXPECT_EQ(errorOf(ProcessMesh{{2, 2}, {"dp"}, {}}.verify()),
            "the mesh has 2 axes but 1 dim_names");
  EXPECT_EQ(errorOf(ProcessMesh{{2}, {}, {0, 0}}.verify()),
            "process id 0 is negative or listed twice");
  ProcessMesh filled{{2, 3}, {}, {}};
  filled.fillDefaults();
  EXPECT_EQ(filled.dimNames, (std::vector<std::string>{"d0", "d1"}));
  EXPECT_EQ(filled.processIds.size(), 6u);
}

TEST(ProcessMesh, CoordinatesAndGroupsAlongAnAxis) {
  // [[4, 5, 6], [7, 8, 9]]: row-major over shape [2, 3].
  ProcessMesh mesh{{2, 3}, {"dp", "mp"}, {4, 5, 6, 7, 8, 9}};
  EXPECT_EQ(mesh.coordinatesOf(8), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(mesh.coordinatesOf(4), (std::vector<int64_t>{0, 0}));
  EXPECT_FALSE(mesh.coordinatesOf(3).has_value());
  using Groups = std::vector<std::vector<int64_t>>;
  EXPECT_EQ(mesh.groupsAlong(0), (Groups{{4, 7}, {5, 8}, {6, 9}}));
  EXPECT_EQ(mesh.groupsAlong(1), (Groups{{4, 5, 6}, {7, 8, 9}}));
}

} // namespace
