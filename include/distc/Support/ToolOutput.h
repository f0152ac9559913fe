//===- ToolOutput.h - What the command-line tools print ---------*- C++ -*-===//
//
// Names in messages come from user files (variable names in a program, feed
// names in an artifact) and may hold any byte. Printed raw, a NUL cuts the
// message short and an escape sequence rewrites the terminal; every tool
// passes its messages through printableLine() before printing them.
//
// Output to a closed standard output or a full disk fails only when the
// buffers are flushed; a tool that exits 0 after losing its output fools
// every script around it, so the tools end with standardOutputError().
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_SUPPORT_TOOLOUTPUT_H
#define DISTC_SUPPORT_TOOLOUTPUT_H

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <iostream>
#include <string>
#include <string_view>
#include <sys/ioctl.h>
#include <unistd.h>

namespace distc {

/// The width in columns of the terminal `fd` refers to; 0 when it is no
/// terminal (or does not say).
inline int terminalWidth(int fd) {
  struct winsize size{};
  return ::ioctl(fd, TIOCGWINSZ, &size) == 0 ? size.ws_col : 0;
}

/// `text` as one printable line: newlines, carriage returns and tabs become
/// spaces, other control bytes (and DEL) become `\xNN`. Bytes >= 0x80 are
/// kept, so UTF-8 names stay readable.
inline std::string printableLine(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    auto byte = static_cast<unsigned char>(c);
    if (c == '\n' || c == '\r' || c == '\t') {
      out.push_back(' ');
    } else if (byte < 0x20 || byte == 0x7f) {
      out += "\\x";
      out.push_back(kHex[byte >> 4]);
      out.push_back(kHex[byte & 0xf]);
    } else {
      out.push_back(c);
    }
  }
  return out;
}

/// Flushes std::cout and C's stdout; "" when everything written reached
/// the file, else the system's reason ("No space left on device").
inline std::string standardOutputError() {
  errno = 0;
  std::cout.flush();
  bool failed = !std::cout;
  if (std::fflush(stdout) != 0 || std::ferror(stdout))
    failed = true;
  if (!failed)
    return "";
  // The failed write may lie far back and its errno is gone; a closed
  // descriptor at least can still be named.
  if (errno == 0 && ::fcntl(STDOUT_FILENO, F_GETFL) < 0)
    return std::strerror(errno);
  return errno ? std::strerror(errno) : "write error";
}

} // namespace distc

#endif // DISTC_SUPPORT_TOOLOUTPUT_H
