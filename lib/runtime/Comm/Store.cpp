//===- Store.cpp - The rendezvous store's client --------------------------===//
//
// One TCP connection per client, one request at a time (a mutex serializes
// threads). Blocking requests carry their timeout to the server, which
// answers at the deadline; the client itself gives up only if no answer
// comes within that time plus the store timeout, so a server that vanished
// without closing the connection (a partitioned network) cannot hang us.
//
//===----------------------------------------------------------------------===//

#include "distc/Comm/Store.h"

#include "Socket.h"
#include "StoreProtocol.h"

#include <algorithm>
#include <mutex>

namespace distc::comm {

using namespace detail;
using std::chrono::milliseconds;

class Store::Impl {
public:
  Impl(const StoreOptions &o, Fd fd)
      : host(o.host), port(o.port), rank(o.rank), timeout(o.timeout), token(o.token),
        fd(std::move(fd)) {
    local = detail::localAddress(this->fd.get());
  }

  std::string where() const { return "the rendezvous store at " + hostPort(host, port); }

  /// Sends one request and reads its answer. `serverWait` is how long the
  /// server may park the request before answering.
  Status call(Op op, const Writer &fields, milliseconds serverWait, Reply &status,
              std::string &body) {
    std::lock_guard<std::mutex> lock(mu);
    if (!broken.empty())
      return Status::error(broken);
    std::string frame = fields.frame(static_cast<uint8_t>(op));
    std::string err;
    IoResult io = sendAll(fd.get(), frame.data(), frame.size(), Clock::now() + timeout, err);
    if (io != IoResult::Ok)
      return fail(io, err);
    Clock::time_point deadline = Clock::now() + serverWait + timeout;
    char header[4];
    io = recvAll(fd.get(), header, 4, deadline, err);
    if (io != IoResult::Ok)
      return fail(io, err);
    uint32_t len = frameLength(header);
    if (len == 0 || len > kMaxFrame)
      return failWith(where() + " sent a malformed answer");
    std::string raw(len, '\0');
    io = recvAll(fd.get(), raw.data(), len, deadline, err);
    if (io != IoResult::Ok)
      return fail(io, err);
    status = static_cast<Reply>(static_cast<uint8_t>(raw[0]));
    body = raw.substr(1);
    return Status::success();
  }

  Status fail(IoResult io, const std::string &err) {
    if (io == IoResult::Closed)
      return failWith(where() + " closed the connection");
    if (io == IoResult::Timeout)
      return failWith(where() + " did not answer within " + formatSeconds(timeout));
    return failWith("lost the connection to " + where() + ": " + err);
  }

  Status failWith(const std::string &message) {
    broken = message;
    fd.reset();
    return Status::error(message);
  }

  void goodbye(const std::string &reason) {
    std::lock_guard<std::mutex> lock(mu);
    if (!broken.empty() || !fd.valid())
      return;
    Writer w;
    w.str(reason);
    std::string frame = w.frame(static_cast<uint8_t>(Op::Bye));
    std::string err;
    // Best effort: wait briefly for the acknowledgement so the goodbye is
    // logged before our connection's end is.
    Clock::time_point deadline = Clock::now() + milliseconds(1000);
    if (sendAll(fd.get(), frame.data(), frame.size(), deadline, err) == IoResult::Ok) {
      char header[5];
      recvAll(fd.get(), header, sizeof header, deadline, err);
    }
    fd.reset();
    broken = "this rank has left " + where();
  }

