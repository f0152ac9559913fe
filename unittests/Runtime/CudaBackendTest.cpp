//===- CudaBackendTest.cpp - The CUDA backend, over a fake and a real device ===//
//
// CudaBackendFake: the backend's own logic on any machine, over a host
// fake of CudaDevice whose GEMM follows cuBLAS's column-major contract to
// the letter, so the row-major mapping, the batching, which kernels run
// where, when the host waits for the device, and the training numbers
// are all checked against the CPU backend.
//
// CudaBackendGpu: the same numbers on CUDA device 0; skipped, saying why,
// where there is none (or the build has no CUDA).
//
//===----------------------------------------------------------------------===//

#include "CudaDevice.h"
#include "TestArtifacts.h"
#include "TrainArtifacts.h"
#include "distc/Runtime/CudaBackend.h"
#include "distc/Runtime/DistModel.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <functional>

using namespace distc::testing;
using distc::runtime::Backend;
using distc::runtime::DistModel;
using distc::runtime::StepResult;
using distc::runtime::cuda::ColumnMajorGemm;
using distc::runtime::cuda::CudaDevice;

namespace {

/// Host memory standing in for managed memory, and cuBLAS's GEMM as its
/// documentation defines it, in double.
class FakeDevice final : public CudaDevice {
public:
  /// What the backend asked for, in order: "gemm batch=B", "copy",
  /// "zero", "sync".
  std::vector<std::string> log;
  int live = 0;
  bool outOfMemory = false;
  /// Returned (once) by the next synchronize().
  std::string asyncError;

  std::string describe() const override { return "a fake device"; }

  void *allocateManaged(size_t bytes) override {
    if (outOfMemory)
      return nullptr;
    ++live;
    return std::calloc(1, bytes);
  }
  void release(void *p) override {
    --live;
    std::free(p);
  }
  void copy(void *dst, const void *src, size_t bytes) override {
    log.push_back("copy");
    std::memcpy(dst, src, bytes);
  }
  void zero(void *dst, size_t bytes) override {
    log.push_back("zero");
    std::memset(dst, 0, bytes);
  }
  distc::runtime::Status gemm(const ColumnMajorGemm &g) override {
    log.push_back("gemm batch=" + std::to_string(g.batch));
    if (g.dtype == DType::Float64)
      columnMajorGemm<double>(g);
    else
      columnMajorGemm<float>(g);
    return Status::success();
  }
  Status synchronize() override {
    log.push_back("sync");
    std::string e = std::move(asyncError);
    asyncError.clear();
    return e.empty() ? Status::success() : Status::error(e);
  }

