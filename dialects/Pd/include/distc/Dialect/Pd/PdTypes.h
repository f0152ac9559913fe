//===- PdTypes.h - Paddle data types and MLIR types -----------*- C++ -*-===//
//
// Conversions between Paddle's VarType data types (framework.proto) and MLIR
// element types. Only the numeric types the dialect models convert; every
// other VarType (LOD_TENSOR, complex, strings, fp8, ...) is a failure so
// callers can name it in their error.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_DIALECT_PD_PDTYPES_H
#define DISTC_DIALECT_PD_PDTYPES_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Types.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>

namespace distc::pd {

/// Paddle's VarType.Type values for tensor element types.
enum class VarDataType : int32_t {
  BOOL = 0,
  INT16 = 1,
  INT32 = 2,
  INT64 = 3,
  FP16 = 4,
  FP32 = 5,
  FP64 = 6,
  UINT8 = 20,
  INT8 = 21,
  BF16 = 22,
};

/// The MLIR element type of Paddle data type `dtype` (i1, i16, i32, i64,
/// f16, f32, f64, ui8, i8, bf16), or failure for any other value.
mlir::FailureOr<mlir::Type> convertPaddleDType(mlir::MLIRContext *ctx, int64_t dtype);

/// The Paddle data type of MLIR element type `type`, or failure when it has
/// none (e.g. si32, f8E4M3FN, index).
mlir::FailureOr<VarDataType> getPaddleDType(mlir::Type type);

/// The IR type of a communicator id, Paddle's RAW variable that
/// c_gen_nccl_id writes and c_comm_init reads: tensor<0xui8>, a value that
/// holds no data the program could read.
mlir::RankedTensorType communicatorIdType(mlir::MLIRContext *ctx);

/// The type of Paddle's dummy "control dependence" variables (send's and
/// send_barrier's Out), which carry no data but order the parameter-server
/// ops: an empty float32 tensor.
mlir::RankedTensorType controlDependenceType(mlir::MLIRContext *ctx);

/// Paddle's name of a data type ("float32", "int64", ...); "unknown" for
/// values outside VarDataType. Meant for diagnostics and exported JSON.
llvm::StringRef paddleDTypeName(int64_t dtype);

} // namespace distc::pd

#endif // DISTC_DIALECT_PD_PDTYPES_H
