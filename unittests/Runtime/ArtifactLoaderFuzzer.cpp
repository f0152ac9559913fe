//===- ArtifactLoaderFuzzer.cpp - libFuzzer target for the loader ---------===//
//
// Feeds arbitrary bytes to the loader. The header checksum is recomputed
// first so that mutations reach the FlatBuffers verifier and the structural
// validator instead of stopping at "corrupt". Any crash, sanitizer report or
// hang is a bug: bad artifacts must be rejected with a message.
//
//===----------------------------------------------------------------------===//

#include "distc/Artifact/ArtifactFile.h"

#include <cstdint>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace distc::artifact;
  std::vector<uint8_t> bytes(data, data + size);
  if (bytes.size() >= kHeaderSize && (bytes[12] & 1) == 0) {
    // Keep some inputs with their original checksum to cover that path too.
    uint64_t payload = bytes.size() - kHeaderSize;
    uint64_t sum = fnv1a64(bytes.data() + kHeaderSize, payload);
    for (int i = 0; i < 8; ++i) {
      bytes[16 + i] = uint8_t(payload >> (8 * i));
      bytes[24 + i] = uint8_t(sum >> (8 * i));
    }
  }
  std::string error;
  auto loaded = LoadedArtifact::loadBytes(std::move(bytes), "fuzz.distc", error);
  if (!loaded && error.empty())
    __builtin_trap(); // a rejection must say why
  return 0;
}
