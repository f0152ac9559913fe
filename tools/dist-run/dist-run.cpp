//===- dist-run.cpp - Run a distc artifact --------------------------------===//
//
// dist-run ARTIFACT --mode MODE [--params DIR | --init-from PATH]
//          --input NAME=@x.npy ...
//          [--output NAME=@y.npy ... | --output -]
//          [--expected-output NAME=@ref.npy ...] [--rtol R] [--atol A]
// dist-run ARTIFACT --mode train --data SPEC ... [training options]
// dist-run ARTIFACT --mode eval --data SPEC ... [--batch-size B]
//          [--params DIR | --init-from PATH] [--metrics FILE]
//
// dist-run ARTIFACT --mode train --nproc-per-node N [--nnodes M --node-rank K
//          --master-addr A --master-port P --log-dir DIR] [training options]
// dist-run --nproc-per-node N [launcher flags] -- PROGRAM ARGS...
//
// Training is a thin client of lib/runtime/Training's runTraining (TrainLoop.h).
// With --nproc-per-node, dist-run is the launcher of a data-parallel job
// (Launcher.h); a copy of dist-run that finds a launcher's environment is a
// worker and joins the job (JoinJob.h).
// Exit status: 0 on success, 1 on any error or any output mismatch. Every
// error is one line "dist-run: error: ...". See docs/runtime.md and
// docs/training.md.
//
//===----------------------------------------------------------------------===//

#include "AgreedSettings.h"
#include "JoinJob.h"
#include "PsJob.h"
#include "Launcher.h"
#include "common/CliChecks.h"

#include "distc/Comm/NcclCommunicator.h"
#include "distc/Comm/RoleMaker.h"
#include "distc/Runtime/BlasInfo.h"
#include "distc/Runtime/CudaBackend.h"
#include "distc/Runtime/DistModel.h"
#include "distc/Runtime/Npy.h"
#include "distc/Runtime/Session.h"
#include "distc/Runtime/TensorFormat.h"
#include "distc/Support/ToolOutput.h"
#include "distc/Training/Metrics.h"
#include "distc/Training/Reptile.h"
#include "distc/Training/TrainLoop.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <iostream>
#include <map>
#include <optional>

using namespace distc::runtime;
namespace training = distc::training;

namespace {

int fail(const std::string &message) {
  std::fflush(stdout);
  std::fprintf(stderr, "dist-run: error: %s\n", distc::printableLine(message).c_str());
  return 1;
}

/// Splits "NAME=@path" into name and path.
bool parseNamedFile(const std::string &arg, const char *flag, std::string &name, std::string &path,
                    std::string &error) {
  size_t eq = arg.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 >= arg.size() || arg[eq + 1] != '@' ||
      eq + 2 >= arg.size()) {
    error = std::string(flag) + " '" + arg + "' is not of the form NAME=@FILE.npy";
    return false;
  }
  name = arg.substr(0, eq);
  path = arg.substr(eq + 2);
  return true;
}

std::string joinNames(const std::vector<ProgramIO> &ios) {
  std::string s;
  for (const ProgramIO &io : ios)
    s += (s.empty() ? "" : ", ") + io.name;
  return s.empty() ? "(none)" : s;
}

/// The artifact at `path` on `backend` (cpu, or cuda on CUDA device
/// `device`, which prints where its kernels run); null with `error`.
std::unique_ptr<DistModel> openModel(const std::string &path, const std::string &backend,
                                     int device, std::string &error) {
  if (backend == "cpu")
    return DistModel::open(path, error);
  auto loaded = distc::artifact::LoadedArtifact::loadFile(path, error);
  if (!loaded)
    return nullptr;
  std::unique_ptr<Backend> cuda = createCudaBackend(device, error);
  if (!cuda) {
    error = "--backend cuda: " + error;
    return nullptr;
  }
  std::fprintf(stderr, "dist-run: backend %s\n", cuda->describe().c_str());
  auto session = Session::create(std::move(loaded), std::move(cuda), error);
  if (!session)
    return nullptr;
  return DistModel::create(std::move(session), error);
}

/// `dist-run --version`: the version and what each backend can use here,
/// e.g. "cuda backend: built (NCCL 2.28.9), 0 devices: no CUDA device: ...".
std::string versionText() {
  std::string text =
      "dist-run " DISTC_VERSION "\ncpu backend: built (" + blasDescription() + ")\ncuda backend: ";
  if (!cudaBackendBuilt())
    return text + "not built (configured without a CUDA toolkit)";
  std::string why;
  const int devices = distc::comm::cudaDeviceCount(why);
  const std::string nccl = distc::comm::ncclVersionString();
  text += "built (NCCL " + (nccl.empty() ? std::string("not built") : nccl) + "), " +
          std::to_string(devices) + (devices == 1 ? " device" : " devices");
  return why.empty() ? text : text + ": " + why;
}