  size_t count(const std::string &entry) const {
    return size_t(std::count(log.begin(), log.end(), entry));
  }

private:
  template <typename T> static void columnMajorGemm(const ColumnMajorGemm &g) {
    for (int i = 0; i < g.batch; ++i) {
      const T *a = static_cast<const T *>(g.a) + i * g.strideA;
      const T *b = static_cast<const T *>(g.b) + i * g.strideB;
      T *c = static_cast<T *>(g.c) + i * g.strideC;
      for (int col = 0; col < g.n; ++col)
        for (int row = 0; row < g.m; ++row) {
          double sum = 0;
          for (int l = 0; l < g.k; ++l) {
            const double x = g.transA ? a[l + int64_t(row) * g.lda] : a[row + int64_t(l) * g.lda];
            const double y = g.transB ? b[col + int64_t(l) * g.ldb] : b[l + int64_t(col) * g.ldb];
            sum += x * y;
          }
          c[row + int64_t(col) * g.ldc] = T(sum);
        }
    }
  }
};

using BackendFactory = std::function<std::unique_ptr<Backend>()>;

/// A backend over a new FakeDevice, which `fake` then points at.
BackendFactory fakeBackends(std::shared_ptr<FakeDevice> &fake) {
  return [&fake] {
    fake = std::make_shared<FakeDevice>();
    return distc::runtime::cuda::createCudaBackendOn(fake);
  };
}

/// The CUDA backend on device 0, or why there is none.
std::unique_ptr<Backend> realBackend(std::string &why) {
  return distc::runtime::createCudaBackend(0, why);
}

#define SKIP_WITHOUT_A_CUDA_DEVICE()                                                               \
  do {                                                                                             \
    std::string why;                                                                               \
    if (!realBackend(why))                                                                         \
      GTEST_SKIP() << why;                                                                         \
  } while (0)

struct MatmulCase {
  Shape a, b, out;
  bool transA, transB;
  /// GEMM calls the fake expects: one per batch when a and b broadcast in
  /// a mix, else one.
  std::string expectedGemm;
};

const std::vector<MatmulCase> kMatmulCases = {
    {{3, 5}, {5, 4}, {3, 4}, false, false, "gemm batch=1"},
    {{5, 3}, {5, 4}, {3, 4}, true, false, "gemm batch=1"},
    {{3, 5}, {4, 5}, {3, 4}, false, true, "gemm batch=1"},
    {{5, 3}, {4, 5}, {3, 4}, true, true, "gemm batch=1"},
    {{2, 3, 5}, {2, 5, 4}, {2, 3, 4}, false, false, "gemm batch=2"},
    {{2, 5, 3}, {2, 4, 5}, {2, 3, 4}, true, true, "gemm batch=2"},
    {{2, 3, 5}, {1, 5, 4}, {2, 3, 4}, false, false, "gemm batch=1"}, // a linear layer
    {{2, 5, 3}, {1, 5, 4}, {2, 3, 4}, true, false, "gemm batch=2"},  // b broadcast
    {{1, 3, 5}, {3, 4, 5}, {3, 3, 4}, false, true, "gemm batch=3"},  // a broadcast
    {{2, 1, 5, 3}, {1, 3, 5, 2}, {2, 3, 3, 2}, true, false, "gemm batch=1"}, // a mix: 6 calls
    {{1, 7}, {7, 1}, {1, 1}, false, false, "gemm batch=1"},
};

/// Every case on `make`'s backend against the CPU kernel.
void expectMatmulLikeTheCpu(const BackendFactory &make, const std::function<void(size_t)> &after) {
  std::mt19937_64 rng(11);
  for (DType dt : {DType::Float32, DType::Float64})
    for (size_t i = 0; i < kMatmulCases.size(); ++i) {
      const MatmulCase &c = kMatmulCases[i];
      SCOPED_TRACE("case " + std::to_string(i) + (dt == DType::Float32 ? " f32" : " f64"));
      Tensor a = randomTensor(dt, c.a, rng), b = randomTensor(dt, c.b, rng);
      std::vector<AttrDesc> attrs = {AttrDesc::ofInt("trans_a", c.transA),
                                     AttrDesc::ofInt("trans_b", c.transB)};
      std::vector<Tensor> cpu, device;
      ASSERT_TRUE(runKernel("matmul", {a, b}, {{dt, c.out}}, attrs, cpu).ok());
      Status s = runKernelOn(make(), "matmul", {a, b}, {{dt, c.out}}, attrs, device);
      ASSERT_TRUE(s.ok()) << s.message();
      std::vector<double> expected;
      for (int64_t e = 0; e < cpu[0].numel(); ++e)
        expected.push_back(elementAt(cpu[0], e));
      expectClose(device[0], expected, dt == DType::Float32 ? 1e-5 : 1e-12, 1e-6);
      after(i);
    }
}

TEST(CudaBackendFake, MatmulMapsRowMajorOntoCublasOnEveryBatchingPath) {
  std::shared_ptr<FakeDevice> fake;
  expectMatmulLikeTheCpu(fakeBackends(fake), [&](size_t i) {
    const MatmulCase &c = kMatmulCases[i];
    const size_t calls = fake->count("gemm batch=1") + fake->count("gemm batch=2") +
                         fake->count("gemm batch=3");
    EXPECT_EQ(fake->count(c.expectedGemm), c.expectedGemm == "gemm batch=1" && i == 9 ? 6u : 1u);
    EXPECT_EQ(calls, i == 9 ? 6u : 1u);
  });
}

TEST(CudaBackendFake, HostKernelsWaitForTheDeviceAndProgramsEndSynchronized) {
  // h = relu(x @ w): matmul on the device, unary on the host.
  ArtifactBuilder b;
  auto &p = b.program("predict");
  int x = b.buffer("x", DType::Float32, Shape{2, 3}, BufferKind::Feed);
  int w = b.buffer("w", DType::Float32, Shape{3, 2}, BufferKind::Feed);
  int xw = b.buffer("xw", DType::Float32, Shape{2, 2});
  int h = b.buffer("h", DType::Float32, Shape{2, 2});
  p.feeds = {{"x", x}, {"w", w}};
  p.fetches = {{"h", h}};
  b.call(p, "matmul", {x, w}, {xw});
  b.call(p, "unary", {xw}, {h}, {AttrDesc::ofString("op", "relu")});
  std::string error;
  auto fake = std::make_shared<FakeDevice>();
  auto session =
      distc::runtime::Session::create(b.load(error), distc::runtime::cuda::createCudaBackendOn(fake),
                                      error);
  ASSERT_TRUE(session) << error;
  Tensor xt = tensorOf(DType::Float32, {2, 3}, {1, 2, 3, -1, -2, -3});
  Tensor wt = tensorOf(DType::Float32, {3, 2}, {1, 0, 0, 1, 1, 1});
  TensorMap fetches;
  Status s = session->run("predict", {{"x", xt}, {"w", wt}}, fetches);
  ASSERT_TRUE(s.ok()) << s.message();
  expectClose(fetches["h"], {4, 5, 0, 0}, 0, 0);
  // Feeds copied in, the GEMM queued, a wait before the host kernel, one
  // before the fetches are read and one at the end of the program.
  EXPECT_EQ(fake->log, (std::vector<std::string>{"copy", "copy", "gemm batch=1", "sync", "sync",
                                                 "sync"}));
}

TEST(CudaBackendFake, AnAsynchronousDeviceErrorFailsTheNextHostCallAndNamesIt) {
  std::shared_ptr<FakeDevice> fake;
  auto backend = fakeBackends(fake)();
  fake->asyncError = "cudaErrorIllegalAddress: an illegal memory access was encountered";
  Tensor x = tensorOf(DType::Float32, {2}, {1, -1});
  std::vector<Tensor> out;
  Status s = runKernelOn(std::move(backend), "unary", {x}, {{DType::Float32, {2}}},
                         {AttrDesc::ofString("op", "relu")}, out);
  ASSERT_FALSE(s.ok());
  EXPECT_CONTAINS(s.message(), "'unary'");
  EXPECT_CONTAINS(s.message(), "the CUDA device failed before this call");
  EXPECT_CONTAINS(s.message(), "illegal memory access");
}

TEST(CudaBackendFake, OutOfDeviceMemoryIsAnErrorNotACrash) {
  auto fake = std::make_shared<FakeDevice>();
  fake->outOfMemory = true;
  ArtifactBuilder b;
  b.desc = classifierArtifact(4, 8, 3);
  std::string error;
  auto session =
      distc::runtime::Session::create(b.load(error), distc::runtime::cuda::createCudaBackendOn(fake),
                                      error);
  EXPECT_FALSE(session);
  EXPECT_CONTAINS(error, "memory");
}

TEST(CudaBackendFake, TensorsKeepTheirMemoryUntilTheLastReferenceGoes) {
  auto fake = std::make_shared<FakeDevice>();
  Tensor kept;
  {
    auto backend = distc::runtime::cuda::createCudaBackendOn(fake);
    kept = backend->allocate(DType::Float32, {4});
    Tensor other = backend->allocate(DType::Int64, {0});
    EXPECT_EQ(fake->live, 2);
  }
  EXPECT_EQ(fake->live, 1);
  kept = Tensor();
  EXPECT_EQ(fake->live, 0);
}

TEST(CudaBackendFake, EveryCpuKernelRunsAndTheDeviceOnesAreListed) {
  auto backend = distc::runtime::cuda::createCudaBackendOn(std::make_shared<FakeDevice>());
  for (const std::string &kernel : distc::runtime::cpuKernelRegistry().names())
    EXPECT_NE(backend->findKernel(kernel), nullptr) << kernel;
  EXPECT_EQ(backend->findKernel("no_such_kernel"), nullptr);
  const std::vector<std::string> device = distc::runtime::cudaDeviceKernels();
  EXPECT_NE(std::find(device.begin(), device.end(), "matmul"), device.end());
  EXPECT_NE(std::find(device.begin(), device.end(), "c_allreduce"), device.end());
  for (const char *sharding :
       {"c_allgather", "c_reducescatter", "c_alltoall", "c_split", "c_root_only"})
    EXPECT_NE(std::find(device.begin(), device.end(), sharding), device.end()) << sharding;
  EXPECT_CONTAINS(backend->describe(), "matmul");
  EXPECT_CONTAINS(backend->describe(), "a fake device");
}

/// Rank 1 of 2 for kernels that do not communicate.
class SecondOfTwo final : public distc::runtime::Collectives {
public:
  int rank() const override { return 1; }
  int size() const override { return 2; }
  Status allreduce(Tensor &, const std::string &) override { return Status::error("unexpected"); }
  Status broadcast(Tensor &, int) override { return Status::error("unexpected"); }
  Status reduce(Tensor &, const std::string &, int) override { return Status::error("unexpected"); }
};

TEST(CudaBackendFake, ShardingKernelsMoveBytesOnTheDevice) {
  // c_split (rank 1's half along axis 1) and c_root_only (zeros off the
  // root) run as device kernels: through the device's copy and zero, not
  // on the host after a synchronize.
  for (const std::string kernel : {"c_split", "c_root_only"}) {
    ArtifactBuilder b;
    b.desc.worldSize = 2;
    auto &p = b.program("predict");
    int x = b.buffer("x", DType::Float32, Shape{2, 4}, BufferKind::Feed);
    const Shape outShape = kernel == "c_split" ? Shape{2, 2} : Shape{2, 4};
    int out = b.buffer("out", DType::Float32, outShape);
    p.feeds = {{"x", x}};
    p.fetches = {{"out", out}};
    b.call(p, kernel, {x}, {out}, {AttrDesc::ofInt("axis", 1)});
    std::shared_ptr<FakeDevice> fake;
    std::string error;
    auto session = distc::runtime::Session::create(b.load(error), fakeBackends(fake)(), error);
    ASSERT_TRUE(session) << error;
    ASSERT_TRUE(session->setCollectives(std::make_shared<SecondOfTwo>()).ok());
    TensorMap fetches;
    Tensor in = tensorOf(DType::Float32, {2, 4}, {0, 1, 2, 3, 4, 5, 6, 7});
    const size_t syncsBefore = fake->count("sync");
    Status s = session->run("predict", {{"x", in}}, fetches);
    ASSERT_TRUE(s.ok()) << s.message();
    const std::vector<double> expected =
        kernel == "c_split" ? std::vector<double>{2, 3, 6, 7} : std::vector<double>(8, 0.0);
    expectClose(fetches["out"], expected, 0, 0);
    if (kernel == "c_split")
      EXPECT_EQ(fake->count("copy"), 3u); // the feed, then one row at a time
    else
      EXPECT_EQ(fake->count("zero"), 1u);
    // Only the session's own: before the fetch and at the end of the program.
    EXPECT_EQ(fake->count("sync") - syncsBefore, 2u);
  }
}

/// The classifier (Adam, dropout) trained for 12 steps on `backend`: the
/// losses and the final state.
void train(std::unique_ptr<Backend> backend, std::vector<double> &losses, TensorMap &state) {
  TrainArtifactOptions options;
  options.optimizer = "adam";
  options.learningRate = 0.05;
  options.dropout = 0.25;
  ArtifactBuilder b;
  b.desc = classifierArtifact(4, 16, 3, options);
  std::string error;
  auto session = distc::runtime::Session::create(b.load(error), std::move(backend), error);
  ASSERT_TRUE(session) << error;
  auto model = DistModel::create(std::move(session), error);
  ASSERT_TRUE(model) << error;
  ASSERT_TRUE(model->initialize().ok());
  for (int i = 0; i < 12; ++i) {
    StepResult r;
    Status s = model->step(classifierBatch(32, 50 + i), r);
    ASSERT_TRUE(s.ok()) << s.message();
    losses.push_back(r.loss);
  }
  ASSERT_TRUE(model->stateDict("all", state).ok());
}

/// Training on `make`'s backend gives the CPU backend's losses (1e-5
/// relative) and state.
void expectTrainingLikeTheCpu(const BackendFactory &make) {
  std::vector<double> cpuLosses, losses;
  TensorMap cpuState, state;
  train(nullptr, cpuLosses, cpuState);
  train(make(), losses, state);
  ASSERT_EQ(losses.size(), cpuLosses.size());
  for (size_t i = 0; i < losses.size(); ++i)
    EXPECT_NEAR(losses[i], cpuLosses[i], 1e-5 * std::abs(cpuLosses[i])) << "step " << i;
  ASSERT_EQ(state.size(), cpuState.size());
  for (const auto &[name, value] : cpuState) {
    SCOPED_TRACE(name);
    std::vector<double> expected;
    for (int64_t e = 0; e < value.numel(); ++e)
      expected.push_back(elementAt(value, e));
    expectClose(state.at(name), expected, 1e-4, 1e-5);
  }
}

TEST(CudaBackendFake, TrainingMatchesTheCpuBackend) {
  std::shared_ptr<FakeDevice> fake;
  expectTrainingLikeTheCpu(fakeBackends(fake));
  EXPECT_GT(fake->count("gemm batch=1"), 0u);
}

TEST(CudaBackend, WithoutADeviceCreationSaysWhy) {
  std::string why;
  if (realBackend(why))
    GTEST_SKIP() << "this machine has a CUDA device (the CudaBackendGpu tests use it)";
  if (distc::runtime::cudaBackendBuilt())
    EXPECT_CONTAINS(why, "no CUDA device");
  else
    EXPECT_CONTAINS(why, "this build has no CUDA backend");
}

TEST(CudaBackendGpu, MatmulMatchesTheCpuKernel) {
  SKIP_WITHOUT_A_CUDA_DEVICE();
  expectMatmulLikeTheCpu(
      [] {
        std::string why;
        return realBackend(why);
      },
      [](size_t) {});
}

TEST(CudaBackendGpu, TrainingMatchesTheCpuBackend) {
  SKIP_WITHOUT_A_CUDA_DEVICE();
  expectTrainingLikeTheCpu([] {
    std::string why;
    return realBackend(why);
  });
}

TEST(CudaBackendGpu, AnOrdinalOutOfRangeIsNamed) {
  SKIP_WITHOUT_A_CUDA_DEVICE();
  std::string why;
  EXPECT_FALSE(distc::runtime::createCudaBackend(4096, why));
  EXPECT_CONTAINS(why, "CUDA device 4096 does not exist");
}

} // namespace
