//===- ParameterServer.cpp - ps_send, ps_recv and the barriers ------------===//
//
// A trainer's side of the parameter-server mode: each call hands its
// blocks to the session's ParameterServerChannel, which sends them to (or
// receives them from) the servers the call's `servers` and `slots` name.
// The blocks are host memory: the CPU backend's tensors.
//
//===----------------------------------------------------------------------===//

#include "KernelUtils.h"
#include "Registration.h"

#include "distc/Runtime/ParameterServerChannel.h"

namespace distc::runtime::kernels {
namespace {

ParameterServerChannel &channelOf(KernelContext &ctx) {
  ParameterServerChannel *channel = ctx.parameterServers();
  if (!channel)
    ctx.fail("this artifact trains with parameter servers: run it with dist-run --server-num S "
             "--worker-num W, which starts the servers and connects the trainers to them");
  return *channel;
}

/// The (server, slot) of each of the call's `count` blocks.
std::vector<ParameterServerChannel::Block> blocksOf(KernelContext &ctx, int count, bool outputs) {
  std::vector<int64_t> servers = ctx.intsAttr("servers");
  std::vector<int64_t> slots = ctx.intsAttr("slots");
  if (servers.size() != size_t(count) || slots.size() != size_t(count))
    ctx.fail("needs one server and one slot per block (" + std::to_string(count) + " blocks, " +
             std::to_string(servers.size()) + " servers, " + std::to_string(slots.size()) +
             " slots)");
  std::vector<ParameterServerChannel::Block> blocks;
  for (int i = 0; i < count; ++i) {
    Tensor &t = outputs ? ctx.output(i) : ctx.input(i);
    blocks.push_back({static_cast<int>(servers[i]), static_cast<int>(slots[i]), t.data(),
                      t.byteSize()});
  }
  return blocks;
}

void check(KernelContext &ctx, const Status &status) {
  if (!status.ok())
    ctx.fail(status.message());
}

void sendKernel(KernelContext &ctx) {
  ParameterServerChannel &channel = channelOf(ctx);
  check(ctx, channel.send(blocksOf(ctx, ctx.numInputs(), /*outputs=*/false)));
}

void recvKernel(KernelContext &ctx) {
  ParameterServerChannel &channel = channelOf(ctx);
  check(ctx, channel.recv(blocksOf(ctx, ctx.numOutputs(), /*outputs=*/true)));
}

void sendBarrierKernel(KernelContext &ctx) { check(ctx, channelOf(ctx).sendBarrier()); }

void fetchBarrierKernel(KernelContext &ctx) { check(ctx, channelOf(ctx).fetchBarrier()); }

} // namespace

void registerParameterServerKernels(KernelRegistry &r) {
  r.add("ps_send", sendKernel);
  r.add("ps_recv", recvKernel);
  r.add("ps_send_barrier", sendBarrierKernel);
  r.add("ps_fetch_barrier", fetchBarrierKernel);
}

} // namespace distc::runtime::kernels
