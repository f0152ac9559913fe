//===- ArtifactFile.cpp - Header, atomic write and checked load -----------===//

#include "distc/Artifact/ArtifactFile.h"
#include "distc/Artifact/ArtifactValidator.h"
#include "distc/Support/InputFile.h"

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace distc::artifact {
namespace {

void putLE(uint8_t *p, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i)
    p[i] = static_cast<uint8_t>(v >> (8 * i));
}

uint64_t getLE(const uint8_t *p, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i)
    v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
}

std::string sysError(const std::string &what, const std::string &path) {
  return "cannot " + what + " '" + path + "': " + std::strerror(errno);
}

bool writeAll(int fd, const uint8_t *data, size_t size) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return false;
    }
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

std::string truncatedMessage(uint64_t payloadSize, uint64_t have) {
  return "truncated: header says " + std::to_string(payloadSize) + " payload bytes, file has " +
         std::to_string(have);
}

} // namespace

uint64_t fnv1a64(const uint8_t *data, size_t size) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (size_t i = 0; i < size; ++i) {
    h ^= data[i];
    h *= 0x100000001b3ULL;
  }
  return h;
}

std::vector<uint8_t> makeArtifactFileBytes(const std::vector<uint8_t> &payload) {
  std::vector<uint8_t> out(kHeaderSize + payload.size());
  std::memcpy(out.data(), kMagic, sizeof(kMagic));
  putLE(out.data() + 8, kFormatVersion, 4);
  putLE(out.data() + 12, 0, 4);
  putLE(out.data() + 16, payload.size(), 8);
  putLE(out.data() + 24, fnv1a64(payload.data(), payload.size()), 8);
  if (!payload.empty())
    std::memcpy(out.data() + kHeaderSize, payload.data(), payload.size());
  return out;
}

/// Writes to an existing stream (standard output, a device, a FIFO): there
/// is nothing to rename over, and the write itself must be checked.
bool writeToStream(int fd, const std::string &name, const std::vector<uint8_t> &bytes,
                   std::string &error) {
  if (!writeAll(fd, bytes.data(), bytes.size())) {
    error = sysError("write the artifact to", name);
    return false;
  }
  return true;
}

bool writeArtifactFile(const std::string &path, const std::vector<uint8_t> &payload,
                       std::string &error) {
  std::vector<uint8_t> bytes = makeArtifactFileBytes(payload);
  if (path == "-") {
    if (::isatty(STDOUT_FILENO)) {
      error = "not writing a binary artifact to a terminal: redirect standard output or give "
              "-o FILE";
      return false;
    }
    return writeToStream(STDOUT_FILENO, "standard output", bytes, error);
  }
  // Only a regular file is replaced by rename: renaming over a device such
  // as /dev/null would replace the device itself.
  struct stat existing;
  if (::stat(path.c_str(), &existing) == 0 && !S_ISREG(existing.st_mode)) {
    if (S_ISDIR(existing.st_mode)) {
      error = "cannot write the artifact to '" + path + "': it is a directory";
      return false;
    }
    int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) {
      error = sysError("open", path);
      return false;
    }
    bool ok = writeToStream(fd, path, bytes, error);
    if (::close(fd) != 0 && ok) {
      error = sysError("close", path);
      return false;
    }
    return ok;
  }
  // The temporary lives next to the target so that rename() stays within one
  // file system and is atomic.
  std::string tmp = path + ".tmp.XXXXXX";
  std::vector<char> tmpName(tmp.begin(), tmp.end());
  tmpName.push_back('\0');
  int fd = ::mkstemp(tmpName.data());
  if (fd < 0) {
    error = sysError("create a temporary file for", path);
    return false;
  }
  auto fail = [&](const char *what) {
    error = sysError(what, path);
    ::close(fd);
    ::unlink(tmpName.data());
    return false;
  };
  if (!writeAll(fd, bytes.data(), bytes.size()))
    return fail("write");
  if (::fchmod(fd, 0644) != 0)
    return fail("set permissions of");
  if (::fsync(fd) != 0)
    return fail("flush");
  if (::close(fd) != 0) {
    error = sysError("close", path);
    ::unlink(tmpName.data());
    return false;
  }
  if (::rename(tmpName.data(), path.c_str()) != 0) {
    error = sysError("rename a temporary file to", path);
    ::unlink(tmpName.data());
    return false;
  }
  return true;
}

