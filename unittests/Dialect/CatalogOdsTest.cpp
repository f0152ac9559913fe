//===- CatalogOdsTest.cpp - ODS definitions agree with OpCatalog ----------===//
//
// distc-tblgen generates the catalog from PdOps.td; these tests check the
// generator against the registered ops: every catalogued op is registered
// as pd.<type> with exactly the catalog's attributes and one operand/result
// group per slot.
//
//===----------------------------------------------------------------------===//

#include "distc/Dialect/Pd/OpCatalog.h"
#include "distc/Dialect/Pd/PdDialect.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OperationSupport.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>

using namespace mlir;
using namespace distc::pd;

namespace {

class CatalogOdsTest : public ::testing::Test {
protected:
  CatalogOdsTest() { ctx.loadDialect<PdDialect>(); }

  std::optional<RegisteredOperationName> lookup(std::string_view type) {
    return RegisteredOperationName::lookup("pd." + std::string(type), &ctx);
  }

  MLIRContext ctx;
};

/// Segment-size attributes are ODS bookkeeping for optional/variadic groups,
/// not Paddle attributes.
bool isSegmentAttr(StringRef name) {
  return name == "operandSegmentSizes" || name == "resultSegmentSizes" ||
         name == "operand_segment_sizes" || name == "result_segment_sizes";
}

/// Checks that `op` has ODS's count trait for `numFixed` fixed groups plus
/// (when `variable`) some optional or variadic ones. Ops have at most
/// kMaxGroups fixed groups.
constexpr unsigned kMaxGroups = 20;

template <template <typename> class Zero, template <typename> class One,
          template <unsigned> class N, template <unsigned> class AtLeast,
          template <typename> class Variadic, size_t... Is>
bool hasCountTraitImpl(RegisteredOperationName op, unsigned numFixed, bool variable,
                       std::index_sequence<Is...>) {
  if (variable) {
    if (numFixed == 0)
      return op.hasTrait<Variadic>();
    return ((numFixed == Is + 1 && op.hasTrait<AtLeast<Is + 1>::template Impl>()) || ...);
  }
  if (numFixed == 0)
    return op.hasTrait<Zero>();
  if (numFixed == 1)
    return op.hasTrait<One>();
  return ((numFixed == Is + 2 && op.hasTrait<N<Is + 2>::template Impl>()) || ...);
}

template <template <typename> class Zero, template <typename> class One,
          template <unsigned> class N, template <unsigned> class AtLeast,
          template <typename> class Variadic>
bool hasCountTrait(RegisteredOperationName op, unsigned numFixed, bool variable) {
  return hasCountTraitImpl<Zero, One, N, AtLeast, Variadic>(op, numFixed, variable,
                                                            std::make_index_sequence<kMaxGroups>());
}

bool hasOperandCount(RegisteredOperationName op, unsigned numFixed, bool variable) {
  return hasCountTrait<OpTrait::ZeroOperands, OpTrait::OneOperand, OpTrait::NOperands,
                       OpTrait::AtLeastNOperands, OpTrait::VariadicOperands>(op, numFixed,
                                                                             variable);
}

bool hasResultCount(RegisteredOperationName op, unsigned numFixed, bool variable) {
  return hasCountTrait<OpTrait::ZeroResults, OpTrait::OneResult, OpTrait::NResults,
                       OpTrait::AtLeastNResults, OpTrait::VariadicResults>(op, numFixed, variable);
}

TEST_F(CatalogOdsTest, EveryCatalogOpIsRegistered) {
  for (const OpSpec &spec : opCatalog())
    EXPECT_TRUE(lookup(spec.type).has_value()) << "pd." << spec.type << " is not registered";
}

TEST_F(CatalogOdsTest, InherentAttributesMatchCatalog) {
  for (const OpSpec &spec : opCatalog()) {
    auto op = lookup(spec.type);
    if (!op)
      continue;
    std::set<std::string> expected, actual;
    for (const AttrSpec &attr : spec.attrs)
      expected.emplace(attr.name);
    for (StringAttr name : op->getAttributeNames())
      if (!isSegmentAttr(name.getValue()))
        actual.insert(name.str());
    EXPECT_EQ(actual, expected) << "inherent attributes of pd." << spec.type;
  }
}

TEST_F(CatalogOdsTest, OperandAndResultGroupsMatchSlots) {
  for (const OpSpec &spec : opCatalog()) {
    auto op = lookup(spec.type);
    if (!op)
      continue;
    unsigned fixedIn = 0, fixedOut = 0, variableIn = 0, variableOut = 0;
    for (const SlotSpec &slot : spec.inputs)
      (slot.optional || slot.variadic ? variableIn : fixedIn) += 1;
    // Every output slot is always a result; only a variadic one varies.
    for (const SlotSpec &slot : spec.outputs)
      (slot.variadic ? variableOut : fixedOut) += 1;

    if (spec.type == "feed") {
      // The feed list is implicit: no operand, the fed tensor is the result.
      EXPECT_TRUE(hasOperandCount(*op, 0, false)) << "pd.feed operands";
      EXPECT_TRUE(hasResultCount(*op, 1, false)) << "pd.feed results";
      continue;
    }
    if (spec.type == "fetch") {
      EXPECT_TRUE(hasOperandCount(*op, 1, false)) << "pd.fetch operands";
      EXPECT_TRUE(hasResultCount(*op, 0, false)) << "pd.fetch results";
      continue;
    }
    EXPECT_TRUE(hasOperandCount(*op, fixedIn, variableIn > 0))
        << "pd." << spec.type << ": operands do not match " << spec.inputs.size() << " input slots";
    EXPECT_TRUE(hasResultCount(*op, fixedOut, variableOut > 0))
        << "pd." << spec.type << ": results do not match " << spec.outputs.size()
        << " output slots";
    // More than one optional/variadic group needs explicit segment sizes,
    // unless every slot is variadic with one tensor per parameter (the
    // merged optimizers, SameVariadicOperandSize).
    bool oneSizeGroups = spec.inputs.size() > 1 && llvm::all_of(spec.inputs, [](const SlotSpec &s) {
                           return s.variadic && !s.optional;
                         });
    EXPECT_EQ(op->hasTrait<OpTrait::AttrSizedOperandSegments>(), variableIn > 1 && !oneSizeGroups)
        << "pd." << spec.type;
  }
}

TEST_F(CatalogOdsTest, EveryRegisteredCatalogLikeOpIsCatalogued) {
  // Structural ops, and the generated loops of enable_auto_fusion (Paddle's
  // fusion_group holds device code; distc's holds a loop program).
  const std::set<std::string> structural = {"program",      "var",  "read_var",       "write_var",
                                            "fused_slices", "mesh", "listen_and_serv",
                                            "fusion_group"};
  auto *dialect = ctx.getLoadedDialect<PdDialect>();
  for (RegisteredOperationName op : ctx.getRegisteredOperations()) {
    if (&op.getDialect() != dialect)
      continue;
    std::string type = op.getStringRef().drop_front(3).str();
    if (structural.count(type))
      continue;
    EXPECT_NE(lookupOp(type), nullptr) << op.getStringRef().str() << " has no catalog entry";
  }
}

} // namespace
