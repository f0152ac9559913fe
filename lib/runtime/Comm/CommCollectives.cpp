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

runtime::Status expectChunks(const char *what, const runtime::Tensor &in,
                             const runtime::Tensor &out, int inChunks, int outChunks) {
  if (in.dtype() != out.dtype())
    return runtime::Status::error(std::string(what) + ": the input is " + in.typeString() +
                                  " but the output " + out.typeString());
  // in / inChunks == out / outChunks, exactly.
  if (in.numel() % inChunks != 0 || out.numel() % outChunks != 0 ||
      in.numel() / inChunks != out.numel() / outChunks)
    return runtime::Status::error(std::string(what) + ": " + std::to_string(inChunks) +
                                  (inChunks == 1 ? " chunk" : " chunks") + " of the input " +
                                  in.typeString() + " do not match " + std::to_string(outChunks) +
                                  (outChunks == 1 ? " chunk" : " chunks") + " of the output " +
                                  out.typeString());
  return runtime::Status::success();
}

} // namespace distc::comm
