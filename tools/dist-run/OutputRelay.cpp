//===- OutputRelay.cpp - The ranks' output through the launcher -----------===//

#include "OutputRelay.h"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

namespace distc::launch {

namespace {

/// A source that writes this much without a newline is relayed as it is.
constexpr size_t kMaxPartialLine = 64 * 1024;
/// Clears the terminal's current line.
constexpr const char *kClearLine = "\r\033[K";

void writeAll(int fd, const std::string &bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return; // Nowhere to write to: the output is lost, the job goes on.
    done += size_t(n);
  }
}

} // namespace

OutputRelay::OutputRelay(bool stdoutSharesTerminal, Sink sink)
    : sink_(sink ? std::move(sink) : Sink(writeAll)), stdoutSharesTerminal_(stdoutSharesTerminal) {}

OutputRelay::~OutputRelay() {
  stop();
  for (Source &s : sources_)
    if (s.readEnd >= 0)
      ::close(s.readEnd);
}

size_t OutputRelay::addSource(int fd, bool live) {
  std::lock_guard<std::mutex> lock(mutex_);
  Source s;
  s.fd = fd;
  s.live = live;
  sources_.push_back(std::move(s));
  return sources_.size() - 1;
}

void OutputRelay::emit(int fd, const std::string &bytes) {
  if (!bytes.empty())
    sink_(fd, bytes);
}

void OutputRelay::emitLine(int fd, const std::string &line) {
  const bool inTheWay = !liveLine_.empty() && (fd == 2 || stdoutSharesTerminal_);
  if (inTheWay)
    emit(2, kClearLine);
  emit(fd, line);
  if (inTheWay)
    emit(2, liveLine_);
}

void OutputRelay::feed(size_t source, const std::string &bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  Source &s = sources_.at(source);
  if (s.live) {
    emit(s.fd, bytes);
    for (char c : bytes) {
      if (c == '\n' || c == '\r')
        liveLine_.clear();
      else
        liveLine_.push_back(c);
    }
    return;
  }
  s.partial += bytes;
  size_t start = 0;
  for (size_t newline; (newline = s.partial.find('\n', start)) != std::string::npos;
       start = newline + 1)
    emitLine(s.fd, s.partial.substr(start, newline + 1 - start));
  s.partial.erase(0, start);
  if (s.partial.size() >= kMaxPartialLine) {
    emitLine(s.fd, s.partial);
    s.partial.clear();
  }
}

void OutputRelay::end(size_t source) {
  std::lock_guard<std::mutex> lock(mutex_);
  Source &s = sources_.at(source);
  if (s.live) {
    if (!liveLine_.empty())
      emit(s.fd, "\n");
    liveLine_.clear();
  } else if (!s.partial.empty()) {
    emitLine(s.fd, s.partial + "\n");
    s.partial.clear();
  }
}

void OutputRelay::message(const std::string &line) {
  std::lock_guard<std::mutex> lock(mutex_);
  emitLine(2, line + "\n");
}

int OutputRelay::addPipe(int fd, bool live, std::string &error) {
  int ends[2];
  if (::pipe2(ends, O_CLOEXEC) != 0) {
    error = std::string("cannot relay a rank's output: pipe: ") + std::strerror(errno);
    return -1;
  }
  const size_t source = addSource(fd, live);
  std::lock_guard<std::mutex> lock(mutex_);
  sources_[source].readEnd = ends[0];
  return ends[1];
}

void OutputRelay::start() {
  if (!thread_.joinable())
    thread_ = std::thread([this] { pump(); });
}

void OutputRelay::stop() {
  stopping_ = true;
  if (thread_.joinable())
    thread_.join();
}

void OutputRelay::pump() {
  using Clock = std::chrono::steady_clock;
  Clock::time_point deadline = Clock::time_point::max();
  std::vector<char> buffer(64 * 1024);
  for (;;) {
    std::vector<pollfd> polled;
    std::vector<size_t> which;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (size_t i = 0; i < sources_.size(); ++i)
        if (sources_[i].readEnd >= 0) {
          polled.push_back({sources_[i].readEnd, POLLIN, 0});
          which.push_back(i);
        }
    }
    if (polled.empty())
      return;
    // Once the ranks have ended, their pipes drain to end of file; a
    // process they left behind holding one open does not keep us here.
    if (stopping_ && deadline == Clock::time_point::max())
      deadline = Clock::now() + std::chrono::seconds(1);
    if (Clock::now() >= deadline) {
      for (size_t i : which) {
        end(i);
        std::lock_guard<std::mutex> lock(mutex_);
        ::close(sources_[i].readEnd);
        sources_[i].readEnd = -1;
      }
      return;
    }
    int ready = ::poll(polled.data(), polled.size(), 50);
    if (ready <= 0)
      continue;
    for (size_t k = 0; k < polled.size(); ++k) {
      if (!(polled[k].revents & (POLLIN | POLLHUP | POLLERR)))
        continue;
      ssize_t n = ::read(polled[k].fd, buffer.data(), buffer.size());
      if (n < 0 && (errno == EINTR || errno == EAGAIN))
        continue;
      if (n > 0) {
        feed(which[k], std::string(buffer.data(), size_t(n)));
        continue;
      }
      end(which[k]);
      std::lock_guard<std::mutex> lock(mutex_);
      ::close(sources_[which[k]].readEnd);
      sources_[which[k]].readEnd = -1;
    }
  }
}

} // namespace distc::launch
