//===- Socket.h - Blocking TCP helpers with deadlines -----------*- C++ -*-===//
//
// The small part of POSIX sockets the rendezvous store needs: resolve a
// host, listen on exactly one address, connect with retries until a
// deadline, and send/receive whole buffers without ever blocking past a
// deadline. Every function reports failures as text for the caller to put
// into a one-line message; none throws and none raises SIGPIPE.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_LIB_COMM_SOCKET_H
#define DISTC_LIB_COMM_SOCKET_H

#include <chrono>
#include <cstddef>
#include <string>

namespace distc::comm::detail {

using Clock = std::chrono::steady_clock;

/// Owns a file descriptor; closes it on destruction.
class Fd {
public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd &&other) noexcept : fd_(other.release()) {}
  Fd &operator=(Fd &&other) noexcept;
  Fd(const Fd &) = delete;
  Fd &operator=(const Fd &) = delete;
  ~Fd() { reset(); }

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  int release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }
  void reset(int fd = -1);

private:
  int fd_ = -1;
};

/// Listens on `host:port` (port 0: any free port) and only there, with
/// SO_REUSEADDR so a restarted master can reuse the port at once. On
/// success `boundPort` is the port actually bound. Errors name the
/// address; a taken port gives "port P is already in use on HOST".
Fd listenOn(const std::string &host, int port, int &boundPort, std::string &error);

/// Connects to `host:port`, retrying refused or unreachable attempts every
/// few tens of milliseconds until `deadline` (the master may start after
/// its peers). On failure `error` is the last attempt's reason.
Fd connectTo(const std::string &host, int port, Clock::time_point deadline, std::string &error);

enum class IoResult { Ok, Timeout, Closed, Error };

/// Sends or receives exactly `size` bytes; never blocks past `deadline`.
/// Closed: the peer closed the connection (recv) or reset it (either).
IoResult sendAll(int fd, const void *data, size_t size, Clock::time_point deadline,
                 std::string &error);
IoResult recvAll(int fd, void *data, size_t size, Clock::time_point deadline, std::string &error);

/// The numeric local address of a connected socket ("10.0.0.3"): the
/// address this host is reached by on the network that leads to the peer.
std::string localAddress(int fd);

void setNonBlocking(int fd, bool on);

} // namespace distc::comm::detail

#endif // DISTC_LIB_COMM_SOCKET_H
