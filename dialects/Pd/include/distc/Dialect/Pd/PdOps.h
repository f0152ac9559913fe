//===- PdOps.h - PaddlePaddle operators -----------------------*- C++ -*-===//
//
// Op classes of the `pd` dialect: the structural ops (ProgramOp, VarOp,
// ReadVarOp, WriteVarOp, FeedOp, FetchOp) and one class per OpCatalog entry
// (e.g. pd.elementwise_add is ElementwiseAddOp, pd.matmul_v2 MatmulV2Op).
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_DIALECT_PD_PDOPS_H
#define DISTC_DIALECT_PD_PDOPS_H

#include "distc/Dialect/Pd/PdDialect.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

namespace distc::pd::detail {

/// Checks the result types of catalog op `op` against Paddle's inference
/// (inferResultTypes) for its operand types grouped by catalog slot.
llvm::LogicalResult
verifyInferredResults(mlir::Operation *op,
                      llvm::ArrayRef<llvm::SmallVector<mlir::Type, 1>> operandsBySlot,
                      llvm::ArrayRef<llvm::SmallVector<mlir::Type, 1>> resultsBySlot);

/// Number of input and output slots of a catalogued op, or failure (with an
/// error on `op`) when the op is not in the catalog.
llvm::LogicalResult getSlotCounts(mlir::Operation *op, unsigned &numInputs, unsigned &numOutputs);

/// The verifier shared by every catalog op: groups operands and results by
/// ODS operand/result group (= catalog slot) and checks them.
template <typename OpT> llvm::LogicalResult verifyCatalogOp(OpT op) {
  unsigned numInputs = 0, numOutputs = 0;
  if (failed(getSlotCounts(op.getOperation(), numInputs, numOutputs)))
    return llvm::failure();
  llvm::SmallVector<llvm::SmallVector<mlir::Type, 1>> operands, results;
  for (unsigned i = 0; i < numInputs; ++i)
    operands.push_back(llvm::to_vector<1>(op.getODSOperands(i).getTypes()));
  for (unsigned i = 0; i < numOutputs; ++i)
    results.push_back(llvm::to_vector<1>(op.getODSResults(i).getTypes()));
  return verifyInferredResults(op.getOperation(), operands, results);
}

} // namespace distc::pd::detail

#define GET_OP_CLASSES
#include "distc/Dialect/Pd/PdOps.h.inc"

#endif // DISTC_DIALECT_PD_PDOPS_H
