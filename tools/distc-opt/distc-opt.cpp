//===- distc-opt.cpp - distc optimizer driver -----------------------------===//
//
// Parses, verifies, transforms and prints `pd` modules, like mlir-opt. Only
// the pd dialect (and the builtin one) is registered: programs never contain
// other dialects, and registering no more keeps the tool small.
//
//===----------------------------------------------------------------------===//

#include "distc/Dialect/Pd/PdDialect.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

#ifdef DISTC_HAVE_TRANSFORMS
#include "distc/Transforms/Passes.h"
#endif

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  registry.insert<distc::pd::PdDialect>();
#ifdef DISTC_HAVE_TRANSFORMS
  distc::registerDistcPasses();
#endif
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "distc optimizer driver\n", registry));
}
