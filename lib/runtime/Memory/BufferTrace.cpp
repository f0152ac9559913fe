//===- BufferTrace.cpp - Buffer lifetimes from CSV ------------------------===//

#include "distc/Memory/BufferTrace.h"

#include <cstdint>
#include <limits>
#include <unordered_map>

namespace distc::memory {
namespace {

constexpr const char *kHeader = "id,lower,upper,size";
constexpr const char *kFieldNames[] = {"id", "lower", "upper", "size"};
/// Sizes may add up to at most this, so that offsets, aligned sizes and
/// arena sizes never overflow int64_t.
constexpr int64_t kMaxTotalBytes = int64_t(1) << 62;

std::string trim(const std::string &text) {
  const char *space = " \t\r";
  const size_t begin = text.find_first_not_of(space);
  if (begin == std::string::npos)
    return "";
  return text.substr(begin, text.find_last_not_of(space) - begin + 1);
}

/// A decimal integer that fits in int64_t, with an optional '-'.
bool parseInteger(const std::string &text, int64_t &value) {
  size_t i = 0;
  const bool negative = !text.empty() && text[0] == '-';
  if (negative)
    i = 1;
  if (i == text.size())
    return false;
  // Accumulate negatively: the magnitude of INT64_MIN does not fit.
  int64_t result = 0;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c < '0' || c > '9')
      return false;
    const int digit = c - '0';
    if (result < (std::numeric_limits<int64_t>::min() + digit) / 10)
      return false;
    result = result * 10 - digit;
  }
  if (!negative) {
    if (result == std::numeric_limits<int64_t>::min())
      return false;
    result = -result;
  }
  value = result;
  return true;
}

std::vector<std::string> splitFields(const std::string &line) {
  std::vector<std::string> fields;
  size_t begin = 0;
  while (true) {
    const size_t comma = line.find(',', begin);
    fields.push_back(trim(line.substr(begin, comma - begin)));
    if (comma == std::string::npos)
      return fields;
    begin = comma + 1;
  }
}

} // namespace

bool parseBufferTrace(const std::string &text, const std::string &name,
                      std::vector<BufferLifetime> &buffers, std::string &error) {
  buffers.clear();
  std::unordered_map<int64_t, size_t> lineOfId;
  int64_t totalBytes = 0;
  size_t lineNumber = 0;
  bool sawHeader = false;
  size_t begin = 0;
  while (begin < text.size()) {
    size_t end = text.find('\n', begin);
    if (end == std::string::npos)
      end = text.size();
    const std::string line = trim(text.substr(begin, end - begin));
    begin = end + 1;
    ++lineNumber;
    const std::string where = name + ":" + std::to_string(lineNumber) + ": ";
    if (line.find('\0') != std::string::npos) {
      error = where + "a NUL byte; this is not a text trace";
      return false;
    }
    if (!sawHeader) {
      std::string header;
      for (const std::string &field : splitFields(line))
        header += (header.empty() ? "" : ",") + field;
      if (header != kHeader) {
        error = where + "expected the header '" + kHeader + "'";
        return false;
      }
      sawHeader = true;
      continue;
    }
    if (line.empty())
      continue;
    const std::vector<std::string> fields = splitFields(line);
    if (fields.size() != 4) {
      error = where + "expected 4 fields (" + kHeader + "), found " + std::to_string(fields.size());
      return false;
    }
    int64_t values[4];
    for (size_t f = 0; f < 4; ++f) {
      if (!parseInteger(fields[f], values[f])) {
        error = where + kFieldNames[f] + " '" + fields[f] +
                "' is not a decimal integer that fits in 64 bits";
        return false;
      }
    }
    BufferLifetime buffer{values[0], values[1], values[2], values[3]};
    if (buffer.size <= 0) {
      error = where + "buffer " + std::to_string(buffer.id) + " has size " +
              std::to_string(buffer.size) + "; sizes must be positive";
      return false;
    }
    if (buffer.upper <= buffer.lower) {
      error = where + "buffer " + std::to_string(buffer.id) + " has upper " +
              std::to_string(buffer.upper) + " <= lower " + std::to_string(buffer.lower) +
              "; a lifetime [lower, upper) must not be empty";
      return false;
    }
    auto [previous, inserted] = lineOfId.emplace(buffer.id, lineNumber);
    if (!inserted) {
      error = where + "buffer id " + std::to_string(buffer.id) + " repeats the id of line " +
              std::to_string(previous->second);
      return false;
    }
    if (buffer.size > kMaxTotalBytes - totalBytes) {
      error = where + "the sizes add up to more than 2^62 bytes";
      return false;
    }
    totalBytes += buffer.size;
    buffers.push_back(buffer);
  }
  if (!sawHeader) {
    error = name + ": empty trace; expected the header '" + kHeader + "'";
    return false;
  }
  return true;
}

std::string formatOffsetsCsv(const std::vector<BufferLifetime> &buffers,
                             const std::vector<int64_t> &offsets) {
  std::string csv = "id,offset\n";
  for (size_t i = 0; i < buffers.size() && i < offsets.size(); ++i)
    csv += std::to_string(buffers[i].id) + "," + std::to_string(offsets[i]) + "\n";
  return csv;
}

} // namespace distc::memory
