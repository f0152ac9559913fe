//===- PsClient.cpp - A trainer's requests to parameter servers -----------===//
//
// A request in flight owns its header and reply records and one buffer
// per transfer. The receives (reply, result) are posted before the
// header goes, so a server's answer is written as soon as it is sent.
// The reply is awaited first: a server that refuses a request answers at
// once and never takes its payload, whose send is dropped with the client.
// With a server that copies (same host), the header carries the payload's
// and the answer's addresses instead, and the reply is the only transfer
// back: the server has copied before it replies.
//
//===----------------------------------------------------------------------===//

#include "distc/PServer/PsClient.h"

#include "PsWorldImpl.h"

#include <array>

namespace distc::pserver {

using detail::Clock;
using detail::PeerFailure;
using detail::Xfer;

namespace {

struct Flight {
  const PsRequest *request = nullptr;
  int peer = -1;
  uint32_t seq = 0;
  std::array<unsigned char, kPsHeaderBytes> header{};
  std::array<unsigned char, kPsReplyBytes> reply{};
  std::unique_ptr<Xfer> replyXfer, resultXfer;
  /// Header, data, values: sends that complete once the server has them.
  std::vector<std::unique_ptr<Xfer>> sends;
};

bool hasName(PsKind kind) {
  return kind == PsKind::Send || kind == PsKind::SendRows || kind == PsKind::Get ||
         kind == PsKind::Prefetch || kind == PsKind::GetState || kind == PsKind::SetState;
}

/// Kinds whose answer carries bytes on the result channel.
bool hasResult(PsKind kind) {
  return kind == PsKind::Get || kind == PsKind::Prefetch || kind == PsKind::GetState;
}

} // namespace

PsRequest PsRequest::send(int server, std::string name, const void *data, size_t bytes) {
  PsRequest r;
  r.kind = PsKind::Send;
  r.server = server;
  r.name = std::move(name);
  r.data = data;
  r.bytes = bytes;
  return r;
}

PsRequest PsRequest::sendRows(int server, std::string name, const int64_t *rows, size_t numRows,
                              const void *values, size_t valueBytes) {
  PsRequest r;
  r.kind = PsKind::SendRows;
  r.server = server;
  r.name = std::move(name);
  r.ids = rows;
  r.numIds = numRows;
  r.data = values;
  r.bytes = valueBytes;
  return r;
}

PsRequest PsRequest::get(int server, std::string name, void *out, size_t bytes) {
  PsRequest r;
  r.kind = PsKind::Get;
  r.server = server;
  r.name = std::move(name);
  r.out = out;
  r.outBytes = bytes;
  return r;
}

PsRequest PsRequest::getState(int server, std::string name, void *out, size_t bytes) {
  PsRequest r = get(server, std::move(name), out, bytes);
  r.kind = PsKind::GetState;
  return r;
}

PsRequest PsRequest::setState(int server, std::string name, const void *data, size_t bytes) {
  PsRequest r = send(server, std::move(name), data, bytes);
  r.kind = PsKind::SetState;
  return r;
}

PsRequest PsRequest::prefetch(int server, std::string table, const int64_t *ids, size_t numIds,
                              void *rowsOut, size_t rowsBytes) {
  PsRequest r;
  r.kind = PsKind::Prefetch;
  r.server = server;
  r.name = std::move(table);
  r.ids = ids;
  r.numIds = numIds;
  r.out = rowsOut;
  r.outBytes = rowsBytes;
  return r;
}

PsRequest PsRequest::barrier(PsKind kind, int server) {
  PsRequest r;
  r.kind = kind;
  r.server = server;
  return r;
}

class PsClient::Impl {
public:
  Impl(PsWorld &world, const PsClientOptions &options)
      : w(world.impl()), options(options), completed(size_t(w.numServers), 0) {}

  std::string describe(const PsRequest &r) const {
    std::string server = "server " + std::to_string(r.server);
    switch (r.kind) {
    case PsKind::Send:
    case PsKind::SendRows:
      return std::string(psKindName(r.kind)) + " of '" + r.name + "' to " + server;
    case PsKind::Get:
    case PsKind::GetState:
      return std::string(psKindName(r.kind)) + " of '" + r.name + "' from " + server;
    case PsKind::SetState:
      return "set_state of '" + r.name + "' on " + server;
    case PsKind::Prefetch:
      return "prefetch from '" + r.name + "' on " + server;
    default:
      return std::string(psKindName(r.kind)) + " to " + server;
    }
  }

