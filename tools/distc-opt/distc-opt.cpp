//===- distc-opt.cpp - distc optimizer driver -----------------------------===//
//
// Parses, verifies, transforms and prints `pd` modules, like mlir-opt. Only
// the pd dialect (and the builtin one) is registered: programs never contain
// other dialects, and registering no more keeps the tool small. Besides the
// passes, distc's phases are registered as pipelines (`distc-pipeline-modes`,
// ...), so lit tests run exactly the passes distc runs.
//
//===----------------------------------------------------------------------===//

#include "distc/Dialect/Pd/PdDialect.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

#ifdef DISTC_HAVE_TRANSFORMS
#include "distc/Transforms/Passes.h"
#endif
#ifdef DISTC_HAVE_PIPELINE
#include "distc/Fusion/Passes.h"
#include "distc/ParameterServer/Passes.h"
#include "distc/Pipeline/Passes.h"
#include "distc/Pipeline/Pipeline.h"
#include "distc/Sharding/Passes.h"
#endif

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  registry.insert<distc::pd::PdDialect>();
#ifdef DISTC_HAVE_TRANSFORMS
  distc::registerDistcPasses();
#endif
#ifdef DISTC_HAVE_PIPELINE
  distc::sharding::registerDistcShardingPasses();
  distc::fusion::registerDistcFusionPasses();
  distc::ps::registerDistcParameterServerPasses();
  distc::pipeline::registerDistcPipelinePasses();
  distc::pipeline::registerDistcPipelines();
#endif
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "distc optimizer driver\n", registry));
}
