//===- Checkpoint.h - Crash-safe training checkpoints -----------*- C++ -*-===//
//
// A checkpoint is a directory holding one `.npy` file per variable and a
// `checkpoint.json` manifest; checkpoints live side by side in a root
// directory (`--checkpoint-dir DIR`):
//
//   DIR/latest              "step-1200\n": the newest complete checkpoint
//   DIR/step-1000/          an older one, kept until pruned
//   DIR/step-1200/checkpoint.json
//   DIR/step-1200/fc_0.w_0.npy
//   DIR/step-1200/fc_0.w_0@GRAD%2Fx.npy   (encodeVarFileName)
//
// Atomicity: saveCheckpoint writes everything into a fresh hidden sibling
// directory, fsyncs every file and the directory, renames it to
// `step-<N>` (exchanging it atomically with an existing `step-<N>`), then
// replaces `latest` by write-temp, fsync, rename, fsync of DIR. A crash at
// any moment leaves `latest` naming a complete, verified checkpoint (the
// previous one until the rename of `latest`). Old checkpoints are pruned
// only after `latest` names the new one. One process saves into a root at
// a time.
//
// Manifest (format "distc-checkpoint", version 1):
//   {"format": "distc-checkpoint", "version": 1,
//    "state": {"step": 1200, "epoch": 3, "batcher": {...}, "extra": {...}},
//    "variables": {"fc_0.w_0": {"file": "fc_0.w_0.npy", "dtype": "f32",
//                               "shape": [64, 16], "bytes": 4224,
//                               "crc32": "1a2b3c4d"}}}
// bfloat16 tensors, which .npy cannot represent, are stored as their 16-bit
// patterns in an i2 array; the manifest's dtype says bf16.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_TRAINING_CHECKPOINT_H
#define DISTC_TRAINING_CHECKPOINT_H

#include "distc/Runtime/Status.h"
#include "distc/Runtime/Tensor.h"
#include "distc/Training/Batcher.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace distc::training {

/// Where training stands, saved with the tensors.
struct TrainingState {
  /// Optimizer steps taken.
  int64_t step = 0;
  /// The epoch in progress (also in `batcher`).
  int64_t epoch = 0;
  /// The batcher's position, when the run uses one.
  std::optional<BatcherState> batcher;
  /// Free-form settings to restore or compare on resume: the artifact's
  /// checksum, learning rate and optimizer settings, the data's name...
  nlohmann::json extra = nlohmann::json::object();

  nlohmann::json toJson() const;
  static Status fromJson(const nlohmann::json &json, TrainingState &out);
};

/// The dtype and shape a program declares for a variable.
struct VarSpec {
  DType dtype = DType::Float32;
  Shape shape;
};
using VarSpecs = std::map<std::string, VarSpec>;

/// The file name for a variable: bytes outside [A-Za-z0-9._@-] (and a
/// leading '.', so no name is hidden or "." / "..") are written as %XX
/// (upper-case hex), then ".npy" is appended. Reversible:
/// decodeVarFileName(encodeVarFileName(n)) == n.
std::string encodeVarFileName(const std::string &name);
/// Inverse of encodeVarFileName; nullopt for a name it cannot produce.
std::optional<std::string> decodeVarFileName(const std::string &fileName);

struct CheckpointOptions {
  /// Checkpoints kept after a save, newest by step first; 0 keeps all.
  int keepLast = 3;
};

/// Saves `tensors` and `state` as DIR/step-<state.step> and points
/// DIR/latest at it, creating DIR if needed, then prunes. `savedPath`, when
/// given, receives the checkpoint's directory.
Status saveCheckpoint(const std::string &dir, const TensorMap &tensors, const TrainingState &state,
                      const CheckpointOptions &options = {}, std::string *savedPath = nullptr);

/// Resolves `path` to a checkpoint directory: `path` itself when it holds
/// checkpoint.json, else the directory its `latest` file names.
Status resolveCheckpoint(const std::string &path, std::string &checkpointDir);

/// Loads a checkpoint (`path` as in resolveCheckpoint), verifying the
/// manifest, each file's size and CRC32 and that each file holds the
/// manifest's dtype and shape. With `expected`, the variable sets must be
/// equal and every dtype and shape must agree; otherwise fails with e.g.
/// "checkpoint from another program: variable 'fc_0.w_0' has shape [64,32],
/// expected [64,16]". All or nothing: `tensors` and `state` are written only
/// on success.
Status loadCheckpoint(const std::string &path, const VarSpecs *expected, TensorMap &tensors,
                      TrainingState &state);

/// Step numbers of the complete checkpoints under DIR (directories
/// step-<N> with a checkpoint.json), ascending.
Status listCheckpoints(const std::string &dir, std::vector<int64_t> &steps);

} // namespace distc::training

#endif // DISTC_TRAINING_CHECKPOINT_H
