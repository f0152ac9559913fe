//===- RingKernelTest.cpp - The sharding kernels on four ranks over Gloo --===//
//
// Four ranks (threads) on a 2x2 mesh, each running a Session over its own
// copy of one artifact with the mesh's rings (ring 1, mesh axis 0: groups
// [0, 2] and [1, 3]; ring 2, mesh axis 1: [0, 1] and [2, 3]) and a Gloo
// communicator: every sharding kernel along axis 0 and along inner axes,
// over both rings and the world, against results built here from every
// rank's input by plain index arithmetic (concatenations, slices and sums
// of whole tensors), not by the kernels' packing.
//
//===----------------------------------------------------------------------===//

#include "CommTestUtil.h"
#include "TestArtifacts.h"

#include "distc/Comm/CommCollectives.h"

#include <gtest/gtest.h>

#include <cstring>
#include <functional>

using namespace distc;
using namespace distc::testing;
using artifact::RingDesc;

namespace {

#if DISTC_HAVE_GLOO

constexpr int kRanks = 4;
const Shape kShape = {4, 4, 2};

/// Rank r's input: element f is r·1000 + f (exact in f32).
Tensor inputOf(int rank) {
  Tensor t(DType::Float32, kShape);
  for (int64_t f = 0; f < t.numel(); ++f)
    t.data<float>()[f] = float(rank * 1000 + f);
  return t;
}

/// Slice k of n equal slices of `t` along `axis`.
Tensor sliceOf(const Tensor &t, int axis, int k, int n) {
  Shape shape = t.shape();
  const int64_t m = shape[size_t(axis)] / n;
  shape[size_t(axis)] = m;
  Tensor out(t.dtype(), shape);
  for (int64_t f = 0; f < out.numel(); ++f) {
    std::vector<int64_t> idx = unflatIndex(shape, f);
    idx[size_t(axis)] += k * m;
    out.data<float>()[f] = t.data<float>()[flatIndex(t.shape(), idx)];
  }
  return out;
}

/// `parts` (equal shapes) concatenated along `axis`.
Tensor concatOf(const std::vector<Tensor> &parts, int axis) {
  Shape shape = parts[0].shape();
  const int64_t m = shape[size_t(axis)];
  shape[size_t(axis)] = m * int64_t(parts.size());
  Tensor out(DType::Float32, shape);
  for (int64_t f = 0; f < out.numel(); ++f) {
    std::vector<int64_t> idx = unflatIndex(shape, f);
    const Tensor &part = parts[size_t(idx[size_t(axis)] / m)];
    idx[size_t(axis)] %= m;
    out.data<float>()[f] = part.data<float>()[flatIndex(part.shape(), idx)];
  }
  return out;
}

Tensor sumOf(const std::vector<Tensor> &parts) {
  Tensor out = parts[0].clone();
  for (size_t p = 1; p < parts.size(); ++p)
    for (int64_t f = 0; f < out.numel(); ++f)
      out.data<float>()[f] += parts[p].data<float>()[f];
  return out;
}

/// The world ranks of rank r's group in `ring` (0: everyone) and its
/// member index there.
std::vector<int> groupOf(int ring, int r, int &member) {
  std::vector<int> g = ring == 0   ? std::vector<int>{0, 1, 2, 3}
                       : ring == 1 ? std::vector<int>{r % 2, r % 2 + 2}
                                   : std::vector<int>{r / 2 * 2, r / 2 * 2 + 1};
  for (size_t k = 0; k < g.size(); ++k)
    if (g[k] == r)
      member = int(k);
  return g;
}

/// One call of the test program: its fetch name, and the expected value
/// on rank r given every rank's input.
struct Case {
  std::string name;
  std::function<Tensor(int r, const std::vector<Tensor> &x)> expected;
};

/// The artifact: feed x (f32[4,4,2]) and one call per case, each fetched.
struct RingArtifact {
  RingArtifact() {
    b.desc.worldSize = kRanks;
    b.desc.rings = {RingDesc{1, 2, {0, 2, 1, 3}}, RingDesc{2, 2, {0, 1, 2, 3}}};
    auto &p = b.program("predict");
    x = b.buffer("x", DType::Float32, kShape, BufferKind::Feed);
    p.feeds = {{"x", x}};
    using artifact::AttrDesc;
    for (int ring : {0, 1, 2}) {
      const int n = ring == 0 ? 4 : 2;
      const std::string at = "@ring" + std::to_string(ring);
      const AttrDesc ringAttr = AttrDesc::ofInt("ring_id", ring);
      for (int axis : {0, 1, 2}) {
        const std::string on = at + "/axis" + std::to_string(axis);
        Shape gathered = kShape;
        gathered[size_t(axis)] *= n;
        add("allgather" + on, "c_allgather", gathered, {ringAttr, AttrDesc::ofInt("axis", axis)},
            [=](int r, const std::vector<Tensor> &xs) {
              int i = 0;
              std::vector<Tensor> parts;
              for (int q : groupOf(ring, r, i))
                parts.push_back(xs[size_t(q)]);
              return concatOf(parts, axis);
            });
        if (kShape[size_t(axis)] % n != 0)
          continue;
        Shape part = kShape;
        part[size_t(axis)] /= n;
        add("reducescatter" + on, "c_reducescatter", part,
            {ringAttr, AttrDesc::ofInt("axis", axis)}, [=](int r, const std::vector<Tensor> &xs) {
              int i = 0;
              std::vector<Tensor> parts;
              for (int q : groupOf(ring, r, i))
                parts.push_back(xs[size_t(q)]);
              return sliceOf(sumOf(parts), axis, i, n);
            });
        add("split" + on, "c_split", part, {ringAttr, AttrDesc::ofInt("axis", axis)},
            [=](int r, const std::vector<Tensor> &xs) {
              int i = 0;
              groupOf(ring, r, i);
              return sliceOf(xs[size_t(r)], axis, i, n);
            });
        for (int concat : {0, 1, 2}) {
          Shape shape = part;
          shape[size_t(concat)] *= n;
          add("alltoall" + on + "/concat" + std::to_string(concat), "c_alltoall", shape,
              {ringAttr, AttrDesc::ofInt("split_axis", axis),
               AttrDesc::ofInt("concat_axis", concat)},
              [=](int r, const std::vector<Tensor> &xs) {
                int i = 0;
                std::vector<Tensor> parts;
                for (int q : groupOf(ring, r, i))
                  parts.push_back(sliceOf(xs[size_t(q)], axis, i, n));
                return concatOf(parts, concat);
              });
        }
      }
      add("root_only" + at, "c_root_only", kShape, {ringAttr, AttrDesc::ofInt("root", 1)},
          [=](int r, const std::vector<Tensor> &xs) {
            int i = 0;
            groupOf(ring, r, i);
            Tensor out(DType::Float32, kShape);
            if (i == 1)
              std::memcpy(out.data(), xs[size_t(r)].data(), out.byteSize());
            return out;
          });
      add("broadcast" + at, "c_broadcast", kShape, {ringAttr, AttrDesc::ofInt("root", 1)},
          [=](int r, const std::vector<Tensor> &xs) {
            int i = 0;
            return xs[size_t(groupOf(ring, r, i)[1])].clone();
          });
      // Started: complete after the c_wait, while the blocking kernels
      // after it queue behind it on every rank.
      int sum =
          add("allreduce" + at, "c_allreduce", kShape, {ringAttr, AttrDesc::ofString("op", "sum")},
              [=](int r, const std::vector<Tensor> &xs) {
                int i = 0;
                std::vector<Tensor> parts;
                for (int q : groupOf(ring, r, i))
                  parts.push_back(xs[size_t(q)]);
                return sumOf(parts);
              });
      int done = b.buffer("allreduce" + at + ".done", DType::Float32,
                          {DimDesc::fixed(4), DimDesc::fixed(4), DimDesc::fixed(2)},
                          BufferKind::View, sum);
      b.call(p, "c_wait", {sum}, {done});
      p.fetches.back().buffer = done;
    }
  }

