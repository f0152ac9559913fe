//===- DType.h - Element types of runtime tensors ---------------*- C++ -*-===//
//
// The runtime uses the artifact's element types (distc::artifact::DType,
// numerically equal to distc::fb::DType). Float16 and BFloat16 are stored as
// their 16-bit patterns; kernels that support them convert through float.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_RUNTIME_DTYPE_H
#define DISTC_RUNTIME_DTYPE_H

#include "distc/Artifact/ArtifactDesc.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace distc::runtime {

using DType = distc::artifact::DType;

/// Whether `dtype` is one of the enumerators (a value read from a file or
/// cast from an integer may not be).
bool isKnownDType(DType dtype);
/// Bytes per element.
size_t dtypeSize(DType dtype);

/// Short name used in shapes and messages: b1, i8, u8, i16, i32, i64, f16,
/// bf16, f32, f64.
const char *dtypeName(DType dtype);

/// Inverse of dtypeName; nullopt for an unknown name.
std::optional<DType> dtypeFromName(std::string_view name);

bool isFloatingPoint(DType dtype);
bool isInteger(DType dtype); // Int8..Int64 and UInt8 (not Bool)

/// IEEE half and bfloat16 conversions (round to nearest even).
float halfToFloat(uint16_t bits);
uint16_t floatToHalf(float value);
float bfloat16ToFloat(uint16_t bits);
uint16_t floatToBfloat16(float value);

} // namespace distc::runtime

#endif // DISTC_RUNTIME_DTYPE_H
