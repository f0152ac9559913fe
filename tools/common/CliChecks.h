//===- CliChecks.h - Option validators shared by the tools ------*- C++ -*-===//
//
// CLI11 converts some values more loosely than a user expects; the checks
// here refuse what would otherwise be silently changed.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_TOOLS_COMMON_CLICHECKS_H
#define DISTC_TOOLS_COMMON_CLICHECKS_H

#include <CLI/CLI.hpp>

#include <string>

namespace distc::tools {

/// A 64-bit unsigned value written in decimal digits. CLI11 alone takes "-1"
/// as 2^64-1 and clamps values past 2^64-1; a seed that is not what the
/// user typed would silently change the initial weights or the data order.
inline CLI::Validator unsignedDecimal() {
  return CLI::Validator(
      [](std::string &text) -> std::string {
        bool digits = !text.empty() && text.size() <= 20 &&
                      text.find_first_not_of("0123456789") == std::string::npos;
        if (!digits || (text.size() == 20 && text > "18446744073709551615"))
          return "'" + text + "' is not an integer in [0, 18446744073709551615]";
        return "";
      },
      "UINT64");
}

/// A signed 64-bit value written in decimal digits. CLI11 alone clamps
/// values past 2^63-1 and reads "0x10" as 16; `--steps 18446744073709551616`
/// would silently become a run of 2^63-1 steps.
inline CLI::Validator decimalInteger() {
  return CLI::Validator(
      [](std::string &text) -> std::string {
        bool negative = !text.empty() && text[0] == '-';
        std::string digits = negative ? text.substr(1) : text;
        const std::string limit = negative ? "9223372036854775808" : "9223372036854775807";
        bool ok = !digits.empty() && digits.size() <= limit.size() &&
                  digits.find_first_not_of("0123456789") == std::string::npos &&
                  (digits.size() < limit.size() || digits <= limit);
        if (!ok)
          return "'" + text + "' is not a decimal integer that fits in 64 bits";
        return "";
      },
      "INT");
}

/// A path that is not empty: `-o ''` is a slip, not a request to skip the
/// output.
inline CLI::Validator nonEmptyPath() {
  return CLI::Validator(
      [](std::string &text) -> std::string { return text.empty() ? "the path is empty" : ""; },
      "PATH");
}

/// "--name=: no value after '='" for the first argument of that form
/// (before a "--" separator), or "". CLI11 takes `--startup=` for an
/// option without its value and gives it the next argument, so the error
/// it reports names that argument instead of the slip.
inline std::string emptyAttachedValue(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--")
      break;
    if (arg.size() > 3 && arg.compare(0, 2, "--") == 0 && arg.back() == '=' &&
        arg.find('=') == arg.size() - 1)
      return arg + ": no value after '='";
  }
  return "";
}

} // namespace distc::tools

#endif // DISTC_TOOLS_COMMON_CLICHECKS_H
