//===- PsMessage.h - Parameter-server messages ------------------*- C++ -*-===//
//
// What trainers and parameter servers say to each other (PsClient.h,
// PsServer.h). Connections, framing and the detection of dead peers are
// Gloo's: every message below is one transfer between two unbound buffers
// over the TCP pair of the two processes (PsWorld.h), matched by a 64-bit
// "slot". This file defines only the slots and the bytes of the two fixed
// records.
//
// Same-host copies: when a server can reach a trainer's memory (the two
// run on one host and the kernel lets the server copy from and into the
// trainer; PsWorld.h says how they agree), the payloads of that pair do
// not travel over TCP. The trainer's header carries the addresses of its
// payload and of the memory an answer goes to, and the server copies the
// payload into its registered memory, or the answer into the trainer's,
// with one copy (Linux's cross-memory attach, PsPeerCopy.h) before it
// replies. The data, values and result channels are then unused; every
// header and reply still goes over the pair, which also notices a dead
// peer.
//
// Slots: 0xD2 in the top byte, a channel in the next one, the request's
// sequence number (chosen by the trainer, one per request) in the low 32
// bits. Gloo matches a send with a receive of the same slot on the same
// pair, so sequence numbers need only be distinct per trainer.
//
//   channel  direction           what
//   1 header trainer -> server   a request header (below), sequence 0
//   2 data   trainer -> server   SEND and SET_STATE payload, SEND_ROWS
//                                row ids, PREFETCH ids
//   3 values trainer -> server   SEND_ROWS row values
//   4 reply  server -> trainer   the reply record (below)
//   5 result server -> trainer   GET's and GET_STATE's bytes,
//                                PREFETCH's rows
//   6 barrier everyone           PsWorld::barrier (one byte per pair)
//
// A request is a header, then as many payload transfers as its kind has.
// The trainer posts its receives (reply, result) before it sends, so the
// server's answers never wait. The server receives headers from all live
// trainers at once (one receive from any of them), checks each against
// what it registered, and only then posts the payload's receive, with the
// size it registered: a payload it refuses is never transferred (it stays
// in the trainer until the trainer gives up), so nothing is ever
// allocated from a size a peer chose.
//
// Request header: kPsHeaderBytes bytes, little-endian.
//
//   offset size  field
//   0      4     magic "DPS2" (protocol version 2)
//   4      1     kind (PsKind)
//   5      1     name length, 0..255
//   6      2     zero
//   8      4     trainer id of the sender (int32)
//   12     4     sequence number
//   16     8     bytes: SEND and SET_STATE the payload's size; SEND_ROWS
//                the values' size; GET, GET_STATE and PREFETCH the size
//                of the answer expected
//   24     8     rows: SEND_ROWS the row count; PREFETCH the id count
//   32     8     same-host copies only, else 0: the address in the
//                trainer of SEND's and SET_STATE's payload, of
//                SEND_ROWS' row ids, of PREFETCH's ids
//   40     8     same-host copies only: SEND_ROWS' row values
//   48     8     same-host copies only: where GET's and GET_STATE's
//                bytes and PREFETCH's rows go
//   56     256   the variable (or table) name, not terminated
//
// Reply: kPsReplyBytes bytes, little-endian.
//
//   0      4     magic "DPR1"
//   4      1     kind answered
//   5      1     status: 0 done, 1 refused
//   6      2     message length, 0..496
//   8      8     bytes (GET: the size of the variable served)
//   16     496   why the request was refused, not terminated
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_PSERVER_PSMESSAGE_H
#define DISTC_PSERVER_PSMESSAGE_H

#include "distc/Runtime/Status.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace distc::pserver {

using runtime::Status;

/// The kinds of request, with Paddle's names in comments.
enum class PsKind : uint8_t {
  /// A dense variable (send op, a gradient block).
  Send = 1,
  /// Rows of a sparse variable (SelectedRows): int64 row ids, then the
  /// rows' values, row width fixed by the server's registration.
  SendRows = 2,
  /// A variable's bytes (recv op, a parameter block).
  Get = 3,
  /// Rows of a table by id (prefetch op, distributed lookup table).
  Prefetch = 4,
  /// BATCH_BARRIER@RECV (send_barrier op).
  BatchBarrier = 5,
  /// FETCH_BARRIER@RECV (fetch_barrier op).
  FetchBarrier = 6,
  /// COMPLETE@RECV (Executor.close, fleet.stop_worker): this trainer is
  /// done.
  Complete = 7,
  /// A variable of the server's training state (a parameter block, a
  /// block of optimizer state), read in either phase: what Paddle's
  /// recv_save reads for save_persistables, and a checkpoint.
  GetState = 8,
  /// Overwrites a variable of the server's training state, in either
  /// phase: a trainer resuming from a checkpoint hands the servers their
  /// state (Paddle's init_server from a saved model, pushed).
  SetState = 9,
};

/// "send", "send_rows", "get", "prefetch", "send_barrier",
/// "fetch_barrier", "complete", "get_state", "set_state".
const char *psKindName(PsKind kind);
std::optional<PsKind> psKindFromByte(uint8_t byte);

inline constexpr size_t kPsMaxNameBytes = 255;
inline constexpr size_t kPsNameOffset = 56;
inline constexpr size_t kPsHeaderBytes = kPsNameOffset + 256;
inline constexpr size_t kPsReplyBytes = 512;
inline constexpr size_t kPsMaxReplyMessage = kPsReplyBytes - 16;

enum class PsChannel : uint8_t {
  Header = 1,
  Data = 2,
  Values = 3,
  Reply = 4,
  Result = 5,
  Barrier = 6,
  TrainerSum = 7
};

/// The slot of `channel` for request `seq`.
inline uint64_t psSlot(PsChannel channel, uint32_t seq) {
  return (uint64_t(0xD2) << 56) | (uint64_t(channel) << 48) | uint64_t(seq);
}

struct PsHeader {
  PsKind kind = PsKind::Send;
  int32_t trainer = 0;
  uint32_t seq = 0;
  uint64_t bytes = 0;
  uint64_t rows = 0;
  /// Same-host copies: addresses in the trainer's memory (see above).
  uint64_t dataAddress = 0;
  uint64_t valuesAddress = 0;
  uint64_t resultAddress = 0;
  std::string name;
};

struct PsReply {
  PsKind kind = PsKind::Send;
  bool done = true;
  uint64_t bytes = 0;
  /// Why it was refused; longer messages are cut to kPsMaxReplyMessage
  /// bytes, ending in "...".
  std::string message;
};

/// Fails when `name` does not fit a header: "variable name 'abc...' is
/// 300 bytes; parameter-server messages carry names of at most 255".
Status checkPsName(const std::string &name);

/// Writes kPsHeaderBytes bytes; the name must pass checkPsName.
void encodePsHeader(const PsHeader &header, unsigned char *out);
/// Reads kPsHeaderBytes bytes; false with `error` when they are not a
/// header of this protocol version.
bool decodePsHeader(const unsigned char *in, PsHeader &header, std::string &error);

/// Writes kPsReplyBytes bytes.
void encodePsReply(const PsReply &reply, unsigned char *out);
bool decodePsReply(const unsigned char *in, PsReply &reply, std::string &error);

} // namespace distc::pserver

#endif // DISTC_PSERVER_PSMESSAGE_H
