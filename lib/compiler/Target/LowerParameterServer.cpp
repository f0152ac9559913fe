//===- LowerParameterServer.cpp - send / recv / barriers ------------------===//
//
// The trainer side of parameter-server training. The artifact has no roles
// for servers yet, so its programs cannot hold these ops: the lowering
// refuses them, naming the op, rather than dropping the communication.
//
//===----------------------------------------------------------------------===//

#include "ProgramLowering.h"

using namespace mlir;

namespace distc::target {

LogicalResult ProgramLowering::lowerParameterServerOp(Operation *op) {
  return error(op) << "parameter-server programs are not lowered to an artifact yet; print them "
                      "with --compile-to distributed or --emit=program-json";
}

} // namespace distc::target
