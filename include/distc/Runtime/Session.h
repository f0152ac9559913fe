//===- Session.h - Executing a distc artifact -------------------*- C++ -*-===//
//
// A Session is one process's view of an artifact, in the spirit of Paddle's
// DistModel: it owns the loaded artifact, the persistent state (parameters
// and optimizer state, shared by every mode and program) and a backend.
//
// Lifecycle:
//
//   std::string error;
//   auto session = Session::open("model.distc", error);   // load + validate
//   session->initialize("predict");          // run predict's Startup program
//   //   or: session->loadParams("params/", "predict");
//   TensorMap fetches;
//   Status s = session->run("predict", {{"x", x}}, fetches);
//
// Programs are selected by mode ("train", "eval", "predict") for the role
// "trainer". Persistent buffers are allocated (zero-filled) when the session
// opens and are marked initialized when a startup program or a kernel writes
// them, or when loadParams reads them; a kernel reading one that is not
// initialized fails with a message saying to initialize or load parameters.
//
// run() binds the feed shapes to the artifact's symbols, provides the Temp
// and Feed buffers the program touches, resolves View buffers onto their
// storage, runs the calls in order and returns a deep copy of every fetch.
// Temp and Feed storage is kept from one run to the next and reused while a
// buffer's resolved shape stays the same (a training loop allocates it once
// per batch shape, not once per step): kernels write every element of their
// outputs, and a Temp buffer that a program reads before writing it is
// zeroed at the start of each run, so results never depend on an earlier
// run. Errors name the feed, buffer, file or the failing call's origin;
// after a failed run the persistent state may hold partial updates.
//
// A Session is not thread-safe; use one per thread.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_RUNTIME_SESSION_H
#define DISTC_RUNTIME_SESSION_H

#include "distc/Artifact/ArtifactFile.h"
#include "distc/Runtime/Backend.h"
#include "distc/Runtime/Collectives.h"
#include "distc/Runtime/KernelProfile.h"
#include "distc/Runtime/ParameterServerChannel.h"
#include "distc/Runtime/Status.h"
#include "distc/Runtime/Tensor.h"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace distc::runtime {

/// A named input or output of a main program, or a persistent buffer, with
/// its declared type, e.g. {"x", "f32[?,64]"}.
struct ProgramIO {
  std::string name;
  int32_t buffer = -1;
  DType dtype = DType::Float32;
  std::string type;
  /// The declared dims; -1 for a dim that depends on a symbol (bound when a
  /// batch is fed).
  Shape dims;
};

class Session {
public:
  /// Loads and validates `path` (ArtifactFile.h) and allocates persistent
  /// state on the CPU backend. Returns null and sets `error` on failure.
  static std::unique_ptr<Session> open(const std::string &path, std::string &error);

  /// Same over an artifact already loaded, on `backend` (CPU if null).
  static std::unique_ptr<Session> create(std::unique_ptr<artifact::LoadedArtifact> artifact,
                                         std::unique_ptr<Backend> backend, std::string &error);

  ~Session();

  const artifact::LoadedArtifact &artifact() const { return *artifact_; }

  /// Modes with a Main program for this role, in artifact order.
  std::vector<std::string> modes() const;
  bool hasMode(const std::string &mode) const;

  /// The feeds and fetches of `mode`'s Main program (empty if no such mode).
  std::vector<ProgramIO> feeds(const std::string &mode) const;
  std::vector<ProgramIO> fetches(const std::string &mode) const;

  /// Runs `mode`'s Startup program (initializers). A mode without a startup
  /// program is an error only if the mode does not exist.
  Status initialize(const std::string &mode);

  /// Loads Persistent buffers from `<dir>/<name>.npy`: all of them if `mode`
  /// is empty, else those `mode`'s Main program reads. A missing file, or a
  /// dtype or shape other than the buffer's, is an error naming the variable
  /// and the path; nothing is loaded partially into a buffer.
  Status loadParams(const std::string &dir, const std::string &mode = "");

