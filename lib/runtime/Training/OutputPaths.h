//===- OutputPaths.h - Checking where a run will write ----------*- C++ -*-===//
//
// Checkpoints, persistables and the inference model are written during or
// after training; a path that cannot take them must be refused before the
// first step, not after hours of training.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_TRAINING_OUTPUTPATHS_H
#define DISTC_TRAINING_OUTPUTPATHS_H

#include "distc/Runtime/Status.h"

#include <string>

namespace distc::training {

/// Succeeds when `dir` is a writable directory, or can be created as one
/// (its deepest existing ancestor is a writable directory). The error names
/// `flag` and the path.
runtime::Status checkWritableDirectory(const std::string &flag, const std::string &dir);

/// Succeeds when files `prefix`.EXT can be created: `prefix` is not a
/// directory and its parent directory passes checkWritableDirectory.
runtime::Status checkWritablePrefix(const std::string &flag, const std::string &prefix);

} // namespace distc::training

#endif // DISTC_TRAINING_OUTPUTPATHS_H
