//===- InputFile.cpp - Checked reads of user-supplied files ---------------===//

#include "distc/Support/InputFile.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <new>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

namespace distc::support {
namespace {

/// A descriptor closed on scope exit.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0)
      ::close(fd);
  }
};

std::string errnoMessage(const std::string &path, const std::string &what) {
  return path + ": " + what + ": " + std::strerror(errno);
}

/// Why a file of mode `mode` is no input file, or "" when it is one.
std::string refusal(mode_t mode) {
  if (S_ISREG(mode) || S_ISFIFO(mode))
    return "";
  if (S_ISDIR(mode))
    return "is a directory";
  if (S_ISCHR(mode))
    return "is a character device, not a regular file";
  if (S_ISBLK(mode))
    return "is a block device, not a regular file";
  if (S_ISSOCK(mode))
    return "is a socket, not a regular file";
  return "is not a regular file";
}

/// Opens `path` and checks what it is on the open descriptor, so that the
/// check and the read see the same file.
bool openInput(const std::string &path, Fd &fd, std::optional<uint64_t> &size,
               std::string &error) {
  fd.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd.fd < 0) {
    // A directory opens for reading; anything else failing here is named
    // by errno (ENOENT, EACCES, ...).
    error = errnoMessage(path, "cannot open");
    return false;
  }
  struct stat st;
  if (::fstat(fd.fd, &st) != 0) {
    error = errnoMessage(path, "cannot inspect");
    return false;
  }
  if (std::string why = refusal(st.st_mode); !why.empty()) {
    error = path + ": " + why;
    return false;
  }
  size = S_ISREG(st.st_mode) ? std::optional<uint64_t>(static_cast<uint64_t>(st.st_size))
                             : std::nullopt;
  return true;
}

/// Reads into `p[0, n)`; returns the count read (short at end of file) or -1.
ssize_t readFully(int fd, char *p, size_t n) {
  size_t done = 0;
  while (done < n) {
    ssize_t got = ::read(fd, p + done, n - done);
    if (got < 0) {
      if (errno == EINTR)
        continue;
      return -1;
    }
    if (got == 0)
      break;
    done += static_cast<size_t>(got);
  }
  return static_cast<ssize_t>(done);
}

template <typename Bytes> bool readAll(const std::string &path, Bytes &out, std::string &error) {
  Fd fd;
  std::optional<uint64_t> size;
  if (!openInput(path, fd, size, error))
    return false;
  Bytes bytes;
  // A regular file's size is the first guess; files in /proc report 0 and
  // a file may grow, so the read goes on to end of file in growing steps.
  uint64_t want = size ? *size : 0;
  size_t used = 0;
  try {
    for (;;) {
      uint64_t capacity = std::max<uint64_t>(want, used + (used / 2) + (1 << 16));
      if (capacity > bytes.max_size())
        throw std::length_error("input file");
      want = capacity;
      bytes.resize(static_cast<size_t>(capacity));
      ssize_t got = readFully(fd.fd, reinterpret_cast<char *>(bytes.data()) + used,
                              bytes.size() - used);
      if (got < 0) {
        error = errnoMessage(path, "cannot read");
        return false;
      }
      used += static_cast<size_t>(got);
      if (used < bytes.size())
        break;
    }
  } catch (const std::bad_alloc &) {
    error = notEnoughMemory(path, want);
    return false;
  } catch (const std::length_error &) {
    error = notEnoughMemory(path, want);
    return false;
  }
  bytes.resize(used);
  out = std::move(bytes);
  return true;
}

} // namespace

std::string notEnoughMemory(const std::string &path, uint64_t bytes) {
  return path + ": not enough memory to read " + std::to_string(bytes) + " bytes";
}

bool checkInputFile(const std::string &path, std::optional<uint64_t> &size, std::string &error) {
  Fd fd;
  return openInput(path, fd, size, error);
}

bool readInputPrefix(const std::string &path, size_t maxBytes, std::string &bytes,
                     std::string &error) {
  Fd fd;
  std::optional<uint64_t> size;
  if (!openInput(path, fd, size, error))
    return false;
  // Not bounded by the size: files in /proc report 0 and have contents.
  std::string prefix(maxBytes, '\0');
  ssize_t got = readFully(fd.fd, prefix.data(), prefix.size());
  if (got < 0) {
    error = errnoMessage(path, "cannot read");
    return false;
  }
  prefix.resize(static_cast<size_t>(got));
  bytes = std::move(prefix);
  return true;
}

bool readInputFile(const std::string &path, std::string &bytes, std::string &error) {
  return readAll(path, bytes, error);
}

bool readInputFile(const std::string &path, std::vector<uint8_t> &bytes, std::string &error) {
  return readAll(path, bytes, error);
}

} // namespace distc::support
