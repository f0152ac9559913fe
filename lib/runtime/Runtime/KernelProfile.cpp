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

std::string format(const char *fmt, double a, double b, double c) {
  char line[64];
  std::snprintf(line, sizeof line, fmt, a, b, c);
  return line;
}

} // namespace

std::string KernelProfile::report(int topCalls) const {
  std::string out;
  for (const auto &[program, runs] : runs_) {
    if (runs == 0)
      continue;
    std::vector<std::pair<std::string, Total>> kernels;
    double programSeconds = 0;
    for (const auto &[key, total] : byKernel_)
      if (key.first == program) {
        kernels.emplace_back(key.second, total);
        programSeconds += total.seconds;
      }
    if (kernels.empty())
      continue;
    std::stable_sort(kernels.begin(), kernels.end(), [](const auto &a, const auto &b) {
      return a.second.seconds > b.second.seconds;
    });
    const double perRun = 1e3 / static_cast<double>(runs);
    out += "profile of " + program + ": " + std::to_string(runs) +
           (runs == 1 ? " run, " : " runs, ") +
           format("%.3f ms of kernels per run", programSeconds * perRun, 0, 0) + "\n";
    out += "  calls/run     ms/run       %  kernel\n";
    for (const auto &[kernel, total] : kernels)
      out += format("  %9.1f %10.3f %6.1f%%", static_cast<double>(total.calls) / runs,
                    total.seconds * perRun,
                    programSeconds > 0 ? 100 * total.seconds / programSeconds : 0) +
             "  " + kernel + "\n";
    std::vector<const CallTotal *> calls;
    std::vector<uint32_t> indices;
    for (const auto &[key, call] : byCall_)
      if (key.first == program)
        calls.push_back(&call), indices.push_back(key.second);
    std::vector<size_t> order(calls.size());
    for (size_t i = 0; i < order.size(); ++i)
      order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return calls[a]->total.seconds > calls[b]->total.seconds;
    });
    if (order.size() > static_cast<size_t>(std::max(topCalls, 0)))
      order.resize(static_cast<size_t>(std::max(topCalls, 0)));
    if (!order.empty())
      out += "  the most expensive calls:\n      ms/run       %  call\n";
    for (size_t i : order) {
      const CallTotal &c = *calls[i];
      out += format("  %10.3f %6.1f%%", c.total.seconds * perRun,
                    programSeconds > 0 ? 100 * c.total.seconds / programSeconds : 0, 0) +
             "  #" + std::to_string(indices[i]) + " " + c.kernel +
             (c.origin.empty() ? "" : " (" + c.origin + ")") + "\n";
    }
  }
  return out;
}

} // namespace distc::runtime
