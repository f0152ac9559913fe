//===- PdTypes.cpp - Paddle data types and MLIR types ---------------------===//

#include "distc/Dialect/Pd/PdTypes.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

namespace distc::pd {

FailureOr<Type> convertPaddleDType(MLIRContext *ctx, int64_t dtype) {
  switch (dtype) {
  case int64_t(VarDataType::BOOL):
    return Type(IntegerType::get(ctx, 1));
  case int64_t(VarDataType::INT16):
    return Type(IntegerType::get(ctx, 16));
  case int64_t(VarDataType::INT32):
    return Type(IntegerType::get(ctx, 32));
  case int64_t(VarDataType::INT64):
    return Type(IntegerType::get(ctx, 64));
  case int64_t(VarDataType::FP16):
    return Type(Float16Type::get(ctx));
  case int64_t(VarDataType::FP32):
    return Type(Float32Type::get(ctx));
  case int64_t(VarDataType::FP64):
    return Type(Float64Type::get(ctx));
  case int64_t(VarDataType::UINT8):
    return Type(IntegerType::get(ctx, 8, IntegerType::Unsigned));
  case int64_t(VarDataType::INT8):
    return Type(IntegerType::get(ctx, 8));
  case int64_t(VarDataType::BF16):
    return Type(BFloat16Type::get(ctx));
  default:
    return failure();
  }
}

FailureOr<VarDataType> getPaddleDType(Type type) {
  if (auto intTy = dyn_cast<IntegerType>(type)) {
    if (intTy.isUnsigned()) {
      if (intTy.getWidth() == 8)
        return VarDataType::UINT8;
      return failure();
    }
    // Paddle has no signed-marked integers: only signless ones map.
    if (!intTy.isSignless())
      return failure();
    switch (intTy.getWidth()) {
    case 1:
      return VarDataType::BOOL;
    case 8:
      return VarDataType::INT8;
    case 16:
      return VarDataType::INT16;
    case 32:
      return VarDataType::INT32;
    case 64:
      return VarDataType::INT64;
    default:
      return failure();
    }
  }
  if (type.isF16())
    return VarDataType::FP16;
  if (type.isBF16())
    return VarDataType::BF16;
  if (type.isF32())
    return VarDataType::FP32;
  if (type.isF64())
    return VarDataType::FP64;
  return failure();
}

RankedTensorType communicatorIdType(MLIRContext *ctx) {
  return RankedTensorType::get({0}, IntegerType::get(ctx, 8, IntegerType::Unsigned));
}

RankedTensorType controlDependenceType(MLIRContext *ctx) {
  return RankedTensorType::get({0}, Float32Type::get(ctx));
}

StringRef paddleDTypeName(int64_t dtype) {
  switch (dtype) {
  case int64_t(VarDataType::BOOL):
    return "bool";
  case int64_t(VarDataType::INT16):
    return "int16";
  case int64_t(VarDataType::INT32):
    return "int32";
  case int64_t(VarDataType::INT64):
    return "int64";
  case int64_t(VarDataType::FP16):
    return "float16";
  case int64_t(VarDataType::FP32):
    return "float32";
  case int64_t(VarDataType::FP64):
    return "float64";
  case int64_t(VarDataType::UINT8):
    return "uint8";
  case int64_t(VarDataType::INT8):
    return "int8";
  case int64_t(VarDataType::BF16):
    return "bfloat16";
  default:
    return "unknown";
  }
}

} // namespace distc::pd
