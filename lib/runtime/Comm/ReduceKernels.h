//===- ReduceKernels.h - Elementwise combining for reductions ---*- C++ -*-===//

#ifndef DISTC_LIB_COMM_REDUCEKERNELS_H
#define DISTC_LIB_COMM_REDUCEKERNELS_H

#include "distc/Comm/Communicator.h"

namespace distc::comm::detail {

/// acc[i] = acc[i] op in[i] for i < count. `dtype` must be reducible
/// (isReducible); the caller checks.
void combine(void *acc, const void *in, size_t count, DType dtype, ReduceOp op);

} // namespace distc::comm::detail

#endif // DISTC_LIB_COMM_REDUCEKERNELS_H
