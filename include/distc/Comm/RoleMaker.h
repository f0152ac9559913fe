//===- RoleMaker.h - A process's place in the job ---------------*- C++ -*-===//
//
// Paddle's role makers tell a training script which worker it is; RoleFacts
// holds the same facts, read from the environment a launcher sets:
//
//  source    variables (first match wins, in this order)
//  paddle    PADDLE_TRAINER_ID, PADDLE_TRAINERS_NUM, PADDLE_TRAINER_ENDPOINTS,
//            PADDLE_CURRENT_ENDPOINT, PADDLE_RANK_IN_NODE, PADDLE_MASTER;
//            TRAINING_ROLE=PSERVER with PADDLE_PSERVERS_IP_PORT_LIST, POD_IP,
//            PADDLE_PORT for a parameter server
//  torchrun  RANK, WORLD_SIZE, LOCAL_RANK
//  openmpi   OMPI_COMM_WORLD_RANK, OMPI_COMM_WORLD_SIZE, OMPI_COMM_WORLD_LOCAL_RANK
//  slurm     SLURM_PROCID, SLURM_STEP_NUM_TASKS (else SLURM_NTASKS), SLURM_LOCALID
//  none      a single process: worker 0 of 1
//
// The rendezvous master is MASTER_ADDR/MASTER_PORT when set (any source),
// else PADDLE_MASTER, else the first of PADDLE_TRAINER_ENDPOINTS. The job
// token the rendezvous store asks for is DISTC_JOB_TOKEN (any source), and
// DISTC_COLLECTIVE_TIMEOUT (seconds, any source) bounds each collective.
// A malformed value is an error naming the variable and the value:
//   PADDLE_TRAINER_ID='x1' is not an integer
//   PADDLE_TRAINER_ID=4 is outside [0, 4) (PADDLE_TRAINERS_NUM=4)
//   PADDLE_TRAINERS_NUM=4 but PADDLE_TRAINER_ENDPOINTS lists 3 endpoints
//
// RoleMaker adds Paddle's RoleMakerBase helpers (all_gather,
// all_reduce_worker, barrier_worker, barrier_all) on top of a Communicator
// of the workers.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_COMM_ROLEMAKER_H
#define DISTC_COMM_ROLEMAKER_H

#include "distc/Comm/Communicator.h"
#include "distc/Comm/Rendezvous.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace distc::comm {

enum class LaunchSource { None, Paddle, Torchrun, OpenMPI, Slurm };
/// "none", "paddle", "torchrun", "openmpi", "slurm".
const char *launchSourceName(LaunchSource source);

struct RoleFacts {
  enum class Role { Worker, Server };

  LaunchSource source = LaunchSource::None;
  Role role = Role::Worker;
  /// This worker's index (its rank) and the number of workers.
  int workerIndex = 0;
  int workerNum = 1;
  /// Index among the processes on this node (GPU selection), 0 if unknown.
  int localRank = 0;
  /// "host:port" of every worker, when the launcher lists them (Paddle).
  std::vector<std::string> workerEndpoints;
  std::string currentEndpoint;
  /// Parameter-server mode: every server and this one's index (-1 if a worker).
  std::vector<std::string> serverEndpoints;
  int serverIndex = -1;
  /// The rendezvous master; empty / 0 when the environment names none.
  std::string masterAddr;
  int masterPort = 0;
  /// DISTC_JOB_TOKEN: what the rendezvous store asks of this process
  /// (Store.h); empty when unset. Never part of toString().
  std::string jobToken;
  /// DISTC_COLLECTIVE_TIMEOUT: how long a collective waits for a peer
  /// (RendezvousOptions::timeout); 0 when unset (the default applies).
  std::chrono::milliseconds collectiveTimeout{0};
  /// DISTC_PS_SAME_HOST_COPIES: "0" keeps a parameter-server job's
  /// payloads on TCP between processes of one host (PsWorldOptions).
  bool psSameHostCopies = true;

  bool isWorker() const { return role == Role::Worker; }
  bool isServer() const { return role == Role::Server; }
  bool isFirstWorker() const { return isWorker() && workerIndex == 0; }
  /// One line, e.g. "paddle worker 1 of 4 (local 1), endpoints
  /// 10.0.0.1:6170,10.0.0.2:6170,..., master 10.0.0.1:6170".
  std::string toString() const;
};

/// Reads the facts from the process environment.
Status readRoleFacts(RoleFacts &facts);
/// Reads them through `getenv` (null for an unset variable), for tests and
/// launchers that compose an environment.
Status readRoleFacts(const std::function<const char *(const char *)> &getenv, RoleFacts &facts);

/// The environment variable that sets RoleFacts::collectiveTimeout, in
/// seconds (a launcher's --collective-timeout sets it for its ranks).
inline constexpr const char *kCollectiveTimeoutVariable = "DISTC_COLLECTIVE_TIMEOUT";
/// The environment variable that sets RoleFacts::psSameHostCopies: "1"
/// (the default) or "0".
inline constexpr const char *kPsSameHostCopiesVariable = "DISTC_PS_SAME_HOST_COPIES";

/// Seconds in (0, 86400], as a flag or variable gives them ("300", "0.5");
/// nullopt for anything else.
std::optional<std::chrono::milliseconds> parseSeconds(const std::string &text);

/// Rendezvous options for a worker: rank, world size, master (default
/// 127.0.0.1:29500 when the facts name none), job token and collective
/// timeout (when set).
RendezvousOptions rendezvousOptionsFor(const RoleFacts &facts);

/// Paddle's RoleMakerBase collective helpers over the workers' communicator
/// (whose rank and size must be the worker index and number).
class RoleMaker {
public:
  RoleMaker(RoleFacts facts, Communicator &comm) : facts_(std::move(facts)), comm_(comm) {}

  const RoleFacts &facts() const { return facts_; }
  bool isWorker() const { return facts_.isWorker(); }
  bool isFirstWorker() const { return facts_.isFirstWorker(); }
  int workerNum() const { return facts_.workerNum; }
  int workerIndex() const { return facts_.workerIndex; }
  const std::vector<std::string> &workerEndpoints() const { return facts_.workerEndpoints; }
  std::string toString() const { return facts_.toString(); }

  /// Every worker's `input`, in worker order.
  Status allGather(double input, std::vector<double> &out);
  Status allGather(int64_t input, std::vector<int64_t> &out);

  /// Elementwise reduction over the workers; `mode` is "sum", "min" or
  /// "max". Every worker must pass as many values (checked).
  Status allReduceWorker(const std::vector<double> &input, std::vector<double> &output,
                         const std::string &mode = "sum");
  Status allReduceWorker(const std::vector<int64_t> &input, std::vector<int64_t> &output,
                         const std::string &mode = "sum");

  Status barrierWorker();
  /// Paddle's barrier_all: workers and servers. Collective mode has no
  /// servers, so it is the workers' barrier.
  Status barrierAll();

private:
  Status checkComm(const char *what) const;
  template <typename T>
  Status allReduceTyped(const std::vector<T> &input, std::vector<T> &output,
                        const std::string &mode, DType dtype);

  RoleFacts facts_;
  Communicator &comm_;
};

} // namespace distc::comm

#endif // DISTC_COMM_ROLEMAKER_H
