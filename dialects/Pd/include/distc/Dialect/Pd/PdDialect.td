//===- PdDialect.td - PaddlePaddle program dialect --------*- tablegen -*-===//
//
// The `pd` dialect models a PaddlePaddle static-graph program: one op per
// Paddle operator (same type names, slots and attributes, see OpCatalog.h),
// plus the structural ops that make a ProgramDesc an SSA module (programs,
// persistable variables, their reads and writes, feeds and fetches).
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_DIALECT_PD_PDDIALECT_TD
#define DISTC_DIALECT_PD_PDDIALECT_TD

include "mlir/IR/OpBase.td"

def Pd_Dialect : Dialect {
  let name = "pd";
  let cppNamespace = "::distc::pd";
  let summary = "PaddlePaddle static-graph programs as SSA on tensors";
  let description = [{
    A module holds `pd.var` declarations of persistable variables and one
    `pd.program` per program (`@main`, optionally `@startup`). Each Paddle
    operator is `pd.<type>`: operand i is catalog input slot i, result i is
    catalog output slot i, inherent attributes are the operator's Paddle
    attributes. See docs/dialect.md.
  }];
  // Verifies the dialect's own discardable attributes (`pd.out_names`).
  let hasOperationAttrVerify = 1;
}

class Pd_Op<string mnemonic, list<Trait> traits = []>
    : Op<Pd_Dialect, mnemonic, traits>;

#endif // DISTC_DIALECT_PD_PDDIALECT_TD
