//===- MatmulKernelTest.cpp - batched, transposed, broadcast matmul -------===//

#include "TestArtifacts.h"

#include <gtest/gtest.h>

using namespace distc::testing;

namespace {

struct MatmulCase {
  Shape a, b, out;
  bool transA, transB;
};

std::vector<double> matmulRef(const Tensor &a, const Tensor &b, const MatmulCase &c) {
  const int r = int(c.out.size());
  const int64_t m = c.out[r - 2], n = c.out[r - 1];
  const int64_t k = c.transA ? c.a[r - 2] : c.a[r - 1];
  std::vector<double> ref(distc::runtime::shapeNumel(c.out));
  for (size_t f = 0; f < ref.size(); ++f) {
    auto idx = unflatIndex(c.out, int64_t(f));
    auto ai = idx, bi = idx;
    for (int d = 0; d < r - 2; ++d) {
      if (c.a[d] == 1)
        ai[d] = 0;
      if (c.b[d] == 1)
        bi[d] = 0;
    }
    const int64_t i = idx[r - 2], j = idx[r - 1];
    double sum = 0;
    for (int64_t p = 0; p < k; ++p) {
      ai[r - 2] = c.transA ? p : i;
      ai[r - 1] = c.transA ? i : p;
      bi[r - 2] = c.transB ? j : p;
      bi[r - 1] = c.transB ? p : j;
      sum += elementAt(a, flatIndex(c.a, ai)) * elementAt(b, flatIndex(c.b, bi));
    }
    ref[f] = sum;
    (void)m;
    (void)n;
  }
  return ref;
}

TEST(MatmulKernel, AgainstReference) {
  std::mt19937_64 rng(4);
  std::vector<MatmulCase> cases = {
      {{3, 5}, {5, 4}, {3, 4}, false, false},
      {{5, 3}, {5, 4}, {3, 4}, true, false},
      {{3, 5}, {4, 5}, {3, 4}, false, true},
      {{5, 3}, {4, 5}, {3, 4}, true, true},
      {{2, 3, 5}, {2, 5, 4}, {2, 3, 4}, false, false},
      {{2, 3, 5}, {1, 5, 4}, {2, 3, 4}, false, false}, // broadcast b
      {{1, 3, 5}, {3, 4, 5}, {3, 3, 4}, false, true},  // broadcast a
      {{2, 1, 5, 3}, {1, 3, 5, 2}, {2, 3, 3, 2}, true, false},
      {{1, 7}, {7, 1}, {1, 1}, false, false},
  };
  for (DType dt : {DType::Float32, DType::Float64})
    for (const MatmulCase &c : cases) {
      Tensor a = randomTensor(dt, c.a, rng), b = randomTensor(dt, c.b, rng);
      std::vector<Tensor> out;
      Status s = runKernel(
          "matmul", {a, b}, {{dt, c.out}},
          {AttrDesc::ofInt("trans_a", c.transA), AttrDesc::ofInt("trans_b", c.transB)}, out);
      ASSERT_TRUE(s.ok()) << s.message();
      expectClose(out[0], matmulRef(a, b, c), dt == DType::Float32 ? 1e-5 : 1e-13, 1e-6);
    }
}

TEST(MatmulKernel, ShapeMismatchNamesTheCall) {
  Tensor a(DType::Float32, {3, 5}), b(DType::Float32, {4, 4});
  std::vector<Tensor> out;
  Status s = runKernel("matmul", {a, b}, {{DType::Float32, {3, 4}}}, {}, out);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("matmul -> out0"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("do not multiply"), std::string::npos) << s.message();
}

TEST(MatmulKernel, RejectsIntegerDtype) {
  Tensor a(DType::Int32, {2, 2}), b(DType::Int32, {2, 2});
  std::vector<Tensor> out;
  Status s = runKernel("matmul", {a, b}, {{DType::Int32, {2, 2}}}, {}, out);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("unsupported dtype i32"), std::string::npos) << s.message();
}

} // namespace
