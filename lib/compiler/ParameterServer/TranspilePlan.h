//===- TranspilePlan.h - What the pserver transpile decided -----*- C++ -*-===//
//
// The decisions of DistributeTranspiler's pserver mode that the trainer and
// the server programs share: which parameters the servers update (those
// with an optimizer op, in the order of those ops, as Paddle's
// _get_optimize_pass finds them), how each is cut into blocks, which server
// holds each block, and which optimize-role ops update each parameter.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_LIB_PARAMETERSERVER_TRANSPILEPLAN_H
#define DISTC_LIB_PARAMETERSERVER_TRANSPILEPLAN_H

#include "distc/ParameterServer/VarSlicing.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "mlir/Support/LogicalResult.h"

#include <cstdint>
#include <string>
#include <vector>

namespace distc::ps {

struct TranspileSettings {
  std::vector<std::string> pservers;
  int trainers = 1;
  int trainerId = 0;
  bool syncMode = true;
  bool sliceVarUp = true;
  std::string splitMethod = "RoundRobin";
  int64_t minBlockSize = kMinBlockSize;
  bool runtimeSplitSendRecv = false;
  bool halfAsync = false;
  uint64_t seed = 0;

  /// Trainers send `<block>.trainer_<id>` and servers sum them: synchronous
  /// training with several trainers (Paddle adds the suffix only then).
  bool trainerSuffix() const { return syncMode && trainers > 1; }
};

/// One block of a parameter and of its gradient.
struct BlockPlan {
  VarBlock block;
  /// The block's variable names: `fc_w.block1` / `fc_w@GRAD.block1` (the
  /// variable's own name when it is one block).
  std::string paramName;
  std::string gradName;
  /// The server that holds it, and its index in the endpoint list.
  std::string endpoint;
  int server = 0;
  mlir::RankedTensorType type;
};

struct ParamPlan {
  std::string param; // fc_w
  std::string grad;  // fc_w@GRAD
  mlir::RankedTensorType type;
  /// The value of the gradient the backward pass finishes, in the train
  /// program.
  mlir::Value gradValue;
  std::vector<BlockPlan> blocks;
  /// The optimize-role ops that update the parameter and its state, in
  /// program order (regularization, clipping, the optimizer op, ...).
  std::vector<mlir::Operation *> optimizeOps;
  /// A table only sparse lookups read (lookup_table_v2 with is_sparse): its
  /// gradient is row-sparse (Paddle's SelectedRows), sent as the rows the
  /// batch looked up. `sparseGradOps` are the lookups' gradient ops and the
  /// `sum` of them, whose results the transpile makes row-sparse.
  bool sparse = false;
  std::vector<mlir::Operation *> sparseGradOps;
  /// A distributed lookup table (lookups with is_distributed): it lives on
  /// the servers only, one block of ceil(rows / servers) rows on each, in
  /// server order; the trainers prefetch the rows they look up and never
  /// receive the table.
  bool distributed = false;

  /// The type of the gradient blocks the trainers send.
  mlir::RankedTensorType gradBlockType(const BlockPlan &block) const;
};

struct TranspilePlan {
  TranspileSettings settings;
  /// In the order of the parameters' optimizer ops.
  std::vector<ParamPlan> params;
};

/// Checks `settings` (endpoints, counts, the combination of modes).
mlir::LogicalResult checkSettings(const TranspileSettings &settings, mlir::Operation *anchor);

/// Finds the parameters `train` optimizes, cuts them into blocks and places
/// the blocks on the servers, as Paddle's transpile does.
mlir::FailureOr<TranspilePlan> planTranspile(mlir::Operation *train,
                                             const TranspileSettings &settings);

/// The gradient block's name as the trainer sends it (with `.trainer_<id>`
/// in synchronous training with several trainers).
std::string sentGradName(const TranspileSettings &settings, const BlockPlan &block);

/// Appends one nested module `@pserver<i>` per server to `module`, holding
/// its variables, its `@train.main` (listen_and_serv over its optimize
/// blocks) and `@train.startup` (its blocks' initializers, taken from
/// `startup`). `train` must still hold its optimizer ops.
mlir::LogicalResult buildServerModules(mlir::ModuleOp module, mlir::Operation *train,
                                       mlir::Operation *startup, const TranspilePlan &plan);

} // namespace distc::ps

#endif // DISTC_LIB_PARAMETERSERVER_TRANSPILEPLAN_H