  /// Runs `mode`'s Main program on `feeds` and fills `fetches` (cleared
  /// first) with a copy of each fetch.
  Status run(const std::string &mode, const TensorMap &feeds, TensorMap &fetches);

  /// The communicator of this process's rank for the collective kernels.
  /// Without one the session is the only rank; programs with collectives
  /// compiled for another number of ranks (Artifact.world_size) refuse to
  /// run, while those without (eval, predict) run anywhere.
  /// With several ranks the collectives are wrapped so that gradients are
  /// communicated while the backward pass goes on (c_sync_comm_stream and
  /// the end of each program wait for them).
  ///
  /// When the communicator has the artifact's world size, this also forms
  /// the communicators of the artifact's rings (its ring table), eagerly,
  /// in table order: every rank must call it at the same point, and an
  /// error (a peer that died, a timeout) names the ring. Rings whose
  /// groups have one rank (every ring of a one-rank world) need none: their
  /// collectives are local.
  Status setCollectives(std::shared_ptr<Collectives> collectives);
  Collectives *collectives() const { return collectives_.get(); }

  /// The role whose programs the session runs: "trainer" (the default),
  /// or "pserver" for a parameter server's own artifact.
  void setRole(std::string role) { role_ = std::move(role); }

  /// Parameter-server mode: the trainer's channel to its servers, which
  /// the ps_* kernels use (ParameterServerChannel.h).
  void setParameterServers(std::shared_ptr<ParameterServerChannel> channel) {
    parameterServers_ = std::move(channel);
  }
  ParameterServerChannel *parameterServers() const { return parameterServers_.get(); }

  /// This rank's place in a ring: its member index, the size of its group,
  /// and the group's communicator (null for a group of one).
  struct RingMember {
    int index = 0;
    int size = 1;
    Collectives *comm = nullptr;
  };
  /// Ring `id`'s member (0: the world, member index = rank). An error when
  /// the artifact has no such ring, or its rings are not formed because
  /// this session does not run on the artifact's ranks (setCollectives).
  Status ringMember(int64_t id, RingMember &out) const;
  /// This rank's data-parallel replica (index) and the number of replicas
  /// (size), from the artifact's data_ring: the ranks of one replica read
  /// the same batch rows. Outside the artifact's ranks: replica 0 of 1.
  RingMember dataReplica() const;
  /// Makes this process data-parallel replica `member.index` of
  /// `member.size` without a ring (a parameter-server trainer, whose
  /// program has no collectives).
  void setDataReplica(RingMember member) { replicaOverride_ = member; }
  /// How such replicas sum host values (the loss of a global batch) without
  /// collectives: the parameter-server trainers' sum over the trainers.
  using ReplicaSum = std::function<Status(std::vector<double> &values)>;
  void setReplicaSum(ReplicaSum sum) { replicaSum_ = std::move(sum); }
  const ReplicaSum &replicaSum() const { return replicaSum_; }
  /// A persistent buffer's split rings (artifact.fbs): per dim the ring
  /// that splits it, or -1; empty when the buffer is the whole variable.
  std::vector<int32_t> splitRings(const std::string &name) const;

  /// Times every kernel call into `profile` from now on (KernelProfile.h);
  /// null stops. The profile must outlive its use by the session.
  void setProfile(KernelProfile *profile) { profile_ = profile; }

  /// Where the tensors live and the kernels run.
  Backend &backend() const { return *backend_; }

  /// The current value of a persistent buffer (shares storage), or an
  /// undefined tensor if `name` is not a persistent buffer.
  Tensor persistent(const std::string &name) const;

  /// Every persistent buffer, in artifact order (dims are all static).
  std::vector<ProgramIO> persistentBuffers() const;

  /// Copies `value` into the persistent buffer `name` and marks it
  /// initialized. Fails, naming the variable, when there is no such
  /// persistent buffer or `value`'s dtype or shape differs from it.
  Status setPersistent(const std::string &name, const Tensor &value);

