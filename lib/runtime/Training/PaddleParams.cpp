//===- PaddleParams.cpp - Parameters in Paddle's and distc's files --------===//

#include "distc/Training/PaddleParams.h"

#include "FileUtil.h"

#include "distc/Runtime/Npy.h"

#include <cstring>
#include <filesystem>

namespace distc::training {

namespace fs = std::filesystem;
using programdesc::TensorRecord;

namespace {

std::string formatShape(const Shape &shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    out += (i ? "," : "") + std::to_string(shape[i]);
  return out + "]";
}

Status checkSpec(const std::string &name, const std::string &where, const Tensor &t,
                 const VarSpec &spec) {
  if (t.shape() != spec.shape)
    return Status::error("parameter '" + name + "' in " + where + " has shape " +
                         formatShape(t.shape()) + ", expected " + formatShape(spec.shape));
  if (t.dtype() != spec.dtype)
    return Status::error("parameter '" + name + "' in " + where + " is " +
                         runtime::dtypeName(t.dtype()) + ", expected " +
                         runtime::dtypeName(spec.dtype));
  return Status::success();
}

bool isCheckpoint(const std::string &path) {
  std::error_code ec;
  return fs::is_regular_file(fs::path(path) / "checkpoint.json", ec) ||
         fs::is_regular_file(fs::path(path) / "latest", ec);
}

Status loadFromCheckpoint(const std::string &path, const VarSpecs &expected, TensorMap &out) {
  TensorMap all;
  TrainingState state;
  if (Status st = loadCheckpoint(path, nullptr, all, state); !st.ok())
    return st;
  TensorMap picked;
  for (const auto &[name, spec] : expected) {
    auto it = all.find(name);
    if (it == all.end())
      return Status::error("cannot initialize from checkpoint " + path + ": it has no variable '" +
                           name + "'");
    if (Status st = checkSpec(name, "checkpoint " + path, it->second, spec); !st.ok())
      return st;
    picked.emplace(name, it->second);
  }
  out = std::move(picked);
  return Status::success();
}

Status loadFromDirectory(const std::string &dir, const VarSpecs &expected, TensorMap &out) {
  TensorMap loaded;
  for (const auto &[name, spec] : expected) {
    std::string npyPath = dir + "/" + encodeVarFileName(name);
    std::string recordPath = dir + "/" + name;
    std::error_code ec;
    Tensor t;
    std::string where;
    if (fs::is_regular_file(npyPath, ec)) {
      where = npyPath;
      if (Status st = runtime::readNpy(npyPath, t); !st.ok())
        return Status::error("cannot load parameter '" + name + "': " + st.message());
    } else if (fs::is_regular_file(recordPath, ec)) {
      where = recordPath;
      TensorRecord record;
      std::string error;
      if (!programdesc::loadTensorFile(recordPath, record, error))
        return Status::error("cannot load parameter '" + name + "': " + error);
      if (Status st = recordToTensor(record, recordPath, t); !st.ok())
        return Status::error("cannot load parameter '" + name + "': " + st.message());
    } else {
      return Status::error("cannot load parameter '" + name + "' from " + dir + ": neither " +
                           encodeVarFileName(name) + " nor Paddle's '" + name + "' exists there");
    }
    if (Status st = checkSpec(name, where, t, spec); !st.ok())
      return st;
    loaded.emplace(name, std::move(t));
  }
  out = std::move(loaded);
  return Status::success();
}

Status validVariablePath(const std::string &name) {
  if (name.empty())
    return Status::error("a variable without a name cannot be saved");
  if (name[0] == '/')
    return Status::error("variable '" + name + "' cannot be saved: its name is an absolute path");
  size_t pos = 0;
  for (;;) {
    size_t slash = name.find('/', pos);
    std::string part =
        name.substr(pos, slash == std::string::npos ? std::string::npos : slash - pos);
    if (part.empty() || part == "." || part == "..")
      return Status::error("variable '" + name +
                           "' cannot be saved: its name has an empty, '.' or '..' path component");
    if (slash == std::string::npos)
      return Status::success();
    pos = slash + 1;
  }
}

} // namespace

pdproto::VarType::Type toPaddleDType(DType dtype) {
  switch (dtype) {
  case DType::Bool:
    return pdproto::VarType::BOOL;
  case DType::Int8:
    return pdproto::VarType::INT8;
  case DType::UInt8:
    return pdproto::VarType::UINT8;
  case DType::Int16:
    return pdproto::VarType::INT16;
  case DType::Int32:
    return pdproto::VarType::INT32;
  case DType::Int64:
    return pdproto::VarType::INT64;
  case DType::Float16:
    return pdproto::VarType::FP16;
  case DType::BFloat16:
    return pdproto::VarType::BF16;
  case DType::Float32:
    return pdproto::VarType::FP32;
  case DType::Float64:
    return pdproto::VarType::FP64;
  }
  return pdproto::VarType::FP32;
}

std::optional<DType> fromPaddleDType(pdproto::VarType::Type type) {
  switch (type) {
  case pdproto::VarType::BOOL:
    return DType::Bool;
  case pdproto::VarType::INT8:
    return DType::Int8;
  case pdproto::VarType::UINT8:
    return DType::UInt8;
  case pdproto::VarType::INT16:
    return DType::Int16;
  case pdproto::VarType::INT32:
    return DType::Int32;
  case pdproto::VarType::INT64:
    return DType::Int64;
  case pdproto::VarType::FP16:
    return DType::Float16;
  case pdproto::VarType::BF16:
    return DType::BFloat16;
  case pdproto::VarType::FP32:
    return DType::Float32;
  case pdproto::VarType::FP64:
    return DType::Float64;
  default:
    return std::nullopt;
  }
}

TensorRecord tensorToRecord(const Tensor &tensor) {
  TensorRecord record;
  record.dtype = toPaddleDType(tensor.dtype());
  record.dims = tensor.shape();
  record.data.assign(static_cast<const char *>(tensor.data()), tensor.byteSize());
  return record;
}

Status recordToTensor(const TensorRecord &record, const std::string &displayName, Tensor &out) {
  std::optional<DType> dtype = fromPaddleDType(record.dtype);
  if (!dtype)
    return Status::error(displayName + ": Paddle element type " +
                         pdproto::VarType::Type_Name(record.dtype) + " has no runtime tensor type");
  if (!record.lod.empty())
    return Status::error(displayName + ": the tensor has LoD (" +
                         std::to_string(record.lod.size()) +
                         " levels); parameters are plain dense tensors");
  for (int64_t d : record.dims)
    if (d < 0)
      return Status::error(displayName + ": the tensor has an unknown (negative) dim");
  Tensor t(*dtype, record.dims);
  if (record.data.size() != t.byteSize())
    return Status::error(displayName + ": " + std::to_string(record.data.size()) +
                         " data bytes for " + t.typeString());
  if (t.byteSize())
    std::memcpy(t.data(), record.data.data(), t.byteSize());
  out = std::move(t);
  return Status::success();
}

Status loadParameters(const std::string &path, const VarSpecs &expected, TensorMap &out) {
  std::error_code ec;
  if (fs::is_regular_file(path, ec))
    return loadCombinedParams(path, expected, out);
  if (!fs::is_directory(path, ec))
    return Status::error(path + ": no such parameter directory or file");
  if (isCheckpoint(path))
    return loadFromCheckpoint(path, expected, out);
  return loadFromDirectory(path, expected, out);
}

Status savePersistables(const std::string &dir, const TensorMap &tensors) {
  for (const auto &[name, tensor] : tensors) {
    if (Status st = validVariablePath(name); !st.ok())
      return st;
    if (!tensor.defined())
      return Status::error("variable '" + name + "' cannot be saved: it has no value");
  }
  for (const auto &[name, tensor] : tensors) {
    std::string path = dir + "/" + name;
    std::error_code ec;
    fs::create_directories(detail::parentDirectory(path), ec);
    if (ec)
      return Status::error(detail::parentDirectory(path) + ": cannot create: " + ec.message());
    std::string bytes, error;
    if (!programdesc::appendTensorRecord(tensorToRecord(tensor), bytes, error))
      return Status::error(path + ": " + error);
    if (Status st = detail::writeFileAtomic(path, bytes); !st.ok())
      return st;
  }
  return Status::success();
}

Status saveCombinedParams(const std::string &path, const TensorMap &tensors) {
  std::string bytes;
  for (const auto &[name, tensor] : tensors) { // TensorMap is sorted by name
    if (!tensor.defined())
      return Status::error(path + ": variable '" + name + "' has no value");
    std::string error;
    if (!programdesc::appendTensorRecord(tensorToRecord(tensor), bytes, error))
      return Status::error(path + ": variable '" + name + "': " + error);
  }
  return detail::writeFileAtomic(path, bytes);
}

Status saveCombinedParams(const std::string &path, const std::vector<std::string> &order,
                          const TensorMap &tensors) {
  std::string bytes;
  for (const std::string &name : order) {
    auto it = tensors.find(name);
    if (it == tensors.end() || !it->second.defined())
      return Status::error(path + ": variable '" + name + "' has no value");
    std::string error;
    if (!programdesc::appendTensorRecord(tensorToRecord(it->second), bytes, error))
      return Status::error(path + ": variable '" + name + "': " + error);
  }
  return detail::writeFileAtomic(path, bytes);
}

Status loadCombinedParams(const std::string &path, const VarSpecs &expected, TensorMap &out) {
  std::vector<std::string> names;
  for (const auto &entry : expected)
    names.push_back(entry.first);
  std::map<std::string, TensorRecord> records;
  std::string error;
  if (!programdesc::loadCombinedTensorFile(path, names, records, error))
    return Status::error(error);
  TensorMap loaded;
  for (const auto &[name, spec] : expected) {
    Tensor t;
    if (Status st = recordToTensor(records[name], path + " variable '" + name + "'", t); !st.ok())
      return st;
    if (Status st = checkSpec(name, path, t, spec); !st.ok())
      return st;
    loaded.emplace(name, std::move(t));
  }
  out = std::move(loaded);
  return Status::success();
}

} // namespace distc::training
