//===- distc-tblgen.cpp - distc's TableGen backends -----------------------===//
//
// mlir-tblgen with the `pd` op registry's generators linked in
// (PdRegistryGen.cpp): every table the compiler keeps per op is generated
// from the op's one declaration in PdOps.td.
//
//===----------------------------------------------------------------------===//

#include "mlir/Tools/mlir-tblgen/MlirTblgenMain.h"

int main(int argc, char **argv) { return mlir::MlirTblgenMain(argc, argv); }
