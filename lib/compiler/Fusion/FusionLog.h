//===- FusionLog.h - what a fusion pass did, for --explain-fusion -*- C++ -*-===//
//
// Private to lib/compiler/Fusion. Each fusion pass reports every group it
// fused and every candidate it left, with the reason, through one of these;
// with `explain` off it prints nothing. Lines go to stderr:
//
//   fuse_gemm_epilogue: train.main: fused matmul_v2 (fc_0.tmp_0) + elementwise_add
//       (fc_0.tmp_1) + relu (fc_0.tmp_2) into fused_gemm_epilogue
//   fuse_gemm_epilogue: train.main: left matmul_v2 (fc_2.tmp_0): its Y is not 2-D
//   enable_auto_fusion: train.main: started a loop at elementwise_add (s): its
//       result's type differs from the loop's
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_LIB_FUSION_FUSIONLOG_H
#define DISTC_LIB_FUSION_FUSIONLOG_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"

#include <string>

namespace distc::fusion {

class FusionLog {
public:
  /// `option` is the BuildStrategy key the pass implements.
  FusionLog(llvm::StringRef option, bool enabled) : option(option.str()), enabled(enabled) {}

  /// `ops` become one op of type `into` (called before they are replaced).
  void fused(llvm::ArrayRef<mlir::Operation *> ops, llvm::StringRef into);
  /// `op` was a candidate but stays as it is, because `why`.
  void left(mlir::Operation *op, const llvm::Twine &why);
  /// `op` starts a group of its own rather than joining its operand's,
  /// because `why` (the group is fused all the same).
  void started(mlir::Operation *op, const llvm::Twine &why);

  bool isEnabled() const { return enabled; }

private:
  void start(mlir::Operation *op);

  std::string option;
  bool enabled;
};

} // namespace distc::fusion

#endif // DISTC_LIB_FUSION_FUSIONLOG_H
