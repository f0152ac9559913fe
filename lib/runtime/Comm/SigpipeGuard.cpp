//===- SigpipeGuard.cpp - Keep SIGPIPE away from Gloo's writes ------------===//

#include "SigpipeGuard.h"

#include <pthread.h>
#include <time.h>

namespace distc::comm::detail {

SigpipeGuard::SigpipeGuard() {
  sigset_t pipe;
  sigemptyset(&pipe);
  sigaddset(&pipe, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe, &old_);
  blockedHere_ = !sigismember(&old_, SIGPIPE);
}

SigpipeGuard::~SigpipeGuard() {
  if (!blockedHere_)
    return; // an outer guard (or the program) keeps it blocked
  sigset_t pending;
  sigpending(&pending);
  if (sigismember(&pending, SIGPIPE)) {
    sigset_t pipe;
    sigemptyset(&pipe);
    sigaddset(&pipe, SIGPIPE);
    timespec zero{0, 0};
    sigtimedwait(&pipe, nullptr, &zero);
  }
  pthread_sigmask(SIG_SETMASK, &old_, nullptr);
}

} // namespace distc::comm::detail
