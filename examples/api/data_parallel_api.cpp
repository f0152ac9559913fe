//===- data_parallel_api.cpp - Data-parallel training from C++ ------------===//
//
// distc-dp-api-example ARTIFACT [STEPS]
//
// One worker of a data-parallel job, written against the runtime and
// communication APIs instead of dist-run's training loop. Start it with
// any launcher; dist-run launches other programs after `--`:
//
//   distc model.json --startup startup.json --loss loss --optimizer sgd \
//         --nranks 2 -o model2.distc
//   dist-run --nproc-per-node 2 -- distc-dp-api-example model2.distc
//
// (mpirun, srun, torchrun or Paddle's launcher work too: RoleMaker.h lists
// the variables read.) It
//  1. reads its place in the job (Paddle's role-maker facts),
//  2. joins the job's communicator through the rendezvous, with the
//     artifact's checksum as the fingerprint every rank must share,
//  3. gives the model's collective kernels that communicator and
//     initializes it (the startup program broadcasts rank 0's parameters),
//  4. trains a few steps, each rank on its share of one made-up batch,
//  5. uses the role maker's collectives: the mean loss over the workers
//     (all_reduce_worker), every worker's loss (all_gather), and a barrier.
// Only the first worker prints.
//
// Build: target distc-dp-api-example (runtime + communication libraries,
// no MLIR). See docs/data-parallel.md.
//
//===----------------------------------------------------------------------===//

#include "distc/Comm/CommCollectives.h"
#include "distc/Comm/Rendezvous.h"
#include "distc/Comm/RoleMaker.h"
#include "distc/Runtime/DistModel.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>

using namespace distc;
using runtime::DistModel;
using runtime::Status;

namespace {

int fail(const std::string &what, const std::string &message) {
  std::fprintf(stderr, "distc-dp-api-example: error: %s: %s\n", what.c_str(), message.c_str());
  return 1;
}

/// A made-up batch for the model's feeds: random floats, class 0 or 1 for
/// integer feeds.
runtime::TensorMap makeBatch(const DistModel &model, int64_t rows, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> uniform(-1, 1);
  runtime::TensorMap batch;
  for (const runtime::ProgramIO &feed : model.feeds()) {
    runtime::Shape shape = feed.dims;
    for (int64_t &d : shape)
      if (d < 0)
        d = rows;
    runtime::Tensor t(feed.dtype, shape);
    for (int64_t i = 0; i < t.numel(); ++i) {
      if (feed.dtype == runtime::DType::Float32)
        t.data<float>()[i] = uniform(rng);
      else if (feed.dtype == runtime::DType::Int64)
        t.data<int64_t>()[i] = static_cast<int64_t>(rng() % 2);
    }
    batch[feed.name] = t;
  }
  return batch;
}

/// Rows [begin, begin + count) of every tensor of `batch`, whose leading
/// dim is the batch.
runtime::TensorMap rowsOf(const runtime::TensorMap &batch, int64_t begin, int64_t count) {
  runtime::TensorMap part;
  for (const auto &[name, tensor] : batch) {
    runtime::Shape shape = tensor.shape();
    const size_t rowBytes = tensor.byteSize() / static_cast<size_t>(shape[0]);
    shape[0] = count;
    runtime::Tensor rows(tensor.dtype(), shape);
    std::memcpy(rows.data(), static_cast<const uint8_t *>(tensor.data()) + begin * rowBytes,
                count * rowBytes);
    part[name] = rows;
  }
  return part;
}

/// The rows of the global batch every step trains on, shared out evenly.
constexpr int64_t kGlobalRows = 8;

} // namespace

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: distc-dp-api-example ARTIFACT [STEPS]\n");
    return 1;
  }
  const int steps = argc == 3 ? std::atoi(argv[2]) : 3;

  // 1. Who am I? (PADDLE_TRAINER_ID/..., RANK/WORLD_SIZE, OMPI_*, SLURM_*)
  comm::RoleFacts facts;
  if (Status s = comm::readRoleFacts(facts); !s.ok())
    return fail("the launch environment", s.message());

  std::string error;
  std::unique_ptr<DistModel> model = DistModel::open(argv[1], error);
  if (!model)
    return fail("open", error);

  // 2. Join the job. dist-run's launcher serves the rendezvous store itself
  //    (DISTC_LAUNCHER is set); under other launchers rank 0 serves it.
  comm::RendezvousOptions options = comm::rendezvousOptionsFor(facts);
  options.fingerprint = model->artifact().checksumHex();
  options.serveStore = std::getenv("DISTC_LAUNCHER") == nullptr;
  std::unique_ptr<comm::Communicator> connected;
  if (!comm::connect(options, connected, error))
    return fail("joining the job", error);
  std::shared_ptr<comm::Communicator> communicator = std::move(connected);
  comm::RoleMaker roles(facts, *communicator);

  // 3. The collective kernels use the communicator; the startup program
  //    broadcasts rank 0's initial parameters.
  if (Status s =
          model->session().setCollectives(std::make_shared<comm::CommCollectives>(communicator));
      !s.ok())
    return fail("joining the job", s.message());
  if (Status s = model->initialize(); !s.ok())
    return fail("initialize", s.message());
  if (roles.isFirstWorker())
    std::printf("%s\n", roles.toString().c_str());

  // 4. Train: every rank its share of one global batch; the gradients are
  //    averaged over the ranks inside the train program, so the job trains
  //    as one process would on the whole batch.
  if (Status s = model->train(); !s.ok())
    return fail("train", s.message());
  if (kGlobalRows % roles.workerNum() != 0)
    return fail("sharding the batch", std::to_string(kGlobalRows) + " rows do not divide over " +
                                          std::to_string(roles.workerNum()) + " workers");
  const int64_t share = kGlobalRows / roles.workerNum();
  runtime::TensorMap batch =
      rowsOf(makeBatch(*model, kGlobalRows, 1000), roles.workerIndex() * share, share);
  for (int i = 0; i < steps; ++i) {
    runtime::StepResult result;
    if (Status s = model->step(batch, result); !s.ok())
      return fail("train step", s.message());

    // 5. The role maker's collectives.
    std::vector<double> mean;
    std::vector<double> losses;
    if (Status s = roles.allReduceWorker({result.loss}, mean, "sum"); !s.ok())
      return fail("all_reduce_worker", s.message());
    if (Status s = roles.allGather(result.loss, losses); !s.ok())
      return fail("all_gather", s.message());
    if (roles.isFirstWorker()) {
      std::printf("step %lld: mean loss over %d workers %.6g; per worker:",
                  static_cast<long long>(result.step), roles.workerNum(),
                  mean[0] / roles.workerNum());
      for (double l : losses)
        std::printf(" %.6g", l);
      std::printf("\n");
    }
  }
  if (Status s = roles.barrierAll(); !s.ok())
    return fail("barrier_all", s.message());
  if (roles.isFirstWorker())
    std::printf("every worker finished\n");
  return 0;
}
