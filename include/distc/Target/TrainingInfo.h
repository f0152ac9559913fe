//===- TrainingInfo.h - What the runtime must know to train -----*- C++ -*-===//
//
// Reads the train program of a module in mode form — one distc gave an
// optimizer, or one Paddle already differentiated — and describes it for
// the artifact's Training table: the optimizer, the parameters it updates
// (state_dict "param"), the persistable state it keeps (state_dict "opt"),
// and the learning-rate variable the runtime may overwrite each step.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_TARGET_TRAININGINFO_H
#define DISTC_TARGET_TRAININGINFO_H

#include "distc/Artifact/ArtifactDesc.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

namespace distc::target {

/// Describes `@train.main`. Parameters are the `Param` inputs of its
/// optimizer ops; optimizer state is every other persistable variable the
/// program writes, plus the optimizer ops' learning-rate variable. Fails
/// (with a diagnostic) when the program has no optimizer op, or its ops
/// disagree on the learning-rate variable.
mlir::FailureOr<artifact::TrainingDesc> describeTraining(mlir::ModuleOp module,
                                                        llvm::StringRef loss);

} // namespace distc::target

#endif // DISTC_TARGET_TRAININGINFO_H
