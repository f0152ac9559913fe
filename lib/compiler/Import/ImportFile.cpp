//===- ImportFile.cpp - Load a program file of any supported form ---------===//
//
// The form of a file is decided by its content, never by its name: '{'
// starts a JSON program; text without control bytes is `pd` dialect IR;
// anything else is read as binary protobuf (whose tags are control bytes).
//
//===----------------------------------------------------------------------===//

#include "distc/Import/Import.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;

namespace distc {
namespace {

bool looksLikeText(std::string_view bytes) {
  size_t limit = std::min<size_t>(bytes.size(), 1 << 16);
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

bool loadProgram(MLIRContext &ctx, const std::string &path, const std::string &bytes,
                 programdesc::ProgramDesc &program) {
  std::string error;
  if (!programdesc::parseProgram(bytes, path, program, error)) {
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
  if (!programdesc::readFileBytes(path, bytes, error)) {
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
  if (!loadProgram(ctx, path, bytes, main))
    return nullptr;
  if (!startupPath)
    return importProgram(ctx, main, nullptr, path);

  std::string startupBytes;
  if (!programdesc::readFileBytes(*startupPath, startupBytes, error)) {
    emitFileError(ctx, *startupPath, error);
    return nullptr;
  }
  programdesc::ProgramDesc startup;
  if (!loadProgram(ctx, *startupPath, startupBytes, startup))
    return nullptr;
  return importProgram(ctx, main, &startup, path, *startupPath);
}

} // namespace distc
