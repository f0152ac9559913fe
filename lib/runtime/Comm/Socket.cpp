//===- Socket.cpp - Blocking TCP helpers with deadlines -------------------===//

#include "Socket.h"

#include <arpa/inet.h>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

namespace distc::comm {

std::string hostPort(const std::string &host, int port) {
  if (host.find(':') != std::string::npos)
    return "[" + host + "]:" + std::to_string(port);
  return host + ":" + std::to_string(port);
}

std::string secondsText(std::chrono::milliseconds d) {
  std::string text = std::to_string(d.count() / 1000);
  if (int64_t frac = d.count() % 1000; frac) {
    char digits[8];
    std::snprintf(digits, sizeof digits, ".%03lld", static_cast<long long>(std::abs(frac)));
    text += digits;
    while (text.back() == '0')
      text.pop_back();
  }
  return text;
}

std::string formatSeconds(std::chrono::milliseconds d) { return secondsText(d) + " s"; }

} // namespace distc::comm

namespace distc::comm::detail {

Fd &Fd::operator=(Fd &&other) noexcept {
  if (this != &other)
    reset(other.release());
  return *this;
}

void Fd::reset(int fd) {
  if (fd_ >= 0)
    ::close(fd_);
  fd_ = fd;
}

void setNonBlocking(int fd, bool on) {
  int flags = ::fcntl(fd, F_GETFL, 0);
  ::fcntl(fd, F_SETFL, on ? (flags | O_NONBLOCK) : (flags & ~O_NONBLOCK));
}

namespace {

/// Milliseconds left until `deadline`, rounded up; 0 once it has passed.
int msLeft(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::microseconds>(deadline - Clock::now());
  if (left.count() <= 0)
    return 0;
  long long ms = (left.count() + 999) / 1000;
  return ms > 1 << 30 ? 1 << 30 : static_cast<int>(ms);
}

struct AddrInfoList {
  addrinfo *head = nullptr;
  ~AddrInfoList() {
    if (head)
      ::freeaddrinfo(head);
  }
};

bool resolve(const std::string &host, int port, bool passive, AddrInfoList &out,
             std::string &error) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0);
  std::string service = std::to_string(port);
  int rc = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &out.head);
  if (rc != 0) {
    error = "cannot resolve host '" + host + "': " + ::gai_strerror(rc);
    return false;
  }
  return true;
}

int boundPortOf(int fd) {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  if (::getsockname(fd, reinterpret_cast<sockaddr *>(&addr), &len) != 0)
    return -1;
  if (addr.ss_family == AF_INET)
    return ntohs(reinterpret_cast<sockaddr_in *>(&addr)->sin_port);
  if (addr.ss_family == AF_INET6)
    return ntohs(reinterpret_cast<sockaddr_in6 *>(&addr)->sin6_port);
  return -1;
}

/// One non-blocking connect attempt bounded by `deadline`.
Fd connectOnce(const addrinfo *ai, Clock::time_point deadline, std::string &error) {
  Fd fd(::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol));
  if (!fd.valid()) {
    error = std::string("socket: ") + std::strerror(errno);
    return Fd();
  }
  setNonBlocking(fd.get(), true);
  if (::connect(fd.get(), ai->ai_addr, ai->ai_addrlen) != 0) {
    if (errno != EINPROGRESS) {
      error = std::strerror(errno);
      return Fd();
    }
    pollfd p{fd.get(), POLLOUT, 0};
    int rc;
    do
      rc = ::poll(&p, 1, msLeft(deadline));
    while (rc < 0 && errno == EINTR);
    if (rc == 0) {
      error = "connection attempt timed out";
      return Fd();
    }
    int soError = 0;
    socklen_t len = sizeof soError;
    ::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &soError, &len);
    if (rc < 0 || soError != 0) {
      error = std::strerror(rc < 0 ? errno : soError);
      return Fd();
    }
  }
  int one = 1;
  ::setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

} // namespace

