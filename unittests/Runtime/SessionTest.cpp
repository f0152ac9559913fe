//===- SessionTest.cpp - symbol binding, views, parameters, .npy ----------===//

#include "TestArtifacts.h"

#include "distc/Runtime/Npy.h"
#include "distc/Runtime/TensorFormat.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

using namespace distc::testing;
namespace fs = std::filesystem;

namespace {

/// x: f32[?,4], y: f32[2*?,4] (x.dim0 bound by both), w persistent [4,3]
/// z = concat(x, y viewed as [?,2,4] rows...) kept simple: out = x @ w,
/// plus fetch of the concat of x and y along axis 0 ([3*?,4]).
struct TwoFeedArtifact {
  ArtifactBuilder b;
  TwoFeedArtifact() {
    int s = b.symbol("x.dim0");
    int x =
        b.buffer("x", DType::Float32, {DimDesc::symbolic(s), DimDesc::fixed(4)}, BufferKind::Feed);
    int y = b.buffer("y", DType::Float32, {DimDesc::symbolic(s, 2), DimDesc::fixed(4)},
                     BufferKind::Feed);
    int w = b.buffer("w", DType::Float32, Shape{4, 3}, BufferKind::Persistent);
    int xw = b.buffer("xw", DType::Float32, {DimDesc::symbolic(s), DimDesc::fixed(3)});
    int cat = b.buffer("cat", DType::Float32, {DimDesc::symbolic(s, 3), DimDesc::fixed(4)});
    int flat =
        b.buffer("cat@flat", DType::Float32, {DimDesc::symbolic(s, 12)}, BufferKind::View, cat);
    int half = b.buffer("cat@half", DType::Float32, {DimDesc::symbolic(s, 3, 2), DimDesc::fixed(8)},
                        BufferKind::View, flat);
    auto &start = b.program("predict", ProgramKind::Startup);
    b.call(start, "fill", {}, {w}, {AttrDesc::ofFloat("value", 0.5)}, "fill_constant -> w");
    auto &p = b.program("predict");
    p.feeds = {{"x", x}, {"y", y}};
    p.fetches = {{"xw", xw}, {"flat", flat}, {"half", half}};
    b.call(p, "matmul", {x, w}, {xw}, {}, "mul -> xw");
    b.call(p, "concat", {x, y}, {cat}, {AttrDesc::ofInt("axis", 0)}, "concat -> cat");
  }
};

TEST(Session, RunsWithBoundSymbolsAndViews) {
  TwoFeedArtifact a;
  auto session = a.b.session();
  ASSERT_TRUE(session);
  EXPECT_EQ(session->modes(), std::vector<std::string>{"predict"});
  ASSERT_TRUE(session->initialize("predict").ok());
  std::mt19937_64 rng(20);
  TensorMap feeds = {{"x", randomTensor(DType::Float32, {2, 4}, rng)},
                     {"y", randomTensor(DType::Float32, {4, 4}, rng)}};
  TensorMap fetches;
  Status s = session->run("predict", feeds, fetches);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(fetches["xw"].typeString(), "f32[2,3]");
  EXPECT_EQ(fetches["flat"].typeString(), "f32[24]");
  EXPECT_EQ(fetches["half"].typeString(), "f32[3,8]");
  double row0 = 0;
  for (int k = 0; k < 4; ++k)
    row0 += 0.5 * elementAt(feeds["x"], k);
  EXPECT_NEAR(elementAt(fetches["xw"], 0), row0, 1e-6);
  EXPECT_EQ(elementAt(fetches["flat"], 8), elementAt(feeds["y"], 0));
}

TEST(Session, SymbolBindingErrors) {
  TwoFeedArtifact a;
  auto session = a.b.session();
  ASSERT_TRUE(session);
  ASSERT_TRUE(session->initialize("predict").ok());
  TensorMap fetches;
  Tensor x(DType::Float32, {2, 4});
  auto run = [&](TensorMap feeds) { return session->run("predict", feeds, fetches).message(); };
  EXPECT_CONTAINS(run({{"x", x}}), "missing feed 'y' (expected f32[?,4])");
  EXPECT_CONTAINS(run({{"x", x}, {"y", Tensor(DType::Float32, {5, 4})}}),
                  "feed 'y' dim 0 is 5, which no value of x.dim0 gives for 2*x.dim0");
  EXPECT_CONTAINS(run({{"x", x}, {"y", Tensor(DType::Float32, {6, 4})}}),
                  "feed 'y' dim 0 is 6, giving x.dim0 = 3, but feed 'x' dim 0 gave x.dim0 = 2");
  EXPECT_CONTAINS(run({{"x", x}, {"y", Tensor(DType::Float32, {4, 5})}}),
                  "feed 'y' dim 1 is 5 but the program expects 4 (f32[?,4])");
  EXPECT_CONTAINS(
      run({{"x", Tensor(DType::Float64, {2, 4})}, {"y", Tensor(DType::Float32, {4, 4})}}),
      "feed 'x' is f64[2,4] but the program expects f32[?,4]");
  EXPECT_CONTAINS(run({{"x", Tensor(DType::Float32, {8})}, {"y", Tensor(DType::Float32, {4, 4})}}),
                  "feed 'x' is f32[8] but the program expects f32[?,4]");
  EXPECT_CONTAINS(run({{"x", x}, {"y", Tensor(DType::Float32, {4, 4})}, {"z", x}}),
                  "unknown feed 'z'; the program's feeds are: x, y");
  EXPECT_CONTAINS(session->run("train", {}, fetches).message(),
                  "unknown mode 'train'; the artifact has: predict");
}

TEST(Session, ParametersMustBeInitialized) {
  TwoFeedArtifact a;
  auto session = a.b.session();
  ASSERT_TRUE(session);
  TensorMap fetches;
  Status s = session->run(
      "predict", {{"x", Tensor(DType::Float32, {1, 4})}, {"y", Tensor(DType::Float32, {2, 4})}},
      fetches);
  ASSERT_FALSE(s.ok());
  EXPECT_CONTAINS(s.message(), "'matmul' (mul -> xw) reads 'w' before it was initialized");
}

TEST(Session, LoadParamsFromNpy) {
  TwoFeedArtifact a;
  auto session = a.b.session();
  ASSERT_TRUE(session);
  fs::path dir = fs::temp_directory_path() / "distc-session-params-test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  Status missing = session->loadParams(dir.string(), "predict");
  ASSERT_FALSE(missing.ok());
  EXPECT_CONTAINS(missing.message(), "cannot load parameter 'w': " + (dir / "w.npy").string());

  ASSERT_TRUE(
      distc::runtime::writeNpy((dir / "w.npy").string(), Tensor(DType::Float32, {3, 4})).ok());
  Status wrongShape = session->loadParams(dir.string());
  ASSERT_FALSE(wrongShape.ok());
  EXPECT_CONTAINS(wrongShape.message(), "parameter 'w' in " + (dir / "w.npy").string() +
                                            " is f32[3,4] but the artifact declares f32[4,3]");

  Tensor w = tensorOf(DType::Float32, {4, 3}, {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0});
  ASSERT_TRUE(distc::runtime::writeNpy((dir / "w.npy").string(), w).ok());
  ASSERT_TRUE(session->loadParams(dir.string(), "predict").ok());
  TensorMap fetches;
  Tensor x = tensorOf(DType::Float32, {2, 4}, {1, 2, 3, 4, 0, 0, 0, 0});
  Status s = session->run("predict", {{"x", x}, {"y", Tensor(DType::Float32, {4, 4})}}, fetches);
  ASSERT_TRUE(s.ok()) << s.message();
  expectClose(fetches["xw"], {1, 2, 3, 0, 0, 0}, 0, 0);
  fs::remove_all(dir);
}

TEST(Npy, RoundTripEveryDtype) {
  fs::path dir = fs::temp_directory_path() / "distc-npy-test";
  fs::create_directories(dir);
  std::mt19937_64 rng(21);
  for (DType dt : {DType::Bool, DType::Int8, DType::UInt8, DType::Int16, DType::Int32, DType::Int64,
                   DType::Float16, DType::Float32, DType::Float64})
    for (Shape shape : {Shape{}, Shape{5}, Shape{2, 3}, Shape{2, 0, 3}}) {
      Tensor t = randomTensor(dt, shape, rng, 0, 1);
      std::string path = (dir / "t.npy").string();
      ASSERT_TRUE(distc::runtime::writeNpy(path, t).ok());
      Tensor back;
      Status s = distc::runtime::readNpy(path, back);
      ASSERT_TRUE(s.ok()) << s.message();
      EXPECT_FALSE(distc::runtime::compareTensors(back, t, 0, 0)) << t.typeString();
    }
  fs::remove_all(dir);
}

std::string npyBytes(const std::string &dict, size_t dataBytes) {
  std::string header = dict;
  while ((10 + header.size() + 1) % 64)
    header += ' ';
  header += '\n';
  std::string out = std::string("\x93NUMPY\x01\x00", 8);
  out += char(header.size() & 0xff);
  out += char(header.size() >> 8);
  return out + header + std::string(dataBytes, '\0');
}

TEST(Npy, RejectsBadFiles) {
  Tensor t;
  auto parse = [&](const std::string &bytes) {
    return distc::runtime::parseNpy(bytes, "bad.npy", t).message();
  };
  EXPECT_CONTAINS(parse("hello"), "bad.npy: not a .npy file");
  EXPECT_CONTAINS(parse(npyBytes("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", 16)),
                  "bad.npy: Fortran-ordered");
  EXPECT_CONTAINS(parse(npyBytes("{'descr': '>f8', 'fortran_order': False, 'shape': (2,), }", 16)),
                  "bad.npy: big-endian");
  EXPECT_CONTAINS(parse(npyBytes("{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }", 16)),
                  "unsupported .npy dtype '<c8'");
  EXPECT_CONTAINS(parse(npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 8)),
                  "truncated .npy data");
  EXPECT_CONTAINS(parse(npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", 12)),
                  ".npy data has 12 bytes, expected 8");
  EXPECT_CONTAINS(parse(npyBytes("{'descr': '<f4', 'fortran_order': False}", 4)), "no 'shape'");
  EXPECT_TRUE(
      distc::runtime::parseNpy(
          npyBytes("{'descr': '<i8', 'fortran_order': False, 'shape': (1, 2), }", 16), "ok.npy", t)
          .ok());
  EXPECT_EQ(t.typeString(), "i64[1,2]");
  EXPECT_CONTAINS(distc::runtime::readNpy("/nonexistent/x.npy", t).message(),
                  "/nonexistent/x.npy: cannot open");
}

TEST(TensorFormat, NumpyLikeLayout) {
  Tensor t = tensorOf(DType::Float32, {2, 3}, {1, 0.5, -2, 0.1, 3, 4});
  EXPECT_EQ(distc::runtime::formatTensorValues(t), "[[1 0.5 -2]\n [0.1 3 4]]");
  Tensor b = tensorOf(DType::Bool, {2}, {1, 0});
  EXPECT_EQ(distc::runtime::formatTensorValues(b), "[True False]");
  Tensor r3 = tensorOf(DType::Int32, {2, 1, 2}, {1, 2, 3, 4});
  EXPECT_EQ(distc::runtime::formatTensorValues(r3), "[[[1 2]]\n\n [[3 4]]]");
  auto mismatch = distc::runtime::compareTensors(
      t, tensorOf(DType::Float32, {2, 3}, {1, 0.5, -2, 0.1, 3.1, 4}), 1e-5, 1e-6);
  ASSERT_TRUE(mismatch);
  EXPECT_EQ(*mismatch, "MISMATCH at [1,1]: got 3 expected 3.1");
}

//===----------------------------------------------------------------------===//
// Temp and Feed storage kept across runs
//===----------------------------------------------------------------------===//

/// x: f32[?,4]; t = x + x; r = relu(t); fetches r. Temps t and r are kept
/// from run to run while the batch size stays.
struct ReuseArtifact {
  ArtifactBuilder b;
  ReuseArtifact() {
    int s = b.symbol("x.dim0");
    int x =
        b.buffer("x", DType::Float32, {DimDesc::symbolic(s), DimDesc::fixed(4)}, BufferKind::Feed);
    int t = b.buffer("t", DType::Float32, {DimDesc::symbolic(s), DimDesc::fixed(4)});
    int r = b.buffer("r", DType::Float32, {DimDesc::symbolic(s), DimDesc::fixed(4)});
    auto &p = b.program("predict");
    p.feeds = {{"x", x}};
    p.fetches = {{"r", r}};
    b.call(p, "binary", {x, x}, {t}, {AttrDesc::ofString("op", "add")});
    b.call(p, "unary", {t}, {r}, {AttrDesc::ofString("op", "relu")});
  }
};

TEST(Session, ReusedBuffersGiveFreshResultsAcrossBatchSizes) {
  ReuseArtifact a;
  auto session = a.b.session();
  ASSERT_TRUE(session);
  std::mt19937_64 rng(30);
  for (int64_t rows : {3, 3, 5, 3, 1}) {
    Tensor x = randomTensor(DType::Float32, {rows, 4}, rng);
    TensorMap fetches;
    Status s = session->run("predict", {{"x", x}}, fetches);
    ASSERT_TRUE(s.ok()) << s.message();
    std::vector<double> ref;
    for (int64_t i = 0; i < x.numel(); ++i)
      ref.push_back(std::max(0.0, 2 * elementAt(x, i)));
    expectClose(fetches["r"], ref, 0, 0);
    // The fetch is a copy: the next run must not change it.
    Tensor kept = fetches["r"];
    std::vector<double> before(kept.data<float>(), kept.data<float>() + kept.numel());
    ASSERT_TRUE(session->run("predict", {{"x", randomTensor(DType::Float32, {rows, 4}, rng)}},
                             fetches)
                    .ok());
    expectClose(kept, before, 0, 0);
  }
}

TEST(Session, TempReadBeforeWrittenStartsEveryRunZeroed) {
  // out = acc + x reads acc before the next call writes it (acc = copy x).
  // With storage kept across runs acc would hold the last run's x; a fresh
  // run sees zeros.
  ArtifactBuilder b;
  int x = b.buffer("x", DType::Float32, Shape{2, 3}, BufferKind::Feed);
  int acc = b.buffer("acc", DType::Float32, Shape{2, 3});
  int out = b.buffer("out", DType::Float32, Shape{2, 3});
  auto &p = b.program("predict");
  p.feeds = {{"x", x}};
  p.fetches = {{"out", out}};
  b.call(p, "binary", {acc, x}, {out}, {AttrDesc::ofString("op", "add")});
  b.call(p, "copy", {x}, {acc});
  auto session = b.session();
  ASSERT_TRUE(session);
  std::mt19937_64 rng(31);
  for (int run = 0; run < 3; ++run) {
    Tensor xv = randomTensor(DType::Float32, {2, 3}, rng);
    TensorMap fetches;
    ASSERT_TRUE(session->run("predict", {{"x", xv}}, fetches).ok());
    expectClose(fetches["out"], std::vector<double>(xv.data<float>(), xv.data<float>() + 6), 0, 0);
  }
}

} // namespace