/// The options of one dist-run invocation.
struct Options {
  std::string artifactPath, mode, paramsDir;
  std::vector<std::string> inputs, outputs, expected;
  double rtol = 1e-5, atol = 1e-6;
  int64_t repeat = 1;
  training::TrainOptions train;
  distc::launch::LaunchOptions launch;
  std::string backend = "cpu";
  double rendezvousTimeout = 30;
  std::optional<std::string> collectiveTimeout;
  // Read into o.train by finishTrainOptions.
  double epochs = 0;
  int64_t steps = 0;
  bool noShuffle = false;
  bool quiet = false;
  bool profile = false;
  // --meta reptile and its settings (Reptile.h).
  std::string meta;
  training::ReptileOptions reptile;
};

const std::vector<const char *> launcherFlags = {
    "--nproc-per-node", "--nnodes",    "--node-rank",  "--master-addr", "--master-port",
    "--log-dir",        "--job-token", "--server-num", "--worker-num"};

/// "--steps, --resume" for the given flags that were passed.
std::string givenFlags(const CLI::App &app, const std::vector<const char *> &flags) {
  std::string list;
  for (const char *flag : flags)
    if (app.count(flag))
      list += (list.empty() ? "" : ", ") + std::string(flag);
  return list;
}

int runTraining(DistModel &model, const Options &o, bool firstWorker) {
  if (!o.meta.empty()) {
    training::ReptileReport report;
    if (Status s = training::runReptile(model, o.train, o.reptile, report); !s.ok())
      return fail(s.message());
    if (firstWorker)
      std::printf("%s\n", report.summary().c_str());
    std::fflush(stdout);
    return 0;
  }
  training::TrainReport report;
  Status s = training::runTraining(model, o.train, report);
  if (!s.ok())
    return fail(s.message());
  if (firstWorker)
    std::printf("%s\n", report.summary().c_str());
  std::fflush(stdout);
  return 0;
}

/// --mode eval --data: the averaged metrics of the whole dataset.
int runDatasetEval(DistModel &model, const Options &o) {
  training::Dataset data;
  Status s =
      training::loadDataArguments(o.train.data, training::feedSpecs(model.session(), "eval"), data);
  if (!s.ok())
    return fail(s.message());
  if (!o.paramsDir.empty()) {
    s = model.session().loadParams(o.paramsDir, "eval");
  } else {
    s = model.initialize();
    if (s.ok() && !o.train.initFrom.empty())
      s = training::loadInitialParameters(model, o.train.initFrom);
  }
  if (!s.ok())
    return fail(s.message());
  training::EvalResult result;
  s = training::evaluate(model, data, o.train.batchSize, result);
  if (!s.ok())
    return fail(s.message());
  if (!o.train.metricsPath.empty()) {
    training::MetricsWriter metrics;
    nlohmann::json record = {{"rows", result.rows}};
    for (const auto &[name, value] : result.metrics)
      record[name] = value;
    s = metrics.open(o.train.metricsPath, /*append=*/true);
    if (s.ok())
      s = metrics.writeJson(record);
    if (s.ok())
      s = metrics.close();
    if (!s.ok())
      return fail(s.message());
  }
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.3g", result.seconds);
  std::printf("evaluated %lld rows in %s s: %s\n", static_cast<long long>(result.rows), seconds,
              result.format().c_str());
  std::fflush(stdout);
  return 0;
}

/// The launcher's flags (torchrun's names); returns --nproc-per-node's option.
CLI::Option *addLauncherOptions(CLI::App &app, distc::launch::LaunchOptions &l,
                                double &rendezvousTimeout,
                                std::optional<std::string> &collectiveTimeout) {
  CLI::Option *nproc =
      app.add_option("--nproc-per-node", l.nprocPerNode, "Start N ranks on this node (launcher)")
          ->check(distc::tools::decimalInteger());
  app.add_option("--nnodes", l.nnodes, "Nodes in the job (default 1)")
      ->check(distc::tools::decimalInteger());
  app.add_option("--node-rank", l.nodeRank, "This node's index in [0, nnodes) (default 0)")
      ->check(distc::tools::decimalInteger());
  app.add_option("--master-addr", l.masterAddr,
                 "Address node 0 serves the rendezvous on (default 127.0.0.1)");
  app.add_option("--master-port", l.masterPort,
                 "Port of the rendezvous (default 29500; 0: any free port, one node only)")
      ->check(distc::tools::decimalInteger());
  app.add_option("--log-dir", l.logDir, "Write each rank's output to DIR/workerlog.<rank>");
  app.add_option("--job-token", l.jobToken,
                 "Token every rank presents to join (default: DISTC_JOB_TOKEN, else generated "
                 "for one node)");
  app.add_option("--server-num", l.serverNum,
                 "Parameter-server artifacts: start S servers on this node (default: the "
                 "artifact's)")
      ->check(distc::tools::decimalInteger());
  app.add_option("--worker-num", l.workerNum,
                 "Parameter-server artifacts: start W trainers on this node (default: the "
                 "artifact's)")
      ->check(distc::tools::decimalInteger());
  app.add_option("--rendezvous-timeout", rendezvousTimeout,
                 "Seconds the ranks (and nodes) have to find each other (default 30)");
  app.add_option("--collective-timeout", collectiveTimeout,
                 "Seconds a collective waits for a stuck rank (default: DISTC_COLLECTIVE_TIMEOUT, "
                 "else 300)");
  return nproc;
}

