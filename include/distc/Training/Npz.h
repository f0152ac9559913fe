//===- Npz.h - NumPy .npz archives ------------------------------*- C++ -*-===//
//
// An .npz file is a zip archive of .npy members, one per array, each named
// "<array name>.npy": np.savez stores them uncompressed, np.savez_compressed
// deflates them, and NumPy writes ZIP64 extra fields. Archives are read and
// written with libzip (Debian's libzip-dev), which handles all three.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_TRAINING_NPZ_H
#define DISTC_TRAINING_NPZ_H

#include "distc/Runtime/Status.h"
#include "distc/Runtime/Tensor.h"

#include <string>
#include <vector>

namespace distc::training {

/// The member names of the archive at `path`, in archive order, as stored
/// (with their ".npy" suffix).
runtime::Status listNpzMembers(const std::string &path, std::vector<std::string> &members);

/// Reads member `member` ("x" or "x.npy") of the archive at `path`. Errors
/// name the archive and member: "d.npz: no member 'y' (members: x, label)",
/// "d.npz member 'x.npy': invalid .npy header: ...".
runtime::Status readNpzMember(const std::string &path, const std::string &member,
                              runtime::Tensor &out);

/// Reads every member; keys are the member names without ".npy".
runtime::Status readNpz(const std::string &path, runtime::TensorMap &out);

/// Writes `arrays` as "<name>.npy" members, deflated when `compress` (like
/// np.savez_compressed) and stored otherwise (like np.savez). Replaces an
/// existing file.
runtime::Status writeNpz(const std::string &path, const runtime::TensorMap &arrays, bool compress);

} // namespace distc::training

#endif // DISTC_TRAINING_NPZ_H
