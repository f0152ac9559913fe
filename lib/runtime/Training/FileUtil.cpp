//===- FileUtil.cpp - Durable file helpers --------------------------------===//

#include "FileUtil.h"

#include "distc/Runtime/Npy.h"
#include "distc/Support/InputFile.h"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

namespace distc::training::detail {

Status errnoError(const std::string &path, const std::string &what) {
  return Status::error(path + ": " + what + ": " + std::strerror(errno));
}

Status readWholeFile(const std::string &path, std::string &bytes) {
  std::string error;
  if (!support::readInputFile(path, bytes, error))
    return Status::error(error);
  return Status::success();
}

Status fsyncPath(const std::string &path) {
  // O_RDONLY works for directories too; fsync on a read-only descriptor
  // flushes the file's data on Linux.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return errnoError(path, "cannot open to sync");
  int rc;
  do
    rc = ::fsync(fd);
  while (rc != 0 && errno == EINTR);
  Status st = rc == 0 ? Status::success() : errnoError(path, "fsync failed");
  ::close(fd);
  return st;
}

std::string temporaryName(const std::string &stem) {
  static std::atomic<uint64_t> counter{0};
  return "." + stem + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
}

std::string parentDirectory(const std::string &path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos)
    return ".";
  if (slash == 0)
    return "/";
  return path.substr(0, slash);
}

static std::string baseName(const std::string &path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

Status writeFileAtomic(const std::string &path, std::string_view bytes) {
  std::string dir = parentDirectory(path);
  std::string tmp = dir + "/" + temporaryName(baseName(path));
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0)
    return errnoError(tmp, "cannot create");
  auto fail = [&](const std::string &what) {
    Status st = errnoError(tmp, what);
    ::close(fd);
    ::unlink(tmp.c_str());
    return st;
  };
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return fail("cannot write");
    }
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0)
    return fail("fsync failed");
  if (::close(fd) != 0) {
    Status st = errnoError(tmp, "cannot close");
    ::unlink(tmp.c_str());
    return st;
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    Status st = errnoError(path, "cannot rename " + tmp + " to it");
    ::unlink(tmp.c_str());
    return st;
  }
  return fsyncPath(dir);
}

uint32_t crc32Of(std::string_view bytes) {
  uLong crc = ::crc32(0L, Z_NULL, 0);
  // zlib takes uInt lengths: feed large buffers in pieces.
  const char *p = bytes.data();
  size_t left = bytes.size();
  while (left > 0) {
    uInt chunk = static_cast<uInt>(left < (1u << 30) ? left : (1u << 30));
    crc = ::crc32(crc, reinterpret_cast<const Bytef *>(p), chunk);
    p += chunk;
    left -= chunk;
  }
  return static_cast<uint32_t>(crc);
}

Status npyBytes(const runtime::Tensor &tensor, const std::string &scratchDir,
                const std::string &displayName, std::string &bytes) {
  std::string tmp = scratchDir + "/" + temporaryName("array.npy");
  Status st = runtime::writeNpy(tmp, tensor);
  if (!st.ok()) {
    ::unlink(tmp.c_str());
    return Status::error(displayName + ": " + st.message());
  }
  st = readWholeFile(tmp, bytes);
  ::unlink(tmp.c_str());
  return st;
}

} // namespace distc::training::detail
