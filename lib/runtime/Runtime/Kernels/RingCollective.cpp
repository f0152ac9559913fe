//===- RingCollective.cpp - The collectives of a sharded program ----------===//
//
// c_allgather, c_reducescatter, c_alltoall, c_split and c_root_only, over
// this rank's group of the ring `ring_id` (KernelContext::collectives): n
// members, this rank member i. Communicators move contiguous chunks (the
// k-th chunk of a buffer is member k's); an axis other than the outermost
// non-trivial one is packed into such chunks, and unpacked from them, with
// strided copies through the backend. Like Collective.cpp, none of them
// reads tensor bytes on the host, so device backends use them unchanged.
//
// The communicating ones block until their collective is complete; through
// the session's CommStream they first wait for the collectives started
// before (c_allreduce), so every rank issues its collectives in program
// order. With n = 1 (one process, or a ring of singletons) none needs a
// communicator: each is then a copy (c_root_only with root 0 included).
//
//===----------------------------------------------------------------------===//

#include "../AxisChunks.h"
#include "KernelUtils.h"
#include "Registration.h"
#include "distc/Runtime/Backend.h"

#include <cstdint>
#include <cstring>

namespace distc::runtime::kernels {
namespace {

/// dst = src (`bytes` bytes), through the backend when there is one.
void copyBytes(KernelContext &ctx, void *dst, const void *src, size_t bytes) {
  if (!bytes)
    return;
  if (Backend *backend = ctx.backend())
    backend->copy(dst, src, bytes);
  else
    std::memcpy(dst, src, bytes);
}

/// A scratch tensor on the call's backend (communicators need the
/// backend's memory: device memory for NCCL).
Tensor scratch(KernelContext &ctx, DType dtype, int64_t numel) {
  Backend *backend = ctx.backend();
  return backend ? backend->allocate(dtype, {numel}) : Tensor(dtype, {numel});
}

/// Whether the bytes of `a` and `b` overlap (a view of the other, a slice
/// of one block).
bool overlaps(const Tensor &a, const Tensor &b) {
  const auto at = reinterpret_cast<uintptr_t>(a.data());
  const auto bt = reinterpret_cast<uintptr_t>(b.data());
  return a.byteSize() && b.byteSize() && at < bt + b.byteSize() && bt < at + a.byteSize();
}

/// `dst` (numel of `src`) = n chunks, chunk k = slice k of the n equal
/// slices of `src` along `axis`.
void packSlices(KernelContext &ctx, const Tensor &src, int axis, int n, void *dst) {
  const char *from = static_cast<const char *>(src.data());
  char *to = static_cast<char *>(dst);
  forEachChunkRun(src.shape(), dtypeSize(src.dtype()), axis, n,
                  [&](int, size_t packed, size_t whole, size_t bytes) {
                    copyBytes(ctx, to + packed, from + whole, bytes);
                  });
}

/// The inverse: `dst` = the concatenation along `axis` of the n chunks of
/// `src` (each of dst's shape with dims[axis] / n).
void unpackConcat(KernelContext &ctx, const void *src, Tensor &dst, int axis, int n) {
  const char *from = static_cast<const char *>(src);
  char *to = static_cast<char *>(dst.data());
  forEachChunkRun(dst.shape(), dtypeSize(dst.dtype()), axis, n,
                  [&](int, size_t packed, size_t whole, size_t bytes) {
                    copyBytes(ctx, to + whole, from + packed, bytes);
                  });
}

/// What every kernel here starts with: x and out of one dtype, x of rank
/// ≥ 1, and the call's ring.
struct RingCall {
  explicit RingCall(KernelContext &ctx)
      : ctx(ctx), x(ctx.input(0)), out(ctx.output(0)), ring(ctx.intAttr("ring_id")),
        comm(ctx.collectives(ring)), n(comm ? comm->size() : 1), member(comm ? comm->rank() : 0) {
    expectSameDtype(ctx, x, out, "x", "out");
    if (x.rank() < 1)
      ctx.fail("x must have rank >= 1, got " + x.typeString());
  }

  /// The attribute `name`: an axis of x.
  int axis(const char *name) const {
    int64_t a = ctx.intAttr(name);
    expectAxis(ctx, a, x.rank(), name);
    return int(a);
  }

  /// Fails unless n divides x.dims[axis].
  /// x's shape with `axis` (named by attribute `name`) cut into n equal
  /// parts; fails when n does not divide it.
  Shape splitShape(int axis, const char *name) const {
    if (x.shape()[size_t(axis)] % n != 0)
      ctx.fail("x " + x.typeString() + " cannot be split into " + std::to_string(n) +
               " equal parts along " + name + " " + std::to_string(axis) + " (" + groupText() +
               ")");
    Shape shape = x.shape();
    shape[size_t(axis)] /= n;
    return shape;
  }

  /// out must have `shape`.
  void expectOut(const Shape &shape) const {
    if (out.shape() != shape)
      ctx.fail("out is " + out.typeString() + ", expected " + formatType(out.dtype(), shape) +
               " (x " + x.typeString() + ", " + groupText() + ")");
  }

