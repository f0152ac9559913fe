//===- CommTestUtil.h - Running ranks in tests ------------------*- C++ -*-===//

#ifndef DISTC_UNITTESTS_COMM_COMMTESTUTIL_H
#define DISTC_UNITTESTS_COMM_COMMTESTUTIL_H

#include "distc/Comm/Communicator.h"

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace distc::comm::test {

/// A TCP port on 127.0.0.1 that was free a moment ago (bound to port 0,
/// read back, released).
int freePort();

/// Runs body(rank) for ranks 0..n-1, each in its own thread, and returns
/// when all are done. A rank still running after `limit` fails the test
/// and ends the process: a hang never outlives the test.
void runThreads(int n, const std::function<void(int rank)> &body,
                std::chrono::milliseconds limit = std::chrono::seconds(15));

/// What a forked rank reported.
struct ChildResult {
  int exitCode = -1; // -1: killed by a signal or by the time limit
  std::string output;
};

/// Forks n processes; process r runs body(r, output) and exits with its
/// return value, after sending `output` back. Processes still running
/// after `limit` are killed (and reported with exit code -1).
std::vector<ChildResult> runProcesses(int n,
                                      const std::function<int(int rank, std::string &out)> &body,
                                      std::chrono::milliseconds limit = std::chrono::seconds(15));

/// A group of n GlooCommunicators on 127.0.0.1 over a fresh store (its
/// server lives in comms[0]), created from n threads.
std::vector<std::unique_ptr<Communicator>>
makeGlooGroup(int n, std::chrono::milliseconds timeout = std::chrono::seconds(10));

double secondsSince(std::chrono::steady_clock::time_point start);

/// Rank `rank`'s test data: `count` floats spanning many magnitudes, so
/// that the order of a sum changes its rounding; a function of (seed,
/// rank).
std::vector<float> rankData(int rank, size_t count, unsigned seed = 1234);

} // namespace distc::comm::test

#endif // DISTC_UNITTESTS_COMM_COMMTESTUTIL_H
