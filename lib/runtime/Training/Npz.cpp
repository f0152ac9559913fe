//===- Npz.cpp - NumPy .npz archives through libzip -----------------------===//

#include "distc/Training/Npz.h"

#include "FileUtil.h"

#include "distc/Runtime/Npy.h"
#include "distc/Support/InputFile.h"

#include <memory>
#include <zip.h>

namespace distc::training {

using runtime::Status;
using runtime::Tensor;
using runtime::TensorMap;

namespace {

constexpr const char kSuffix[] = ".npy";

bool hasNpySuffix(const std::string &name) {
  return name.size() >= 4 && name.compare(name.size() - 4, 4, kSuffix) == 0;
}

std::string stripSuffix(const std::string &name) {
  return hasNpySuffix(name) ? name.substr(0, name.size() - 4) : name;
}

struct ArchiveCloser {
  void operator()(zip_t *archive) const { zip_discard(archive); }
};
using Archive = std::unique_ptr<zip_t, ArchiveCloser>;

std::string libzipMessage(int code) {
  zip_error_t error;
  zip_error_init_with_code(&error, code);
  std::string message = zip_error_strerror(&error);
  zip_error_fini(&error);
  return message;
}

Status openArchive(const std::string &path, Archive &out) {
  int code = 0;
  zip_t *archive = zip_open(path.c_str(), ZIP_RDONLY, &code);
  if (!archive)
    return Status::error(path + ": cannot open as an .npz (zip) archive: " + libzipMessage(code));
  out.reset(archive);
  return Status::success();
}

Status listMembers(zip_t *archive, const std::string &path, std::vector<std::string> &members) {
  zip_int64_t count = zip_get_num_entries(archive, 0);
  if (count < 0)
    return Status::error(path + ": cannot list the archive's members");
  members.clear();
  for (zip_int64_t i = 0; i < count; ++i) {
    const char *name = zip_get_name(archive, static_cast<zip_uint64_t>(i), ZIP_FL_ENC_RAW);
    if (!name)
      return Status::error(path + ": cannot read the name of member " + std::to_string(i) + ": " +
                           zip_strerror(archive));
    members.push_back(name);
  }
  return Status::success();
}

std::string joinNames(const std::vector<std::string> &names) {
  std::string out;
  for (const std::string &n : names)
    out += (out.empty() ? "" : ", ") + stripSuffix(n);
  return out.empty() ? "none" : out;
}

Status readMember(zip_t *archive, const std::string &path, zip_uint64_t index,
                  const std::string &name, Tensor &out) {
  std::string display = path + " member '" + name + "'";
  zip_stat_t stat;
  zip_stat_init(&stat);
  if (zip_stat_index(archive, index, 0, &stat) != 0 || !(stat.valid & ZIP_STAT_SIZE))
    return Status::error(display + ": cannot read its size: " + zip_strerror(archive));
  zip_file_t *file = zip_fopen_index(archive, index, 0);
  if (!file)
    return Status::error(display + ": cannot open: " + zip_strerror(archive));
  std::string bytes;
  try {
    bytes.resize(static_cast<size_t>(stat.size));
  } catch (const std::exception &) { // bad_alloc, length_error
    zip_fclose(file);
    return Status::error(support::notEnoughMemory(display, stat.size));
  }
  zip_int64_t got = bytes.empty() ? 0 : zip_fread(file, bytes.data(), bytes.size());
  // libzip checks a member's CRC only when a read reaches its end, so ask
  // for one byte more; a well-formed member has none to give.
  char extra;
  zip_int64_t more = got >= 0 && static_cast<zip_uint64_t>(got) == stat.size
                         ? zip_fread(file, &extra, 1)
                         : 0;
  std::string readError = got < 0 || more < 0 ? zip_file_strerror(file) : "";
  int closeCode = zip_fclose(file);
  if (got < 0 || more < 0)
    return Status::error(display + ": corrupt: " + readError);
  if (static_cast<zip_uint64_t>(got) != stat.size)
    return Status::error(display + ": truncated: expected " + std::to_string(stat.size) +
                         " bytes, read " + std::to_string(got));
  if (more > 0)
    return Status::error(display + ": corrupt: longer than the " + std::to_string(stat.size) +
                         " bytes its header records");
  if (closeCode != 0)
    return Status::error(display + ": corrupt: " + libzipMessage(closeCode));
  // Our own check as well, in case a libzip build skips it.
  if ((stat.valid & ZIP_STAT_CRC) && detail::crc32Of(bytes) != stat.crc)
    return Status::error(display + ": corrupt: CRC-32 mismatch");
  return runtime::parseNpy(bytes, display, out);
}

} // namespace

Status listNpzMembers(const std::string &path, std::vector<std::string> &members) {
  Archive archive;
  if (Status st = openArchive(path, archive); !st.ok())
    return st;
  return listMembers(archive.get(), path, members);
}

Status readNpzMember(const std::string &path, const std::string &member, Tensor &out) {
  Archive archive;
  if (Status st = openArchive(path, archive); !st.ok())
    return st;
  std::vector<std::string> members;
  if (Status st = listMembers(archive.get(), path, members); !st.ok())
    return st;
  for (size_t i = 0; i < members.size(); ++i)
    if (members[i] == member || members[i] == member + kSuffix)
      return readMember(archive.get(), path, i, members[i], out);
  return Status::error(path + ": no member '" + member + "' (members: " + joinNames(members) + ")");
}

Status readNpz(const std::string &path, TensorMap &out) {
  Archive archive;
  if (Status st = openArchive(path, archive); !st.ok())
    return st;
  std::vector<std::string> members;
  if (Status st = listMembers(archive.get(), path, members); !st.ok())
    return st;
  TensorMap arrays;
  for (size_t i = 0; i < members.size(); ++i) {
    Tensor t;
    if (Status st = readMember(archive.get(), path, i, members[i], t); !st.ok())
      return st;
    if (!arrays.emplace(stripSuffix(members[i]), t).second)
      return Status::error(path + ": two members named '" + stripSuffix(members[i]) + "'");
  }
  out = std::move(arrays);
  return Status::success();
}

Status writeNpz(const std::string &path, const TensorMap &arrays, bool compress) {
  // Build the archive under a temporary name and rename it into place, so a
  // failure never leaves a partial file at `path`.
  if (arrays.empty()) {
    // libzip deletes an archive left without members; np.savez() writes
    // just the end-of-central-directory record.
    static const char kEmptyZip[22] = {'P', 'K', 5, 6};
    return detail::writeFileAtomic(path, std::string_view(kEmptyZip, sizeof kEmptyZip));
  }
  std::string dir = detail::parentDirectory(path);
  std::string tmp = dir + "/" + detail::temporaryName("archive.npz");
  int code = 0;
  zip_t *archive = zip_open(tmp.c_str(), ZIP_CREATE | ZIP_EXCL, &code);
  if (!archive)
    return Status::error(tmp + ": cannot create: " + libzipMessage(code));
  // libzip reads the sources at zip_close, so the bytes must outlive it.
  std::vector<std::string> buffers;
  buffers.reserve(arrays.size());
  auto fail = [&](const std::string &message) {
    zip_discard(archive);
    ::remove(tmp.c_str());
    return Status::error(message);
  };
  for (const auto &[name, tensor] : arrays) {
    std::string member = name + kSuffix;
    buffers.emplace_back();
    if (Status st =
            detail::npyBytes(tensor, dir, path + " member '" + member + "'", buffers.back());
        !st.ok())
      return fail(st.message());
    zip_source_t *source =
        zip_source_buffer(archive, buffers.back().data(), buffers.back().size(), 0);
    if (!source)
      return fail(path + ": cannot add member '" + member + "': " + zip_strerror(archive));
    zip_int64_t index = zip_file_add(archive, member.c_str(), source, ZIP_FL_ENC_UTF_8);
    if (index < 0) {
      zip_source_free(source);
      return fail(path + ": cannot add member '" + member + "': " + zip_strerror(archive));
    }
    zip_int32_t method = compress ? ZIP_CM_DEFLATE : ZIP_CM_STORE;
    if (zip_set_file_compression(archive, static_cast<zip_uint64_t>(index), method, 0) != 0)
      return fail(path + ": cannot set the compression of member '" + member +
                  "': " + zip_strerror(archive));
  }
  if (zip_close(archive) != 0)
    return fail(path + ": cannot write: " + zip_strerror(archive));
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    Status st = detail::errnoError(path, "cannot rename " + tmp + " to it");
    ::remove(tmp.c_str());
    return st;
  }
  return Status::success();
}

} // namespace distc::training
