//===- PirForms.h - The Paddle 3 PIR form of each pd op ---------*- C++ -*-===//
//
// Paddle 3 saves programs in PIR (`inference.json`), where an op is
// `pd_op.<name>` with positional operands and results and its own attribute
// names, which often differ from the ProgramDesc op distc models
// (`pd_op.matmul {transpose_x}` is `matmul_v2 {trans_x}`). This table,
// generated from each op's declaration in PdOps.td (`pirName`,
// `pirOperands`, `pirResults`, `pirAttrs`, `pirDtypeAttrs`), says how a PIR
// op maps onto its catalog op; the PIR importer reads it and no code names
// ops.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_DIALECT_PD_PIRFORMS_H
#define DISTC_DIALECT_PD_PIRFORMS_H

#include <string_view>
#include <utility>
#include <vector>

namespace distc::pd {

/// What PIR operand i of an op is: an input slot (`slot`), the value of an
/// attribute given as a constant operand (`attr`), or, with both empty, an
/// optional operand distc does not take.
struct PirOperand {
  std::string_view slot;
  std::string_view attr;
};

struct PirForm {
  std::string_view pirName;              // without the `pd_op.` dialect
  std::string_view type;                 // the catalog op (OpSpec::type)
  std::vector<PirOperand> operands;      // in PIR order
  std::vector<std::string_view> results; // output slot of PIR result i
  /// {PIR attribute name, catalog attribute name} where they differ.
  std::vector<std::pair<std::string_view, std::string_view>> attrRenames;
  /// {catalog attribute, input slot}: attributes PIR leaves out that are
  /// the Paddle data type (VarType) of that input.
  std::vector<std::pair<std::string_view, std::string_view>> dtypeAttrs;
};

/// Every PIR form, in definition order.
const std::vector<PirForm> &pirForms();

/// The form of `pd_op.<pirName>`, or null when distc has none.
const PirForm *lookupPirForm(std::string_view pirName);

} // namespace distc::pd

#endif // DISTC_DIALECT_PD_PIRFORMS_H
