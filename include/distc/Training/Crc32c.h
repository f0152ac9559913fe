//===- Crc32c.h - CRC-32C (Castagnoli) for TFRecord framing -----*- C++ -*-===//
//
// TensorBoard's event files frame every record with CRC-32C checksums
// (the Castagnoli polynomial), which zlib, our only checksum dependency,
// does not compute (its crc32 is the IEEE polynomial) and Debian packages
// no small C/C++ library for. A byte-wise table is fast enough for a few
// hundred bytes per training step.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_TRAINING_CRC32C_H
#define DISTC_TRAINING_CRC32C_H

#include <cstddef>
#include <cstdint>

namespace distc::training {

/// CRC-32C of `size` bytes at `data` (reflected, initial value and final
/// xor 0xffffffff): crc32c("123456789") == 0xe3069283.
uint32_t crc32c(const void *data, size_t size);

/// The masked form TFRecord stores, so that a CRC over data that holds
/// CRCs stays well distributed: ((crc >> 15) | (crc << 17)) + 0xa282ead8.
uint32_t maskCrc32c(uint32_t crc);

} // namespace distc::training

#endif // DISTC_TRAINING_CRC32C_H
