//===- Diagnostics.cpp - one-line diagnostics for distc -------------------===//

#include "distc/Pipeline/Diagnostics.h"

#include "llvm/Support/raw_ostream.h"

namespace distc {

void reportError(llvm::StringRef message) { llvm::errs() << "distc: error: " << message << "\n"; }

} // namespace distc
