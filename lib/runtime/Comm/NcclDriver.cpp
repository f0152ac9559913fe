//===- NcclDriver.cpp - The real CUDA and NCCL calls ----------------------===//

#include "NcclDriver.h"

namespace distc::comm::detail {

NcclDriver::~NcclDriver() = default;

namespace {

class CudaNcclDriver final : public NcclDriver {
public:
  cudaError_t getDeviceCount(int *count) override {
    cudaError_t e = cudaGetDeviceCount(count);
    if (e != cudaSuccess)
      (void)cudaGetLastError(); // not sticky: later calls must not see it
    return e;
  }
  cudaError_t driverGetVersion(int *version) override { return cudaDriverGetVersion(version); }
  cudaError_t runtimeGetVersion(int *version) override { return cudaRuntimeGetVersion(version); }
  cudaError_t setDevice(int device) override { return cudaSetDevice(device); }
  cudaError_t streamCreate(cudaStream_t *stream) override {
    // A blocking stream: work on the legacy default stream is ordered
    // before what this stream runs.
    return cudaStreamCreateWithFlags(stream, cudaStreamDefault);
  }
  cudaError_t streamDestroy(cudaStream_t stream) override { return cudaStreamDestroy(stream); }
  cudaError_t streamQuery(cudaStream_t stream) override { return cudaStreamQuery(stream); }
  cudaError_t deviceMalloc(void **ptr, size_t bytes) override { return cudaMalloc(ptr, bytes); }
  cudaError_t deviceFree(void *ptr) override { return cudaFree(ptr); }
  const char *cudaErrorName(cudaError_t e) override { return cudaGetErrorName(e); }
  const char *cudaErrorString(cudaError_t e) override { return cudaGetErrorString(e); }

  ncclResult_t getUniqueId(ncclUniqueId *id) override { return ncclGetUniqueId(id); }
  ncclResult_t commInitRankConfig(ncclComm_t *comm, int nranks, ncclUniqueId id, int rank,
                                  ncclConfig_t *config) override {
    return ncclCommInitRankConfig(comm, nranks, id, rank, config);
  }
  ncclResult_t commGetAsyncError(ncclComm_t comm, ncclResult_t *state) override {
    return ncclCommGetAsyncError(comm, state);
  }
  ncclResult_t commFinalize(ncclComm_t comm) override { return ncclCommFinalize(comm); }
  ncclResult_t commDestroy(ncclComm_t comm) override { return ncclCommDestroy(comm); }
  ncclResult_t commAbort(ncclComm_t comm) override { return ncclCommAbort(comm); }
  const char *getErrorString(ncclResult_t r) override { return ncclGetErrorString(r); }
  const char *getLastError(ncclComm_t comm) override { return ncclGetLastError(comm); }
  ncclResult_t allReduce(const void *send, void *recv, size_t count, ncclDataType_t type,
                         ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream) override {
    return ncclAllReduce(send, recv, count, type, op, comm, stream);
  }
  ncclResult_t broadcast(const void *send, void *recv, size_t count, ncclDataType_t type, int root,
                         ncclComm_t comm, cudaStream_t stream) override {
    return ncclBroadcast(send, recv, count, type, root, comm, stream);
  }
  ncclResult_t reduce(const void *send, void *recv, size_t count, ncclDataType_t type,
                      ncclRedOp_t op, int root, ncclComm_t comm, cudaStream_t stream) override {
    return ncclReduce(send, recv, count, type, op, root, comm, stream);
  }
  ncclResult_t allGather(const void *send, void *recv, size_t countPerRank, ncclDataType_t type,
                         ncclComm_t comm, cudaStream_t stream) override {
    return ncclAllGather(send, recv, countPerRank, type, comm, stream);
  }
  ncclResult_t reduceScatter(const void *send, void *recv, size_t recvCount, ncclDataType_t type,
                             ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream) override {
    return ncclReduceScatter(send, recv, recvCount, type, op, comm, stream);
  }
  ncclResult_t allToAll(const void *send, void *recv, size_t countPerRank, ncclDataType_t type,
                        int nranks, ncclComm_t comm, cudaStream_t stream) override {
    // NcclCommunicator moves bytes (ncclUint8): chunk k starts k * count in.
    if (type != ncclUint8)
      return ncclInvalidArgument;
    ncclResult_t r = ncclGroupStart();
    if (r != ncclSuccess)
      return r;
    for (int peer = 0; peer < nranks; ++peer) {
      const size_t at = size_t(peer) * countPerRank;
      ncclResult_t s =
          ncclSend(static_cast<const char *>(send) + at, countPerRank, type, peer, comm, stream);
      if (s == ncclSuccess || s == ncclInProgress)
        s = ncclRecv(static_cast<char *>(recv) + at, countPerRank, type, peer, comm, stream);
      if (s != ncclSuccess && s != ncclInProgress) {
        (void)ncclGroupEnd();
        return s;
      }
    }
    return ncclGroupEnd();
  }

  bool canSplit() override {
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 18, 0)
    return true;
#else
    return false;
#endif
  }
  ncclResult_t commSplit(ncclComm_t comm, int color, int key, ncclComm_t *newcomm,
                         ncclConfig_t *config) override {
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 18, 0)
    return ncclCommSplit(comm, color, key, newcomm, config);
#else
    (void)comm, (void)color, (void)key, (void)newcomm, (void)config;
    return ncclInvalidUsage;
#endif
  }
  std::unique_ptr<NcclDriver> another() override { return std::make_unique<CudaNcclDriver>(); }
};

} // namespace

std::unique_ptr<NcclDriver> cudaNcclDriver() { return std::make_unique<CudaNcclDriver>(); }

} // namespace distc::comm::detail
