//===- CommCollectives.cpp - Runtime collectives over a communicator ------===//

#include "distc/Comm/CommCollectives.h"

namespace distc::comm {

runtime::Status parseReduction(const std::string &op, ReduceOp &reduceOp) {
  std::optional<ReduceOp> parsed = reduceOpFromName(op);
  if (!parsed)
    return runtime::Status::error("unknown reduction '" + op + "'");
  reduceOp = *parsed;
  return runtime::Status::success();
}

} // namespace distc::comm
