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

/// The call's `servers` and `slots`, one of each per block of `count`.
std::pair<std::vector<int64_t>, std::vector<int64_t>> serversAndSlots(KernelContext &ctx,
                                                                      int count) {
  std::vector<int64_t> servers = ctx.intsAttr("servers");
  std::vector<int64_t> slots = ctx.intsAttr("slots");
  if (servers.size() != size_t(count) || slots.size() != size_t(count))
    ctx.fail("needs one server and one slot per block (" + std::to_string(count) + " blocks, " +
             std::to_string(servers.size()) + " servers, " + std::to_string(slots.size()) +
             " slots)");
  return {std::move(servers), std::move(slots)};
}

/// The (server, slot) of each of the call's `count` blocks.
std::vector<ParameterServerChannel::Block> blocksOf(KernelContext &ctx, int count, bool outputs) {
  auto [servers, slots] = serversAndSlots(ctx, count);
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

/// Each block is a (rows, values) pair as merge_rows writes it: the rows
/// sent are those before the first id -1.
void sendRowsKernel(KernelContext &ctx) {
  ParameterServerChannel &channel = channelOf(ctx);
  if (ctx.numInputs() % 2 != 0)
    ctx.fail("takes (rows, values) pairs, got " + std::to_string(ctx.numInputs()) + " inputs");
  const int count = ctx.numInputs() / 2;
  auto [servers, slots] = serversAndSlots(ctx, count);
  std::vector<ParameterServerChannel::RowsBlock> blocks;
  for (int i = 0; i < count; ++i) {
    const Tensor &rows = ctx.input(2 * i), &values = ctx.input(2 * i + 1);
    if (rows.dtype() != DType::Int64 || rows.numel() == 0 ||
        values.byteSize() % size_t(rows.numel()) != 0)
      ctx.fail("block " + std::to_string(i) + ": rows must be Int64, one per row of its values");
    const int64_t *ids = rows.data<int64_t>();
    size_t used = 0;
    while (used < size_t(rows.numel()) && ids[used] >= 0)
      ++used;
    const size_t rowBytes = values.byteSize() / size_t(rows.numel());
    blocks.push_back({static_cast<int>(servers[i]), static_cast<int>(slots[i]), ids, used,
                      values.data(), used * rowBytes});
  }
  check(ctx, channel.sendRows(blocks));
}

/// ids[i] as split_ids writes them: the ids asked for are those before the
/// first -1.
void prefetchKernel(KernelContext &ctx) {
  ParameterServerChannel &channel = channelOf(ctx);
  const int count = ctx.numInputs();
  if (ctx.numOutputs() != count)
    ctx.fail("needs one row block per id list");
  auto [servers, slots] = serversAndSlots(ctx, count);
  std::vector<ParameterServerChannel::PrefetchBlock> blocks;
  for (int i = 0; i < count; ++i) {
    const Tensor &ids = ctx.input(i);
    Tensor &rows = ctx.output(i);
    if (ids.dtype() != DType::Int64 || rows.rank() < 1 || rows.dim(0) != ids.numel())
      ctx.fail("id list " + std::to_string(i) + " must be Int64 with one entry per row");
    const int64_t *idp = ids.data<int64_t>();
    size_t used = 0;
    while (used < size_t(ids.numel()) && idp[used] >= 0)
      ++used;
    blocks.push_back({static_cast<int>(servers[i]), static_cast<int>(slots[i]), idp, used,
                      rows.data(), ids.numel() ? rows.byteSize() / size_t(ids.numel()) : 0});
  }
  check(ctx, channel.prefetch(blocks));
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
  r.add("ps_send_rows", sendRowsKernel);
  r.add("ps_prefetch", prefetchKernel);
  r.add("ps_recv", recvKernel);
  r.add("ps_send_barrier", sendBarrierKernel);
  r.add("ps_fetch_barrier", fetchBarrierKernel);
}

} // namespace distc::runtime::kernels
