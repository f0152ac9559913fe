//===- OutputPaths.cpp - Checking where a run will write ------------------===//

#include "OutputPaths.h"

#include "FileUtil.h"

#include <cerrno>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>

namespace distc::training {

using runtime::Status;

namespace {

Status refuse(const std::string &flag, const std::string &path, const std::string &why) {
  return Status::error(flag + " " + path + ": " + why);
}

/// checkWritableDirectory for `dir`, naming `shown` (the path the user gave)
/// in errors.
Status checkDirectoryFor(const std::string &flag, const std::string &dir,
                         const std::string &shown) {
  if (dir.empty())
    return refuse(flag, "''", "the path is empty");
  // Walk up to the first component that exists: it must be a directory we
  // may create entries in; everything below it will be created.
  std::string probe = dir;
  for (int depth = 0; depth < 4096; ++depth) {
    struct stat st;
    if (::stat(probe.c_str(), &st) == 0) {
      if (!S_ISDIR(st.st_mode))
        return refuse(flag, shown,
                      probe == shown ? "exists and is not a directory"
                                     : "'" + probe + "' exists and is not a directory");
      if (::access(probe.c_str(), W_OK | X_OK) != 0)
        return refuse(flag, shown, "cannot write in '" + probe + "': " + std::strerror(errno));
      return Status::success();
    }
    // ENOTDIR: a file stands where a directory is needed; walking up finds
    // and names it.
    if (errno != ENOENT && errno != ENOTDIR)
      return refuse(flag, shown, "cannot inspect '" + probe + "': " + std::strerror(errno));
    std::string parent = detail::parentDirectory(probe);
    if (parent == probe)
      break;
    probe = parent;
  }
  return refuse(flag, shown, "no existing ancestor directory");
}

} // namespace

Status checkWritableDirectory(const std::string &flag, const std::string &dir) {
  return checkDirectoryFor(flag, dir, dir);
}

Status checkWritablePrefix(const std::string &flag, const std::string &prefix) {
  struct stat st;
  if (!prefix.empty() && prefix.back() != '/' && ::stat(prefix.c_str(), &st) == 0 &&
      S_ISDIR(st.st_mode))
    return refuse(flag, prefix, "is a directory; give a path prefix such as " + prefix + "/model");
  if (prefix.empty() || prefix.back() == '/')
    return refuse(flag, "'" + prefix + "'",
                  "give a path prefix such as DIR/model (files PREFIX.pdmodel, ...)");
  return checkDirectoryFor(flag, detail::parentDirectory(prefix), prefix);
}

} // namespace distc::training
