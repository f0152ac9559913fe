//===- KernelProfile.cpp - Where a program's time goes --------------------===//

#include "distc/Runtime/KernelProfile.h"

#include <algorithm>
#include <cstdio>
#include <vector>

namespace distc::runtime {

void KernelProfile::record(const std::string &program, uint32_t call, const std::string &kernel,
                           const std::string &origin, double seconds) {
  Total &k = byKernel_[{program, kernel}];
  k.seconds += seconds;
  ++k.calls;
  CallTotal &c = byCall_[{program, call}];
  if (c.kernel.empty()) {
    c.kernel = kernel;
    c.origin = origin;
  }
  c.total.seconds += seconds;
  ++c.total.calls;
}

namespace {

/// printf into a std::string (a table row's numbers).
template <typename... Args> std::string format(const char *fmt, Args... args) {
  char line[64];
  std::snprintf(line, sizeof line, fmt, args...);
  return line;
}

/// Sorts `rows` by their seconds, most expensive first (stable: equal
/// times keep the maps' order).
template <typename Row, typename Seconds> void sortBySeconds(std::vector<Row> &rows, Seconds of) {
  std::stable_sort(rows.begin(), rows.end(),
                   [&](const Row &a, const Row &b) { return of(a) > of(b); });
}

} // namespace

std::string KernelProfile::report(int topCalls) const {
  std::string out;
  for (const auto &[program, runs] : runs_) {
    std::vector<std::pair<std::string, Total>> kernels;
    double programSeconds = 0;
    for (const auto &[key, total] : byKernel_)
      if (key.first == program) {
        kernels.emplace_back(key.second, total);
        programSeconds += total.seconds;
      }
    if (runs == 0 || kernels.empty())
      continue;
    sortBySeconds(kernels, [](const auto &k) { return k.second.seconds; });
    const double msPerRun = 1e3 / static_cast<double>(runs);
    const auto share = [&](double seconds) {
      return programSeconds > 0 ? 100 * seconds / programSeconds : 0.0;
    };
    out += "profile of " + program + ": " + std::to_string(runs) +
           (runs == 1 ? " run, " : " runs, ") +
           format("%.3f ms of kernels per run", programSeconds * msPerRun) + "\n";
    out += "  calls/run     ms/run       %  kernel\n";
    for (const auto &[kernel, total] : kernels)
      out += format("  %9.1f %10.3f %6.1f%%", static_cast<double>(total.calls) / runs,
                    total.seconds * msPerRun, share(total.seconds)) +
             "  " + kernel + "\n";

    std::vector<std::pair<uint32_t, const CallTotal *>> calls;
    for (const auto &[key, call] : byCall_)
      if (key.first == program)
        calls.emplace_back(key.second, &call);
    sortBySeconds(calls, [](const auto &c) { return c.second->total.seconds; });
    calls.resize(std::min(calls.size(), static_cast<size_t>(std::max(topCalls, 0))));
    if (!calls.empty())
      out += "  the most expensive calls:\n      ms/run       %  call\n";
    for (const auto &[index, call] : calls)
      out +=
          format("  %10.3f %6.1f%%", call->total.seconds * msPerRun, share(call->total.seconds)) +
          "  #" + std::to_string(index) + " " + call->kernel +
          (call->origin.empty() ? "" : " (" + call->origin + ")") + "\n";
  }
  return out;
}

} // namespace distc::runtime
