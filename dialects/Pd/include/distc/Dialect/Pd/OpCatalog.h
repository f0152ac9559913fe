//===- OpCatalog.h - Paddle operator signatures ---------------*- C++ -*-===//
//
// The Paddle-side signature of every operator the `pd` dialect models: its
// input and output slot names (as in ProgramDesc's OpDesc.inputs/outputs),
// and the attributes it keeps with their Paddle AttrType and default.
//
// It is the one place that maps ProgramDesc slots to MLIR operands/results:
//  * operand i of `pd.<type>` is input slot i of the catalog entry (optional
//    slots become optional operands, variadic slots variadic operands);
//  * result i is output slot i (every output slot always exists as a result;
//    a slot absent from a ProgramDesc has an empty name in `pd.out_names`);
//  * inherent attribute `name` has the MLIR attribute kind matching its
//    AttrType (see AttrKind below), with the listed default.
// `feed` and `fetch` are the exception: Paddle's feed-list variable ("feed"
// / "fetch") is implicit in the IR, so `pd.feed` has no operand and
// `pd.fetch` no result.
// Input slots Paddle defines but we do not support (e.g. fill_constant's
// ShapeTensor) are listed as `unsupportedInputs` so the importer can name
// them in its error instead of calling the op unknown.
//
// The table is generated from the op definitions in PdOps.td by
// distc-tblgen (-gen-pd-op-catalog): each op is declared once, there.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_DIALECT_PD_OPCATALOG_H
#define DISTC_DIALECT_PD_OPCATALOG_H

#include <cstdint>
#include <string_view>
#include <vector>

namespace distc::pd {

/// Paddle's AttrType values (framework.proto); the MLIR attribute kind used
/// for each is given after the arrow.
enum class AttrKind : int {
  Int = 0,       // -> IntegerAttr i32
  Float = 1,     // -> FloatAttr f32
  String = 2,    // -> StringAttr
  Ints = 3,      // -> DenseI32ArrayAttr
  Floats = 4,    // -> DenseF32ArrayAttr
  Strings = 5,   // -> ArrayAttr of StringAttr
  Boolean = 6,   // -> BoolAttr
  Booleans = 7,  // -> DenseBoolArrayAttr
  Long = 9,      // -> IntegerAttr i64
  Longs = 11,    // -> DenseI64ArrayAttr
  Float64s = 12, // -> DenseF64ArrayAttr
  Float64 = 15,  // -> FloatAttr f64
};

struct SlotSpec {
  std::string_view name;
  bool optional = false; // may be absent (optional operand)
  bool variadic = false; // any number of arguments (variadic operand/result)
};

struct AttrSpec {
  std::string_view name;
  AttrKind kind;
  /// Default in a small literal syntax: "0", "-1.5", "true", "abc" (string),
  /// "[1,2]" (lists). Empty with `required` means the attribute must be given.
  std::string_view defaultValue;
  bool required = false;
};

/// An input slot that stands for attributes (PdDialect.td `foldedInputs`).
struct FoldedInput {
  std::string_view slot;
  /// One attribute takes the slot's whole value; several take one element
  /// each, in order.
  std::vector<std::string_view> attrs;
  /// One element computed at run time may stand as -1 ("inferred").
  bool unknownAsInferred = false;
};

struct OpSpec {
  std::string_view type; // Paddle op type, also the MLIR op name after "pd."
  std::vector<SlotSpec> inputs;
  std::vector<SlotSpec> outputs;
  std::vector<AttrSpec> attrs;
  std::vector<std::string_view> unsupportedInputs;
  /// True for ops of startup programs that create parameter values.
  bool isInitializer = false;
  /// The `<type>_grad` op Paddle's append_backward emits for this op, its
  /// slots matched by name; empty when the op has none (PdOps.td `gradOp`).
  std::string_view gradOp;
  std::vector<FoldedInput> foldedInputs;
};

/// All catalogued ops, in a stable order.
const std::vector<OpSpec> &opCatalog();

/// The entry for a Paddle op type, or nullptr if the op is not supported.
const OpSpec *lookupOp(std::string_view type);

/// Attributes present on almost every Paddle op that carry no semantics for
/// the op itself (op_role, op_namescope, ...). They are kept as discardable
/// attributes so exported programs read like Paddle's; `op_callstack` is
/// dropped on import (Python tracebacks, not program meaning).
struct CommonAttr {
  std::string_view name;
  AttrKind kind;
};
const std::vector<CommonAttr> &commonOpAttrs();

/// Paddle's OpRole bits (attribute `op_role`).
enum OpRole : int {
  Forward = 0x0000,
  Backward = 0x0001,
  Optimize = 0x0002,
  RPC = 0x0004,
  Dist = 0x0008,
  LRSched = 0x0010,
  Loss = 0x0100,
};

/// Names of discardable attributes the dialect itself defines.
inline constexpr std::string_view kOutNamesAttr = "pd.out_names";

} // namespace distc::pd

#endif // DISTC_DIALECT_PD_OPCATALOG_H
