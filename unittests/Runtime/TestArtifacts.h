//===- TestArtifacts.h - Building small artifacts in tests ------*- C++ -*-===//
//
// Tests describe artifacts with ArtifactDesc (exactly what the compiler's
// lowering fills), serialize and load them through the real loader, and run
// them through the real Session. runKernel wraps one kernel call in a
// predict program so kernel tests need only tensors and attributes.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_UNITTESTS_RUNTIME_TESTARTIFACTS_H
#define DISTC_UNITTESTS_RUNTIME_TESTARTIFACTS_H

#include "../../lib/runtime/Runtime/Kernels/Parallel.h"
#include "distc/Artifact/ArtifactDesc.h"
#include "distc/Artifact/ArtifactFile.h"
#include "distc/Runtime/Session.h"

#include <memory>
#include <random>
#include <string>
#include <vector>

/// Expects the string `haystack` to contain `needle`, printing it if not.
#define EXPECT_CONTAINS(haystack, needle)                                                          \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << (haystack)

namespace distc::testing {

/// Runs the kernels on `n` threads while in scope (0: the default again).
struct KernelThreads {
  explicit KernelThreads(int n) { runtime::kernels::setKernelThreads(n); }
  ~KernelThreads() { runtime::kernels::setKernelThreads(0); }
};

using artifact::ArtifactDesc;
using artifact::AttrDesc;
using artifact::BufferKind;
using artifact::DimDesc;
using artifact::ProgramKind;
using runtime::DType;
using runtime::Shape;
using runtime::Status;
using runtime::Tensor;
using runtime::TensorMap;

class ArtifactBuilder {
public:
  ArtifactBuilder();

  int symbol(const std::string &name);
  int buffer(const std::string &name, DType dtype, std::vector<DimDesc> dims,
             BufferKind kind = BufferKind::Temp, int aliasOf = -1);
  int buffer(const std::string &name, DType dtype, const Shape &shape,
             BufferKind kind = BufferKind::Temp);
  artifact::ProgramDesc &program(const std::string &mode, ProgramKind kind = ProgramKind::Main);
  void call(artifact::ProgramDesc &program, const std::string &kernel, std::vector<int32_t> inputs,
            std::vector<int32_t> outputs, std::vector<AttrDesc> attrs = {},
            const std::string &origin = "");

  ArtifactDesc desc;

  /// Full file bytes (header + payload).
  std::vector<uint8_t> fileBytes() const;
  /// Loads through LoadedArtifact::loadBytes; null with `error` on failure.
  std::unique_ptr<artifact::LoadedArtifact> load(std::string &error) const;
  /// A session over the loaded artifact; fails the test on error.
  std::unique_ptr<runtime::Session> session() const;
};

/// Runs a single kernel: every input becomes a static Feed buffer, every
/// output a Temp buffer of the given type, fetched back into `outputs`.
/// Absent optional inputs: pass an undefined Tensor.
struct OutputSpec {
  DType dtype;
  Shape shape;
};
Status runKernel(const std::string &kernel, const std::vector<Tensor> &inputs,
                 const std::vector<OutputSpec> &outputSpecs, const std::vector<AttrDesc> &attrs,
                 std::vector<Tensor> &outputs, const std::vector<bool> &absentOutputs = {});
/// runKernel for a kernel with one output: returns it, or fails the test
/// (and returns zeros of `spec`) when the kernel fails.
Tensor run1(const std::string &kernel, const std::vector<Tensor> &inputs, const OutputSpec &spec,
            const std::vector<AttrDesc> &attrs);
/// Expects the same dtype, shape and bits (signs of zeros included), naming
/// the first element that differs.
void expectSameBits(const Tensor &got, const Tensor &want, const std::string &what);
/// runKernel on `backend` (the CPU backend if null).
Status runKernelOn(std::unique_ptr<runtime::Backend> backend, const std::string &kernel,
                   const std::vector<Tensor> &inputs, const std::vector<OutputSpec> &outputSpecs,
                   const std::vector<AttrDesc> &attrs, std::vector<Tensor> &outputs);

/// Central finite differences, in float64, of sum_k weights[k] * out[k],
/// where out is output `outputIndex` of `kernel` run (through runKernel and
/// so the CPU kernel registry) on `inputs`, with respect to every element of
/// the Float64 tensor inputs[wrt]. Used to check gradient kernels against
/// their forward kernels.
std::vector<double> numericGradient(const std::string &kernel, const std::vector<Tensor> &inputs,
                                    const std::vector<OutputSpec> &outputSpecs,
                                    const std::vector<AttrDesc> &attrs, int outputIndex,
                                    const Tensor &weights, int wrt, double step = 1e-5);

/// Uniform random values in [lo, hi) for float dtypes, integers in [lo, hi].
Tensor randomTensor(DType dtype, const Shape &shape, std::mt19937_64 &rng, double lo = -1,
                    double hi = 1);
Tensor tensorOf(DType dtype, const Shape &shape, const std::vector<double> &values);

/// Element i as double, for any dtype.
double elementAt(const Tensor &t, int64_t i);

/// Expects equal shapes and |a-b| <= atol + rtol*|b| everywhere.
void expectClose(const Tensor &got, const std::vector<double> &expected, double rtol, double atol);

/// float64 references: `op` of x and y with NumPy broadcasting over equal
/// ranks into `out`; and the reduce kernel's `op` (sum, mean, max, min)
/// over `axes` of x, in the order of the kept dims.
std::vector<double> broadcastRef(const Tensor &x, const Tensor &y, const Shape &out,
                                 double (*op)(double, double));
std::vector<double> reduceRef(const Tensor &x, const std::vector<int64_t> &axes,
                              const std::string &op);

/// Flat index of `idx` in row-major `shape`, and its inverse.
int64_t flatIndex(const Shape &shape, const std::vector<int64_t> &idx);
std::vector<int64_t> unflatIndex(const Shape &shape, int64_t flat);

} // namespace distc::testing

#endif // DISTC_UNITTESTS_RUNTIME_TESTARTIFACTS_H
