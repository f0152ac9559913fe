//===- LoaderMutationTest.cpp - mutated artifacts never crash the loader --===//
//
// A deterministic complement to the libFuzzer target: every truncation and
// a few thousand byte flips of a valid artifact (with the header checksum
// recomputed, so mutations reach the FlatBuffers verifier and the validator)
// must load or fail with a message, and loaded ones must survive a session.
//
//===----------------------------------------------------------------------===//

#include "TestArtifacts.h"

#include <gtest/gtest.h>

using namespace distc::testing;
using distc::artifact::LoadedArtifact;

namespace {

ArtifactBuilder mlp() {
  ArtifactBuilder b;
  int s = b.symbol("x.dim0");
  int x =
      b.buffer("x", DType::Float32, {DimDesc::symbolic(s), DimDesc::fixed(4)}, BufferKind::Feed);
  int w = b.buffer("w", DType::Float32, Shape{4, 3}, BufferKind::Persistent);
  int bias = b.buffer("b", DType::Float32, Shape{3}, BufferKind::Persistent);
  int bv = b.buffer("b@row", DType::Float32, {DimDesc::fixed(1), DimDesc::fixed(3)},
                    BufferKind::View, bias);
  int h = b.buffer("h", DType::Float32, {DimDesc::symbolic(s), DimDesc::fixed(3)});
  int y = b.buffer("y", DType::Float32, {DimDesc::symbolic(s), DimDesc::fixed(3)});
  int p = b.buffer("p", DType::Float32, {DimDesc::symbolic(s), DimDesc::fixed(3)});
  auto &start = b.program("predict", ProgramKind::Startup);
  b.call(start, "uniform_random", {}, {w},
         {AttrDesc::ofFloat("min", -1), AttrDesc::ofFloat("max", 1), AttrDesc::ofInt("seed", 1)});
  b.call(start, "fill", {}, {bias}, {AttrDesc::ofFloat("value", 0.1)});
  auto &main = b.program("predict");
  main.feeds = {{"x", x}};
  main.fetches = {{"p", p}};
  b.call(main, "matmul", {x, w}, {h},
         {AttrDesc::ofInt("trans_a", 0), AttrDesc::ofInt("trans_b", 0)});
  b.call(main, "binary", {h, bv}, {y}, {AttrDesc::ofString("op", "add")});
  b.call(main, "softmax", {y}, {p}, {AttrDesc::ofInt("axis", 1)});
  return b;
}

void fixChecksum(std::vector<uint8_t> &bytes) {
  if (bytes.size() < distc::artifact::kHeaderSize)
    return;
  uint64_t size = bytes.size() - distc::artifact::kHeaderSize;
  uint64_t sum = distc::artifact::fnv1a64(bytes.data() + distc::artifact::kHeaderSize, size);
  for (int i = 0; i < 8; ++i) {
    bytes[16 + i] = uint8_t(size >> (8 * i));
    bytes[24 + i] = uint8_t(sum >> (8 * i));
  }
}

/// Loads `bytes`; if they load, runs a session over them (errors are fine).
void exercise(std::vector<uint8_t> bytes) {
  std::string error;
  auto loaded = LoadedArtifact::loadBytes(std::move(bytes), "m.distc", error);
  if (!loaded) {
    EXPECT_EQ(error.rfind("m.distc: ", 0), 0u) << error;
    return;
  }
  // Running is part of the check, but a flipped extent can legitimately ask
  // for gigabytes; keep the run to artifacts whose static buffers are small.
  const auto &a = *loaded->artifact();
  // A mutation may leave an artifact without a buffer table, which the
  // loader accepts when no call names a buffer.
  if (a.buffers())
    for (const auto *b : *a.buffers()) {
      double elems = 1;
      if (b->dims())
        for (const auto *d : *b->dims()) {
          // Symbol bindings solve fed = binding * value / div, so a mutated
          // div or value scales every buffer using the symbol.
          if (d->sym() >= 0 && (d->div() != 1 || d->value() > 16))
            return;
          elems *= d->sym() < 0 ? double(d->value()) : double(d->value()) * 2;
        }
      if (elems > 1e5)
        return;
    }
  auto session = distc::runtime::Session::create(std::move(loaded), nullptr, error);
  if (!session)
    return;
  for (const std::string &mode : session->modes()) {
    (void)session->initialize(mode);
    TensorMap feeds, fetches;
    for (const auto &f : session->feeds(mode))
      feeds[f.name] = Tensor(f.dtype, {2, 4});
    (void)session->run(mode, feeds, fetches);
  }
}

TEST(LoaderMutation, EveryTruncation) {
  std::vector<uint8_t> good = mlp().fileBytes();
  for (size_t n = 0; n < good.size(); ++n) {
    std::vector<uint8_t> cut(good.begin(), good.begin() + n);
    exercise(cut);
    fixChecksum(cut);
    exercise(cut);
  }
}

TEST(LoaderMutation, ByteFlipsWithValidChecksum) {
  std::vector<uint8_t> good = mlp().fileBytes();
  std::mt19937_64 rng(99);
  for (int iter = 0; iter < 4000; ++iter) {
    std::vector<uint8_t> m = good;
    int flips = 1 + int(rng() % 3);
    for (int f = 0; f < flips; ++f) {
      size_t pos = distc::artifact::kHeaderSize + rng() % (m.size() - distc::artifact::kHeaderSize);
      m[pos] = (rng() % 4 == 0) ? uint8_t(rng()) : uint8_t(m[pos] ^ (1u << (rng() % 8)));
    }
    fixChecksum(m);
    exercise(std::move(m));
  }
}

} // namespace
