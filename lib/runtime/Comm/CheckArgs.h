//===- CheckArgs.h - Argument checks shared by communicators ----*- C++ -*-===//
//
// Every implementation checks arguments the same way, so a program that
// passes them on one rank (LocalCommunicator) passes them on many.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_LIB_COMM_CHECKARGS_H
#define DISTC_LIB_COMM_CHECKARGS_H

#include "distc/Comm/Communicator.h"

namespace distc::comm::detail {

Status checkBuffer(const char *op, const void *data, size_t count);
Status checkReducible(const char *op, DType dtype);
Status checkRoot(const char *op, int root, int size);
Status checkElementType(const char *op, DType dtype);
/// allgather's arguments on rank `rank` of `size`: both buffers, the
/// element type, and `in` either this rank's block of `out` (in place) or
/// apart from `out` (Communicator.h).
Status checkAllgather(const void *in, const void *out, size_t countPerRank, DType dtype, int rank,
                      int size);

} // namespace distc::comm::detail

#endif // DISTC_LIB_COMM_CHECKARGS_H
