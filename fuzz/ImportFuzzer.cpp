//===- ImportFuzzer.cpp - libFuzzer harness for program import ------------===//
//
// Feeds arbitrary bytes through the whole import path — format detection,
// JSON or binary ProgramDesc parsing or the PIR JSON reader, import into the
// pd dialect with verification — and exports whatever imports. Any crash, hang or sanitizer
// report is a bug: bad input must only ever produce diagnostics.
//
//   distc-import-fuzzer -max_total_time=60 NEW_CORPUS_DIR SEED_DIR...
//
//===----------------------------------------------------------------------===//

#include "distc/Export/Export.h"
#include "distc/Import/Import.h"
#include "distc/Import/PirImport.h"
#include "distc/ProgramDesc/TensorFile.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char *>(data), size);

  // Parameter records share the "never trust a length" rule.
  {
    size_t offset = 0;
    distc::programdesc::TensorRecord record;
    std::string error;
    (void)distc::programdesc::readTensorRecord(bytes, offset, record, error);
  }

  distc::programdesc::ProgramDesc program;
  std::string error;
  bool pir =
      distc::programdesc::detectProgramFormat(bytes) == distc::programdesc::ProgramFormat::Json &&
      distc::isPirProgram(bytes);
  if (pir ? !distc::pirToProgramDesc(bytes, "fuzz", program, error)
          : !distc::programdesc::parseProgram(bytes, "fuzz", program, error))
    return 0;
  mlir::MLIRContext ctx(mlir::MLIRContext::Threading::DISABLED);
  ctx.printOpOnDiagnostic(false);
  mlir::ScopedDiagnosticHandler quiet(&ctx, [](mlir::Diagnostic &) { return mlir::success(); });
  auto module = distc::importProgram(ctx, program, nullptr, "fuzz");
  if (!module)
    return 0;
  distc::programdesc::ProgramDesc exported;
  if (mlir::succeeded(distc::exportProgram(*module, "main", exported))) {
    std::string json;
    (void)distc::programdesc::programToJson(exported, json, error);
  }
  return 0;
}
