//===- BufferTrace.h - Buffer lifetimes from CSV ----------------*- C++ -*-===//
//
// The exchange format of memory-planning traces (the public MiniMalloc,
// XLA and MindSpore SOMAS traces use it): a header line, then one buffer a
// line,
//
//   id,lower,upper,size
//   0,45,247,589825
//
// with the buffer live on steps [lower, upper) and `size` bytes. Every
// field is a decimal integer that fits in 64 bits. The reader rejects what
// the planner cannot take (size <= 0, upper <= lower, a repeated id,
// sizes that add up past 2^62) with one line naming the file,
// the line and the problem, so a damaged trace is never planned.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_MEMORY_BUFFERTRACE_H
#define DISTC_MEMORY_BUFFERTRACE_H

#include "distc/Memory/ArenaPlanner.h"

#include <string>
#include <vector>

namespace distc::memory {

/// Parses trace text (the contents of a file: reading it is the caller's,
/// so that this library needs nothing but the standard library). `name`,
/// usually the file's path, is used in messages. On failure returns false
/// with `error` = "NAME:LINE: what is wrong" (or "NAME: ..." for the file
/// as a whole); `buffers` is then unspecified.
bool parseBufferTrace(const std::string &text, const std::string &name,
                      std::vector<BufferLifetime> &buffers, std::string &error);

/// The plan as CSV, "id,offset" and one line a buffer, in input order.
std::string formatOffsetsCsv(const std::vector<BufferLifetime> &buffers,
                             const std::vector<int64_t> &offsets);

} // namespace distc::memory

#endif // DISTC_MEMORY_BUFFERTRACE_H
