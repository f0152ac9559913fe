//===- PsJob.cpp - A process of a parameter-server job --------------------===//

#include "PsJob.h"

#include "distc/Comm/Store.h"
#include "distc/PServer/PsClient.h"
#include "distc/PServer/PsWorld.h"
#include "distc/PServer/Roles.h"
#include "distc/Training/PaddleParams.h"

#include <cstdlib>

namespace distc::launch {

using runtime::Status;

namespace {

std::string str(const flatbuffers::String *s) { return s ? s->str() : std::string(); }

/// The artifact's servers' endpoints.
std::vector<std::string> compiledEndpoints(const runtime::DistModel &model) {
  std::vector<std::string> endpoints;
  if (auto *servers = model.artifact()->pservers())
    for (const distc::fb::ParameterServer *server : *servers)
      endpoints.push_back(str(server->endpoint()));
  return endpoints;
}

std::string joined(const std::vector<std::string> &list) {
  std::string out;
  for (const std::string &s : list)
    out += (out.empty() ? "" : ",") + s;
  return out;
}

/// The environment must describe the job the artifact was transpiled for.
Status checkJob(const comm::RoleFacts &facts, const runtime::DistModel &model) {
  const std::vector<std::string> endpoints = compiledEndpoints(model);
  const int trainers = model.artifact()->ps_trainers();
  const std::string name = model.artifact().name();
  if (facts.serverEndpoints.empty())
    return Status::error(name + " trains with " + std::to_string(endpoints.size()) +
                         " parameter servers (" + joined(endpoints) +
                         "), but the launch environment names none: start it with dist-run "
                         "--server-num " +
                         std::to_string(endpoints.size()) + " --worker-num " +
                         std::to_string(trainers) + ", or set PADDLE_PSERVERS_IP_PORT_LIST");
  if (facts.serverEndpoints != endpoints)
    return Status::error(name + " is transpiled for the servers " + joined(endpoints) +
                         " but the job's are " + joined(facts.serverEndpoints) +
                         "; recompile it with distc --pservers " + joined(facts.serverEndpoints));
  if (facts.workerNum != trainers)
    return Status::error(name + " is transpiled for " + std::to_string(trainers) +
                         " trainers but the job has " + std::to_string(facts.workerNum) +
                         "; recompile it with distc --trainers " +
                         std::to_string(facts.workerNum));
  return Status::success();
}

/// Where the job's store is: MASTER_ADDR:MASTER_PORT when given (dist-run's
/// launcher sets them), else the first server's endpoint, which server 0
/// serves (Paddle's role variables name no master).
void storeAddress(const comm::RoleFacts &facts, std::string &host, int &port) {
  host = facts.masterAddr;
  port = facts.masterPort;
  if (port == 0 && host.empty() && !facts.serverEndpoints.empty()) {
    const std::string &first = facts.serverEndpoints.front();
    size_t colon = first.rfind(':');
    host = first.substr(0, colon);
    port = std::atoi(first.c_str() + colon + 1);
  }
  if (host.empty())
    host = "127.0.0.1";
}

/// Joins the world as this process's role.
std::unique_ptr<pserver::PsWorld> joinWorld(const comm::RoleFacts &facts,
                                            const runtime::DistModel &model,
                                            std::chrono::milliseconds connectTimeout,
                                            Status &status) {
  if (status = checkJob(facts, model); !status.ok())
    return nullptr;
  const bool server = facts.isServer();
  const int trainers = facts.workerNum;
  const int servers = static_cast<int>(facts.serverEndpoints.size());
  const int index = server ? facts.serverIndex : facts.workerIndex;
  comm::StoreOptions so;
  storeAddress(facts, so.host, so.port);
  so.timeout = connectTimeout;
  so.token = facts.jobToken;
  so.rank = server ? trainers + index : index;
  std::string error;
  std::shared_ptr<comm::Store> store = comm::Store::connect(so, error);
  if (!store) {
    status = Status::error(error);
    return nullptr;
  }
  pserver::PsWorldOptions wo;
  wo.connectTimeout = connectTimeout;
  if (facts.collectiveTimeout.count() > 0)
    wo.timeout = facts.collectiveTimeout;
  wo.endpoint = server ? facts.serverEndpoints[size_t(index)] : facts.currentEndpoint;
  wo.fingerprint = model.artifact().checksumHex();
  wo.sameHostCopies = facts.psSameHostCopies;
  std::unique_ptr<pserver::PsWorld> world =
      pserver::PsWorld::connect(server ? pserver::PsRole::Server : pserver::PsRole::Trainer, index,
                                trainers, servers, std::move(store), wo, error);
  if (!world)
    status = Status::error(error);
  return world;
}

class Trainer final : public PsTrainer {
public:
  Trainer(std::unique_ptr<pserver::PsWorld> world, std::chrono::milliseconds timeout)
      : world_(std::move(world)) {
    pserver::PsClientOptions options;
    if (timeout.count() > 0)
      options.timeout = timeout;
    client_ = std::make_unique<pserver::PsClient>(*world_, options);
  }
  pserver::PsClient &client() { return *client_; }
  pserver::PsWorld &world() { return *world_; }
  Status complete() override { return client_->complete(); }

private:
  std::unique_ptr<pserver::PsWorld> world_;
  std::unique_ptr<pserver::PsClient> client_;
};

} // namespace

std::string setParameterServerLayout(const runtime::DistModel &model,
                                     const std::string &artifactName, LaunchOptions &o) {
  const std::vector<std::string> endpoints = compiledEndpoints(model);
  const int servers = static_cast<int>(endpoints.size());
  const int trainers = model.artifact()->ps_trainers();
  if (o.serverNum != 0 && o.serverNum != servers)
    return "--server-num " + std::to_string(o.serverNum) + ": " + artifactName +
           " is transpiled for " + std::to_string(servers) + " servers (" + joined(endpoints) +
           "); recompile it with distc --pservers and " + std::to_string(o.serverNum) +
           " endpoints";
  if (o.workerNum != 0 && o.workerNum != trainers)
    return "--worker-num " + std::to_string(o.workerNum) + ": " + artifactName +
           " is transpiled for " + std::to_string(trainers) +
           " trainers; recompile it with distc --trainers " + std::to_string(o.workerNum);
  if (o.nprocPerNode != 1)
    return "--nproc-per-node: a parameter-server job starts --worker-num trainers and "
           "--server-num servers";
  if (trainers % o.nnodes != 0)
    return "--nnodes " + std::to_string(o.nnodes) + ": each node runs as many of " +
           artifactName + "'s " + std::to_string(trainers) +
           " trainers; give a node count that divides them";
  o.serverNum = servers;
  o.workerNum = trainers;
  o.serverEndpoints = endpoints;
  o.nprocPerNode = trainers + servers;
  return "";
}

bool isParameterServerArtifact(const runtime::DistModel &model) {
  return model.artifact()->pservers() && model.artifact()->pservers()->size() > 0;
}

std::unique_ptr<PsTrainer> joinAsTrainer(const comm::RoleFacts &facts, runtime::DistModel &model,
                                         std::chrono::milliseconds connectTimeout,
                                         Status &status) {
  std::unique_ptr<pserver::PsWorld> world = joinWorld(facts, model, connectTimeout, status);
  if (!world)
    return nullptr;
  auto trainer = std::make_unique<Trainer>(std::move(world), facts.collectiveTimeout);
  runtime::Session &session = model.session();
  session.setParameterServers(
      std::make_shared<pserver::TrainerChannel>(*model.artifact(), facts.workerIndex,
                                                trainer->client()));
  // Each trainer reads its share of every global batch, and they report
  // the global batch's loss.
  session.setDataReplica({facts.workerIndex, facts.workerNum});
  pserver::PsWorld &trainers = trainer->world();
  session.setReplicaSum(
      [&trainers](std::vector<double> &values) { return trainers.sumOverTrainers(values); });
  status = Status::success();
  return trainer;
}

Status serveAsServer(const comm::RoleFacts &facts, runtime::DistModel &model,
                     std::chrono::milliseconds connectTimeout, const std::string &initFrom) {
  // The whole parameters, as the trainers load them (the trainer's
  // artifact declares them whole).
  runtime::TensorMap initial;
  if (!initFrom.empty()) {
    std::vector<std::string> names;
    if (Status s = model.stateDictNames("param", names); !s.ok())
      return s;
    training::VarSpecs specs;
    for (const std::string &name : names) {
      runtime::Tensor t = model.session().persistent(name);
      specs[name] = training::VarSpec{t.dtype(), t.shape()};
    }
    if (Status s = training::loadParameters(initFrom, specs, initial); !s.ok())
      return s;
  }
  // Without dist-run's launcher, server 0 serves the job's store, which
  // must outlive the world: it lingers until every other process has left.
  std::unique_ptr<comm::StoreServer> storeServer;
  if (facts.serverIndex == 0 && !std::getenv("DISTC_LAUNCHER")) {
    std::string host, error;
    int port = 0;
    storeAddress(facts, host, port);
    storeServer = comm::StoreServer::start(host, port, facts.jobToken, error);
    if (!storeServer)
      return Status::error("server 0 serves the job's rendezvous store at " + host + ":" +
                           std::to_string(port) + ": " + error);
  }
  Status status;
  std::unique_ptr<pserver::PsWorld> world = joinWorld(facts, model, connectTimeout, status);
  if (world) {
    pserver::ServerRunOptions options;
    if (!initFrom.empty())
      options.initial = &initial;
    if (facts.collectiveTimeout.count() > 0)
      options.timeout = facts.collectiveTimeout;
    status = pserver::runParameterServer(model.artifact(), facts.serverIndex, *world, options);
  }
  if (storeServer) {
    std::vector<int> others;
    const int size = facts.workerNum + int(facts.serverEndpoints.size());
    for (int r = 0; r < size; ++r)
      if (r != facts.workerNum)
        others.push_back(r);
    storeServer->waitForDepartures(others, std::chrono::seconds(10));
  }
  return status;
}

} // namespace distc::launch