/// What the launcher flags leave to derive: the rendezvous bound and the
/// collective timeout from their seconds, and the job token from
/// DISTC_JOB_TOKEN when not given. An error message, or "" when they are
/// fine.
std::string finishLauncherOptions(distc::launch::LaunchOptions &l, double rendezvousTimeout,
                                  const std::optional<std::string> &collectiveTimeout) {
  if (!(rendezvousTimeout > 0 && rendezvousTimeout <= 86400))
    return "--rendezvous-timeout must lie in (0, 86400] seconds";
  if (collectiveTimeout) {
    // The same parser as DISTC_COLLECTIVE_TIMEOUT's, on the text as given.
    auto t = distc::comm::parseSeconds(*collectiveTimeout);
    if (!t)
      return "--collective-timeout must lie in (0, 86400] seconds";
    l.collectiveTimeout = *t;
  }
  l.connectTimeout = std::chrono::milliseconds(int64_t(rendezvousTimeout * 1000));
  if (l.jobToken.empty())
    if (const char *token = std::getenv("DISTC_JOB_TOKEN"))
      l.jobToken = token;
  return "";
}

/// `dist-run [launcher flags] -- PROGRAM ARGS...`: launches another
/// program's ranks with the same environment and supervision.
int runProgramLauncher(int argc, char **argv, int separator) {
  CLI::App app{"Launches the ranks of PROGRAM (dist-run [launcher flags] -- PROGRAM ARGS...)"};
  distc::launch::LaunchOptions l;
  double rendezvousTimeout = 30;
  std::optional<std::string> collectiveTimeout;
  addLauncherOptions(app, l, rendezvousTimeout, collectiveTimeout)->required();
  if (std::string slip = distc::tools::emptyAttachedValue(separator, argv); !slip.empty())
    return fail(slip);
  try {
    app.parse(separator, argv);
  } catch (const CLI::Success &e) {
    return app.exit(e);
  } catch (const CLI::ParseError &e) {
    // '--' makes dist-run a launcher of any program; a user who meant it as
    // a flag's value should learn why launcher flags are suddenly asked for.
    return fail(std::string(e.what()) +
                " (everything after '--' is a program for dist-run to launch: dist-run "
                "--nproc-per-node N -- PROGRAM ARGS...)");
  }
  if (std::string problem = finishLauncherOptions(l, rendezvousTimeout, collectiveTimeout);
      !problem.empty())
    return fail(problem);
  if (separator + 1 >= argc)
    return fail("nothing to launch after '--'");
  return distc::launch::runLauncher(l, std::vector<std::string>(argv + separator + 1, argv + argc));
}

