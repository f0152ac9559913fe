//===- FileUtil.h - Durable file helpers for the training library -*- C++ -*-===//
//
// Internal: whole-file reads, fsync and write-temp-then-rename replacement,
// used by checkpoints and parameter files so that a crash never leaves a
// half-written file under its final name.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_LIB_TRAINING_FILEUTIL_H
#define DISTC_LIB_TRAINING_FILEUTIL_H

#include "distc/Runtime/Status.h"
#include "distc/Runtime/Tensor.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace distc::training::detail {

using runtime::Status;

/// "path: what: strerror(errno)".
Status errnoError(const std::string &path, const std::string &what);

/// Reads the whole file.
Status readWholeFile(const std::string &path, std::string &bytes);

/// Flushes a file's (or directory's) data and metadata to stable storage.
Status fsyncPath(const std::string &path);

/// Writes `bytes` to a unique temporary sibling of `path`, fsyncs it,
/// renames it over `path` and fsyncs the parent directory. On failure the
/// temporary file is removed and `path` is untouched.
Status writeFileAtomic(const std::string &path, std::string_view bytes);

/// A name unique to this process and call, for temporary siblings:
/// ".<stem>.tmp-<pid>-<counter>".
std::string temporaryName(const std::string &stem);

/// zlib's CRC-32 (the one zip and gzip use) of `bytes`.
uint32_t crc32Of(std::string_view bytes);

/// Parent directory of `path` ("." when it has none).
std::string parentDirectory(const std::string &path);

/// Serializes a tensor to .npy bytes (through runtime::writeNpy and a
/// temporary file in `scratchDir`, which is removed again).
Status npyBytes(const runtime::Tensor &tensor, const std::string &scratchDir,
                const std::string &displayName, std::string &bytes);

} // namespace distc::training::detail

#endif // DISTC_LIB_TRAINING_FILEUTIL_H
