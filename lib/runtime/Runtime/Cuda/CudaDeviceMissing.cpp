//===- CudaDeviceMissing.cpp - openCudaDevice in a build without CUDA -----===//

#include "CudaDevice.h"

namespace distc::runtime::cuda {

const bool kCudaDeviceBuilt = false;

std::unique_ptr<CudaDevice> openCudaDevice(int, std::string &error) {
  error = "this build has no CUDA backend: it was configured without a CUDA toolkit (install "
          "one, or point CUDAToolkit_ROOT at it, and rebuild)";
  return nullptr;
}

} // namespace distc::runtime::cuda