  Status check(const PsRequest &r) const {
    if (w.role != PsRole::Trainer)
      return Status::error("a parameter-server client needs a trainer's world; this is " +
                           w.describe(w.rank));
    if (r.server < 0 || r.server >= w.numServers)
      return Status::error(std::string(psKindName(r.kind)) + ": server " +
                           std::to_string(r.server) + " is outside [0, " +
                           std::to_string(w.numServers) + ")");
    if (completed[size_t(r.server)])
      return Status::error(describe(r) + ": trainer " + std::to_string(w.index) +
                           " has already sent COMPLETE to server " + std::to_string(r.server));
    if (hasName(r.kind)) {
      if (r.name.empty())
        return Status::error(describe(r) + ": no variable name");
      if (Status s = checkPsName(r.name); !s.ok())
        return s;
    }
    if ((!r.data && r.bytes) || (!r.ids && r.numIds) || (!r.out && r.outBytes))
      return Status::error(describe(r) + ": no memory given for its data");
    return Status::success();
  }

  Status fail(const PsRequest &r, const PeerFailure &failure, bool fromTransport) {
    return w.fail(describe(r), failure, options.timeout, fromTransport);
  }

  Status post(Flight &f);
  Status finish(Flight &f);
  Status run(const std::vector<PsRequest> &requests);