std::unique_ptr<LoadedArtifact> LoadedArtifact::loadFile(const std::string &path,
                                                         std::string &error) {
  // The header first: a file that is no artifact, or whose size disagrees
  // with its header, is refused without reading (or allocating) the rest.
  // (A pipe can be read only once: it is read whole.)
  std::string header;
  std::optional<uint64_t> fileSize;
  std::vector<uint8_t> bytes;
  if (!support::checkInputFile(path, fileSize, error))
    return nullptr;
  if (!fileSize)
    return support::readInputFile(path, bytes, error) ? loadBytes(std::move(bytes), path, error)
                                                      : nullptr;
  if (!support::readInputPrefix(path, kHeaderSize, header, error))
    return nullptr;
  const auto *h = reinterpret_cast<const uint8_t *>(header.data());
  bool headerOk = header.size() == kHeaderSize &&
                  std::memcmp(h, kMagic, sizeof(kMagic)) == 0 &&
                  getLE(h + 8, 4) != 0 && getLE(h + 8, 4) <= kFormatVersion;
  if (!headerOk) // loadBytes words the complaint
    return loadBytes(std::vector<uint8_t>(h, h + header.size()), path, error);
  uint64_t payloadSize = getLE(h + 16, 8);
  if (payloadSize != *fileSize - kHeaderSize) {
    error = path + ": " + truncatedMessage(payloadSize, *fileSize - kHeaderSize);
    return nullptr;
  }
  if (!support::readInputFile(path, bytes, error))
    return nullptr;
  return loadBytes(std::move(bytes), path, error);
}

std::unique_ptr<LoadedArtifact> LoadedArtifact::loadBytes(std::vector<uint8_t> fileBytes,
                                                          const std::string &displayName,
                                                          std::string &error) {
  auto fail = [&](const std::string &msg) {
    error = displayName + ": " + msg;
    return nullptr;
  };
  const size_t size = fileBytes.size();
  if (size < sizeof(kMagic) || std::memcmp(fileBytes.data(), kMagic, sizeof(kMagic)) != 0) {
    if (size < kHeaderSize && size >= sizeof(kMagic) &&
        std::memcmp(fileBytes.data(), kMagic, sizeof(kMagic)) == 0)
      return fail("too short for a distc artifact header");
    return fail(size < sizeof(kMagic)
                    ? "too short to be a distc artifact (" + std::to_string(size) + " bytes)"
                    : "not a distc artifact (wrong magic)");
  }
  if (size < kHeaderSize)
    return fail("too short for a distc artifact header (" + std::to_string(size) + " bytes)");
  const uint8_t *p = fileBytes.data();
  uint32_t version = static_cast<uint32_t>(getLE(p + 8, 4));
  if (version > kFormatVersion)
    return fail("artifact format version " + std::to_string(version) +
                " is newer than this runtime supports (" + std::to_string(kFormatVersion) +
                "); rebuild dist-run or recompile with a matching distc");
  if (version == 0)
    return fail("invalid artifact format version 0");
  uint64_t payloadSize = getLE(p + 16, 8);
  uint64_t checksum = getLE(p + 24, 8);
  if (payloadSize != size - kHeaderSize)
    return fail(truncatedMessage(payloadSize, size - kHeaderSize));
  if (fnv1a64(p + kHeaderSize, payloadSize) != checksum)
    return fail("corrupt: payload checksum mismatch");
  const uint8_t *payload = p + kHeaderSize;
  // The root offset and file identifier take 8 bytes; checking the
  // identifier of a shorter payload would read past its end.
  if (payloadSize < 8)
    return fail("payload of " + std::to_string(payloadSize) +
                " bytes is too short for a FlatBuffer");
  if (!fb::ArtifactBufferHasIdentifier(payload))
    return fail("payload is not a distc artifact FlatBuffer (file identifier is not 'DSTC')");
  // The verifier's table limit guards against buffers whose offsets share
  // tables to make verification explode. A table takes at least 4 bytes, so
  // a payload of n bytes holds at most n/4 distinct ones; the fixed default
  // (one million) would reject a program of some 100k ops.
  flatbuffers::Verifier::Options limits;
  limits.max_tables = std::max<flatbuffers::uoffset_t>(
      limits.max_tables, static_cast<flatbuffers::uoffset_t>(payloadSize / 4));
  flatbuffers::Verifier verifier(payload, payloadSize, limits);
  if (!fb::VerifyArtifactBuffer(verifier))
    return fail("payload fails FlatBuffers verification (malformed or incompatible schema)");
  const fb::Artifact *artifact = fb::GetArtifact(payload);
  std::string why;
  if (!validateArtifact(*artifact, why))
    return fail("invalid artifact: " + why);

  std::unique_ptr<LoadedArtifact> loaded(new LoadedArtifact());
  loaded->bytes_ = std::move(fileBytes);
  loaded->artifact_ = fb::GetArtifact(loaded->bytes_.data() + kHeaderSize);
  loaded->name_ = displayName;
  loaded->formatVersion_ = version;
  loaded->checksum_ = checksum;
  return loaded;
}

std::string LoadedArtifact::checksumHex() const {
  char buffer[17];
  std::snprintf(buffer, sizeof buffer, "%016" PRIx64, checksum_);
  return buffer;
}

} // namespace distc::artifact
