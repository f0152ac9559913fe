//===- TensorFile.cpp - Paddle parameter file records ---------------------===//
//
// The record layout is Paddle's (see TensorFile.h). Every length read from a
// file is checked against the bytes that remain before anything is
// allocated, so a truncated or foreign file yields an error, never a crash.
//
//===----------------------------------------------------------------------===//

#include "distc/ProgramDesc/TensorFile.h"
#include "distc/Support/InputFile.h"

#include <algorithm>
#include <cstring>

namespace distc::programdesc {
namespace {

static_assert(sizeof(size_t) == 8, "Paddle's LoD offsets are 64-bit size_t");

template <typename T> bool readPod(std::string_view bytes, size_t &offset, T &value) {
  if (bytes.size() - offset < sizeof(T))
    return false;
  std::memcpy(&value, bytes.data() + offset, sizeof(T));
  offset += sizeof(T);
  return true;
}

template <typename T> void writePod(std::string &out, T value) {
  char buffer[sizeof(T)];
  std::memcpy(buffer, &value, sizeof(T));
  out.append(buffer, sizeof(T));
}

/// numel of `dims`, or false when a dim is negative or the product overflows.
bool numElements(const std::vector<int64_t> &dims, uint64_t &numel) {
  numel = 1;
  for (int64_t d : dims) {
    if (d < 0)
      return false;
    if (d != 0 && numel > UINT64_MAX / static_cast<uint64_t>(d))
      return false;
    numel *= static_cast<uint64_t>(d);
  }
  return true;
}

} // namespace

size_t elementSize(proto::VarType::Type dtype) {
  switch (dtype) {
  case proto::VarType::BOOL:
  case proto::VarType::UINT8:
  case proto::VarType::INT8:
  case proto::VarType::FP8_E4M3FN:
  case proto::VarType::FP8_E5M2:
    return 1;
  case proto::VarType::INT16:
  case proto::VarType::FP16:
  case proto::VarType::BF16:
    return 2;
  case proto::VarType::INT32:
  case proto::VarType::FP32:
  case proto::VarType::UINT32:
    return 4;
  case proto::VarType::INT64:
  case proto::VarType::FP64:
  case proto::VarType::COMPLEX64:
  case proto::VarType::SIZE_T:
  case proto::VarType::UINT64:
    return 8;
  case proto::VarType::COMPLEX128:
    return 16;
  default:
    return 0;
  }
}

bool readTensorRecord(std::string_view bytes, size_t &offset, TensorRecord &record,
                      std::string &error) {
  auto fail = [&](const std::string &what) {
    error = "tensor record at byte " + std::to_string(offset) + ": " + what;
    return false;
  };
  size_t pos = offset;
  uint32_t version = 0;
  if (!readPod(bytes, pos, version))
    return fail("truncated (no version)");
  if (version != 0)
    return fail("not a Paddle tensor record (expected format version 0, found " +
                std::to_string(version) + ")");
  uint64_t lodLevel = 0;
  if (!readPod(bytes, pos, lodLevel))
    return fail("truncated (no LoD level)");
  // Each level takes at least its 8-byte size: bound the count by the bytes.
  if (lodLevel > (bytes.size() - pos) / sizeof(uint64_t))
    return fail("LoD level " + std::to_string(lodLevel) + " exceeds the file size");
  record.lod.assign(lodLevel, {});
  for (uint64_t level = 0; level < lodLevel; ++level) {
    uint64_t nbytes = 0;
    if (!readPod(bytes, pos, nbytes))
      return fail("truncated LoD");
    if (nbytes % sizeof(uint64_t) != 0 || nbytes > bytes.size() - pos)
      return fail("bad LoD level size " + std::to_string(nbytes));
    record.lod[level].resize(nbytes / sizeof(uint64_t));
    if (nbytes)
      std::memcpy(record.lod[level].data(), bytes.data() + pos, nbytes);
    pos += nbytes;
  }
  uint32_t tensorVersion = 0;
  if (!readPod(bytes, pos, tensorVersion))
    return fail("truncated (no tensor version)");
  if (tensorVersion != 0)
    return fail("unsupported tensor version " + std::to_string(tensorVersion));
  int32_t descSize = 0;
  if (!readPod(bytes, pos, descSize))
    return fail("truncated (no TensorDesc size)");
  if (descSize < 0 || static_cast<uint64_t>(descSize) > bytes.size() - pos)
    return fail("bad TensorDesc size " + std::to_string(descSize));
  proto::VarType::TensorDesc desc;
  if (!desc.ParseFromArray(bytes.data() + pos, descSize))
    return fail("malformed TensorDesc");
  pos += static_cast<size_t>(descSize);
  size_t elemSize = elementSize(desc.data_type());
  if (elemSize == 0)
    return fail("unsupported data type " + proto::VarType::Type_Name(desc.data_type()));
  record.dtype = desc.data_type();
  record.dims.assign(desc.dims().begin(), desc.dims().end());
  uint64_t numel = 0;
  if (!numElements(record.dims, numel) || numel > UINT64_MAX / elemSize)
    return fail("bad dims");
  uint64_t dataBytes = numel * elemSize;
  if (dataBytes > bytes.size() - pos)
    return fail("truncated data: needs " + std::to_string(dataBytes) + " bytes, " +
                std::to_string(bytes.size() - pos) + " left");
  record.data.assign(bytes.data() + pos, dataBytes);
  pos += dataBytes;
  offset = pos;
  return true;
}

bool appendTensorRecord(const TensorRecord &record, std::string &out, std::string &error) {
  size_t elemSize = elementSize(record.dtype);
  uint64_t numel = 0;
  if (elemSize == 0 || !numElements(record.dims, numel) || numel > UINT64_MAX / elemSize ||
      record.data.size() != numel * elemSize) {
    error = "tensor record: data size " + std::to_string(record.data.size()) +
            " does not match its dims and data type";
    return false;
  }
  writePod<uint32_t>(out, 0);
  writePod<uint64_t>(out, record.lod.size());
  for (const auto &level : record.lod) {
    writePod<uint64_t>(out, level.size() * sizeof(uint64_t));
    out.append(reinterpret_cast<const char *>(level.data()), level.size() * sizeof(uint64_t));
  }
  writePod<uint32_t>(out, 0);
  proto::VarType::TensorDesc desc;
  desc.set_data_type(record.dtype);
  for (int64_t d : record.dims)
    desc.add_dims(d);
  std::string descBytes = desc.SerializeAsString();
  writePod<int32_t>(out, static_cast<int32_t>(descBytes.size()));
  out += descBytes;
  out += record.data;
  return true;
}

bool loadTensorFile(const std::string &path, TensorRecord &record, std::string &error) {
  std::string bytes;
  if (!support::readInputFile(path, bytes, error))
    return false;
  size_t offset = 0;
  if (!readTensorRecord(bytes, offset, record, error)) {
    error = path + ": " + error;
    return false;
  }
  if (offset != bytes.size()) {
    error = path + ": " + std::to_string(bytes.size() - offset) +
            " unexpected bytes after the tensor record";
    return false;
  }
  return true;
}

bool saveTensorFile(const std::string &path, const TensorRecord &record, std::string &error) {
  std::string bytes;
  if (!appendTensorRecord(record, bytes, error)) {
    error = path + ": " + error;
    return false;
  }
  return writeFileBytes(path, bytes, error);
}

bool loadCombinedTensorFile(const std::string &path, std::vector<std::string> names,
                            std::map<std::string, TensorRecord> &records, std::string &error) {
  std::string bytes;
  if (!support::readInputFile(path, bytes, error))
    return false;
  std::sort(names.begin(), names.end());
  size_t offset = 0;
  for (const std::string &name : names) {
    TensorRecord record;
    if (offset == bytes.size()) {
      error = path + ": file ends before the record of '" + name + "'";
      return false;
    }
    if (!readTensorRecord(bytes, offset, record, error)) {
      error = path + ": variable '" + name + "': " + error;
      return false;
    }
    records[name] = std::move(record);
  }
  if (offset != bytes.size()) {
    error = path + ": " + std::to_string(bytes.size() - offset) +
            " unexpected bytes after the last record (more variables in the file than "
            "the program declares?)";
    return false;
  }
  return true;
}

bool saveCombinedTensorFile(const std::string &path,
                            const std::map<std::string, TensorRecord> &records,
                            std::string &error) {
  std::string bytes;
  for (const auto &[name, record] : records) {
    if (!appendTensorRecord(record, bytes, error)) {
      error = path + ": variable '" + name + "': " + error;
      return false;
    }
  }
  return writeFileBytes(path, bytes, error);
}

} // namespace distc::programdesc
