//===- distc-plan-memory.cpp - Plan a buffer trace into one arena ---------===//
//
// distc-plan-memory TRACE.csv [--alignment N] [--algorithm best|best-fit]
//                   [--search-work N] [--offsets FILE]
//
// Reads a buffer-lifetime trace (id,lower,upper,size; see BufferTrace.h),
// plans it and prints one line:
//
//   arena=1048576 lower_bound=1048576 ratio=1.0000 seconds=0.412
//
// `seconds` is the planning time alone (not reading the trace). The plan
// is checked with the validator before anything is printed. `--offsets`
// writes the plan as "id,offset" CSV. Exit status 0, or 1 with one line
// "distc-plan-memory: error: ..." on any problem.
//
//===----------------------------------------------------------------------===//

#include "distc/Memory/ArenaPlanner.h"
#include "distc/Memory/BufferTrace.h"
#include "distc/Memory/PlanValidator.h"
#include "distc/Support/InputFile.h"
#include "distc/Support/ToolOutput.h"

#include "../common/CliChecks.h"

#include <CLI/CLI.hpp>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

using namespace distc;

namespace {

constexpr int64_t kMaxAlignment = int64_t(1) << 30;

int fail(const std::string &message) {
  std::fprintf(stderr, "distc-plan-memory: error: %s\n", printableLine(message).c_str());
  return 1;
}

bool writeFile(const std::string &path, const std::string &text, std::string &error) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (out)
    out << text;
  if (out)
    out.close();
  if (!out) {
    error = path + ": cannot write: " + std::strerror(errno);
    return false;
  }
  return true;
}

} // namespace

int main(int argc, char **argv) {
  CLI::App app{"Plans the buffers of a lifetime trace into one arena and prints the arena size, "
               "the liveness lower bound and their ratio."};
  std::string tracePath, offsetsPath, algorithmName = "best";
  int64_t alignment = 1;
  int64_t searchWork = memory::PlanOptions().searchWorkBudget;
  app.add_option("trace", tracePath, "CSV trace: a header 'id,lower,upper,size', one buffer a line")
      ->required();
  app.add_option("--alignment", alignment, "Every offset is a multiple of this (default 1)")
      ->check(tools::decimalInteger())
      ->check(CLI::Range(int64_t(1), kMaxAlignment));
  app.add_option("--algorithm", algorithmName,
                 "best (greedy orders and the bounded exact search) or best-fit (size-sorted "
                 "best fit, the baseline)")
      ->check(CLI::IsMember({"best", "best-fit"}));
  app.add_option("--search-work", searchWork,
                 "Work budget of the exact search in steps (buffers and sections visited); 0 "
                 "turns it off (default 4000000000)")
      ->check(tools::decimalInteger())
      ->check(CLI::Range(int64_t(0), int64_t(1) << 40));
  app.add_option("--offsets", offsetsPath, "Write the plan as 'id,offset' CSV to this file")
      ->check(tools::nonEmptyPath());
  const std::string emptyValue = tools::emptyAttachedValue(argc, argv);
  if (!emptyValue.empty())
    return fail(emptyValue);
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success &e) {
    return app.exit(e);
  } catch (const CLI::ParseError &e) {
    return fail(e.what());
  }

  std::vector<memory::BufferLifetime> buffers;
  std::string error;
  std::string text;
  if (!support::readInputFile(tracePath, text, error) ||
      !memory::parseBufferTrace(text, tracePath, buffers, error))
    return fail(error);

  memory::PlanOptions options;
  options.alignment = alignment;
  options.searchWorkBudget = searchWork;
  options.algorithm =
      algorithmName == "best-fit" ? memory::PlanAlgorithm::BestFit : memory::PlanAlgorithm::Best;
  const auto start = std::chrono::steady_clock::now();
  const memory::ArenaPlan plan = memory::planArena(buffers, options);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  const std::string violation = memory::findPlanViolation(buffers, plan.offsets, plan.arenaSize);
  if (!violation.empty())
    return fail("internal error: the plan is invalid: " + violation);
  if (!offsetsPath.empty() &&
      !writeFile(offsetsPath, memory::formatOffsetsCsv(buffers, plan.offsets), error))
    return fail(error);

  // An empty trace needs no bytes and loses nothing: ratio 1.
  const double ratio = plan.lowerBound > 0 ? static_cast<double>(plan.arenaSize) /
                                                 static_cast<double>(plan.lowerBound)
                                           : 1.0;
  std::printf("arena=%lld lower_bound=%lld ratio=%.4f seconds=%.3f\n",
              static_cast<long long>(plan.arenaSize), static_cast<long long>(plan.lowerBound),
              ratio, seconds);
  std::fflush(stdout);
  const std::string outputProblem = standardOutputError();
  if (!outputProblem.empty())
    return fail("cannot write to standard output: " + outputProblem);
  return 0;
}
