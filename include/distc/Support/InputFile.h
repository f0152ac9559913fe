//===- InputFile.h - Checked reads of user-supplied files -------*- C++ -*-===//
//
// Every file a user names (programs, artifacts, data, parameters,
// checkpoints) is read through these, so that bad input gets the same clear
// error everywhere instead of a crash or an unbounded read:
//
//   PATH: is a directory
//   PATH: is a character device, not a regular file   (/dev/zero, ...)
//   PATH: not enough memory to read 3221225472 bytes
//
// Regular files and pipes (FIFOs, e.g. `<(zcat x.gz)`) are accepted; a
// regular file's size is known before anything is allocated. Callers check
// a format's header with readInputPrefix before reading a whole file.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_SUPPORT_INPUTFILE_H
#define DISTC_SUPPORT_INPUTFILE_H

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace distc::support {

/// Checks that `path` names something readable as an input file: it exists
/// and is a regular file or a pipe. `size` receives a regular file's size
/// (nullopt for a pipe). On failure `error` is "PATH: why".
bool checkInputFile(const std::string &path, std::optional<uint64_t> &size, std::string &error);

/// Reads at most `maxBytes` from the start of `path` (all of a shorter
/// file), after the checks of checkInputFile. Consumes a pipe's data, so
/// a pipe can only be sniffed this way by a caller that then stops.
bool readInputPrefix(const std::string &path, size_t maxBytes, std::string &bytes,
                     std::string &error);

/// Reads the whole of `path`, after the checks of checkInputFile; an
/// allocation that fails becomes "PATH: not enough memory to read N bytes".
bool readInputFile(const std::string &path, std::string &bytes, std::string &error);
bool readInputFile(const std::string &path, std::vector<uint8_t> &bytes, std::string &error);

/// "PATH: not enough memory to read N bytes", for readers of their own.
std::string notEnoughMemory(const std::string &path, uint64_t bytes);

} // namespace distc::support

#endif // DISTC_SUPPORT_INPUTFILE_H
