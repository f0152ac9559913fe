//===- SigpipeGuard.h - Keep SIGPIPE away from Gloo's writes ----*- C++ -*-===//
//
// Gloo's TCP transport writes with writev(), which raises SIGPIPE when the
// peer has gone; by default that kills the process before Gloo can report
// the error. Rather than ignoring SIGPIPE for the whole program (which
// would change how `dist-run ... | head` behaves), the guard blocks it in
// the calling thread for the duration of a Gloo call and discards one that
// became pending. Threads started under the guard (Gloo's event loop,
// created with the device) inherit the blocked mask for their lifetime.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_LIB_COMM_SIGPIPEGUARD_H
#define DISTC_LIB_COMM_SIGPIPEGUARD_H

#include <signal.h>

namespace distc::comm::detail {

class SigpipeGuard {
public:
  SigpipeGuard();
  ~SigpipeGuard();
  SigpipeGuard(const SigpipeGuard &) = delete;
  SigpipeGuard &operator=(const SigpipeGuard &) = delete;

private:
  sigset_t old_;
  bool blockedHere_ = false;
};

} // namespace distc::comm::detail

#endif // DISTC_LIB_COMM_SIGPIPEGUARD_H
