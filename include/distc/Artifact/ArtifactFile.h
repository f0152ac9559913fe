//===- ArtifactFile.h - Reading and writing distc artifact files -*- C++ -*-===//
//
// An artifact file is a 32-byte header followed by a FlatBuffer payload
// (artifact.fbs). The header lets a reader reject foreign, truncated, corrupt
// or too-new files with a precise message before touching the FlatBuffer.
//
//   offset 0   8 bytes  magic "DISTCART"
//   offset 8   uint32   format version (little-endian), kFormatVersion
//   offset 12  uint32   reserved, 0
//   offset 16  uint64   payload size in bytes
//   offset 24  uint64   FNV-1a 64-bit checksum of the payload
//   offset 32  ...      payload
//
// Nothing here throws; failures are reported as one-line messages that name
// the file and the problem.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_ARTIFACT_ARTIFACTFILE_H
#define DISTC_ARTIFACT_ARTIFACTFILE_H

#include "distc/Artifact/artifact_generated.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace distc::artifact {

/// Bump on any incompatible change of the header or the schema. A reader
/// accepts its own version and every older one. 2: View buffers may start
/// at an element offset; 3: the ring table and ring-aware collectives;
/// 4: split persistent buffers and the data ring of a mesh; 5: parameter
/// servers (docs/artifact.md).
constexpr uint32_t kFormatVersion = 5;
constexpr char kMagic[8] = {'D', 'I', 'S', 'T', 'C', 'A', 'R', 'T'};
constexpr size_t kHeaderSize = 32;

/// FNV-1a, 64-bit: the payload checksum stored in the header.
uint64_t fnv1a64(const uint8_t *data, size_t size);

/// Returns the header for `payload` followed by the payload itself.
std::vector<uint8_t> makeArtifactFileBytes(const std::vector<uint8_t> &payload);

/// Writes header + payload to `path` atomically: the bytes go to a temporary
/// file in the same directory which is then renamed over `path`, so readers
/// never see a partial file. `-` means standard output (refused when it is a
/// terminal), and an existing non-regular file (a device, a FIFO) is written
/// in place. On failure returns false, removes the temporary file and sets
/// `error` to a message naming the path and the system error.
bool writeArtifactFile(const std::string &path, const std::vector<uint8_t> &payload,
                       std::string &error);

/// An artifact read into memory, checked and validated. Owns its bytes; the
/// FlatBuffer view stays valid as long as this object lives.
class LoadedArtifact {
public:
  /// Reads, checks the header, verifies the FlatBuffer and validates the
  /// structure (ArtifactValidator.h). Returns null and sets `error` to a
  /// message starting with "<path>: " on any problem.
  static std::unique_ptr<LoadedArtifact> loadFile(const std::string &path, std::string &error);

  /// Same checks over file bytes already in memory (header included).
  /// `displayName` stands for the file name in messages.
  static std::unique_ptr<LoadedArtifact>
  loadBytes(std::vector<uint8_t> fileBytes, const std::string &displayName, std::string &error);

  const distc::fb::Artifact *artifact() const { return artifact_; }
  const distc::fb::Artifact &operator*() const { return *artifact_; }
  const distc::fb::Artifact *operator->() const { return artifact_; }

  const std::string &name() const { return name_; }
  uint32_t formatVersion() const { return formatVersion_; }
  uint64_t payloadSize() const { return bytes_.size() - kHeaderSize; }
  uint64_t checksum() const { return checksum_; }
  /// The checksum as 16 lower-case hex digits: how checkpoints record the
  /// artifact they were written for and how ranks compare theirs.
  std::string checksumHex() const;
  uint64_t fileSize() const { return bytes_.size(); }

private:
  LoadedArtifact() = default;

  std::vector<uint8_t> bytes_;
  const distc::fb::Artifact *artifact_ = nullptr;
  std::string name_;
  uint32_t formatVersion_ = 0;
  uint64_t checksum_ = 0;
};

} // namespace distc::artifact

#endif // DISTC_ARTIFACT_ARTIFACTFILE_H