  const std::string host;
  const int port;
  const int rank;
  const milliseconds timeout;
  const std::string token;
  Fd fd;
  std::string local;
  std::mutex mu;
  std::string broken; // set once the connection failed or was closed
};

namespace {

std::string quoteList(const std::vector<std::string> &keys) {
  std::string s;
  size_t shown = 0;
  for (const std::string &k : keys) {
    if (shown == 5) {
      s += " and " + std::to_string(keys.size() - shown) + " more";
      break;
    }
    s += (shown ? ", '" : "'") + k + "'";
    ++shown;
  }
  return s;
}

std::vector<std::string> readKeys(Reader &r) {
  std::vector<std::string> keys(r.u32());
  for (std::string &k : keys)
    k = r.str();
  return keys;
}

/// A Wait request: the keys, how long the server may wait, and whether any
/// one of them (rather than all) ends the wait.
Writer waitRequest(const std::vector<std::string> &keys, milliseconds timeout, bool any) {
  Writer w;
  w.u32(static_cast<uint32_t>(keys.size()));
  for (const std::string &k : keys)
    w.str(k);
  w.i64(timeout.count());
  w.byte(any ? 1 : 0);
  return w;
}

/// A Wait request that returns the keys present when it ends: all of
/// `keys`, at least one of them (`any`), or those there at `timeout`.
Status presentKeys(Store::Impl &impl, const std::vector<std::string> &keys,
                   milliseconds timeout, bool any, std::vector<std::string> &present) {
  Writer w = waitRequest(keys, timeout, any);
  Reply status;
  std::string body;
  Status s = impl.call(Op::Wait, w, timeout, status, body);
  present.clear();
  if (!s.ok())
    return s;
  Reader r(body);
  present = readKeys(r);
  return Status::success();
}

} // namespace

Store::Store(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Store::~Store() { impl_->goodbye(""); }

std::unique_ptr<Store> Store::connect(const StoreOptions &options, std::string &error) {
  std::string where = hostPort(options.host, options.port);
  std::string reason;
  Fd fd = connectTo(options.host, options.port, Clock::now() + options.timeout, reason);
  if (!fd.valid()) {
    error = "cannot reach the rendezvous store at " + where + " after " +
            formatSeconds(options.timeout) + " (" + reason + ")";
    return nullptr;
  }
  auto impl = std::make_unique<Impl>(options, std::move(fd));
  Writer w;
  w.str(kStoreMagic);
  w.i64(options.rank);
  w.str(options.token);
  Reply status;
  std::string body;
  Status s = impl->call(Op::Hello, w, milliseconds(0), status, body);
  Reader r(body);
  std::string answer = r.str();
  // A refusal (job token, version) is final: retrying cannot change it.
  if (s.ok() && status == Reply::Error && r.ok() && r.atEnd()) {
    error = impl->where() + " " + answer;
    return nullptr;
  }
  if (!s.ok() || status != Reply::Ok || answer != kStoreMagic) {
    error = "the service at " + where + " is not a distc rendezvous store" +
            (s.ok() ? std::string() : " (" + s.message() + ")");
    return nullptr;
  }
  return std::unique_ptr<Store>(new Store(std::move(impl)));
}

std::unique_ptr<Store> Store::connectAnother(std::string &error) const {
  StoreOptions o;
  o.host = impl_->host;
  o.port = impl_->port;
  o.timeout = impl_->timeout;
  o.token = impl_->token;
  return connect(o, error);
}

Status Store::set(const std::string &key, const std::string &value) {
  Writer w;
  w.str(key);
  w.str(value);
  Reply status;
  std::string body;
  return impl_->call(Op::Set, w, milliseconds(0), status, body);
}

Status Store::get(const std::string &key, std::string &value) {
  return get(key, value, impl_->timeout);
}

Status Store::get(const std::string &key, std::string &value, milliseconds timeout) {
  Writer w;
  w.str(key);
  w.i64(timeout.count());
  Reply status;
  std::string body;
  Status s = impl_->call(Op::Get, w, timeout, status, body);
  if (!s.ok())
    return s;
  if (status != Reply::Ok)
    return Status::error("timed out after " + formatSeconds(timeout) + " waiting for key '" + key +
                         "' in " + impl_->where());
  Reader r(body);
  value = r.str();
  return Status::success();
}

Status Store::wait(const std::vector<std::string> &keys) { return wait(keys, impl_->timeout); }

Status Store::wait(const std::vector<std::string> &keys, milliseconds timeout) {
  Writer w = waitRequest(keys, timeout, /*any=*/false);
  Reply status;
  std::string body;
  Status s = impl_->call(Op::Wait, w, timeout, status, body);
  if (!s.ok() || status == Reply::Ok)
    return s;
  Reader r(body);
  std::vector<std::string> present = readKeys(r), missing;
  for (const std::string &k : keys)
    if (std::find(present.begin(), present.end(), k) == present.end())
      missing.push_back(k);
  return Status::error("timed out after " + formatSeconds(timeout) + " waiting for key" +
                       (missing.size() == 1 ? " " : "s ") + quoteList(missing) + " in " +
                       impl_->where());
}

Status Store::waitAny(const std::vector<std::string> &keys, milliseconds timeout,
                      std::vector<std::string> &present) {
  return presentKeys(*impl_, keys, timeout, /*any=*/true, present);
}

Status Store::check(const std::vector<std::string> &keys, std::vector<std::string> &present) {
  return presentKeys(*impl_, keys, milliseconds(0), /*any=*/false, present);
}

Status Store::add(const std::string &key, int64_t delta, int64_t &value) {
  Writer w;
  w.str(key);
  w.i64(delta);
  Reply status;
  std::string body;
  Status s = impl_->call(Op::Add, w, milliseconds(0), status, body);
  if (!s.ok())
    return s;
  Reader r(body);
  if (status != Reply::Ok)
    return Status::error(impl_->where() + ": " + r.str());
  value = r.i64();
  return Status::success();
}

Status Store::departures(milliseconds wait, std::vector<Departure> &log) {
  Writer w;
  w.i64(wait.count());
  Reply status;
  std::string body;
  Status s = impl_->call(Op::Departures, w, wait, status, body);
  log.clear();
  if (!s.ok())
    return s;
  Reader r(body);
  uint32_t n = r.u32();
  for (uint32_t i = 0; i < n && r.ok(); ++i) {
    Departure d;
    d.rank = static_cast<int>(r.i64());
    d.lost = r.byte() != 0;
    d.reason = r.str();
    log.push_back(std::move(d));
  }
  return Status::success();
}

void Store::leave(const std::string &reason) { impl_->goodbye(reason); }

const std::string &Store::host() const { return impl_->host; }
int Store::port() const { return impl_->port; }
int Store::rank() const { return impl_->rank; }
milliseconds Store::timeout() const { return impl_->timeout; }
std::string Store::localAddress() const { return impl_->local; }

} // namespace distc::comm