/// The flags of `dist-run ARTIFACT ...` (docs/runtime.md, docs/training.md,
/// docs/data-parallel.md), in the order --help lists them.
void addArtifactOptions(CLI::App &app, Options &o) {
  training::TrainOptions &t = o.train;
  app.add_option("artifact", o.artifactPath, "The artifact file written by distc")->required();
  app.add_option("--mode", o.mode, "Mode to run: train, eval, predict")->required();
  app.add_option("--params", o.paramsDir,
                 "Directory of <name>.npy parameter files (default: run the startup program)");
  app.add_option("--input", o.inputs, "Feed NAME=@file.npy (repeatable)");
  app.add_option("--output", o.outputs,
                 "Write fetch NAME=@file.npy (repeatable), or '-' to print every fetch");
  app.add_option("--expected-output", o.expected,
                 "Compare fetch NAME with @ref.npy (repeatable); exit 1 on mismatch");
  app.add_option("--rtol", o.rtol, "Relative tolerance for --expected-output");
  app.add_option("--atol", o.atol, "Absolute tolerance for --expected-output");
  app.add_option("--repeat", o.repeat,
                 "Run the batch N times and print the time per run to stderr (after one warm-up "
                 "run)")
      ->check(distc::tools::decimalInteger())
      ->check(CLI::Range(int64_t(1), int64_t(1000000)));
  // Training, and evaluation of a dataset (docs/training.md).
  app.add_option("--data", t.data,
                 "Data: NAME=@x.npy, FILE.npz[:MAPPING], FILE.csv[.gz]:MAPPING or "
                 "images=DIR[:OPTIONS] (repeatable)");
  app.add_option("--holdout", t.holdout, "Fraction of the data held out for evaluation");
  app.add_option("--eval-data", t.evalData, "Held-out data instead of --holdout (repeatable)");
  app.add_option("--batch-size", t.batchSize, "Rows per batch (default 32)")
      ->check(distc::tools::decimalInteger());
  app.add_option("--seed", t.seed, "Seed of the shuffle and the held-out split (default 0)")
      ->check(distc::tools::unsignedDecimal());
  app.add_flag("--no-shuffle", o.noShuffle, "Visit the rows in file order");
  app.add_flag("--split-files", t.splitFiles,
               "Data parallel: each rank reads only its share of the --data file lists "
               "(wildcard paths) and batches its own rows");
  app.add_option("--epochs", o.epochs, "Train until this many epochs (default 1)");
  app.add_option("--steps", o.steps, "Train until this many optimizer steps")
      ->check(distc::tools::decimalInteger());
  app.add_option("--metrics", t.metricsPath, "Append JSON Lines metrics to FILE");
  app.add_option("--tensorboard", t.tensorBoardDir,
                 "Write the metrics as a TensorBoard event file in DIR");
  app.add_flag("--profile", o.profile,
               "Time every kernel call and print, when the run ends, where each program's "
               "time went (first rank only; calls are synchronized, so steps run slower)");
  app.add_flag("--quiet", o.quiet,
               "No progress, evaluation or checkpoint lines on stderr (errors still print)");
  app.add_option("--eval-every", t.evalEvery, "Evaluate the held-out data every N steps")
      ->check(distc::tools::decimalInteger());
  app.add_option("--save-every", t.saveEvery, "Save a checkpoint every N steps")
      ->check(distc::tools::decimalInteger());
  app.add_option("--checkpoint-dir", t.checkpointDir, "Directory of checkpoints");
  app.add_flag("--resume", t.resume, "Continue from the latest checkpoint in --checkpoint-dir");
  app.add_option("--init-from", t.initFrom,
                 "Initial parameters: a checkpoint, a directory of .npy or Paddle files, or a "
                 "combined parameter file");
  app.add_option("--save-persistables", t.savePersistablesDir,
                 "At the end, write every persistable variable in Paddle's format to DIR");
  app.add_option("--save-inference-model", t.saveInferencePrefix,
                 "At the end, write PREFIX.pdmodel and PREFIX.pdiparams");
  // Few-shot meta-learning (docs/training.md, "Few-shot episodes and Reptile").
  training::ReptileOptions &r = o.reptile;
  app.add_option("--meta", o.meta, "Meta-learn on N-way K-shot episodes: reptile")
      ->check(CLI::IsMember({"reptile"}));
  app.add_option("--ways", r.episode.ways, "Classes per episode (default 5)")
      ->check(distc::tools::decimalInteger());
  app.add_option("--shots", r.episode.shots, "Support rows per class (default 1)")
      ->check(distc::tools::decimalInteger());
  app.add_option("--queries", r.episode.queries, "Query rows per class (default 1)")
      ->check(distc::tools::decimalInteger());
  app.add_option("--inner-steps", r.innerSteps, "Train steps per episode (default 5)")
      ->check(distc::tools::decimalInteger());
  app.add_option("--meta-steps", r.metaSteps, "Outer updates (default 100)")
      ->check(distc::tools::decimalInteger());
  app.add_option("--meta-batch", r.metaBatch, "Episodes per outer update per rank (default 1)")
      ->check(distc::tools::decimalInteger());
  app.add_option("--meta-lr", r.metaLr, "Outer step size epsilon (default 1)");
  app.add_option("--meta-lr-final", r.metaLrFinal,
                 "Anneal epsilon linearly to this by the last meta-step");
  app.add_option("--eval-episodes", r.evalEpisodes,
                 "Held-out episodes evaluated at the end (default 100)")
      ->check(distc::tools::decimalInteger());
  app.add_option("--eval-inner-steps", r.evalInnerSteps,
                 "Fine-tuning steps per held-out episode (default: --inner-steps)")
      ->check(distc::tools::decimalInteger());
  // Data parallel: the launcher (docs/data-parallel.md).
  addLauncherOptions(app, o.launch, o.rendezvousTimeout, o.collectiveTimeout);
  app.add_option("--backend", o.backend,
                 "Where the ranks run: cpu (default), or cuda (one CUDA device per rank, its "
                 "local rank; NCCL between ranks)");
  app.set_version_flag("--version", versionText,
                       "Print the version and the backends this machine can run, and exit");
}

