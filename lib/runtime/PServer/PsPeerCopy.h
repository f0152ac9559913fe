//===- PsPeerCopy.h - Copies into and out of a same-host process -*- C++ -*-===//
//
// A parameter server and a trainer on one host move payloads with one
// copy between their address spaces, Linux's cross-memory attach
// (process_vm_readv / process_vm_writev, the single-copy path of MPI's
// and UCX's shared-memory transports), instead of two kernel copies
// through a loopback TCP stream. The kernel allows it when the copying
// process may ptrace the other: the same user, and under Yama's
// ptrace_scope 1 a process that named it (allowPeerCopies).
//
// Whether a pair can is found out by trying, not assumed (PsWorld.cpp):
// the trainer publishes the address of a random probe value, and the
// server reads it. Other systems (and builds for them) never copy.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_LIB_PSERVER_PSPEERCOPY_H
#define DISTC_LIB_PSERVER_PSPEERCOPY_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace distc::pserver::detail {

/// Whether this build can copy between processes at all.
bool peerCopySupported();

/// Lets other processes of this user copy from and into this one where
/// Yama would otherwise allow only its ancestors (ptrace_scope 1);
/// nothing where Yama is absent or stricter.
void allowPeerCopies();

/// Why a copy failed: the process is gone (it exited; its pid is free or
/// another's), or anything else, in `what` ("Bad address").
struct PeerCopyError {
  bool peerGone = false;
  std::string what;
};

/// Another process by pid, held (a pidfd, where the kernel has them) so
/// that a copy never reaches a process that took the pid of one that
/// exited: each copy first checks that the process it was opened on is
/// still there.
class PeerProcess {
public:
  explicit PeerProcess(long pid);
  ~PeerProcess();
  PeerProcess(const PeerProcess &) = delete;
  PeerProcess &operator=(const PeerProcess &) = delete;

  long pid() const { return pid_; }
  /// False once the process has exited (always true without pidfds).
  bool alive() const;

  /// Copies `bytes` bytes at `address` in the process into `local`.
  bool copyFrom(uint64_t address, void *local, size_t bytes, PeerCopyError &error) const;
  /// Copies `bytes` bytes of `local` to `address` in the process.
  bool copyTo(const void *local, uint64_t address, size_t bytes, PeerCopyError &error) const;

private:
  /// Checks that the process is still there, then copies.
  bool copy(bool toPeer, uint64_t address, unsigned char *local, size_t bytes,
            PeerCopyError &error) const;

  long pid_;
  int pidfd_ = -1;
};

} // namespace distc::pserver::detail

#endif // DISTC_LIB_PSERVER_PSPEERCOPY_H