  /// Whether the persistent buffer `name` was initialized (false for a name
  /// that is not a persistent buffer).
  bool isInitialized(const std::string &name) const;

private:
  Session() = default;
  const distc::fb::Program *findProgram(const std::string &mode, distc::fb::ProgramKind kind) const;
  Status execute(const distc::fb::Program &program, const TensorMap &feeds, TensorMap *fetches);
  Status executeCalls(const distc::fb::Program &program, const TensorMap &feeds,
                      TensorMap *fetches);

  /// What execute() derives once per program.
  struct ProgramPlan {
    std::vector<KernelFn> kernels; // per call
    /// Per buffer: a Temp whose storage the program reads (or fetches)
    /// before any of its calls writes it, so it must start each run zeroed.
    std::vector<bool> zeroEachRun;
    /// Whether it calls a collective kernel (and so needs the ranks the
    /// artifact was compiled for).
    bool collective = false;
    /// Per call: whether it starts a collective (c_allreduce, c_reduce);
    /// and whether the program waits for them itself (c_wait).
    std::vector<bool> startsCollective;
    bool waits = false;
    /// Per buffer: its slot in the program's arena, or -1 (storage of its
    /// own).
    std::vector<int32_t> arenaSlot;
  };
  const ProgramPlan &plan(const distc::fb::Program &program);

  /// The steps of executeCalls. A ProgramRun holds one execution's buffers.
  struct ProgramRun;
  /// Fails when the program calls collectives and the ranks differ from the
  /// artifact's world size.
  Status checkRanks(const ProgramPlan &programPlan) const;
  /// Binds buffer i (and, for a view, its storage owner) for this run.
  Status materialize(ProgramRun &run, int32_t i);
  /// Runs call c: binds its buffers, calls its kernel, marks its outputs
  /// initialized.
  Status runCall(ProgramRun &run, uint32_t c);
  /// Copies the program's fetches out into `fetches`.
  Status fetchResults(ProgramRun &run, TensorMap &fetches);
  /// Storage for Temp or Feed buffer i of `dtype` and `shape`: the storage
  /// of an earlier run when it has that type, else newly allocated.
  Tensor reusableBuffer(int32_t i, DType dtype, const Shape &shape);
  /// Binds the run's arena block: the program's, allocated once and again
  /// only when a larger batch needs more bytes.
  Status bindArena(ProgramRun &run);
  /// Forms the communicators of the artifact's rings over collectives_
  /// (setCollectives), or none when its size is not the world size.
  Status formRings();
  /// Index of the persistent buffer `name`, or -1.
  int32_t persistentIndex(const std::string &name) const;
  ProgramIO describe(int32_t buffer, const std::string &name) const;

  std::unique_ptr<artifact::LoadedArtifact> artifact_;
  std::unique_ptr<Backend> backend_;
  std::shared_ptr<Collectives> collectives_;
  std::shared_ptr<ParameterServerChannel> parameterServers_;
  std::optional<RingMember> replicaOverride_;
  ReplicaSum replicaSum_;
  /// The rings' communicators (null for groups of one), owned, and the
  /// view of them the kernels get.
  std::vector<std::shared_ptr<Collectives>> ringCollectives_;
  RingCollectives rings_;
  /// Per formed ring id: this rank's member index and group size.
  std::map<int64_t, std::pair<int, int>> ringPlaces_;
  std::string role_ = "trainer";
  std::vector<Tensor> persistent_; // indexed by buffer; defined for Persistent
  std::vector<bool> initialized_;  // per buffer
  std::vector<Tensor> reusable_;   // per buffer: Temp and Feed storage kept across runs
  std::map<const distc::fb::Program *, ProgramPlan> plans_;
  /// Per program with an arena: its block (UInt8).
  std::map<const distc::fb::Program *, Tensor> arenas_;
  KernelProfile *profile_ = nullptr;
};

} // namespace distc::runtime

#endif // DISTC_RUNTIME_SESSION_H