/// Moves what the command line says about training into o.train: the
/// shuffle flag is a negation, --epochs/--steps count only when given
/// (neither given means one epoch), --quiet drops the progress, and
/// DISTC_PROGRESS (which the launcher sets for its ranks, whose stderr is
/// its pipe) says whether training's progress goes to a terminal. An error
/// message, or "" when they are fine.
std::string finishTrainOptions(const CLI::App &app, Options &o) {
  o.train.shuffle = !o.noShuffle;
  if (o.quiet)
    o.train.progress = nullptr;
  const char *progress = o.mode == "train" ? std::getenv("DISTC_PROGRESS") : nullptr;
  if (progress) {
    const std::string value = progress;
    if (value != "terminal" && value != "plain")
      return "DISTC_PROGRESS='" + value + "': not one of terminal, plain";
    o.train.progressTerminal = value == "terminal";
  }
  if (app.count("--epochs"))
    o.train.epochs = o.epochs;
  if (app.count("--steps"))
    o.train.steps = o.steps;
  return "";
}

/// Who this process is in a job.
struct JobRole {
  distc::comm::RoleFacts facts;
  /// A worker of a job some launcher (dist-run, mpirun, srun, ...) started.
  bool launched = false;
  /// The launcher of a new job (launcher flags, no launcher's environment).
  bool launching = false;
};

/// Reads the launch environment into `role` and finishes the launcher
/// options. A launcher's environment wins over launcher flags (the first
/// worker says so), and only --mode train runs as a data-parallel job. An
/// error message, or "" when the role is fine.
std::string resolveJobRole(const CLI::App &app, Options &o, JobRole &role) {
  distc::comm::RoleFacts &facts = role.facts;
  if (Status s = distc::comm::readRoleFacts(facts); !s.ok())
    return "the launch environment: " + s.message();
  const std::string launcherFlagsGiven = givenFlags(app, launcherFlags);
  role.launched = facts.source != distc::comm::LaunchSource::None;
  role.launching = !role.launched && !launcherFlagsGiven.empty();
  if (std::string problem =
          finishLauncherOptions(o.launch, o.rendezvousTimeout, o.collectiveTimeout);
      !problem.empty())
    return problem;
  if (o.launch.collectiveTimeout.count() > 0)
    facts.collectiveTimeout = o.launch.collectiveTimeout;
  if (role.launched && !launcherFlagsGiven.empty() && !std::getenv("DISTC_LAUNCHER") &&
      facts.isFirstWorker())
    std::fprintf(stderr, "dist-run: started by %s as %s; using that environment instead of %s\n",
                 distc::comm::launchSourceName(facts.source), facts.toString().c_str(),
                 launcherFlagsGiven.c_str());
  if ((role.launching || (role.launched && facts.workerNum > 1)) && o.mode != "train")
    return "--mode " + o.mode +
           " runs in one process; data-parallel jobs (--nproc-per-node, or a launcher's "
           "environment) are for --mode train";
  return "";
}

/// The artifact, opened on the backend this process runs on (the launcher
/// only checks the artifact: its ranks take the devices), with the mode
/// asked for; null with `error`.
std::unique_ptr<DistModel> openModelWithMode(const Options &o, const JobRole &role,
                                             std::string &error) {
  auto model =
      openModel(o.artifactPath, role.launching ? "cpu" : o.backend, role.facts.localRank, error);
  if (!model)
    return nullptr;
  const Session &session = model->session();
  if (!session.hasMode(o.mode)) {
    std::string list;
    for (const std::string &m : session.modes())
      list += (list.empty() ? "" : ", ") + m;
    error = o.artifactPath + ": no mode '" + o.mode +
            "'; the artifact has: " + (list.empty() ? "(none)" : list);
    return nullptr;
  }
  return model;
}

/// The flags of a run on one batch of --input files.
const std::vector<const char *> batchFlags = {"--input", "--output", "--expected-output",
                                              "--rtol",  "--atol",   "--repeat"};
/// The flags only training takes.
const std::vector<const char *> trainOnlyFlags = {"--holdout",
                                                  "--eval-data",
                                                  "--seed",
                                                  "--no-shuffle",
                                                  "--split-files",
                                                  "--epochs",
                                                  "--steps",
                                                  "--eval-every",
                                                  "--save-every",
                                                  "--checkpoint-dir",
                                                  "--resume",
                                                  "--save-persistables",
                                                  "--save-inference-model",
                                                  "--tensorboard",
                                                  "--meta"};
