//===- MutationTest.cpp - Damaged programs never crash the importer -------===//
//
// A deterministic stand-in for the fuzzer (fuzz/), run with every test
// build: byte-level damage to the binary form and token-level damage to the
// JSON form of the examples. Every input must either import (and then
// export) or fail with diagnostics.
//
//===----------------------------------------------------------------------===//

#include "distc/Export/Export.h"
#include "distc/Import/Import.h"
#include "distc/Support/InputFile.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <cstdint>

using namespace distc;
using namespace distc::programdesc;

namespace {

struct Lcg {
  uint64_t state;
  uint32_t next() {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint32_t>(state >> 33);
  }
  size_t below(size_t n) { return n ? next() % n : 0; }
};

void importBytes(const std::string &bytes) {
  mlir::MLIRContext ctx;
  ctx.printOpOnDiagnostic(false);
  mlir::ScopedDiagnosticHandler quiet(&ctx, [](mlir::Diagnostic &) { return mlir::success(); });
  ProgramDesc program;
  std::string error;
  if (!parseProgram(bytes, "mutated", program, error)) {
    EXPECT_FALSE(error.empty());
    return;
  }
  auto module = importProgram(ctx, program, nullptr, "mutated");
  if (!module)
    return;
  ProgramDesc exported;
  (void)exportProgram(*module, "main", exported);
}

std::string loadExample(const char *name) {
  std::string bytes, error;
  EXPECT_TRUE(distc::support::readInputFile(std::string(DISTC_EXAMPLES_DIR) + name, bytes, error)) << error;
  return bytes;
}

TEST(Mutation, BinaryProgramsSurviveByteDamage) {
  ProgramDesc program;
  std::string error, binary;
  ASSERT_TRUE(parseProgram(loadExample("/mlp/main.json"), "mlp", program, error)) << error;
  ASSERT_TRUE(programToBinary(program, binary, error));
  Lcg rng{1};
  for (int i = 0; i < 400; ++i) {
    std::string bytes = binary;
    int edits = 1 + static_cast<int>(rng.below(4));
    for (int e = 0; e < edits && !bytes.empty(); ++e) {
      size_t at = rng.below(bytes.size());
      switch (rng.below(4)) {
      case 0:
        bytes[at] = static_cast<char>(rng.next());
        break;
      case 1:
        bytes.erase(at, 1 + rng.below(8));
        break;
      case 2:
        bytes.insert(at, 1, static_cast<char>(rng.next()));
        break;
      default:
        bytes.resize(at);
        break;
      }
    }
    importBytes(bytes);
  }
}

TEST(Mutation, JsonProgramsSurviveTokenDamage) {
  const std::string json = loadExample("/transformer/main.json");
  const char *replacements[] = {"-1",   "0",        "99999999999", "\"\"",     "[]",        "{}",
                                "true", "\"relu\"", "\"X\"",       "\"FP32\"", "\"LONGS\"", "null"};
  Lcg rng{7};
  for (int i = 0; i < 150; ++i) {
    std::string bytes = json;
    int edits = 1 + static_cast<int>(rng.below(3));
    for (int e = 0; e < edits; ++e) {
      // Replace a quoted string or a number with another JSON value.
      size_t at = rng.below(bytes.size());
      size_t start = bytes.find_first_of("\"-0123456789", at);
      if (start == std::string::npos)
        continue;
      size_t end = bytes[start] == '"' ? bytes.find('"', start + 1)
                                       : bytes.find_first_not_of("-0123456789.e", start) - 1;
      if (end == std::string::npos || end < start)
        continue;
      bytes.replace(start, end - start + 1,
                    replacements[rng.below(sizeof(replacements) / sizeof(*replacements))]);
    }
    importBytes(bytes);
  }
}

} // namespace