Fd listenOn(const std::string &host, int port, int &boundPort, std::string &error) {
  AddrInfoList list;
  if (!resolve(host, port, /*passive=*/true, list, error))
    return Fd();
  std::string where = hostPort(host, port);
  error = "cannot listen on " + where + ": no usable address";
  for (addrinfo *ai = list.head; ai; ai = ai->ai_next) {
    Fd fd(::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol));
    if (!fd.valid()) {
      error = "cannot listen on " + where + ": socket: " + std::strerror(errno);
      continue;
    }
    int one = 1;
    ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd.get(), ai->ai_addr, ai->ai_addrlen) != 0) {
      if (errno == EADDRINUSE) {
        error = "port " + std::to_string(port) + " is already in use on " + host;
        return Fd();
      }
      if (errno == EADDRNOTAVAIL)
        error = "cannot listen on " + where + ": " + host + " is not an address of this machine";
      else
        error = "cannot listen on " + where + ": " + std::strerror(errno);
      continue;
    }
    if (::listen(fd.get(), 512) != 0) {
      error = "cannot listen on " + where + ": " + std::strerror(errno);
      continue;
    }
    boundPort = boundPortOf(fd.get());
    error.clear();
    return fd;
  }
  return Fd();
}

Fd connectTo(const std::string &host, int port, Clock::time_point deadline, std::string &error) {
  for (;;) {
    AddrInfoList list;
    if (resolve(host, port, /*passive=*/false, list, error)) {
      for (addrinfo *ai = list.head; ai; ai = ai->ai_next) {
        Fd fd = connectOnce(ai, deadline, error);
        if (fd.valid())
          return fd;
      }
    }
    // Refused or unreachable: the master may not listen yet. Retry soon,
    // but never past the deadline.
    int left = msLeft(deadline);
    if (left <= 0)
      return Fd();
    std::this_thread::sleep_for(std::chrono::milliseconds(left < 50 ? left : 50));
  }
}

IoResult sendAll(int fd, const void *data, size_t size, Clock::time_point deadline,
                 std::string &error) {
  const char *p = static_cast<const char *>(data);
  while (size > 0) {
    ssize_t n = ::send(fd, p, size, MSG_NOSIGNAL);
    if (n > 0) {
      p += n;
      size -= static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      int left = msLeft(deadline);
      if (left <= 0)
        return IoResult::Timeout;
      pollfd pfd{fd, POLLOUT, 0};
      ::poll(&pfd, 1, left);
      continue;
    }
    error = std::strerror(errno);
    return errno == EPIPE || errno == ECONNRESET ? IoResult::Closed : IoResult::Error;
  }
  return IoResult::Ok;
}

IoResult recvAll(int fd, void *data, size_t size, Clock::time_point deadline, std::string &error) {
  char *p = static_cast<char *>(data);
  while (size > 0) {
    ssize_t n = ::recv(fd, p, size, 0);
    if (n > 0) {
      p += n;
      size -= static_cast<size_t>(n);
      continue;
    }
    if (n == 0) {
      error = "connection closed";
      return IoResult::Closed;
    }
    if (errno == EINTR)
      continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      int left = msLeft(deadline);
      if (left <= 0)
        return IoResult::Timeout;
      pollfd pfd{fd, POLLIN, 0};
      ::poll(&pfd, 1, left);
      continue;
    }
    error = std::strerror(errno);
    return errno == ECONNRESET ? IoResult::Closed : IoResult::Error;
  }
  return IoResult::Ok;
}

std::string localAddress(int fd) {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  if (::getsockname(fd, reinterpret_cast<sockaddr *>(&addr), &len) != 0)
    return "";
  char buf[INET6_ADDRSTRLEN] = {0};
  if (addr.ss_family == AF_INET)
    ::inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in *>(&addr)->sin_addr, buf, sizeof buf);
  else if (addr.ss_family == AF_INET6)
    ::inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6 *>(&addr)->sin6_addr, buf, sizeof buf);
  return buf;
}

} // namespace distc::comm::detail