/// The flags of --meta reptile.
const std::vector<const char *> metaFlags = {
    "--ways",       "--shots",   "--queries",       "--inner-steps",   "--meta-steps",
    "--meta-batch", "--meta-lr", "--meta-lr-final", "--eval-episodes", "--eval-inner-steps"};

/// What every rank must agree on: agreedSettings plus the --meta settings.
std::vector<std::pair<std::string, std::string>> jobSettings(const Options &o,
                                                             const DistModel &model) {
  auto settings =
      distc::launch::agreedSettings(o.train, o.mode, o.backend, model.artifact().checksumHex());
  if (o.meta.empty())
    return settings;
  const training::ReptileOptions &r = o.reptile;
  settings.push_back({"--meta", o.meta + " ways " + std::to_string(r.episode.ways) + " shots " +
                                    std::to_string(r.episode.shots) + " queries " +
                                    std::to_string(r.episode.queries) + " inner-steps " +
                                    std::to_string(r.innerSteps) + " meta-steps " +
                                    std::to_string(r.metaSteps) + " meta-batch " +
                                    std::to_string(r.metaBatch) + " meta-lr " +
                                    training::formatMetric(r.metaLr) + " meta-lr-final " +
                                    training::formatMetric(r.metaLrFinal.value_or(r.metaLr)) +
                                    " eval-episodes " + std::to_string(r.evalEpisodes) +
                                    " eval-inner-steps " + std::to_string(r.evalInnerSteps)});
  return settings;
}

/// The launcher of a training job: runs this same command line once per
/// rank (each copy finds the launcher's environment and joins the job),
/// after checking that the artifact is compiled for as many ranks and,
/// with several nodes, that every node gives the same settings.
int launchTrainingJob(std::unique_ptr<DistModel> model, const Options &o, int argc, char **argv) {
  distc::launch::LaunchOptions l = o.launch;
  l.agreedSettings = jobSettings(o, *model);
  if (distc::launch::isParameterServerArtifact(*model)) {
    if (std::string problem = distc::launch::setParameterServerLayout(*model, o.artifactPath, l);
        !problem.empty())
      return fail(problem);
  } else if (l.serverNum != 0 || l.workerNum != 0) {
    return fail("--server-num and --worker-num start parameter servers and their trainers; " +
                o.artifactPath + " is not compiled with distc --transpiler pserver");
  }
  // --meta reptile runs a one-rank artifact on every rank.
  l.artifactRanks =
      o.meta.empty() && l.serverNum == 0 ? model->artifact()->world_size() : 0;
  l.artifactOnMesh = model->artifact()->data_ring() != 0;
  l.artifactName = o.artifactPath;
  model.reset();
  std::string error;
  const std::string self = distc::launch::selfExecutable(error);
  if (self.empty())
    return fail(error);
  std::vector<std::string> command = {self};
  command.insert(command.end(), argv + 1, argv + argc);
  l.liveProgress = true;
  return distc::launch::runLauncher(l, command);
}

/// A process of a parameter-server job: a server serves until every
/// trainer is done; a trainer trains with the servers, then says it is done.
int runParameterServerProcess(DistModel &model, const Options &o, const JobRole &role) {
  if (!o.meta.empty())
    return fail("--meta reptile runs without parameter servers; " + o.artifactPath +
                " is compiled with distc --transpiler pserver");
  if (role.facts.isServer()) {
    Status s =
        distc::launch::serveAsServer(role.facts, model, o.launch.connectTimeout, o.train.initFrom);
    return s.ok() ? 0 : fail(s.message());
  }
  Status s;
  std::unique_ptr<distc::launch::PsTrainer> trainer =
      distc::launch::joinAsTrainer(role.facts, model, o.launch.connectTimeout, s);
  if (!trainer)
    return fail(s.message());
  const int code = runTraining(model, o, role.facts.isFirstWorker());
  if (code != 0)
    return code;
  Status done = trainer->complete();
  return done.ok() ? 0 : fail(done.message());
}

/// --mode train: launches a job, or trains as one of its ranks (or alone).
int runTrainMode(const CLI::App &app, std::unique_ptr<DistModel> model, const Options &o,
                 const JobRole &role, int argc, char **argv) {
  if (std::string given = givenFlags(app, batchFlags); !given.empty())
    return fail(given + ": not for --mode train, which reads its batches from --data");
  if (app.count("--params"))
    return fail("--params: not for --mode train; use --init-from DIR for initial parameters");
  if (!model->hasTraining())
    return fail(o.artifactPath + " has a train program but no training table; recompile it "
                                 "with a newer distc");
  if (std::string given = givenFlags(app, metaFlags); !given.empty() && o.meta.empty())
    return fail(given + ": only with --meta reptile");
  if (role.launching)
    return launchTrainingJob(std::move(model), o, argc, argv);
  if (distc::launch::isParameterServerArtifact(*model))
    return runParameterServerProcess(*model, o, role);
  const auto how =
      o.backend == "cuda" ? distc::launch::JobComm::Nccl : distc::launch::JobComm::Gloo;
  if (Status s = distc::launch::joinJob(role.facts, *model, o.launch.connectTimeout, how,
                                        role.facts.localRank, jobSettings(o, *model),
                                        /*copyPerRank=*/!o.meta.empty());
      !s.ok())
    return fail(s.message());
  return runTraining(*model, o, role.facts.isFirstWorker());
}

