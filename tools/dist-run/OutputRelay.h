//===- OutputRelay.h - The ranks' output through the launcher ----*- C++ -*-===//
//
// When the launcher of a training job writes to a terminal, the first
// worker draws a live progress line there (Metrics.h) that other output
// would garble: another rank's warning written in the middle of it, or
// overwritten by its next redraw. So the launcher gives each rank pipes for
// stdout and stderr and is the only writer to the terminal:
//
// * The live source (rank 0's stderr) passes through byte for byte; the
//   relay remembers what is on the terminal's current line (the bytes since
//   the last '\r' or '\n').
// * Every other source is relayed in whole lines. Before such a line the
//   live line is cleared ("\r\033[K"), after it redrawn, so it always
//   stands on a line of its own and the progress line stays last.
// * The launcher's own messages go through message() the same way.
//
// The core (addSource, feed, end, message) is plain logic over a sink and
// is what the tests drive; addPipe, start and stop run it over pipes with a
// thread that polls them.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_TOOLS_DISTRUN_OUTPUTRELAY_H
#define DISTC_TOOLS_DISTRUN_OUTPUTRELAY_H

#include <atomic>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace distc::launch {

class OutputRelay {
public:
  /// Receives what goes to file descriptor `fd` (1 or 2), in order.
  using Sink = std::function<void(int fd, const std::string &bytes)>;

  /// `sink` defaults to write(2) on the launcher's descriptors.
  /// `stdoutSharesTerminal`: stdout is the terminal stderr is on, so lines
  /// to stdout also need the live line out of the way.
  explicit OutputRelay(bool stdoutSharesTerminal, Sink sink = nullptr);
  ~OutputRelay();
  OutputRelay(const OutputRelay &) = delete;
  OutputRelay &operator=(const OutputRelay &) = delete;

  /// A source whose output goes to `fd`; `live` for the progress line's.
  size_t addSource(int fd, bool live);
  /// Bytes `source` wrote.
  void feed(size_t source, const std::string &bytes);
  /// `source` has ended: its unfinished line goes out (a live one ends).
  void end(size_t source);
  /// One line of the launcher's own, to stderr ('\n' added).
  void message(const std::string &line);

  /// A pipe for a source to `fd`: returns the write end for the rank (to
  /// dup2 onto its descriptor and then close here), -1 with `error`. Both
  /// ends are close-on-exec, so no other rank inherits them. Pipes that
  /// hold output at the same time are read in the order they were added.
  int addPipe(int fd, bool live, std::string &error);
  /// Relays the pipes on a thread until stop().
  void start();
  /// Relays what the pipes still hold (until every writer has closed them,
  /// at most about a second) and joins the thread.
  void stop();

private:
  struct Source {
    int fd = 2;
    bool live = false;
    std::string partial;
    int readEnd = -1;
  };

  void emit(int fd, const std::string &bytes);
  /// A whole line from a source other than the live one.
  void emitLine(int fd, const std::string &line);
  void pump();

  Sink sink_;
  bool stdoutSharesTerminal_;
  std::mutex mutex_;
  std::vector<Source> sources_;
  /// What is on the terminal's current line after the live source's bytes.
  std::string liveLine_;
  std::thread thread_;
  std::atomic<bool> stopping_{false};
};

} // namespace distc::launch

#endif // DISTC_TOOLS_DISTRUN_OUTPUTRELAY_H
