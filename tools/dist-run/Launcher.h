//===- Launcher.h - dist-run as the launcher of a data-parallel job -*- C++ -*-===//
//
// `dist-run --nproc-per-node N [--nnodes M --node-rank K] ...` starts N
// copies of itself on this node, as torchrun and `paddle.distributed.launch`
// do, each with the environment of one rank:
//
//   PADDLE_TRAINER_ID, PADDLE_TRAINERS_NUM, PADDLE_TRAINER_ENDPOINTS,
//   PADDLE_CURRENT_ENDPOINT, PADDLE_RANK_IN_NODE, PADDLE_LOCAL_RANK,
//   PADDLE_MASTER, PADDLE_GLOBAL_RANK, PADDLE_GLOBAL_SIZE, PADDLE_LOCAL_SIZE,
//   PADDLE_NNODES, PADDLE_TRAINING_ROLE, PADDLE_DISTRI_BACKEND,
//   RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE,
//   MASTER_ADDR, MASTER_PORT, DISTC_JOB_TOKEN, DISTC_LAUNCHER,
//   DISTC_NUM_THREADS (unless set: the node's cores shared by its ranks),
//   DISTC_COLLECTIVE_TIMEOUT (with --collective-timeout)
//
// A copy started that way (or by mpirun, srun, torchrun or Paddle's
// launcher) is a worker: it joins the job through the rendezvous
// (JoinJob.h) and runs the artifact.
//
// The launcher of node 0 serves the rendezvous store on
// --master-addr:--master-port for the whole job, requiring the job token,
// which it generates for a single node (several nodes share one through
// --job-token or DISTC_JOB_TOKEN). With several nodes, the launchers first
// meet in the store to agree on the node count, the ranks per node and the
// settings every rank must share (LaunchOptions::agreedSettings), and to
// learn each node's address for the endpoint list. A disagreement fails
// every node at once, naming the flag and both values.
//
// It then watches its ranks. The first that fails (non-zero exit status or
// a signal) is reported by rank, pid and status; the others get a grace
// period to exit by themselves (a rank whose peer died notices at its next
// collective and names the peer), then SIGTERM, then SIGKILL. A rank that
// failed because a collective timed out says which rank it waited for
// (waitedForKey, Rendezvous.h); the launcher follows that to the rank that
// is stuck, names it in its report and kills it at once. SIGINT or
// SIGTERM to the launcher is passed on to the ranks. The ranks die with the
// launcher (PR_SET_PDEATHSIG), so none outlives a killed launcher.
//
// A training job's launcher whose stderr is a terminal (and that has no
// --log-dir) relays its ranks' output through pipes (OutputRelay.h) and
// sets DISTC_PROGRESS=terminal for them (unless set), so that rank 0 draws
// its live progress line there and no other output garbles it.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_TOOLS_DISTRUN_LAUNCHER_H
#define DISTC_TOOLS_DISTRUN_LAUNCHER_H

#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace distc::launch {

struct LaunchOptions {
  int nprocPerNode = 1;
  int nnodes = 1;
  int nodeRank = 0;
  std::string masterAddr = "127.0.0.1";
  /// 0 (single node only): any free port.
  int masterPort = 29500;
  /// One log per rank, DIR/workerlog.<rank>; empty: the ranks write to the
  /// launcher's stdout and stderr.
  std::string logDir;
  /// Required to join the job; generated when empty and there is one node.
  std::string jobToken;
  /// Bound on the launchers' meeting and on each rank's rendezvous.
  std::chrono::milliseconds connectTimeout{std::chrono::seconds(30)};
  /// How long the other ranks get to exit by themselves after one failed.
  std::chrono::milliseconds failureGrace{std::chrono::seconds(5)};
  /// How long a rank's collective waits for a peer; passed to the ranks as
  /// DISTC_COLLECTIVE_TIMEOUT when set (0: they inherit the launcher's
  /// environment, or the default of 300 s).
  std::chrono::milliseconds collectiveTimeout{0};
  /// Settings every node must give alike, as (flag, value) pairs, e.g.
  /// ("--steps", "100"); compared with node 0's when the launchers meet:
  ///   --steps differs: node 0 has 100, node 1 has 50
  std::vector<std::pair<std::string, std::string>> agreedSettings;
  /// The ranks the artifact is compiled for (0: no artifact, a program),
  /// checked against the job's before any rank starts, and with several
  /// nodes after they have met: a node that disagrees on the layout is
  /// named for that rather than failing alone while the others wait.
  int artifactRanks = 0;
  /// Whether the artifact is partitioned over a process mesh (its ranks
  /// come from the --placements mesh, not --nranks).
  bool artifactOnMesh = false;
  /// The artifact's path, for that message.
  std::string artifactName;
  /// A training job: show rank 0's live progress line on a terminal.
  bool liveProgress = false;
  /// A parameter-server job (PsJob.h) of `workerNum` trainers and
  /// `serverNum` servers at `serverEndpoints`, each process with Paddle's
  /// role variables (TRAINING_ROLE, PADDLE_PSERVERS_IP_PORT_LIST,
  /// PADDLE_TRAINERS_NUM, PADDLE_TRAINER_ID, POD_IP, PADDLE_PORT) and logs
  /// workerlog.<id> / serverlog.<index>. On one node it runs them all; on
  /// several, node k runs trainers k·W/n .. (k+1)·W/n − 1 and the servers
  /// whose endpoint's host is its address (the first such node's).
  int serverNum = 0;
  int workerNum = 0;
  std::vector<std::string> serverEndpoints;

  int worldSize() const { return nprocPerNode * nnodes; }
};

/// Checks the options; an empty string when they are fine, else one line.
std::string checkLaunchOptions(const LaunchOptions &options);

/// Starts this node's ranks, each running `command` (argv[0] first: a path,
/// or a name looked up in PATH), waits for them and returns dist-run's exit
/// status: 0 when every rank succeeded, else 1 (128 + signal when
/// interrupted). Messages go to stderr, prefixed "dist-run: ".
int runLauncher(const LaunchOptions &options, const std::vector<std::string> &command);

/// This executable's path (/proc/self/exe); empty with `error` set.
std::string selfExecutable(std::string &error);

} // namespace distc::launch

#endif // DISTC_TOOLS_DISTRUN_LAUNCHER_H
