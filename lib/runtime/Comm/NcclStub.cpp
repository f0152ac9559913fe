//===- NcclStub.cpp - NcclCommunicator in a build without NCCL ------------===//
//
// Built when CMake found no CUDA toolkit or no NCCL (DISTC_HAVE_NCCL is 0),
// so that callers link and call the same API everywhere: forming a
// communicator fails with a message saying what the build lacks.
//
//===----------------------------------------------------------------------===//

#include "distc/Comm/NcclCommunicator.h"

namespace distc::comm {

namespace {

const char *kNoNccl = "this build of distc has no NCCL (it was configured without a CUDA toolkit "
                      "with NCCL, or with -DDISTC_ENABLE_CUDA=OFF)";

} // namespace

class NcclCommunicator::Impl {
public:
  std::string broken = kNoNccl;
};

int cudaDeviceCount(std::string &why) {
  why = std::string("no CUDA device: ") + kNoNccl;
  return 0;
}

std::string ncclVersionString() { return ""; }

bool isNcclReducible(DType dtype) {
  return dtype == DType::Int8 || dtype == DType::UInt8 || dtype == DType::Int32 ||
         dtype == DType::Int64 || dtype == DType::Float16 || dtype == DType::BFloat16 ||
         dtype == DType::Float32 || dtype == DType::Float64;
}

std::unique_ptr<NcclCommunicator> NcclCommunicator::create(int, int, std::shared_ptr<Store>,
                                                           const NcclOptions &,
                                                           std::string &error) {
  error = kNoNccl;
  return nullptr;
}

bool connectNccl(const RendezvousOptions &, int, std::unique_ptr<NcclCommunicator> &,
                 std::string &error) {
  error = kNoNccl;
  return false;
}

// Unreachable: no communicator can be created. Defined for the linker.
NcclCommunicator::NcclCommunicator(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
NcclCommunicator::~NcclCommunicator() = default;
int NcclCommunicator::rank() const { return 0; }
int NcclCommunicator::size() const { return 1; }
int NcclCommunicator::device() const { return -1; }
CUstream_st *NcclCommunicator::stream() const { return nullptr; }
const std::string &NcclCommunicator::failure() const { return impl_->broken; }
void NcclCommunicator::adoptServer(std::unique_ptr<StoreServer>) {}
Status NcclCommunicator::allreduce(void *, size_t, DType, ReduceOp) {
  return Status::error(kNoNccl);
}
Status NcclCommunicator::broadcast(void *, size_t, DType, int) { return Status::error(kNoNccl); }
Status NcclCommunicator::reduce(void *, size_t, DType, ReduceOp, int) {
  return Status::error(kNoNccl);
}
Status NcclCommunicator::allgather(const void *, void *, size_t, DType) {
  return Status::error(kNoNccl);
}
Status NcclCommunicator::reduceScatter(const void *, void *, size_t, DType, ReduceOp) {
  return Status::error(kNoNccl);
}
Status NcclCommunicator::alltoall(const void *, void *, size_t, DType) {
  return Status::error(kNoNccl);
}
Status NcclCommunicator::barrier() { return Status::error(kNoNccl); }
Status NcclCommunicator::makeSubgroup(const std::vector<int> &, int,
                                      std::unique_ptr<NcclCommunicator> &) {
  return Status::error(kNoNccl);
}

} // namespace distc::comm
