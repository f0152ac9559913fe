//===- DType.cpp - Element types of runtime tensors -----------------------===//

#include "distc/Runtime/DType.h"

#include "distc/Artifact/ArtifactDesc.h"

#include <cstring>
#include <iterator>

namespace distc::runtime {

size_t dtypeSize(DType dtype) {
  // DType is the artifact's (DType.h), which knows the sizes.
  return size_t(artifact::elementBytes(dtype));
}

static const char *const kNames[] = {"b1",  "i8",  "u8",   "i16", "i32",
                                     "i64", "f16", "bf16", "f32", "f64"};

bool isKnownDType(DType dtype) {
  int i = static_cast<int>(dtype);
  return i >= 0 && i < static_cast<int>(std::size(kNames));
}

const char *dtypeName(DType dtype) {
  return isKnownDType(dtype) ? kNames[static_cast<int>(dtype)] : "?";
}

std::optional<DType> dtypeFromName(std::string_view name) {
  for (int i = 0; i < 10; ++i)
    if (name == kNames[i])
      return static_cast<DType>(i);
  return std::nullopt;
}

bool isFloatingPoint(DType d) {
  return d == DType::Float16 || d == DType::BFloat16 || d == DType::Float32 || d == DType::Float64;
}

bool isInteger(DType d) {
  return d == DType::Int8 || d == DType::UInt8 || d == DType::Int16 || d == DType::Int32 ||
         d == DType::Int64;
}

float halfToFloat(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f;
  uint32_t mant = h & 0x3ff;
  uint32_t bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else { // subnormal: normalize
      int e = -1;
      do {
        ++e;
        mant <<= 1;
      } while (!(mant & 0x400));
      bits = sign | uint32_t(127 - 15 - e) << 23 | (mant & 0x3ff) << 13;
    }
  } else if (exp == 31) {
    bits = sign | 0x7f800000 | mant << 13;
  } else {
    bits = sign | (exp + 127 - 15) << 23 | mant << 13;
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint16_t floatToHalf(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint16_t sign = (x >> 16) & 0x8000;
  uint32_t absx = x & 0x7fffffff;
  if (absx >= 0x7f800000) // inf or nan
    return sign | 0x7c00 | (absx > 0x7f800000 ? 0x200 : 0);
  if (absx >= 0x477ff000) // rounds to >= 65520: overflow to inf
    return sign | 0x7c00;
  if (absx < 0x38800000) { // subnormal half or zero
    float a;
    std::memcpy(&a, &absx, 4);
    // Scale so the half subnormal unit becomes 1 and round to nearest even.
    float scaled = a * 16777216.0f; // 2^24
    uint32_t m = static_cast<uint32_t>(scaled);
    float rem = scaled - float(m);
    if (rem > 0.5f || (rem == 0.5f && (m & 1)))
      ++m;
    return sign | uint16_t(m);
  }
  uint32_t mant = absx & 0x7fffff;
  uint32_t exp = (absx >> 23) - 127 + 15;
  uint32_t h = exp << 10 | mant >> 13;
  uint32_t rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (h & 1)))
    ++h;
  return sign | uint16_t(h);
}

float bfloat16ToFloat(uint16_t b) {
  uint32_t bits = uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint16_t floatToBfloat16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if ((x & 0x7fffffff) > 0x7f800000)
    return uint16_t(x >> 16) | 0x40;
  x += 0x7fff + ((x >> 16) & 1);
  return uint16_t(x >> 16);
}

} // namespace distc::runtime
