//===- NcclDriver.h - The CUDA and NCCL calls NcclCommunicator makes -*- C++ -*-===//
//
// NcclCommunicator reaches CUDA and NCCL only through this interface, so
// that its own logic (the id exchange, polling with a deadline, naming a
// dead rank, aborting) is tested on machines without a GPU against a fake,
// and the real calls stay a thin layer (cudaNcclDriver()). Signatures are
// NCCL's and CUDA's own.
//
// Also here: the mapping of distc's element types and reductions to
// NCCL's, and the one-line descriptions of NCCL and CUDA failures.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_LIB_COMM_NCCLDRIVER_H
#define DISTC_LIB_COMM_NCCLDRIVER_H

#include "distc/Comm/NcclCommunicator.h"

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace distc::comm::detail {

class NcclDriver {
public:
  virtual ~NcclDriver();

  // CUDA runtime.
  virtual cudaError_t getDeviceCount(int *count) = 0;
  /// 0 when no driver is installed.
  virtual cudaError_t driverGetVersion(int *version) = 0;
  virtual cudaError_t runtimeGetVersion(int *version) = 0;
  virtual cudaError_t setDevice(int device) = 0;
  virtual cudaError_t streamCreate(cudaStream_t *stream) = 0;
  virtual cudaError_t streamDestroy(cudaStream_t stream) = 0;
  /// cudaSuccess when all work on `stream` is done, cudaErrorNotReady while not.
  virtual cudaError_t streamQuery(cudaStream_t stream) = 0;
  virtual cudaError_t deviceMalloc(void **ptr, size_t bytes) = 0;
  virtual cudaError_t deviceFree(void *ptr) = 0;
  virtual const char *cudaErrorName(cudaError_t e) = 0;
  virtual const char *cudaErrorString(cudaError_t e) = 0;

  // NCCL.
  virtual ncclResult_t getUniqueId(ncclUniqueId *id) = 0;
  virtual ncclResult_t commInitRankConfig(ncclComm_t *comm, int nranks, ncclUniqueId id, int rank,
                                          ncclConfig_t *config) = 0;
  virtual ncclResult_t commGetAsyncError(ncclComm_t comm, ncclResult_t *state) = 0;
  virtual ncclResult_t commFinalize(ncclComm_t comm) = 0;
  virtual ncclResult_t commDestroy(ncclComm_t comm) = 0;
  virtual ncclResult_t commAbort(ncclComm_t comm) = 0;
  virtual const char *getErrorString(ncclResult_t r) = 0;
  virtual const char *getLastError(ncclComm_t comm) = 0;
  virtual ncclResult_t allReduce(const void *send, void *recv, size_t count, ncclDataType_t type,
                                 ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream) = 0;
  virtual ncclResult_t broadcast(const void *send, void *recv, size_t count, ncclDataType_t type,
                                 int root, ncclComm_t comm, cudaStream_t stream) = 0;
  virtual ncclResult_t reduce(const void *send, void *recv, size_t count, ncclDataType_t type,
                              ncclRedOp_t op, int root, ncclComm_t comm, cudaStream_t stream) = 0;
  virtual ncclResult_t allGather(const void *send, void *recv, size_t countPerRank,
                                 ncclDataType_t type, ncclComm_t comm, cudaStream_t stream) = 0;
  virtual ncclResult_t reduceScatter(const void *send, void *recv, size_t recvCount,
                                     ncclDataType_t type, ncclRedOp_t op, ncclComm_t comm,
                                     cudaStream_t stream) = 0;
  /// ncclAlltoAll's semantics over `nranks` ranks: `countPerRank` elements
  /// to and from each (the real driver groups ncclSend/ncclRecv, which
  /// every NCCL since 2.7 has).
  virtual ncclResult_t allToAll(const void *send, void *recv, size_t countPerRank,
                                ncclDataType_t type, int nranks, ncclComm_t comm,
                                cudaStream_t stream) = 0;

  // Sub-groups.
  /// Whether commSplit works (ncclCommSplit exists from NCCL 2.18).
  virtual bool canSplit() = 0;
  virtual ncclResult_t commSplit(ncclComm_t comm, int color, int key, ncclComm_t *newcomm,
                                 ncclConfig_t *config) = 0;
  /// A driver for another communicator of this process (a sub-group's).
  virtual std::unique_ptr<NcclDriver> another() = 0;
};

/// The real calls.
std::unique_ptr<NcclDriver> cudaNcclDriver();

/// Makes the driver of one communicator (tests pass fakes).
using NcclDriverFactory = std::function<std::unique_ptr<NcclDriver>()>;

/// NcclCommunicator::create and connectNccl over drivers from `factory`.
/// `departuresBefore`: entries of the store's departure log that concern
/// no rank of this communicator (default: the log's length now).
std::unique_ptr<NcclCommunicator>
createNcclCommunicator(int rank, int size, std::shared_ptr<Store> store, const NcclOptions &options,
                       std::unique_ptr<NcclDriver> driver, std::string &error,
                       std::optional<size_t> departuresBefore = std::nullopt);
bool connectNccl(const RendezvousOptions &options, int device, const NcclDriverFactory &factory,
                 std::unique_ptr<NcclCommunicator> &comm, std::string &error);
int cudaDeviceCount(NcclDriver &driver, std::string &why);

/// NCCL's element type for a reduction of `dtype`; an error naming `op`
/// and the supported types for the others.
Status ncclReductionType(const char *op, DType dtype, ncclDataType_t &type);
/// NCCL's reduction for `op`; an error for a value outside the enum.
Status ncclReduction(const char *op, ReduceOp reduceOp, ncclRedOp_t &nccl);

/// "ncclAllReduce: remote process exited or there was a network error
/// (NCCL: <ncclGetLastError>)".
std::string describeNccl(NcclDriver &driver, const char *call, ncclResult_t r, ncclComm_t comm);
/// "cudaSetDevice(1): invalid device ordinal (cudaErrorInvalidDevice)".
std::string describeCuda(NcclDriver &driver, const std::string &call, cudaError_t e);

} // namespace distc::comm::detail

#endif // DISTC_LIB_COMM_NCCLDRIVER_H