/// What a batch run was asked for, read and checked before anything runs.
struct BatchRequest {
  TensorMap feeds;
  /// --output NAME=@FILE, by fetch name.
  std::map<std::string, std::string> outputFiles;
  /// --expected-output NAME=@FILE, in the order given.
  std::vector<std::pair<std::string, Tensor>> references;
  /// --output -, or neither --output nor --expected-output.
  bool printAll = false;
};

/// Reads --output, --expected-output and --input into `request`, checking
/// that every name is one of `fetchList` (or given once, for feeds). An
/// error message, or "" when they are fine.
std::string readBatchRequest(const Options &o, const std::vector<ProgramIO> &fetchList,
                             BatchRequest &request) {
  std::string error;
  auto isFetch = [&](const std::string &name) {
    for (const ProgramIO &f : fetchList)
      if (f.name == name)
        return true;
    return false;
  };
  for (const std::string &output : o.outputs) {
    if (output == "-") {
      request.printAll = true;
      continue;
    }
    std::string name, path;
    if (!parseNamedFile(output, "--output", name, path, error))
      return error;
    if (!isFetch(name))
      return "--output: no fetch named '" + name + "' in mode '" + o.mode +
             "'; fetches: " + joinNames(fetchList);
    request.outputFiles[name] = path;
  }
  for (const std::string &e : o.expected) {
    std::string name, path;
    if (!parseNamedFile(e, "--expected-output", name, path, error))
      return error;
    if (!isFetch(name))
      return "--expected-output: no fetch named '" + name + "' in mode '" + o.mode +
             "'; fetches: " + joinNames(fetchList);
    Tensor ref;
    Status s = readNpy(path, ref);
    if (!s.ok())
      return s.message();
    request.references.emplace_back(name, std::move(ref));
  }
  for (const std::string &in : o.inputs) {
    std::string name, path;
    if (!parseNamedFile(in, "--input", name, path, error))
      return error;
    if (request.feeds.count(name))
      return "--input '" + name + "' given twice";
    Tensor t;
    Status s = readNpy(path, t);
    if (!s.ok())
      return s.message();
    request.feeds[name] = std::move(t);
  }
  // With neither --output nor --expected-output, printing is the point.
  if (o.outputs.empty() && request.references.empty())
    request.printAll = true;
  return "";
}

/// The state a batch run starts from: --params, --init-from, or the mode's
/// startup program.
Status initializeForBatch(DistModel &model, const Options &o) {
  Session &session = model.session();
  if (!o.paramsDir.empty())
    return session.loadParams(o.paramsDir, o.mode);
  if (!o.train.initFrom.empty()) {
    // The widest startup program first, so that every persistable variable
    // is initialized, then the parameters are replaced.
    Status s = model.initialize();
    if (s.ok())
      s = training::loadInitialParameters(model, o.train.initFrom);
    return s;
  }
  return session.initialize(o.mode);
}

/// Writes, prints and compares the fetches as `request` asks; 1 when a
/// fetch differs from its reference.
int reportBatchResults(const BatchRequest &request, const std::vector<ProgramIO> &fetchList,
                       const TensorMap &fetches, const Options &o) {
  for (const auto &[name, path] : request.outputFiles) {
    Status w = writeNpy(path, fetches.at(name));
    if (!w.ok())
      return fail(w.message());
  }
  if (request.printAll)
    for (const ProgramIO &f : fetchList) {
      const Tensor &t = fetches.at(f.name);
      std::printf("%s: %s\n%s\n", f.name.c_str(), t.typeString().c_str(),
                  formatTensorValues(t).c_str());
    }
  bool allMatch = true;
  for (const auto &[name, ref] : request.references) {
    auto mismatch = compareTensors(fetches.at(name), ref, o.rtol, o.atol);
    if (mismatch) {
      allMatch = false;
      std::printf("%s: %s\n", name.c_str(), mismatch->c_str());
    } else {
      std::printf("%s: OK\n", name.c_str());
    }
  }
  std::fflush(stdout);
  if (!allMatch) {
    std::fprintf(stderr, "dist-run: error: outputs differ from the expected values\n");
    return 1;
  }
  return 0;
}

