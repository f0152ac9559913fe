//===- KernelProfile.h - Where a program's time goes -------------*- C++ -*-===//
//
// A KernelProfile collects the wall time of every kernel call a Session
// runs while the profile is attached (Session::setProfile): per kernel
// (all conv2d_grad calls together) and per call (this conv2d_grad, with its
// origin op). `dist-run --profile` attaches one and prints report() when the
// run ends.
//
// The time of a call is measured around the kernel and the backend's
// synchronize() after it, so an asynchronous backend's calls are charged to
// themselves; that synchronization removes any overlap between calls (and
// with collectives), so a profiled step is slower than an unprofiled one.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_RUNTIME_KERNELPROFILE_H
#define DISTC_RUNTIME_KERNELPROFILE_H

#include <cstdint>
#include <map>
#include <string>
#include <utility>

namespace distc::runtime {

class KernelProfile {
public:
  /// One call of `kernel` (e.g. "conv2d_grad") in the program `program`
  /// ("train/trainer/main"), call index `call`, described by `origin`,
  /// took `seconds`.
  void record(const std::string &program, uint32_t call, const std::string &kernel,
              const std::string &origin, double seconds);
  /// One run of `program` ended; per-run times divide by this count.
  void endRun(const std::string &program) { ++runs_[program]; }

  bool empty() const { return byKernel_.empty(); }

  /// A table per program: each kernel's calls per run, milliseconds per run
  /// and share of the program's kernel time, most expensive first; then the
  /// `topCalls` most expensive calls with their origins.
  std::string report(int topCalls = 12) const;

private:
  struct Total {
    double seconds = 0;
    int64_t calls = 0;
  };
  struct CallTotal {
    std::string kernel, origin;
    Total total;
  };
  /// (program, kernel) -> total.
  std::map<std::pair<std::string, std::string>, Total> byKernel_;
  /// (program, call index) -> kernel, origin and total.
  std::map<std::pair<std::string, uint32_t>, CallTotal> byCall_;
  std::map<std::string, int64_t> runs_;
};

} // namespace distc::runtime

#endif // DISTC_RUNTIME_KERNELPROFILE_H
