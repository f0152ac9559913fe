//===- StoreServer.cpp - The rendezvous store's server --------------------===//
//
// Plain POSIX sockets and one poll() thread. Gloo ships only file, hash
// (in-process) and Redis stores, Debian packages no TCP key-value store we
// could embed, and torch's TCPStore or Paddle's HTTP store come with their
// whole frameworks; the protocol needed here is a few hundred lines.
//
// One thread owns the state (keys, connections, waiters, the departure
// log), so only the set of departed ranks, which waitForDepartures reads
// from other threads, is locked. Blocking requests (get, wait,
// departures) park on their connection until satisfied or until their
// deadline, which bounds the poll() timeout.
//
// With a job token, Hello is where a client is admitted or refused: a
// refused connection gets the reason and is closed, never greeted, and
// leaves no trace in the departure log even if it claimed a rank.
//
//===----------------------------------------------------------------------===//

#include "distc/Comm/Store.h"

#include "Socket.h"
#include "StoreProtocol.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <fcntl.h>
#include <map>
#include <mutex>
#include <poll.h>
#include <set>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

namespace distc::comm {

using namespace detail;

class StoreServer::Impl {
public:
  Impl(std::string host, int port, std::string token, Fd listenFd, Fd wakeRead, Fd wakeWrite)
      : host_(std::move(host)), port_(port), token_(std::move(token)), listen_(std::move(listenFd)),
        wakeRead_(std::move(wakeRead)), wakeWrite_(std::move(wakeWrite)) {
    thread_ = std::thread([this] { run(); });
  }

  ~Impl() {
    char byte = 1;
    while (::write(wakeWrite_.get(), &byte, 1) < 0 && errno == EINTR) {
    }
    thread_.join();
  }

  const std::string host_;
  const int port_;
  /// Ranks in the departure log, readable from other threads.
  mutable std::mutex departedMu_;
  std::set<int> departed_;

private:
  /// A request parked until its keys exist or its deadline passes.
  struct Pending {
    bool active = false;
    Op op = Op::Get;
    std::vector<std::string> keys;
    bool any = false;
    Clock::time_point deadline;
  };

  struct Conn {
    Fd fd;
    bool greeted = false;
    int rank = -1;
    bool departed = false; // already in the departure log
    bool closing = false;  // said goodbye: close once the reply is out
    bool dead = false;
    std::string in, out;
    Pending pending;
  };

  void run();
  void acceptAll();
  void readFrom(Conn &c);
  void processFrames(Conn &c);
  void handle(Conn &c, const std::string &body);
  void hello(Conn &c, Reader &r);
  /// Answers `reason` as an error and closes the connection once it is out.
  void refuse(Conn &c, const std::string &reason);
  void reply(Conn &c, Reply status, const Writer &fields);
  void flush(Conn &c);
  void drop(Conn &c);
  void depart(Conn &c, bool lost, const std::string &reason);
  /// Answers parked requests that are now satisfied (or, with `expired`,
  /// those whose deadline has passed).
  void serveParked(bool expired);
  bool trySatisfy(Conn &c, bool expired);
  int pollTimeoutMs() const;