  /// A call of `kernel` on x into a new buffer of `shape`, fetched as `name`.
  int add(const std::string &name, const std::string &kernel, const Shape &shape,
          std::vector<artifact::AttrDesc> attrs,
          std::function<Tensor(int, const std::vector<Tensor> &)> expected) {
    auto &p = b.desc.programs[0];
    int out = b.buffer(name, DType::Float32, shape);
    b.call(p, kernel, {x}, {out}, std::move(attrs), name);
    p.fetches.push_back({name, out});
    cases.push_back({name, std::move(expected)});
    return out;
  }

  ArtifactBuilder b;
  int x = -1;
  std::vector<Case> cases;
};

TEST(RingKernels, EveryKernelOnATwoByTwoMesh) {
  RingArtifact a;
  auto group = comm::test::makeGlooGroup(kRanks);
  ASSERT_EQ(group.size(), size_t(kRanks));
  std::vector<Tensor> inputs;
  for (int r = 0; r < kRanks; ++r)
    inputs.push_back(inputOf(r));
  std::vector<TensorMap> fetched(kRanks);
  comm::test::runThreads(
      kRanks,
      [&](int r) {
        auto session = a.b.session();
        ASSERT_TRUE(session);
        std::shared_ptr<comm::Communicator> c = std::move(group[size_t(r)]);
        Status s = session->setCollectives(std::make_shared<comm::CommCollectives>(c));
        ASSERT_TRUE(s.ok()) << s.message();
        // Twice: the second run reuses its buffers and the rings' communicators.
        for (int run = 0; run < 2; ++run) {
          s = session->run("predict", {{"x", inputs[size_t(r)]}}, fetched[size_t(r)]);
          ASSERT_TRUE(s.ok()) << "rank " << r << ": " << s.message();
        }
      },
      std::chrono::seconds(25));
  ASSERT_GE(a.cases.size(), 40u);
  for (int r = 0; r < kRanks; ++r)
    for (const Case &c : a.cases) {
      Tensor want = c.expected(r, inputs);
      auto it = fetched[size_t(r)].find(c.name);
      ASSERT_NE(it, fetched[size_t(r)].end()) << c.name;
      const Tensor &got = it->second;
      ASSERT_EQ(got.shape(), want.shape()) << c.name << " on rank " << r;
      EXPECT_EQ(std::memcmp(got.data(), want.data(), want.byteSize()), 0)
          << c.name << " on rank " << r;
    }
}

TEST(RingKernels, ABadShapeFailsEveryRankAlikeAndNamesTheGroup) {
  // c_split along an axis of 3 over a group of 2: each rank fails before
  // communicating, with the same message.
  ArtifactBuilder b;
  b.desc.worldSize = 2;
  b.desc.rings = {RingDesc{1, 2, {1, 0}}};
  auto &p = b.program("predict");
  int x = b.buffer("x", DType::Float32, Shape{3, 2}, BufferKind::Feed);
  int out = b.buffer("out", DType::Float32, Shape{1, 2});
  p.feeds = {{"x", x}};
  p.fetches = {{"out", out}};
  b.call(p, "c_split", {x}, {out},
         {artifact::AttrDesc::ofInt("ring_id", 1), artifact::AttrDesc::ofInt("axis", 0)},
         "split -> out");
  auto group = comm::test::makeGlooGroup(2);
  ASSERT_EQ(group.size(), 2u);
  std::vector<std::string> errors(2);
  comm::test::runThreads(2, [&](int r) {
    auto session = b.session();
    ASSERT_TRUE(session);
    std::shared_ptr<comm::Communicator> c = std::move(group[size_t(r)]);
    ASSERT_TRUE(session->setCollectives(std::make_shared<comm::CommCollectives>(c)).ok());
    TensorMap fetches;
    errors[size_t(r)] =
        session->run("predict", {{"x", Tensor(DType::Float32, {3, 2})}}, fetches).message();
  });
  for (int r = 0; r < 2; ++r)
    EXPECT_EQ(errors[size_t(r)],
              "program predict/trainer/main, call 0 'c_split' (split -> out): x f32[3,2] cannot "
              "be split into 2 equal parts along axis 0 (a group of 2 in ring 1)");
}

#endif

} // namespace