  PsWorld::Impl &w;
  const PsClientOptions options;
  uint32_t seq = 0;
  /// Servers this trainer has sent COMPLETE to.
  std::vector<char> completed;
};

Status PsClient::Impl::post(Flight &f) {
  const PsRequest &r = *f.request;
  PsHeader h;
  h.kind = r.kind;
  h.trainer = w.index;
  h.seq = f.seq;
  h.name = hasName(r.kind) ? r.name : std::string();
  switch (r.kind) {
  case PsKind::Send:
  case PsKind::SetState:
    h.bytes = r.bytes;
    break;
  case PsKind::SendRows:
    h.bytes = r.bytes;
    h.rows = r.numIds;
    break;
  case PsKind::Get:
  case PsKind::GetState:
    h.bytes = r.outBytes;
    break;
  case PsKind::Prefetch:
    h.bytes = r.outBytes;
    h.rows = r.numIds;
    break;
  default:
    break;
  }
  const bool copies = w.copies[size_t(f.peer)];
  if (copies) {
    auto address = [](const void *p) { return uint64_t(reinterpret_cast<uintptr_t>(p)); };
    if (r.kind == PsKind::SendRows || r.kind == PsKind::Prefetch) {
      h.dataAddress = address(r.ids);
      h.valuesAddress = r.kind == PsKind::SendRows ? address(r.data) : 0;
    } else {
      h.dataAddress = address(r.data);
    }
    h.resultAddress = address(r.out);
  }
  encodePsHeader(h, f.header.data());
  PeerFailure failure;
  auto sendPart = [&](PsChannel channel, const void *data, size_t bytes) {
    if (bytes == 0)
      return true;
    f.sends.push_back(w.transport->buffer(const_cast<void *>(data), bytes));
    return f.sends.back()->send(f.peer, psSlot(channel, f.seq), bytes, failure);
  };
  f.replyXfer = w.transport->buffer(f.reply.data(), kPsReplyBytes);
  bool ok = f.replyXfer->recv(f.peer, psSlot(PsChannel::Reply, f.seq), kPsReplyBytes, failure);
  if (ok && !copies && r.outBytes && hasResult(r.kind)) {
    f.resultXfer = w.transport->buffer(r.out, r.outBytes);
    ok = f.resultXfer->recv(f.peer, psSlot(PsChannel::Result, f.seq), r.outBytes, failure);
  }
  if (ok && r.kind == PsKind::Complete) {
    // Before it goes: once the server has it, the server may leave.
    w.markFinished(f.peer);
    completed[size_t(r.server)] = 1;
  }
  if (ok) {
    f.sends.push_back(w.transport->buffer(f.header.data(), kPsHeaderBytes));
    ok = f.sends.back()->send(f.peer, psSlot(PsChannel::Header, 0), kPsHeaderBytes, failure);
  }
  if (copies)
    return ok ? Status::success() : fail(r, failure, true);
  if (ok && (r.kind == PsKind::Send || r.kind == PsKind::SetState))
    ok = sendPart(PsChannel::Data, r.data, r.bytes);
  if (ok && (r.kind == PsKind::SendRows || r.kind == PsKind::Prefetch))
    ok = sendPart(PsChannel::Data, r.ids, r.numIds * sizeof(int64_t));
  if (ok && r.kind == PsKind::SendRows)
    ok = sendPart(PsChannel::Values, r.data, r.bytes);
  return ok ? Status::success() : fail(r, failure, true);
}

Status PsClient::Impl::finish(Flight &f) {
  const PsRequest &r = *f.request;
  PeerFailure failure;
  auto waitFor = [&](Xfer &x) {
    if (x.wait(Clock::now() + options.timeout, nullptr, failure))
      return true;
    if (failure.timedOut) {
      failure.peer = -1;
      failure.what = "timed out after " + comm::formatSeconds(options.timeout) + " waiting for " +
                     w.describe(f.peer) + " to answer";
    }
    return false;
  };
  if (!waitFor(*f.replyXfer))
    return fail(r, failure, true);
  PsReply reply;
  std::string error;
  if (!decodePsReply(f.reply.data(), reply, error) || reply.kind != r.kind) {
    failure.peer = -1;
    failure.what =
        w.describe(f.peer) + " sent " + (error.empty() ? "the answer to another request" : error);
    return fail(r, failure, false);
  }
  if (!reply.done) {
    failure.peer = -1;
    failure.what = reply.message;
    return fail(r, failure, false);
  }
  if (f.resultXfer && !waitFor(*f.resultXfer))
    return fail(r, failure, true);
  for (auto &x : f.sends)
    if (!waitFor(*x))
      return fail(r, failure, true);
  return Status::success();
}

Status PsClient::Impl::run(const std::vector<PsRequest> &requests) {
  if (!w.broken.empty())
    return Status::error(w.broken);
  for (const PsRequest &r : requests)
    if (Status s = check(r); !s.ok())
      return s;
  std::vector<std::unique_ptr<Flight>> flights;
  for (const PsRequest &r : requests) {
    auto f = std::make_unique<Flight>();
    f->request = &r;
    f->peer = w.numTrainers + r.server;
    f->seq = ++seq;
    if (Status s = post(*f); !s.ok())
      return s;
    flights.push_back(std::move(f));
  }
  for (auto &f : flights)
    if (Status s = finish(*f); !s.ok())
      return s;
  return Status::success();
}

PsClient::PsClient(PsWorld &world, const PsClientOptions &options)
    : impl_(std::make_unique<Impl>(world, options)) {}
PsClient::~PsClient() = default;

Status PsClient::send(int server, const std::string &name, const void *data, size_t bytes) {
  return run({PsRequest::send(server, name, data, bytes)});
}

Status PsClient::sendRows(int server, const std::string &name, const int64_t *rows, size_t numRows,
                          const void *values, size_t valueBytes) {
  return run({PsRequest::sendRows(server, name, rows, numRows, values, valueBytes)});
}

Status PsClient::get(int server, const std::string &name, void *out, size_t bytes) {
  return run({PsRequest::get(server, name, out, bytes)});
}

Status PsClient::prefetch(int server, const std::string &table, const int64_t *ids, size_t numIds,
                          void *rowsOut, size_t rowsBytes) {
  return run({PsRequest::prefetch(server, table, ids, numIds, rowsOut, rowsBytes)});
}

namespace {
std::vector<PsRequest> toEveryServer(PsKind kind, int servers, const std::vector<char> &skip) {
  std::vector<PsRequest> requests;
  for (int s = 0; s < servers; ++s)
    if (skip.empty() || !skip[size_t(s)])
      requests.push_back(PsRequest::barrier(kind, s));
  return requests;
}
} // namespace

Status PsClient::sendBarrier() {
  return run(toEveryServer(PsKind::BatchBarrier, impl_->w.numServers, {}));
}

Status PsClient::fetchBarrier() {
  return run(toEveryServer(PsKind::FetchBarrier, impl_->w.numServers, {}));
}

Status PsClient::complete() {
  return run(toEveryServer(PsKind::Complete, impl_->w.numServers, impl_->completed));
}

Status PsClient::run(const std::vector<PsRequest> &requests) { return impl_->run(requests); }

const std::string &PsClient::failure() const { return impl_->w.broken; }

} // namespace distc::pserver