  /// Required of every client; empty: none.
  const std::string token_;
  Fd listen_, wakeRead_, wakeWrite_;
  std::thread thread_;
  std::map<std::string, std::string> data_;
  std::vector<std::unique_ptr<Conn>> conns_;
  std::vector<Departure> departures_;
};

void StoreServer::Impl::run() {
  for (;;) {
    std::vector<pollfd> fds;
    fds.push_back({wakeRead_.get(), POLLIN, 0});
    fds.push_back({listen_.get(), POLLIN, 0});
    for (auto &c : conns_)
      fds.push_back({c->fd.get(), short(POLLIN | (c->out.empty() ? 0 : POLLOUT)), 0});
    int rc = ::poll(fds.data(), fds.size(), pollTimeoutMs());
    if (rc < 0 && errno != EINTR)
      return;
    if (fds[0].revents)
      return; // destructor: stop serving
    if (fds[1].revents & POLLIN)
      acceptAll();
    // conns_ may have grown in acceptAll; only the first fds.size() - 2
    // connections were polled.
    for (size_t i = 2; i < fds.size(); ++i) {
      Conn &c = *conns_[i - 2];
      if (fds[i].revents & (POLLIN | POLLHUP | POLLERR))
        readFrom(c);
      if (!c.dead && (fds[i].revents & POLLOUT))
        flush(c);
    }
    serveParked(/*expired=*/true);
    conns_.erase(std::remove_if(conns_.begin(), conns_.end(),
                                [](const std::unique_ptr<Conn> &c) { return c->dead; }),
                 conns_.end());
  }
}

int StoreServer::Impl::pollTimeoutMs() const {
  bool any = false;
  Clock::time_point first;
  for (auto &c : conns_)
    if (c->pending.active && (!any || c->pending.deadline < first)) {
      first = c->pending.deadline;
      any = true;
    }
  if (!any)
    return -1;
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(first - Clock::now()).count();
  return left <= 0 ? 0 : static_cast<int>(std::min<long long>(left + 1, 1 << 30));
}

void StoreServer::Impl::acceptAll() {
  for (;;) {
    int fd = ::accept4(listen_.get(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0)
      return;
    auto c = std::make_unique<Conn>();
    c->fd.reset(fd);
    conns_.push_back(std::move(c));
  }
}

void StoreServer::Impl::readFrom(Conn &c) {
  char buf[1 << 16];
  for (;;) {
    ssize_t n = ::recv(c.fd.get(), buf, sizeof buf, 0);
    if (n > 0) {
      c.in.append(buf, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
      break;
    drop(c); // EOF or reset
    return;
  }
  processFrames(c);
}

void StoreServer::Impl::processFrames(Conn &c) {
  // A client waits for each answer before its next request, so a parked
  // request leaves any further bytes unread until it is answered. Nothing
  // is read after a goodbye or a refusal.
  while (!c.dead && !c.closing && !c.pending.active && c.in.size() >= 4) {
    uint32_t len = frameLength(c.in.data());
    if (len > kMaxFrame || len == 0) {
      drop(c);
      return;
    }
    if (c.in.size() < 4 + size_t(len))
      break;
    std::string body = c.in.substr(4, len);
    c.in.erase(0, 4 + size_t(len));
    handle(c, body);
  }
}

void StoreServer::Impl::handle(Conn &c, const std::string &body) {
  Reader r(body);
  Op op = static_cast<Op>(r.byte());
  if (!c.greeted && op != Op::Hello)
    return drop(c);
  Writer w;
  switch (op) {
  case Op::Hello:
    return hello(c, r);
  case Op::Set: {
    std::string key = r.str(), value = r.str();
    if (!r.ok())
      return drop(c);
    data_[key] = std::move(value);
    reply(c, Reply::Ok, w);
    return serveParked(false);
  }
  case Op::Add: {
    std::string key = r.str();
    int64_t delta = r.i64();
    if (!r.ok())
      return drop(c);
    int64_t value = 0;
    auto it = data_.find(key);
    if (it != data_.end()) {
      const std::string &s = it->second;
      auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
      if (ec != std::errc() || end != s.data() + s.size()) {
        w.str("key '" + key + "' holds a value that is not a counter");
        return reply(c, Reply::Error, w);
      }
    }
    // Wrap around like the unsigned arithmetic it is, never overflow UB.
    value = static_cast<int64_t>(static_cast<uint64_t>(value) + static_cast<uint64_t>(delta));
    data_[key] = std::to_string(value);
    w.i64(value);
    reply(c, Reply::Ok, w);
    return serveParked(false);
  }
  case Op::Get:
  case Op::Wait:
  case Op::Departures: {
    Pending &p = c.pending;
    p = Pending();
    p.op = op;
    if (op == Op::Get) {
      p.keys.push_back(r.str());
    } else if (op == Op::Wait) {
      uint32_t n = r.u32();
      for (uint32_t i = 0; i < n && r.ok(); ++i)
        p.keys.push_back(r.str());
    }
    int64_t ms = std::clamp<int64_t>(r.i64(), 0, int64_t(1) << 40);
    if (op == Op::Wait)
      p.any = r.byte() != 0;
    if (!r.ok())
      return drop(c);
    p.deadline = Clock::now() + std::chrono::milliseconds(ms);
    p.active = true;
    trySatisfy(c, /*expired=*/ms == 0);
    return;
  }
  case Op::Bye: {
    std::string reason = r.str();
    if (c.rank >= 0 && !c.departed)
      depart(c, /*lost=*/false, reason);
    c.closing = true;
    reply(c, Reply::Ok, w);
    return serveParked(false);
  }
  }
  drop(c); // unknown request
}

namespace {

/// Compares in a time that depends on `expected`'s length only, so timing
/// answers does not reveal how much of a guessed token was right.
bool sameToken(const std::string &expected, const std::string &given) {
  unsigned char diff = expected.size() == given.size() ? 0 : 1;
  for (size_t i = 0; i < expected.size(); ++i)
    diff |= static_cast<unsigned char>(expected[i] ^ (i < given.size() ? given[i] : 0));
  return diff == 0;
}

} // namespace

void StoreServer::Impl::hello(Conn &c, Reader &r) {
  std::string magic = r.str();
  if (!r.ok() || magic.rfind(kStoreMagicFamily, 0) != 0)
    return drop(c); // not a distc client at all
  // Another version's fields may be laid out differently: read no further.
  if (magic != kStoreMagic)
    return refuse(c, "speaks " + std::string(kStoreMagic) + " and this process " + magic +
                         " (processes of different distc versions?)");
  int64_t rank = r.i64();
  std::string token = r.str();
  if (!r.ok())
    return drop(c);
  if (!token_.empty() && token.empty())
    return refuse(c, "requires a job token and this process has none (set " +
                         std::string(kJobTokenVariable) + ")");
  if (!token_.empty() && !sameToken(token_, token))
    return refuse(c, "refused this process: its job token does not match (a process of another "
                     "job, or a stale one?)");
  c.greeted = true;
  c.rank = static_cast<int>(rank);
  Writer w;
  w.str(kStoreMagic);
  reply(c, Reply::Ok, w);
}

void StoreServer::Impl::refuse(Conn &c, const std::string &reason) {
  Writer w;
  w.str(reason);
  c.closing = true;
  reply(c, Reply::Error, w);
}

bool StoreServer::Impl::trySatisfy(Conn &c, bool expired) {
  Pending &p = c.pending;
  Writer w;
  if (p.op == Op::Get) {
    auto it = data_.find(p.keys[0]);
    if (it != data_.end()) {
      w.str(it->second);
      p.active = false;
      reply(c, Reply::Ok, w);
      return true;
    }
    if (!expired)
      return false;
    p.active = false;
    reply(c, Reply::Timeout, w);
    return true;
  }
  if (p.op == Op::Wait) {
    std::vector<const std::string *> present;
    for (const std::string &k : p.keys)
      if (data_.count(k))
        present.push_back(&k);
    bool done = p.any ? !present.empty() : present.size() == p.keys.size();
    if (!done && !expired)
      return false;
    w.u32(static_cast<uint32_t>(present.size()));
    for (const std::string *k : present)
      w.str(*k);
    p.active = false;
    reply(c, done ? Reply::Ok : Reply::Timeout, w);
    return true;
  }
  // Departures
  if (departures_.empty() && !expired)
    return false;
  w.u32(static_cast<uint32_t>(departures_.size()));
  for (const Departure &d : departures_) {
    w.i64(d.rank);
    w.byte(d.lost ? 1 : 0);
    w.str(d.reason);
  }
  p.active = false;
  reply(c, Reply::Ok, w);
  return true;
}

void StoreServer::Impl::serveParked(bool expired) {
  Clock::time_point now = Clock::now();
  for (auto &c : conns_) {
    if (c->dead || !c->pending.active)
      continue;
    if (trySatisfy(*c, expired && c->pending.deadline <= now) && !c->dead)
      processFrames(*c); // bytes that arrived while the request was parked
  }
}

void StoreServer::Impl::reply(Conn &c, Reply status, const Writer &fields) {
  c.out += fields.frame(static_cast<uint8_t>(status));
  flush(c);
}

void StoreServer::Impl::flush(Conn &c) {
  while (!c.out.empty()) {
    ssize_t n = ::send(c.fd.get(), c.out.data(), c.out.size(), MSG_NOSIGNAL);
    if (n > 0) {
      c.out.erase(0, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
      return;
    return drop(c);
  }
  if (c.closing)
    drop(c);
}

void StoreServer::Impl::drop(Conn &c) {
  if (c.dead)
    return;
  c.dead = true;
  c.pending.active = false;
  c.fd.reset();
  if (c.rank >= 0 && !c.departed) {
    depart(c, /*lost=*/true, "");
    serveParked(false);
  }
}

void StoreServer::Impl::depart(Conn &c, bool lost, const std::string &reason) {
  departures_.push_back({c.rank, lost, reason});
  c.departed = true;
  std::lock_guard<std::mutex> lock(departedMu_);
  departed_.insert(c.rank);
}

StoreServer::StoreServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
StoreServer::~StoreServer() = default;

const std::string &StoreServer::host() const { return impl_->host_; }
int StoreServer::port() const { return impl_->port_; }

void StoreServer::waitForDepartures(const std::vector<int> &ranks,
                                    std::chrono::milliseconds bound) const {
  Clock::time_point deadline = Clock::now() + bound;
  for (;;) {
    {
      std::lock_guard<std::mutex> lock(impl_->departedMu_);
      if (std::all_of(ranks.begin(), ranks.end(),
                      [&](int r) { return impl_->departed_.count(r) > 0; }))
        return;
    }
    if (Clock::now() >= deadline)
      return;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

std::unique_ptr<StoreServer> StoreServer::start(const std::string &host, int port,
                                                std::string &error) {
  return start(host, port, /*token=*/"", error);
}

std::unique_ptr<StoreServer> StoreServer::start(const std::string &host, int port,
                                                const std::string &token, std::string &error) {
  int bound = 0;
  Fd fd = listenOn(host, port, bound, error);
  if (!fd.valid())
    return nullptr;
  setNonBlocking(fd.get(), true);
  int pipeFds[2];
  if (::pipe2(pipeFds, O_CLOEXEC | O_NONBLOCK) != 0) {
    error = "cannot start the rendezvous store: pipe failed";
    return nullptr;
  }
  auto impl =
      std::make_unique<Impl>(host, bound, token, std::move(fd), Fd(pipeFds[0]), Fd(pipeFds[1]));
  return std::unique_ptr<StoreServer>(new StoreServer(std::move(impl)));
}

} // namespace distc::comm
