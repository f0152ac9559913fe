//===- TensorFile.h - Paddle parameter file records -------------*- C++ -*-===//
//
// Paddle's serialized tensor record, the unit of `.pdiparams`, `__params__`
// and per-variable parameter files (lod_tensor_serialize.cc), little-endian:
//   uint32 version (0) | uint64 lod_level | per level: uint64 nbytes, offsets
//   | uint32 tensor version (0) | int32 desc_size | TensorDesc bytes | data
// A combined file (`save_combine`) is the concatenation of the records of the
// persistable variables in sorted variable-name order; it holds no names.
//
// No MLIR here: the runtime reads and writes checkpoints with it.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_PROGRAMDESC_TENSORFILE_H
#define DISTC_PROGRAMDESC_TENSORFILE_H

#include "distc/ProgramDesc/ProgramDesc.h"

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace distc::programdesc {

struct TensorRecord {
  proto::VarType::Type dtype = proto::VarType::FP32;
  std::vector<int64_t> dims;
  /// LoD offsets per level (empty for plain dense tensors).
  std::vector<std::vector<uint64_t>> lod;
  /// Raw element bytes, numel * elementSize(dtype) of them.
  std::string data;
};

/// Size in bytes of one element of a tensor data type; 0 for non-tensor
/// types (FEED_MINIBATCH, ...).
size_t elementSize(proto::VarType::Type dtype);

/// Parses one record starting at `offset` in `bytes` and advances `offset`
/// past it. Validates versions, sizes and dims so that truncated or foreign
/// files fail with a message rather than a huge allocation.
bool readTensorRecord(std::string_view bytes, size_t &offset, TensorRecord &record,
                      std::string &error);

/// Appends the serialized record to `out`. Fails when `data` does not hold
/// exactly numel * elementSize bytes.
bool appendTensorRecord(const TensorRecord &record, std::string &out, std::string &error);

/// One-record files (Paddle's per-variable `save`).
bool loadTensorFile(const std::string &path, TensorRecord &record, std::string &error);
bool saveTensorFile(const std::string &path, const TensorRecord &record, std::string &error);

/// Combined files. `names` need not be sorted: records are matched to the
/// sorted names as Paddle writes them. Extra or missing bytes are errors.
bool loadCombinedTensorFile(const std::string &path, std::vector<std::string> names,
                            std::map<std::string, TensorRecord> &records, std::string &error);
/// Writes the records in name order (std::map is sorted), as Paddle does.
bool saveCombinedTensorFile(const std::string &path,
                            const std::map<std::string, TensorRecord> &records, std::string &error);

} // namespace distc::programdesc

#endif // DISTC_PROGRAMDESC_TENSORFILE_H