/// --mode eval or predict on one batch of --input files.
int runBatch(const CLI::App &app, DistModel &model, const Options &o) {
  const std::vector<ProgramIO> fetchList = model.session().fetches(o.mode);
  BatchRequest request;
  if (std::string problem = readBatchRequest(o, fetchList, request); !problem.empty())
    return fail(problem);
  if (Status s = initializeForBatch(model, o); !s.ok())
    return fail(s.message());
  TensorMap fetches;
  if (Status s = model.session().run(o.mode, request.feeds, fetches); !s.ok())
    return fail(s.message());
  if (app.count("--repeat")) {
    // The first run above warmed caches, thread pools and buffers; the
    // timed runs are what a served model costs per batch.
    std::vector<double> seconds;
    for (int64_t r = 0; r < o.repeat; ++r) {
      auto start = std::chrono::steady_clock::now();
      if (Status s = model.session().run(o.mode, request.feeds, fetches); !s.ok())
        return fail(s.message());
      seconds.push_back(
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    std::vector<double> sorted = seconds;
    std::sort(sorted.begin(), sorted.end());
    std::fprintf(stderr, "dist-run: %s: %lld runs: median %.3f ms, min %.3f ms, max %.3f ms\n",
                 o.mode.c_str(), static_cast<long long>(sorted.size()),
                 sorted[sorted.size() / 2] * 1e3, sorted.front() * 1e3, sorted.back() * 1e3);
  }
  return reportBatchResults(request, fetchList, fetches, o);
}

/// --mode eval or predict: a whole dataset (--data), or one batch.
int runOneProcessMode(const CLI::App &app, DistModel &model, const Options &o) {
  if (std::string given = givenFlags(app, trainOnlyFlags); !given.empty())
    return fail(given + ": only for --mode train");
  if (std::string given = givenFlags(app, metaFlags); !given.empty())
    return fail(given + ": only for --mode train --meta reptile");
  if (!o.paramsDir.empty() && !o.train.initFrom.empty())
    return fail("--params and --init-from are alternatives; give one");
  if (!o.train.data.empty()) {
    if (o.mode != "eval")
      return fail("--data: only for --mode train and --mode eval");
    if (std::string given = givenFlags(app, batchFlags); !given.empty())
      return fail(given + ": not with --data; --mode eval --data evaluates the whole dataset");
    return runDatasetEval(model, o);
  }
  if (app.count("--batch-size") || app.count("--metrics"))
    return fail(givenFlags(app, {"--batch-size", "--metrics"}) +
                ": only for --mode train, or --mode eval with --data");
  return runBatch(app, model, o);
}

int runTool(int argc, char **argv) {
  // `dist-run [launcher flags] -- PROGRAM ...` launches another program.
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--")
      return runProgramLauncher(argc, argv, i);
  CLI::App app{
      "Runs a distc artifact on the CPU or a CUDA backend: predict or evaluate a batch, train, or "
      "evaluate a dataset."};
  Options o;
  addArtifactOptions(app, o);
  if (std::string slip = distc::tools::emptyAttachedValue(argc, argv); !slip.empty())
    return fail(slip);
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success &e) {
    return app.exit(e);
  } catch (const CLI::ParseError &e) {
    return fail(e.what());
  }
  if (std::string problem = finishTrainOptions(app, o); !problem.empty())
    return fail(problem);
  if (o.backend != "cpu" && o.backend != "cuda")
    return fail("--backend " + o.backend + ": not one of cpu, cuda");

  // Who this process is: a worker of a job some launcher started, the
  // launcher of a new job, or a process alone.
  JobRole role;
  if (std::string problem = resolveJobRole(app, o, role); !problem.empty())
    return fail(problem);
  std::string error;
  std::unique_ptr<DistModel> model = openModelWithMode(o, role, error);
  if (!model)
    return fail(error);
  KernelProfile profile;
  if (o.profile && !role.launching)
    model->session().setProfile(&profile);
  const int status = o.mode == "train" ? runTrainMode(app, std::move(model), o, role, argc, argv)
                                       : runOneProcessMode(app, *model, o);
  if (!profile.empty() && (o.mode != "train" || role.facts.isFirstWorker()))
    std::fprintf(stderr, "%s", profile.report().c_str());
  return status;
}

} // namespace

int main(int argc, char **argv) {
  try {
    int status = runTool(argc, argv);
    if (std::string problem = distc::standardOutputError(); !problem.empty())
      return fail("cannot write to standard output: " + problem);
    return status;
  } catch (const std::bad_alloc &) {
    return fail("out of memory");
  } catch (const std::exception &e) {
    return fail(std::string("internal error: ") + e.what());
  }
}
