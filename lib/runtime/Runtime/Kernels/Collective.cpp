//===- Collective.cpp - c_allreduce, c_broadcast, c_reduce, c_wait ----------===//
//
// out = x communicated over the ranks of the session's Collectives, or
// (c_allreduce, c_broadcast) over this rank's group of the ring `ring_id`
// (the identity when the process is alone in it; c_reduce's result is only
// meaningful on its root). c_allreduce and c_reduce only start the
// collective (Collectives::startAllreduce); c_wait, the lowering of
// c_sync_comm_stream, and the end of the program complete it. The result is
// copied to
// `out` first and reduced there in place, so x is never modified.
// c_comm_check, the lowering of c_comm_init, checks that the communicator
// the rendezvous formed has the ranks the program expects. None of them
// reads tensor bytes on the host (copies go through the backend), so
// device backends use them unchanged.
//
//===----------------------------------------------------------------------===//

#include "KernelUtils.h"
#include "Registration.h"
#include "distc/Runtime/Backend.h"

#include <cstring>

namespace distc::runtime::kernels {
namespace {

Tensor &copiedOutput(KernelContext &ctx) {
  const Tensor &x = ctx.input(0);
  Tensor &out = ctx.output(0);
  expectSameDtype(ctx, x, out, "x", "out");
  expectNumel(ctx, out, x.numel(), "out");
  if (!x.sharesStorageWith(out) && x.byteSize()) {
    // Through the backend: these kernels never touch tensor bytes on the
    // host, so a device backend runs them as they are.
    if (Backend *backend = ctx.backend())
      backend->copy(out.data(), x.data(), x.byteSize());
    else
      std::memcpy(out.data(), x.data(), x.byteSize());
  }
  return out;
}

/// The `op` attribute: sum, max, min or prod.
std::string reductionOf(KernelContext &ctx) {
  std::string op = ctx.stringAttr("op");
  if (op != "sum" && op != "max" && op != "min" && op != "prod")
    ctx.fail("unknown reduction '" + op + "' (expected sum, max, min or prod)");
  return op;
}

/// The communicator of this rank's group in the call's ring, or null when
/// the group is this rank alone.
Collectives *ringOf(KernelContext &ctx) { return ctx.collectives(ctx.intAttr("ring_id")); }

void allreduceKernel(KernelContext &ctx) {
  Tensor &out = copiedOutput(ctx);
  std::string op = reductionOf(ctx);
  if (Collectives *c = ringOf(ctx); c && c->size() > 1)
    if (Status st = c->startAllreduce(out, op); !st.ok())
      ctx.fail(st.message());
}

/// c_sync_comm_stream: the started collectives are done; out is a view of x.
void waitKernel(KernelContext &ctx) {
  if (Collectives *c = ctx.collectives())
    if (Status st = c->wait(); !st.ok())
      ctx.fail(st.message());
}

/// The `root` attribute, checked against the ranks of `c` (a member index
/// within the ring's group).
int rootOf(KernelContext &ctx, Collectives *c) {
  int64_t root = ctx.intAttr("root");
  int size = c ? c->size() : 1;
  if (root < 0 || root >= size)
    ctx.fail("root " + std::to_string(root) + " is not one of the " + std::to_string(size) +
             (ctx.intAttr("ring_id") ? " members of this rank's group of ring " +
                                           std::to_string(ctx.intAttr("ring_id"))
                                     : std::string(" ranks")));
  return static_cast<int>(root);
}

void reduceKernel(KernelContext &ctx) {
  if (int64_t ring = ctx.intAttr("ring_id"); ring != 0)
    ctx.fail("c_reduce runs over ring 0 (every rank) only, not ring " + std::to_string(ring));
  Tensor &out = copiedOutput(ctx);
  std::string op = reductionOf(ctx);
  Collectives *c = ctx.collectives();
  int root = rootOf(ctx, c);
  if (c && c->size() > 1)
    if (Status st = c->startReduce(out, op, root); !st.ok())
      ctx.fail(st.message());
}

void broadcastKernel(KernelContext &ctx) {
  Tensor &out = copiedOutput(ctx);
  Collectives *c = ringOf(ctx);
  int root = rootOf(ctx, c);
  if (c && c->size() > 1)
    if (Status st = c->broadcast(out, root); !st.ok())
      ctx.fail(st.message());
}

/// c_comm_init: the communicator exists already (the rendezvous formed it
/// before any program ran); it must have `nranks` ranks.
void commCheckKernel(KernelContext &ctx) {
  int64_t nranks = ctx.intAttr("nranks");
  int size = ctx.collectives() ? ctx.collectives()->size() : 1;
  if (nranks != size)
    ctx.fail("c_comm_init expects " + std::to_string(nranks) + " ranks but this process's " +
             (ctx.collectives() ? "communicator has " + std::to_string(size)
                                : std::string("session has no communicator (1 rank)")));
}

} // namespace

void registerCollectiveKernels(KernelRegistry &r) {
  r.add("c_allreduce", allreduceKernel);
  r.add("c_broadcast", broadcastKernel);
  r.add("c_reduce", reduceKernel);
  r.add("c_wait", waitKernel);
  r.add("c_comm_check", commCheckKernel);
}

} // namespace distc::runtime::kernels
