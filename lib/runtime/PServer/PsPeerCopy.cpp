//===- PsPeerCopy.cpp - Copies into and out of a same-host process --------===//

#include "PsPeerCopy.h"

#include <cerrno>
#include <cstring>

#if defined(__linux__)
#include <poll.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>
#endif

namespace distc::pserver::detail {

#if defined(__linux__)

namespace {

/// The kernel copies at most this much per call; larger payloads loop, so
/// a partial copy (a page that vanished) is told apart from a short one.
constexpr size_t kMaxCall = size_t(1) << 30;

bool copyLoop(bool toPeer, long pid, uint64_t address, unsigned char *local, size_t bytes,
              PeerCopyError &error) {
  size_t done = 0;
  while (done < bytes) {
    size_t n = bytes - done < kMaxCall ? bytes - done : kMaxCall;
    iovec mine{local + done, n};
    iovec theirs{reinterpret_cast<void *>(static_cast<uintptr_t>(address + done)), n};
    ssize_t got = toPeer ? ::process_vm_writev(pid_t(pid), &mine, 1, &theirs, 1, 0)
                         : ::process_vm_readv(pid_t(pid), &mine, 1, &theirs, 1, 0);
    if (got < 0) {
      if (errno == EINTR)
        continue;
      error.peerGone = errno == ESRCH;
      error.what = std::strerror(errno);
      return false;
    }
    if (got == 0) {
      error.what = "the copy stopped after " + std::to_string(done) + " of " +
                   std::to_string(bytes) + " bytes";
      return false;
    }
    done += size_t(got);
  }
  return true;
}

} // namespace

bool peerCopySupported() { return true; }

void allowPeerCopies() {
#ifdef PR_SET_PTRACER
  // Fails (EINVAL) without Yama, which already allows the same user.
  (void)::prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
#endif
}

PeerProcess::PeerProcess(long pid) : pid_(pid) {
#ifdef SYS_pidfd_open
  // Kernels before 5.3 have none; then only the pair's own failure
  // detection guards against a reused pid.
  long fd = ::syscall(SYS_pidfd_open, pid_t(pid), 0);
  pidfd_ = fd < 0 ? -1 : int(fd);
#endif
}

PeerProcess::~PeerProcess() {
  if (pidfd_ >= 0)
    ::close(pidfd_);
}

bool PeerProcess::alive() const {
  if (pidfd_ < 0)
    return true;
  // A pidfd polls readable once its process has exited.
  pollfd p{pidfd_, POLLIN, 0};
  return ::poll(&p, 1, 0) == 0;
}

bool PeerProcess::copy(bool toPeer, uint64_t address, unsigned char *local, size_t bytes,
                       PeerCopyError &error) const {
  if (!alive()) {
    error.peerGone = true;
    error.what = "the process has exited";
    return false;
  }
  return copyLoop(toPeer, pid_, address, local, bytes, error);
}

#else

bool peerCopySupported() { return false; }
void allowPeerCopies() {}

PeerProcess::PeerProcess(long pid) : pid_(pid) {}
PeerProcess::~PeerProcess() = default;
bool PeerProcess::alive() const { return true; }

bool PeerProcess::copy(bool, uint64_t, unsigned char *, size_t, PeerCopyError &error) const {
  error.what = "copies between processes need Linux";
  return false;
}

#endif

bool PeerProcess::copyFrom(uint64_t address, void *local, size_t bytes,
                           PeerCopyError &error) const {
  return copy(false, address, static_cast<unsigned char *>(local), bytes, error);
}

bool PeerProcess::copyTo(const void *local, uint64_t address, size_t bytes,
                         PeerCopyError &error) const {
  // process_vm_writev only reads the local side.
  return copy(true, address, const_cast<unsigned char *>(static_cast<const unsigned char *>(local)),
              bytes, error);
}

} // namespace distc::pserver::detail
