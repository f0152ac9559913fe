//===- Status.h - Success or a one-line error message -----------*- C++ -*-===//
//
// The runtime's public API does not throw: every operation that can fail on
// user input returns a Status. A failed Status carries one line that names
// what failed and where (artifact, program, feed, variable, file, kernel
// origin), suitable for printing after "dist-run: error: ".
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_RUNTIME_STATUS_H
#define DISTC_RUNTIME_STATUS_H

#include <string>
#include <utility>

namespace distc::runtime {

class [[nodiscard]] Status {
public:
  static Status success() { return Status(); }
  static Status error(std::string message) {
    Status s;
    s.failed_ = true;
    s.message_ = std::move(message);
    return s;
  }

  bool ok() const { return !failed_; }
  const std::string &message() const { return message_; }

private:
  bool failed_ = false;
  std::string message_;
};

} // namespace distc::runtime

#endif // DISTC_RUNTIME_STATUS_H
