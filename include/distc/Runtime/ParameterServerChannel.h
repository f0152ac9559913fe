//===- ParameterServerChannel.h - A trainer's line to its servers -*- C++ -*-===//
//
// What the parameter-server kernels (ps_send, ps_send_rows, ps_send_barrier, ps_recv,
// ps_fetch_barrier; docs/kernels.md) call. A block is named by its server
// (the index in the artifact's `pservers`) and its slot there (an index
// into that server's `receives` for a gradient sent, `serves` for a
// parameter received); the channel turns those into messages. A Session
// without a channel fails these kernels, saying how to run the artifact.
// DistcPServer's TrainerChannel is the channel over the job's PsClient.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_RUNTIME_PARAMETERSERVERCHANNEL_H
#define DISTC_RUNTIME_PARAMETERSERVERCHANNEL_H

#include "distc/Runtime/Status.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace distc::runtime {

class ParameterServerChannel {
public:
  struct Block {
    int server = 0;
    int slot = 0;
    /// Host memory of `bytes` bytes: read by send, written by recv.
    void *data = nullptr;
    size_t bytes = 0;
  };

  /// A row-sparse gradient block: `numRows` row ids and their values
  /// (`valueBytes` in all), as ps_send_rows sends them.
  struct RowsBlock {
    int server = 0;
    int slot = 0;
    const int64_t *rows = nullptr;
    size_t numRows = 0;
    const void *values = nullptr;
    size_t valueBytes = 0;
  };

  virtual ~ParameterServerChannel() = default;
  /// Sends every gradient block; returns once each server has it.
  virtual Status send(const std::vector<Block> &blocks) = 0;
  virtual Status sendRows(const std::vector<RowsBlock> &blocks) = 0;
  /// Rows of a distributed table's block (a `serves` slot marked
  /// `prefetch`) for `numIds` block-local row numbers, `rowBytes` each,
  /// into `rows`, as ps_prefetch asks for them.
  struct PrefetchBlock {
    int server = 0;
    int slot = 0;
    const int64_t *ids = nullptr;
    size_t numIds = 0;
    void *rows = nullptr;
    size_t rowBytes = 0;
  };
  virtual Status prefetch(const std::vector<PrefetchBlock> &blocks) = 0;
  /// Receives every parameter block (in synchronous training, the round's
  /// updated values).
  virtual Status recv(const std::vector<Block> &blocks) = 0;
  /// Paddle's send_barrier and fetch_barrier, to every server.
  virtual Status sendBarrier() = 0;
  virtual Status fetchBarrier() = 0;
  /// The servers' training state, blocks named by an index into that
  /// server's `state` slots: read into `data` (getState) or overwritten
  /// with it (setState), between rounds. What a checkpoint, a trainer's
  /// save_persistables and a resumed run's state dict go through.
  virtual Status getState(const std::vector<Block> &blocks) = 0;
  virtual Status setState(const std::vector<Block> &blocks) = 0;
};

} // namespace distc::runtime

#endif // DISTC_RUNTIME_PARAMETERSERVERCHANNEL_H
