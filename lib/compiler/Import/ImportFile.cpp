//===- ImportFile.cpp - Load a program file of any supported form ---------===//
//
// The form of a file is decided by its content, never by its name: '{'
// starts a JSON program (a Paddle 3 PIR program when its top level has
// `base_code`, PirImport.h; a ProgramDesc otherwise); text without control
// bytes is `pd` dialect IR;
// anything else is read as binary protobuf (whose tags are control bytes).
// The decision takes the file's first 64 KiB only, so that a file that is
// none of these is refused before the rest is read.
//
//===----------------------------------------------------------------------===//

#include "distc/Import/Import.h"
#include "distc/Import/PirImport.h"
#include "distc/Support/InputFile.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <cstdio>
#include <vector>

using namespace mlir;

namespace distc {
namespace {

constexpr size_t kSniffBytes = 1 << 16;

bool looksLikeText(std::string_view bytes) {
  size_t limit = std::min<size_t>(bytes.size(), kSniffBytes);
  for (size_t i = 0; i < limit; ++i) {
    auto c = static_cast<unsigned char>(bytes[i]);
    if (c < 0x20 && c != '\n' && c != '\r' && c != '\t')
      return false;
  }
  return true;
}

/// Emits an error from the ProgramDesc layer, whose messages start with
/// "<path>: ", at the file's location instead.
void emitFileError(MLIRContext &ctx, const std::string &path, const std::string &message) {
  std::string text = message;
  std::string prefix = path + ": ";
  if (text.compare(0, prefix.size(), prefix) == 0)
    text = text.substr(prefix.size());
  emitError(FileLineColLoc::get(&ctx, path, 0, 0)) << text;
}

/// Why `prefix`, a file's first bytes, can start no program of any form, or
/// "" when it may. JSON programs are objects; pd IR never starts with '['
/// either. A binary protobuf starts with a field tag, and tags 0x00-0x07
/// (field number 0) do not exist: a file of zeros is refused at once.
std::string notAProgram(std::string_view prefix) {
  size_t first = prefix.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos)
    return "";
  auto c = static_cast<unsigned char>(prefix[first]);
  if (c == '[')
    return "not a program: it starts with '[', but a JSON program is an object ('{')";
  if (first == 0 && c < 0x08) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02x", c);
    return std::string("not a program: it starts with byte ") + hex +
           ", which begins no JSON, binary protobuf or MLIR program";
  }
  return "";
}

/// Reads a program file whole after checking that it is an input file and
/// that its first bytes can start a program. Errors are "PATH: why".
bool readProgramFile(const std::string &path, std::string &bytes, std::string &error) {
  std::optional<uint64_t> size;
  if (!support::checkInputFile(path, size, error))
    return false;
  // A pipe can be read only once: it is read whole and checked after.
  if (size) {
    std::string prefix;
    if (!support::readInputPrefix(path, kSniffBytes, prefix, error))
      return false;
    if (std::string why = notAProgram(prefix); !why.empty()) {
      error = path + ": " + why;
      return false;
    }
  }
  if (!support::readInputFile(path, bytes, error))
    return false;
  if (std::string why = notAProgram(bytes); !why.empty()) {
    error = path + ": " + why;
    return false;
  }
  return true;
}

/// Parses a ProgramDesc, or a PIR program into one (`origins` then names
/// the PIR op of each of its ops).
bool loadProgram(MLIRContext &ctx, const std::string &path, const std::string &bytes,
                 programdesc::ProgramDesc &program, std::vector<std::string> *origins = nullptr) {
  std::string error;
  bool pir = programdesc::detectProgramFormat(bytes) == programdesc::ProgramFormat::Json &&
             isPirProgram(bytes);
  if (pir ? !pirToProgramDesc(bytes, path, program, error, origins)
          : !programdesc::parseProgram(bytes, path, program, error)) {
    emitFileError(ctx, path, error);
    return false;
  }
  return true;
}

} // namespace

OwningOpRef<ModuleOp> importProgramFile(MLIRContext &ctx, const std::string &path,
                                        const std::optional<std::string> &startupPath) {
  loadImportDialects(ctx);
  std::string bytes, error;
  if (!readProgramFile(path, bytes, error)) {
    emitFileError(ctx, path, error);
    return nullptr;
  }

  bool json = programdesc::detectProgramFormat(bytes) == programdesc::ProgramFormat::Json;
  bool blank = bytes.find_first_not_of(" \t\r\n") == std::string::npos;
  if (!json && !blank && looksLikeText(bytes)) {
    if (startupPath) {
      emitError(FileLineColLoc::get(&ctx, path, 0, 0))
          << "a startup program cannot be added to an MLIR input; put it in the module as "
             "pd.program @startup";
      return nullptr;
    }
    llvm::SourceMgr sourceMgr;
    sourceMgr.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(bytes, path), llvm::SMLoc());
    ParserConfig config(&ctx);
    return parseSourceFile<ModuleOp>(sourceMgr, config);
  }

  programdesc::ProgramDesc main;
  std::vector<std::string> origins;
  if (!loadProgram(ctx, path, bytes, main, &origins))
    return nullptr;
  if (!startupPath)
    return importProgram(ctx, main, nullptr, path, "startup", origins);

  std::string startupBytes;
  if (!readProgramFile(*startupPath, startupBytes, error)) {
    emitFileError(ctx, *startupPath, error);
    return nullptr;
  }
  programdesc::ProgramDesc startup;
  if (!loadProgram(ctx, *startupPath, startupBytes, startup))
    return nullptr;
  return importProgram(ctx, main, &startup, path, *startupPath, origins);
}

} // namespace distc
