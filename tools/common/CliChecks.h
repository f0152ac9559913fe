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

} // namespace distc::tools

#endif // DISTC_TOOLS_COMMON_CLICHECKS_H
