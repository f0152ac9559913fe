//===- PaddleParams.h - Parameters in Paddle's and distc's files -*- C++ -*-===//
//
// Reading initial parameters (`--init-from DIR`) and writing parameters that
// Paddle itself loads:
//   * per-variable files as paddle.static.save_persistables / fluid.io
//     save_vars write them: one tensor record (TensorFile.h) per variable,
//     in a file named exactly like the variable;
//   * combined files (`.pdiparams`, `__params__`): the records of all
//     variables in sorted name order, without names.
// Element types map one to one between runtime DTypes and Paddle's
// VarType: bool, int8, uint8, int16, int32, int64, fp16, bf16, fp32, fp64.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_TRAINING_PADDLEPARAMS_H
#define DISTC_TRAINING_PADDLEPARAMS_H

#include "distc/ProgramDesc/TensorFile.h"
#include "distc/Runtime/Status.h"
#include "distc/Runtime/Tensor.h"
#include "distc/Training/Checkpoint.h"

#include <optional>
#include <string>
#include <vector>

namespace distc::training {

namespace pdproto = ::distc::programdesc::proto;

/// The Paddle VarType of a runtime dtype (every DType has one).
pdproto::VarType::Type toPaddleDType(DType dtype);
/// The runtime dtype of a Paddle VarType; nullopt for types the runtime
/// has no tensors of (complex, strings, FP8, ...).
std::optional<DType> fromPaddleDType(pdproto::VarType::Type type);

/// A dense tensor record (no LoD) holding a copy of `tensor`'s data.
programdesc::TensorRecord tensorToRecord(const Tensor &tensor);
/// The tensor a record holds. `displayName` (file and variable) starts the
/// error for an unsupported type or a record with LoD.
Status recordToTensor(const programdesc::TensorRecord &record, const std::string &displayName,
                      Tensor &out);

/// Loads the variables in `expected` from `path`, which is one of:
///   * a checkpoint or checkpoint root (Checkpoint.h): the named variables
///     are taken from it (verified), other ones (optimizer state) ignored;
///   * a directory with, per variable, `<encodeVarFileName(name)>` (.npy) or
///     Paddle's per-variable file `<name>`, tried in that order;
///   * a file: a combined parameter file holding exactly the expected
///     variables.
/// Each variable's dtype and shape must match: "parameter 'fc_0.w_0' in
/// init/fc_0.w_0 has shape [64,32], expected [64,16]". All or nothing.
Status loadParameters(const std::string &path, const VarSpecs &expected, TensorMap &out);

/// Writes one Paddle record file per tensor, at `<dir>/<name>` (created with
/// its parent directories; each file replaced atomically). Names that are
/// empty or have an empty, "." or ".." path component are rejected.
Status savePersistables(const std::string &dir, const TensorMap &tensors);

/// Writes a combined parameter file (records in sorted name order),
/// replacing `path` atomically.
Status saveCombinedParams(const std::string &path, const TensorMap &tensors);

/// Writes a combined parameter file with the records of `order`, in that
/// order (an inference model's `.pdiparams`, whose order its program
/// fixes), replacing `path` atomically. Every name must be in `tensors`.
Status saveCombinedParams(const std::string &path, const std::vector<std::string> &order,
                          const TensorMap &tensors);

/// Reads a combined parameter file holding exactly the `expected` variables
/// and checks their dtypes and shapes.
Status loadCombinedParams(const std::string &path, const VarSpecs &expected, TensorMap &out);

} // namespace distc::training

#endif // DISTC_TRAINING_PADDLEPARAMS_H
