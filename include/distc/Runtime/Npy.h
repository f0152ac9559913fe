//===- Npy.h - NumPy .npy files ---------------------------------*- C++ -*-===//
//
// Reads and writes NumPy's .npy format (versions 1.0, 2.0 and 3.0 headers),
// little-endian, C order. Supported element types: bool (|b1), i1, u1, i2,
// i4, i8, f2, f4, f8. Fortran-ordered and big-endian arrays are rejected with
// a message naming the file; no data is reordered or byte-swapped silently.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_RUNTIME_NPY_H
#define DISTC_RUNTIME_NPY_H

#include "distc/Runtime/Status.h"
#include "distc/Runtime/Tensor.h"

#include <string>

namespace distc::runtime {

/// Reads `path` into `out`. Errors start with the path.
Status readNpy(const std::string &path, Tensor &out);

/// Parses .npy bytes already in memory; `displayName` names them in errors.
Status parseNpy(const std::string &bytes, const std::string &displayName, Tensor &out);

/// Writes `tensor` as a version 1.0 .npy file (2.0 if the header needs it).
Status writeNpy(const std::string &path, const Tensor &tensor);

} // namespace distc::runtime

#endif // DISTC_RUNTIME_NPY_H
