//===- Crc32c.cpp - CRC-32C (Castagnoli) for TFRecord framing -------------===//

#include "distc/Training/Crc32c.h"

#include <array>

namespace distc::training {

namespace {

/// The reflected Castagnoli polynomial 0x1edc6f41.
constexpr uint32_t kPolynomial = 0x82f63b78u;

constexpr std::array<uint32_t, 256> makeTable() {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t crc = i;
    for (int bit = 0; bit < 8; ++bit)
      crc = (crc & 1) ? (crc >> 1) ^ kPolynomial : crc >> 1;
    table[i] = crc;
  }
  return table;
}

constexpr std::array<uint32_t, 256> kTable = makeTable();

} // namespace

uint32_t crc32c(const void *data, size_t size) {
  const auto *bytes = static_cast<const unsigned char *>(data);
  uint32_t crc = 0xffffffffu;
  for (size_t i = 0; i < size; ++i)
    crc = kTable[(crc ^ bytes[i]) & 0xff] ^ (crc >> 8);
  return crc ^ 0xffffffffu;
}

uint32_t maskCrc32c(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + 0xa282ead8u; }

} // namespace distc::training