  /// "a group of 2 in ring 1".
  std::string groupText() const {
    return "a group of " + std::to_string(n) + " in ring " + std::to_string(ring);
  }

  /// x, or a copy of it in scratch memory when it overlaps out (a
  /// communicator's or copy's input and output must be apart).
  Tensor source() const {
    if (!overlaps(x, out))
      return x;
    Tensor t = scratch(ctx, x.dtype(), x.numel());
    copyBytes(ctx, t.data(), x.data(), x.byteSize());
    return t;
  }

  /// x as n contiguous chunks along `axis`: x itself (source()) when the
  /// axis is outermost, else its slices packed chunk by chunk into scratch
  /// memory, which is apart from out already.
  Tensor chunksAlong(int axis) const {
    if (AxisLayout(x.shape(), axis).outer == 1)
      return source();
    Tensor packed = scratch(ctx, x.dtype(), x.numel());
    packSlices(ctx, x, axis, n, packed.data());
    return packed;
  }

  /// out = x, for a group of one.
  void copyThrough() {
    if (!x.sharesStorageWith(out))
      copyBytes(ctx, out.data(), source().data(), x.byteSize());
  }

  void check(Status s) const {
    if (!s.ok())
      ctx.fail(s.message());
  }

  KernelContext &ctx;
  const Tensor &x;
  Tensor &out;
  const int64_t ring;
  Collectives *const comm;
  const int n, member;
};

void allgatherKernel(KernelContext &ctx) {
  RingCall k(ctx);
  const int axis = k.axis("axis");
  Shape shape = k.x.shape();
  shape[size_t(axis)] *= k.n;
  k.expectOut(shape);
  if (k.n == 1)
    return k.copyThrough();
  const Tensor x = k.source();
  if (AxisLayout(shape, axis).outer == 1)
    return k.check(k.comm->allgather(x, k.out));
  Tensor gathered = scratch(ctx, x.dtype(), k.out.numel());
  k.check(k.comm->allgather(x, gathered));
  unpackConcat(ctx, gathered.data(), k.out, axis, k.n);
}

void reducescatterKernel(KernelContext &ctx) {
  RingCall k(ctx);
  const int axis = k.axis("axis");
  const std::string op = ctx.stringAttr("op");
  if (op != "sum" && op != "max" && op != "min" && op != "prod")
    ctx.fail("unknown reduction '" + op + "' (expected sum, max, min or prod)");
  k.expectOut(k.splitShape(axis, "axis"));
  if (k.n == 1)
    return k.copyThrough();
  k.check(k.comm->reduceScatter(k.chunksAlong(axis), k.out, op));
}

void alltoallKernel(KernelContext &ctx) {
  RingCall k(ctx);
  const int split = k.axis("split_axis"), concat = k.axis("concat_axis");
  Shape shape = k.splitShape(split, "split_axis");
  shape[size_t(concat)] *= k.n;
  k.expectOut(shape);
  if (k.n == 1)
    return k.copyThrough();
  Tensor pieces = k.chunksAlong(split);
  if (AxisLayout(shape, concat).outer == 1)
    return k.check(k.comm->alltoall(pieces, k.out));
  Tensor received = scratch(ctx, k.x.dtype(), k.x.numel());
  k.check(k.comm->alltoall(pieces, received));
  unpackConcat(ctx, received.data(), k.out, concat, k.n);
}

void splitKernel(KernelContext &ctx) {
  RingCall k(ctx);
  const int axis = k.axis("axis");
  k.expectOut(k.splitShape(axis, "axis"));
  if (k.n == 1)
    return k.copyThrough();
  // This member's chunk, its runs laid end to end in out.
  const Tensor x = k.source();
  const size_t base = size_t(k.member) * k.out.byteSize();
  forEachChunkRun(x.shape(), dtypeSize(x.dtype()), axis, k.n,
                  [&](int chunk, size_t packed, size_t whole, size_t bytes) {
                    if (chunk == k.member)
                      copyBytes(ctx, static_cast<char *>(k.out.data()) + packed - base,
                                static_cast<const char *>(x.data()) + whole, bytes);
                  });
}

void rootOnlyKernel(KernelContext &ctx) {
  RingCall k(ctx);
  const int64_t root = ctx.intAttr("root");
  if (root < 0 || root >= k.n)
    ctx.fail("root " + std::to_string(root) + " is not one of the " + std::to_string(k.n) +
             " members of " + k.groupText());
  k.expectOut(k.x.shape());
  if (k.member == root)
    return k.copyThrough();
  if (Backend *backend = ctx.backend())
    backend->zero(k.out);
  else if (k.out.byteSize())
    std::memset(k.out.data(), 0, k.out.byteSize());
}

} // namespace

void registerRingCollectiveKernels(KernelRegistry &r) {
  r.add("c_allgather", allgatherKernel);
  r.add("c_reducescatter", reducescatterKernel);
  r.add("c_alltoall", alltoallKernel);
  r.add("c_split", splitKernel);
  r.add("c_root_only", rootOnlyKernel);
}

} // namespace distc::runtime::kernels
