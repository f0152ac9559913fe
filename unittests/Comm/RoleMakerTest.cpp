//===- RoleMakerTest.cpp - Launch environments and role-maker helpers -----===//

#include "CommTestUtil.h"

#include "distc/Comm/RoleMaker.h"

#include <gtest/gtest.h>

#include <map>

using namespace distc::comm;
using namespace distc::comm::test;

namespace {

using Env = std::map<std::string, std::string>;

Status read(const Env &env, RoleFacts &facts) {
  return readRoleFacts(
      [&](const char *name) -> const char * {
        auto it = env.find(name);
        return it == env.end() ? nullptr : it->second.c_str();
      },
      facts);
}

std::string errorOf(const Env &env) {
  RoleFacts facts;
  Status s = read(env, facts);
  return s.ok() ? "ok" : s.message();
}

TEST(RoleFacts, NoLauncherMeansOneWorker) {
  RoleFacts f;
  ASSERT_TRUE(read({}, f).ok());
  EXPECT_EQ(f.source, LaunchSource::None);
  EXPECT_TRUE(f.isWorker());
  EXPECT_TRUE(f.isFirstWorker());
  EXPECT_EQ(f.workerNum, 1);
  RendezvousOptions o = rendezvousOptionsFor(f);
  EXPECT_EQ(o.worldSize, 1);
  EXPECT_EQ(o.masterAddr, "127.0.0.1");
  EXPECT_EQ(o.masterPort, 29500);
}

TEST(RoleFacts, PaddleCollectiveLaunch) {
  RoleFacts f;
  Status s = read({{"PADDLE_TRAINER_ID", "1"},
                   {"PADDLE_TRAINERS_NUM", "3"},
                   {"PADDLE_TRAINER_ENDPOINTS", "10.0.0.1:6170,10.0.0.1:6171,10.0.0.2:6170"},
                   {"PADDLE_CURRENT_ENDPOINT", "10.0.0.1:6171"},
                   {"PADDLE_RANK_IN_NODE", "1"}},
                  f);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(f.source, LaunchSource::Paddle);
  EXPECT_EQ(f.workerIndex, 1);
  EXPECT_EQ(f.workerNum, 3);
  EXPECT_EQ(f.localRank, 1);
  EXPECT_FALSE(f.isFirstWorker());
  EXPECT_EQ(f.workerEndpoints.size(), 3u);
  EXPECT_EQ(f.currentEndpoint, "10.0.0.1:6171");
  EXPECT_EQ(f.masterAddr, "10.0.0.1");
  EXPECT_EQ(f.masterPort, 6170);
  EXPECT_EQ(f.toString(), "paddle worker 1 of 3 (local 1), endpoints "
                          "10.0.0.1:6170,10.0.0.1:6171,10.0.0.2:6170, current 10.0.0.1:6171, "
                          "master 10.0.0.1:6170");
  RendezvousOptions o = rendezvousOptionsFor(f);
  EXPECT_EQ(o.rank, 1);
  EXPECT_EQ(o.worldSize, 3);
  EXPECT_EQ(o.masterAddr, "10.0.0.1");
  EXPECT_EQ(o.masterPort, 6170);
}

TEST(RoleFacts, PaddleCountsEndpointsAndHonoursMasters) {
  RoleFacts f;
  ASSERT_TRUE(read({{"PADDLE_TRAINER_ENDPOINTS", "[::1]:6170, [::1]:6171"}}, f).ok());
  EXPECT_EQ(f.workerNum, 2);
  EXPECT_EQ(f.workerIndex, 0);
  EXPECT_EQ(f.masterAddr, "::1");
  EXPECT_EQ(f.currentEndpoint, "[::1]:6170");
  ASSERT_TRUE(read({{"PADDLE_TRAINER_ENDPOINTS", "a:1,b:2"}, {"PADDLE_MASTER", "m:7"}}, f).ok());
  EXPECT_EQ(f.masterAddr, "m");
  EXPECT_EQ(f.masterPort, 7);
  ASSERT_TRUE(
      read(
          {{"PADDLE_TRAINER_ENDPOINTS", "a:1,b:2"}, {"MASTER_ADDR", "x"}, {"MASTER_PORT", "29501"}},
          f)
          .ok());
  EXPECT_EQ(f.masterAddr, "x");
  EXPECT_EQ(f.masterPort, 29501);
}

TEST(RoleFacts, PaddleErrorsNameTheVariableAndValue) {
  EXPECT_EQ(errorOf({{"PADDLE_TRAINER_ID", "x1"}, {"PADDLE_TRAINERS_NUM", "4"}}),
            "PADDLE_TRAINER_ID='x1' is not an integer");
  EXPECT_EQ(errorOf({{"PADDLE_TRAINER_ID", "4"}, {"PADDLE_TRAINERS_NUM", "4"}}),
            "PADDLE_TRAINER_ID=4 is outside [0, 4) (PADDLE_TRAINERS_NUM=4)");
  EXPECT_EQ(errorOf({{"PADDLE_TRAINER_ID", "2"}, {"PADDLE_TRAINER_ENDPOINTS", "a:1,b:2"}}),
            "PADDLE_TRAINER_ID=2 is outside [0, 2) (PADDLE_TRAINER_ENDPOINTS lists 2)");
  EXPECT_EQ(errorOf({{"PADDLE_TRAINERS_NUM", "4"}, {"PADDLE_TRAINER_ENDPOINTS", "a:1,b:2,c:3"}}),
            "PADDLE_TRAINERS_NUM=4 but PADDLE_TRAINER_ENDPOINTS lists 3 endpoints");
  EXPECT_EQ(errorOf({{"PADDLE_TRAINERS_NUM", "0"}}),
            "PADDLE_TRAINERS_NUM=0 is not a positive integer");
  EXPECT_EQ(errorOf({{"PADDLE_TRAINER_ENDPOINTS", "a:1,node2"}}),
            "PADDLE_TRAINER_ENDPOINTS entry 1 'node2' is not HOST:PORT");
  EXPECT_EQ(errorOf({{"PADDLE_TRAINER_ENDPOINTS", "a:1"}, {"PADDLE_TRAINING_ROLE", "WORKER"}}),
            "PADDLE_TRAINING_ROLE='WORKER' is not TRAINER or PSERVER");
  EXPECT_EQ(errorOf({{"PADDLE_TRAINER_ENDPOINTS", "a:1"}, {"MASTER_PORT", "70000"}}),
            "MASTER_PORT=70000 is not a port (1-65535)");
}

TEST(RoleFacts, PaddleParameterServer) {
  RoleFacts f;
  Env env{{"TRAINING_ROLE", "PSERVER"},
          {"PADDLE_TRAINERS_NUM", "2"},
          {"PADDLE_PSERVERS_IP_PORT_LIST", "10.0.0.5:6000,10.0.0.6:6000"},
          {"POD_IP", "10.0.0.6"},
          {"PADDLE_PORT", "6000"}};
  ASSERT_TRUE(read(env, f).ok());
  EXPECT_TRUE(f.isServer());
  EXPECT_FALSE(f.isWorker());
  EXPECT_FALSE(f.isFirstWorker());
  EXPECT_EQ(f.serverIndex, 1);
  EXPECT_EQ(f.workerNum, 2);
  env["POD_IP"] = "10.0.0.7";
  EXPECT_EQ(errorOf(env), "this server's endpoint POD_IP:PADDLE_PORT=10.0.0.7:6000 is not in "
                          "PADDLE_PSERVERS_IP_PORT_LIST=10.0.0.5:6000,10.0.0.6:6000");
}

TEST(RoleFacts, TorchrunOpenMpiAndSlurm) {
  RoleFacts f;
  ASSERT_TRUE(read({{"RANK", "3"},
                    {"WORLD_SIZE", "8"},
                    {"LOCAL_RANK", "1"},
                    {"MASTER_ADDR", "node0"},
                    {"MASTER_PORT", "29500"}},
                   f)
                  .ok());
  EXPECT_EQ(f.source, LaunchSource::Torchrun);
  EXPECT_EQ(f.workerIndex, 3);
  EXPECT_EQ(f.workerNum, 8);
  EXPECT_EQ(f.localRank, 1);
  EXPECT_EQ(f.masterAddr, "node0");

  // mpirun inside a Slurm allocation: Open MPI's variables win.
  ASSERT_TRUE(read({{"OMPI_COMM_WORLD_RANK", "2"},
                    {"OMPI_COMM_WORLD_SIZE", "4"},
                    {"OMPI_COMM_WORLD_LOCAL_RANK", "0"},
                    {"SLURM_PROCID", "0"},
                    {"SLURM_NTASKS", "1"}},
                   f)
                  .ok());
  EXPECT_EQ(f.source, LaunchSource::OpenMPI);
  EXPECT_EQ(f.workerIndex, 2);
  EXPECT_EQ(f.workerNum, 4);

  ASSERT_TRUE(read({{"SLURM_PROCID", "5"},
                    {"SLURM_NTASKS", "16"},
                    {"SLURM_STEP_NUM_TASKS", "8"},
                    {"SLURM_LOCALID", "1"}},
                   f)
                  .ok());
  EXPECT_EQ(f.source, LaunchSource::Slurm);
  EXPECT_EQ(f.workerIndex, 5);
  EXPECT_EQ(f.workerNum, 8);
  EXPECT_EQ(f.localRank, 1);

  EXPECT_EQ(errorOf({{"RANK", "1"}}), "RANK is set but WORLD_SIZE is not");
  EXPECT_EQ(errorOf({{"WORLD_SIZE", "2"}}), "WORLD_SIZE is set but RANK is not");
  EXPECT_EQ(errorOf({{"RANK", "2"}, {"WORLD_SIZE", "2"}}),
            "RANK=2 is outside [0, 2) (WORLD_SIZE=2)");
  EXPECT_EQ(errorOf({{"OMPI_COMM_WORLD_RANK", "0"}, {"OMPI_COMM_WORLD_SIZE", "two"}}),
            "OMPI_COMM_WORLD_SIZE='two' is not an integer");
}

TEST(RoleFacts, JobTokenFromTheEnvironmentWhateverTheLauncher) {
  const std::string token = "5f0c9e2ab47d1386e0f2a9c4b18d7e63";
  RoleFacts f;
  ASSERT_TRUE(read({}, f).ok());
  EXPECT_EQ(f.jobToken, "");
  for (Env env : {Env{}, Env{{"RANK", "1"}, {"WORLD_SIZE", "2"}},
                  Env{{"PADDLE_TRAINER_ID", "0"}, {"PADDLE_TRAINERS_NUM", "2"}},
                  Env{{"OMPI_COMM_WORLD_RANK", "1"}, {"OMPI_COMM_WORLD_SIZE", "2"}},
                  Env{{"SLURM_PROCID", "1"}, {"SLURM_NTASKS", "2"}}}) {
    env["DISTC_JOB_TOKEN"] = token;
    ASSERT_TRUE(read(env, f).ok());
    EXPECT_EQ(f.jobToken, token) << launchSourceName(f.source);
    EXPECT_EQ(f.toString().find(token), std::string::npos) << f.toString();
    EXPECT_EQ(rendezvousOptionsFor(f).jobToken, token);
  }
  // Empty counts as unset, as for every other variable.
  ASSERT_TRUE(read({{"DISTC_JOB_TOKEN", ""}}, f).ok());
  EXPECT_EQ(f.jobToken, "");
}

TEST(RoleFacts, CollectiveTimeoutFromTheEnvironment) {
  RoleFacts f;
  ASSERT_TRUE(read({}, f).ok());
  EXPECT_EQ(f.collectiveTimeout.count(), 0);
  EXPECT_EQ(rendezvousOptionsFor(f).timeout, std::chrono::seconds(300));
  for (Env env : {Env{}, Env{{"RANK", "1"}, {"WORLD_SIZE", "2"}},
                  Env{{"PADDLE_TRAINER_ID", "0"}, {"PADDLE_TRAINERS_NUM", "2"}}}) {
    env["DISTC_COLLECTIVE_TIMEOUT"] = "2.5";
    ASSERT_TRUE(read(env, f).ok());
    EXPECT_EQ(f.collectiveTimeout, std::chrono::milliseconds(2500));
    EXPECT_EQ(rendezvousOptionsFor(f).timeout, std::chrono::milliseconds(2500));
  }
  for (const char *bad : {"0", "-1", "x", "2s", "90000"})
    EXPECT_EQ(errorOf({{"DISTC_COLLECTIVE_TIMEOUT", bad}}),
              std::string("DISTC_COLLECTIVE_TIMEOUT='") + bad +
                  "' is not a number of seconds in (0, 86400]");
  EXPECT_EQ(parseSeconds("0.5"), std::chrono::milliseconds(500));
  EXPECT_FALSE(parseSeconds(""));
}

TEST(RoleFacts, SameHostCopiesFromTheEnvironment) {
  RoleFacts f;
  ASSERT_TRUE(read({}, f).ok());
  EXPECT_TRUE(f.psSameHostCopies);
  ASSERT_TRUE(read({{"DISTC_PS_SAME_HOST_COPIES", "0"}}, f).ok());
  EXPECT_FALSE(f.psSameHostCopies);
  ASSERT_TRUE(read({{"DISTC_PS_SAME_HOST_COPIES", "1"}}, f).ok());
  EXPECT_TRUE(f.psSameHostCopies);
  EXPECT_EQ(errorOf({{"DISTC_PS_SAME_HOST_COPIES", "no"}}),
            "DISTC_PS_SAME_HOST_COPIES='no' is neither 1 (copy between processes of one host) "
            "nor 0 (TCP)");
}

TEST(RoleMaker, HelpersOnOneWorker) {
  LocalCommunicator comm;
  RoleFacts facts;
  RoleMaker rm(facts, comm);
  std::vector<double> gathered;
  ASSERT_TRUE(rm.allGather(2.5, gathered).ok());
  EXPECT_EQ(gathered, std::vector<double>{2.5});
  std::vector<int64_t> out;
  ASSERT_TRUE(rm.allReduceWorker(std::vector<int64_t>{1, 2}, out, "max").ok());
  EXPECT_EQ(out, (std::vector<int64_t>{1, 2}));
  Status s = rm.allReduceWorker(std::vector<int64_t>{1}, out, "avg");
  EXPECT_EQ(s.message(), "all_reduce_worker: mode 'avg' is not sum, min or max");
  EXPECT_TRUE(rm.barrierWorker().ok());

  facts.workerIndex = 1;
  facts.workerNum = 2;
  RoleMaker wrong(facts, comm);
  s = wrong.barrierWorker();
  EXPECT_EQ(s.message(), "barrier_worker: the communicator is rank 0 of 1 but this process is "
                         "worker 1 of 2");
}

#if DISTC_HAVE_GLOO

TEST(RoleMaker, HelpersAcrossThreeWorkers) {
  auto comms = makeGlooGroup(3);
  ASSERT_EQ(comms.size(), 3u);
  runThreads(3, [&](int r) {
    RoleFacts facts;
    facts.workerIndex = r;
    facts.workerNum = 3;
    RoleMaker rm(facts, *comms[r]);
    std::vector<double> gathered;
    ASSERT_TRUE(rm.allGather(r * 1.5, gathered).ok());
    EXPECT_EQ(gathered, (std::vector<double>{0.0, 1.5, 3.0}));
    std::vector<double> sum, lo, hi;
    std::vector<double> in{double(r), -double(r)};
    ASSERT_TRUE(rm.allReduceWorker(in, sum).ok());
    ASSERT_TRUE(rm.allReduceWorker(in, lo, "min").ok());
    ASSERT_TRUE(rm.allReduceWorker(in, hi, "max").ok());
    EXPECT_EQ(sum, (std::vector<double>{3, -3}));
    EXPECT_EQ(lo, (std::vector<double>{0, -2}));
    EXPECT_EQ(hi, (std::vector<double>{2, 0}));
    std::vector<int64_t> out;
    Status s = rm.allReduceWorker(std::vector<int64_t>(r == 2 ? 3 : 2, 1), out);
    EXPECT_EQ(s.message(), "all_reduce_worker: worker 2 passed 3 values, worker 0 passed 2");
    EXPECT_TRUE(rm.barrierWorker().ok());
  });
}

#endif

} // namespace
