//===- PdAttrs.cpp - pd dialect attributes --------------------------------===//
//
// `#pd.sharding<@mesh, [Shard(0), Replicate(), Partial(sum)], annotated>`.
//
//===----------------------------------------------------------------------===//

#include "distc/Dialect/Pd/PdDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace distc::pd;
using distc::sharding::Placement;

#define GET_ATTRDEF_CLASSES
#include "distc/Dialect/Pd/PdAttrs.cpp.inc"

void PdDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "distc/Dialect/Pd/PdAttrs.cpp.inc"
      >();
}

/// One placement: `Shard(1)`, `Replicate()`, `Partial(max)`, `Partial()`.
static ParseResult parsePlacement(AsmParser &parser, Placement &placement) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef kind;
  if (parser.parseKeyword(&kind) || parser.parseLParen())
    return failure();
  std::string text = kind.str() + "(";
  if (kind == "Shard") {
    int64_t dim;
    if (parser.parseInteger(dim))
      return failure();
    text += std::to_string(dim);
  } else if (kind == "Partial") {
    StringRef reduce;
    if (succeeded(parser.parseOptionalKeyword(&reduce)))
      text += reduce.str();
  }
  if (parser.parseRParen())
    return failure();
  llvm::Expected<Placement> parsed = Placement::parse(text + ")");
  if (!parsed)
    return parser.emitError(loc) << llvm::toString(parsed.takeError());
  placement = *parsed;
  return success();
}

Attribute ShardingAttr::parse(AsmParser &parser, Type) {
  FlatSymbolRefAttr mesh;
  SmallVector<Placement> placements;
  if (parser.parseLess() || parser.parseAttribute(mesh) || parser.parseComma() ||
      parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
        placements.emplace_back();
        return parsePlacement(parser, placements.back());
      }))
    return {};
  bool annotated = false;
  if (succeeded(parser.parseOptionalComma())) {
    if (parser.parseKeyword("annotated"))
      return {};
    annotated = true;
  }
  if (parser.parseGreater())
    return {};
  return ShardingAttr::get(parser.getContext(), mesh, placements, annotated);
}

void ShardingAttr::print(AsmPrinter &printer) const {
  printer << "<";
  printer.printAttributeWithoutType(getMesh());
  printer << ", " << placementsString();
  if (getAnnotated())
    printer << ", annotated";
  printer << ">";
}

std::string ShardingAttr::placementsString() const {
  return distc::sharding::formatPlacements(getPlacements());
}

llvm::Expected<distc::sharding::TensorDistAttr> ShardingAttr::toDistAttr(int64_t rank) const {
  return distc::sharding::fromPlacements(getPlacements(), rank);
}

llvm::Error ShardingAttr::verifyOnMesh(RankedTensorType type, ArrayRef<int64_t> meshShape) const {
  llvm::Expected<distc::sharding::TensorDistAttr> dist = toDistAttr(type.getRank());
  if (!dist)
    return dist.takeError();
  // Paddle's -1 for a dynamic size, as the messages print it.
  SmallVector<int64_t> shape = llvm::map_to_vector(
      type.getShape(), [](int64_t d) { return ShapedType::isDynamic(d) ? int64_t(-1) : d; });
  return distc::sharding::verifyDistAttr(*dist, shape, meshShape);
}
