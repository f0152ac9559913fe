//===- Session.cpp - Executing a distc artifact ---------------------------===//

#include "distc/Runtime/Session.h"

#include "CommStream.h"
#include "distc/Artifact/KernelSignatures.h"
#include "distc/Runtime/Npy.h"
#include "distc/Runtime/SymbolBinding.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <new>

namespace distc::runtime {
namespace {

std::string str(const flatbuffers::String *s) { return s ? s->str() : std::string(); }

const char *kindName(fb::ProgramKind k) {
  return k == fb::ProgramKind::Startup ? "startup" : "main";
}

/// Whether a call of `kernel` makes its program a collective one: one that
/// needs the ranks the artifact was compiled for (checkRanks). Every kernel
/// of the Collective family (KernelSignatures.cpp) does: those that read no
/// other rank's data (c_split, c_root_only) still depend on the rank's
/// place in the world.
bool isCollectiveKernel(const std::string &kernel) {
  const artifact::KernelSignature *sig = artifact::findKernelSignature(kernel);
  return sig && std::string_view(sig->family) == "Collective";
}

} // namespace

Session::~Session() = default;

std::unique_ptr<Session> Session::open(const std::string &path, std::string &error) {
  auto loaded = artifact::LoadedArtifact::loadFile(path, error);
  if (!loaded)
    return nullptr;
  return create(std::move(loaded), nullptr, error);
}

std::unique_ptr<Session> Session::create(std::unique_ptr<artifact::LoadedArtifact> artifact,
                                         std::unique_ptr<Backend> backend, std::string &error) {
  std::unique_ptr<Session> s(new Session());
  s->artifact_ = std::move(artifact);
  s->backend_ = backend ? std::move(backend) : createCpuBackend();
  const fb::Artifact &a = *s->artifact_->artifact();
  uint32_t n = a.buffers() ? a.buffers()->size() : 0;
  s->persistent_.resize(n);
  s->initialized_.assign(n, false);
  s->reusable_.resize(n);
  for (uint32_t i = 0; i < n; ++i) {
    const fb::Buffer &b = *a.buffers()->Get(i);
    if (b.kind() != fb::BufferKind::Persistent)
      continue;
    Shape shape;
    Status st = resolveShape(a, b, {}, shape);
    if (!st.ok()) {
      error = s->artifact_->name() + ": persistent " + st.message() +
              " (persistent buffers must have static shapes)";
      return nullptr;
    }
    try {
      s->persistent_[i] = s->backend_->allocate(static_cast<DType>(b.dtype()), shape);
    } catch (const std::bad_alloc &) {
      error = s->artifact_->name() + ": out of memory allocating persistent buffer '" +
              str(b.name()) + "' " + formatType(static_cast<DType>(b.dtype()), shape);
      return nullptr;
    }
  }
  // A one-rank world's rings are groups of one: no communicator.
  if (Status st = s->formRings(); !st.ok()) {
    error = st.message();
    return nullptr;
  }
  // Every kernel the artifact calls must exist on this backend; checking now
  // turns a missing kernel into an error before any program runs.
  if (a.programs())
    for (const fb::Program *p : *a.programs())
      if (p->calls())
        for (const fb::KernelCall *c : *p->calls())
          if (!s->backend_->findKernel(str(c->kernel()))) {
            error = s->artifact_->name() + ": the " + s->backend_->name() +
                    " backend has no kernel '" + str(c->kernel()) + "'";
            return nullptr;
          }
  return s;
}

const fb::Program *Session::findProgram(const std::string &mode, fb::ProgramKind kind) const {
  const fb::Artifact &a = *artifact_->artifact();
  if (!a.programs())
    return nullptr;
  for (const fb::Program *p : *a.programs())
    if (p->kind() == kind && str(p->mode()) == mode && str(p->role()) == role_)
      return p;
  return nullptr;
}

std::vector<std::string> Session::modes() const {
  std::vector<std::string> out;
  const fb::Artifact &a = *artifact_->artifact();
  if (a.programs())
    for (const fb::Program *p : *a.programs())
      if (p->kind() == fb::ProgramKind::Main && str(p->role()) == role_) {
        std::string m = str(p->mode());
        bool seen = false;
        for (const std::string &o : out)
          seen |= o == m;
        if (!seen)
          out.push_back(m);
      }
  return out;
}

bool Session::hasMode(const std::string &mode) const {
  return findProgram(mode, fb::ProgramKind::Main) != nullptr;
}

static std::string modeListMessage(const Session &s, const std::string &mode) {
  std::string list;
  for (const std::string &m : s.modes())
    list += (list.empty() ? "" : ", ") + m;
  return "unknown mode '" + mode + "'; the artifact has: " + (list.empty() ? "(none)" : list);
}

ProgramIO Session::describe(int32_t buffer, const std::string &name) const {
  const fb::Artifact &a = *artifact_->artifact();
  const fb::Buffer &b = *a.buffers()->Get(buffer);
  ProgramIO io{name, buffer, static_cast<DType>(b.dtype()), formatBufferType(a, b), {}};
  if (b.dims())
    for (const fb::Dim *d : *b.dims())
      io.dims.push_back(d->sym() < 0 ? d->value() : -1);
  return io;
}

std::vector<ProgramIO> Session::feeds(const std::string &mode) const {
  std::vector<ProgramIO> out;
  const fb::Program *p = findProgram(mode, fb::ProgramKind::Main);
  if (p && p->feeds())
    for (const fb::Feed *f : *p->feeds())
      out.push_back(describe(f->buffer(), str(f->name())));
  return out;
}

std::vector<ProgramIO> Session::fetches(const std::string &mode) const {
  std::vector<ProgramIO> out;
  const fb::Program *p = findProgram(mode, fb::ProgramKind::Main);
  if (p && p->fetches())
    for (const fb::Fetch *f : *p->fetches())
      out.push_back(describe(f->buffer(), str(f->name())));
  return out;
}

Status Session::initialize(const std::string &mode) {
  if (!hasMode(mode) && !findProgram(mode, fb::ProgramKind::Startup))
    return Status::error(modeListMessage(*this, mode));
  const fb::Program *startup = findProgram(mode, fb::ProgramKind::Startup);
  if (!startup)
    return Status::success();
  return execute(*startup, {}, nullptr);
}

Status Session::loadParams(const std::string &dir, const std::string &mode) {
  const fb::Artifact &a = *artifact_->artifact();
  uint32_t n = a.buffers() ? a.buffers()->size() : 0;
  std::vector<bool> wanted(n, mode.empty());
  if (!mode.empty()) {
    const fb::Program *p = findProgram(mode, fb::ProgramKind::Main);
    if (!p)
      return Status::error(modeListMessage(*this, mode));
    // Persistent storage the program reads, directly or through views.
    auto root = [&](int32_t i) {
      while (i >= 0 && a.buffers()->Get(i)->kind() == fb::BufferKind::View)
        i = a.buffers()->Get(i)->alias_of();
      return i;
    };
    if (p->calls())
      for (const fb::KernelCall *c : *p->calls())
        if (c->inputs())
          for (int32_t in : *c->inputs())
            if (in >= 0)
              wanted[root(in)] = true;
    if (p->fetches())
      for (const fb::Fetch *f : *p->fetches())
        wanted[root(f->buffer())] = true;
  }
  for (uint32_t i = 0; i < n; ++i) {
    const fb::Buffer &b = *a.buffers()->Get(i);
    if (!wanted[i] || b.kind() != fb::BufferKind::Persistent)
      continue;
    std::string name = str(b.name());
    std::string path = (dir.empty() ? std::string(".") : dir) + "/" + name + ".npy";
    Tensor t;
    Status st = readNpy(path, t);
    if (!st.ok())
      return Status::error("cannot load parameter '" + name + "': " + st.message());
    Tensor &dst = persistent_[i];
    if (t.dtype() != dst.dtype() || t.shape() != dst.shape())
      return Status::error("parameter '" + name + "' in " + path + " is " + t.typeString() +
                           " but the artifact declares " + dst.typeString());
    backend_->copy(dst.data(), t.data(), dst.byteSize());
    initialized_[i] = true;
  }
  return Status::success();
}

Status Session::run(const std::string &mode, const TensorMap &feeds, TensorMap &fetches) {
  fetches.clear();
  const fb::Program *main = findProgram(mode, fb::ProgramKind::Main);
  if (!main)
    return Status::error(modeListMessage(*this, mode));
  return execute(*main, feeds, &fetches);
}

int32_t Session::persistentIndex(const std::string &name) const {
  const fb::Artifact &a = *artifact_->artifact();
  for (uint32_t i = 0; a.buffers() && i < a.buffers()->size(); ++i)
    if (a.buffers()->Get(i)->kind() == fb::BufferKind::Persistent &&
        str(a.buffers()->Get(i)->name()) == name)
      return static_cast<int32_t>(i);
  return -1;
}

Tensor Session::persistent(const std::string &name) const {
  int32_t i = persistentIndex(name);
  return i < 0 ? Tensor() : persistent_[i];
}

std::vector<ProgramIO> Session::persistentBuffers() const {
  std::vector<ProgramIO> out;
  const fb::Artifact &a = *artifact_->artifact();
  for (uint32_t i = 0; a.buffers() && i < a.buffers()->size(); ++i)
    if (a.buffers()->Get(i)->kind() == fb::BufferKind::Persistent)
      out.push_back(describe(static_cast<int32_t>(i), str(a.buffers()->Get(i)->name())));
  return out;
}

Status Session::setPersistent(const std::string &name, const Tensor &value) {
  int32_t i = persistentIndex(name);
  if (i < 0)
    return Status::error("'" + name + "' is not a persistent variable of " + artifact_->name());
  Tensor &dst = persistent_[i];
  if (!value.defined() || value.dtype() != dst.dtype() || value.shape() != dst.shape())
    return Status::error("variable '" + name + "' is " +
                         (value.defined() ? value.typeString() : std::string("undefined")) +
                         " but the artifact declares " + dst.typeString());
  if (!value.sharesStorageWith(dst))
    backend_->copy(dst.data(), value.data(), dst.byteSize());
  initialized_[i] = true;
  return Status::success();
}

bool Session::isInitialized(const std::string &name) const {
  int32_t i = persistentIndex(name);
  return i >= 0 && initialized_[i];
}

static int32_t storageRootOf(const fb::Artifact &a, int32_t i) {
  while (a.buffers()->Get(i)->kind() == fb::BufferKind::View)
    i = a.buffers()->Get(i)->alias_of();
  return i;
}

const Session::ProgramPlan &Session::plan(const fb::Program &program) {
  auto it = plans_.find(&program);
  if (it != plans_.end())
    return it->second;
  const fb::Artifact &a = *artifact_->artifact();
  const uint32_t n = a.buffers()->size();
  ProgramPlan p;
  p.zeroEachRun.assign(n, false);
  // Walk the calls in order: a Temp read (directly or through a view)
  // before some call wrote its storage would otherwise see the previous
  // run's values, where it used to see fresh zeroed storage.
  std::vector<bool> written(n, false);
  auto read = [&](int32_t i) {
    const int32_t root = storageRootOf(a, i);
    if (!written[root] && a.buffers()->Get(root)->kind() == fb::BufferKind::Temp)
      p.zeroEachRun[root] = true;
  };
  if (program.calls())
    for (const fb::KernelCall *c : *program.calls()) {
      p.kernels.push_back(backend_->findKernel(str(c->kernel())));
      const std::string kernel = str(c->kernel());
      if (isCollectiveKernel(kernel) || c->rank() >= 0)
        p.collective = true;
      p.startsCollective.push_back(kernel == "c_allreduce" || kernel == "c_reduce");
      if (kernel == "c_wait")
        p.waits = true;
      if (c->inputs())
        for (int32_t i : *c->inputs())
          if (i >= 0)
            read(i);
      if (c->outputs())
        for (int32_t o : *c->outputs())
          if (o >= 0)
            written[storageRootOf(a, o)] = true;
    }
  if (program.fetches())
    for (const fb::Fetch *f : *program.fetches())
      read(f->buffer());
  p.arenaSlot.assign(n, -1);
  if (program.arena() && program.arena()->slots())
    for (uint32_t k = 0; k < program.arena()->slots()->size(); ++k)
      p.arenaSlot[program.arena()->slots()->Get(k)->buffer()] = int32_t(k);
  return plans_.emplace(&program, std::move(p)).first->second;
}

Tensor Session::reusableBuffer(int32_t i, DType dtype, const Shape &shape) {
  Tensor &t = reusable_[i];
  if (!t.defined() || t.dtype() != dtype || t.shape() != shape)
    t = backend_->allocate(dtype, shape);
  return t;
}

Status Session::setCollectives(std::shared_ptr<Collectives> collectives) {
  rings_.clear();
  ringCollectives_.clear();
  if (collectives && collectives->size() > 1)
    collectives_ = std::make_shared<CommStream>(std::move(collectives));
  else
    collectives_ = std::move(collectives);
  return formRings();
}

Status Session::formRings() {
  const fb::Artifact &a = *artifact_->artifact();
  const int ranks = collectives_ ? collectives_->size() : 1;
  // On another number of ranks the collective programs refuse to run
  // (checkRanks); the rest need no rings.
  if (!a.rings() || ranks != a.world_size())
    return Status::success();
  const int self = collectives_ ? collectives_->rank() : 0;
  for (const fb::Ring *ring : *a.rings()) {
    // Validated: the ranks are a permutation of the world's, in groups of
    // group_size.
    const uint32_t g = uint32_t(ring->group_size());
    uint32_t at = 0;
    while (ring->ranks()->Get(at) != self)
      ++at;
    std::shared_ptr<Collectives> group;
    if (g > 1) {
      std::vector<int> members;
      for (uint32_t k = at - at % g; k < at - at % g + g; ++k)
        members.push_back(ring->ranks()->Get(k));
      if (Status s = collectives_->subgroup(members, ring->id(), group); !s.ok())
        return Status::error(artifact_->name() + ": " + s.message());
    }
    rings_.emplace_back(ring->id(), group.get());
    ringCollectives_.push_back(std::move(group));
    ringPlaces_[ring->id()] = {int(at % g), int(g)};
  }
  return Status::success();
}

Status Session::ringMember(int64_t id, RingMember &out) const {
  out = RingMember();
  if (id == 0) {
    out.index = collectives_ ? collectives_->rank() : 0;
    out.size = collectives_ ? collectives_->size() : 1;
    out.comm = collectives_.get();
    return Status::success();
  }
  auto place = ringPlaces_.find(id);
  if (place == ringPlaces_.end()) {
    const fb::Artifact &a = *artifact_->artifact();
    bool known = false;
    if (a.rings())
      for (const fb::Ring *r : *a.rings())
        known |= r->id() == id;
    if (!known)
      return Status::error(artifact_->name() + " has no ring " + std::to_string(id));
    return Status::error(artifact_->name() + " runs on " + std::to_string(a.world_size()) +
                         " ranks and this process is not one of them (" +
                         std::to_string(collectives_ ? collectives_->size() : 1) +
                         " ranks here), so it holds a part of ring " + std::to_string(id) +
                         "'s data without its group");
  }
  out.index = place->second.first;
  out.size = place->second.second;
  for (const auto &[ringId, comm] : rings_)
    if (ringId == id)
      out.comm = comm;
  return Status::success();
}

Session::RingMember Session::dataReplica() const {
  if (replicaOverride_)
    return *replicaOverride_;
  RingMember member;
  const int32_t ring = artifact_->artifact()->data_ring();
  if (ring < 0 || !ringMember(ring, member).ok())
    return RingMember();
  return member;
}

std::vector<int32_t> Session::splitRings(const std::string &name) const {
  int32_t i = persistentIndex(name);
  const fb::Buffer *b = i < 0 ? nullptr : artifact_->artifact()->buffers()->Get(uint32_t(i));
  if (!b || !b->split_rings())
    return {};
  return std::vector<int32_t>(b->split_rings()->begin(), b->split_rings()->end());
}

/// "MODE/ROLE/KIND" of a program, in messages and profiles.
static std::string programLabel(const fb::Program &program) {
  return str(program.mode()) + "/" + str(program.role()) + "/" + kindName(program.kind());
}

Status Session::execute(const fb::Program &program, const TensorMap &feeds, TensorMap *fetches) {
  Status s = executeCalls(program, feeds, fetches);
  // Collectives started by the program end with it, even when it failed:
  // they hold its buffers, and the next program's must not interleave.
  const auto where = [&] { return "program " + programLabel(program) + ": "; };
  if (collectives_) {
    Status waited = collectives_->wait();
    if (s.ok() && !waited.ok())
      s = Status::error(where() + waited.message());
  }
  // Between programs every tensor is host-readable (Backend.h).
  Status synced = backend_->synchronize();
  if (s.ok() && !synced.ok())
    s = Status::error(where() + synced.message());
  return s;
}

/// The state of one execution of a program: its buffers, bound in `env` as
/// its calls first use them.
struct Session::ProgramRun {
  ProgramRun(const fb::Artifact &a, const fb::Program &program, const ProgramPlan &plan,
             const TensorMap &feeds)
      : a(a), program(program), plan(plan), feeds(feeds), programName(programLabel(program)),
        where("program " + programName), env(a.buffers()->size()),
        fedBuffer(a.buffers()->size(), false) {
    if (program.feeds())
      for (const fb::Feed *f : *program.feeds())
        fedBuffer[f->buffer()] = true;
  }

  const fb::Artifact &a;
  const fb::Program &program;
  const ProgramPlan &plan;
  const TensorMap &feeds;
  /// "MODE/ROLE/KIND".
  const std::string programName;
  /// "program MODE/ROLE/KIND", the start of every message.
  const std::string where;
  SymbolBindings bindings;
  /// The program's arena block (bindArena), and the bytes of it this run's
  /// bindings need.
  Tensor arena;
  int64_t arenaBytes = 0;
  /// Per buffer: its tensor in this run, once materialized.
  std::vector<Tensor> env;
  /// Per buffer: whether one of the program's feeds writes it.
  std::vector<bool> fedBuffer;
};

/// The error of `reader` (a call or a fetch) reading the persistable
/// variable `variable` before anything initialized it.
static Status readBeforeInitialized(const std::string &where, const std::string &reader,
                                    const std::string &variable) {
  return Status::error(where + ": " + reader + " reads '" + variable +
                       "' before it was initialized; run the startup program "
                       "(initialize) or load parameters (--params)");
}

Status Session::checkRanks(const ProgramPlan &programPlan) const {
  // Running the collective programs of an N-rank artifact on another
  // number of ranks would apply gradients scaled for N: refuse. Programs
  // without collectives (eval, predict) run anywhere.
  const fb::Artifact &a = *artifact_->artifact();
  int ranks = collectives_ ? collectives_->size() : 1;
  if (programPlan.collective && a.world_size() != ranks)
    return Status::error(
        artifact_->name() + " is compiled for " + std::to_string(a.world_size()) +
        " ranks but runs on " + std::to_string(ranks) + ": start it on that many ranks, or " +
        (a.data_ring() != 0
             ? "recompile it with a mesh of " + std::to_string(ranks) +
                   " ranks in --placements (or without --placements for one process: "
                   "checkpoints and saved parameters hold whole variables)"
             : "recompile it with --nranks " + std::to_string(ranks)));
  return Status::success();
}

Status Session::materialize(ProgramRun &run, int32_t i) {
  std::vector<Tensor> &env = run.env;
  if (env[i].defined())
    return Status::success();
  const fb::Artifact &a = run.a;
  const std::string &where = run.where;
  const fb::Buffer &b = *a.buffers()->Get(i);
  std::string name = str(b.name());
  switch (b.kind()) {
  case fb::BufferKind::Persistent:
    env[i] = persistent_[i];
    return Status::success();
  case fb::BufferKind::Feed: {
    if (!run.fedBuffer[i])
      return Status::error(where + " uses feed buffer '" + name +
                           "', which is not one of its feeds");
    for (const fb::Feed *f : *run.program.feeds())
      if (f->buffer() == i) {
        // A copy: kernels may write feed buffers in place, and the
        // caller's tensors must stay untouched.
        const Tensor &fed = run.feeds.at(str(f->name()));
        env[i] = reusableBuffer(i, fed.dtype(), fed.shape());
        backend_->copy(env[i].data(), fed.data(), fed.byteSize());
        return Status::success();
      }
    return Status::error(where + ": feed buffer '" + name + "' has no feed");
  }
  case fb::BufferKind::Temp: {
    Shape shape;
    Status s = resolveShape(a, b, run.bindings, shape);
    if (!s.ok())
      return Status::error(where + ": " + s.message());
    if (const int32_t k = run.plan.arenaSlot[i]; k >= 0) {
      const fb::Arena &arena = *run.program.arena();
      const fb::ArenaSlot &slot = *arena.slots()->Get(uint32_t(k));
      const DType dtype = static_cast<DType>(b.dtype());
      int64_t offset = slot.offset();
      if (slot.scaled())
        offset = arena.static_bytes() + offset * run.bindings[size_t(arena.scaled_symbol())];
      if (offset < 0 ||
          offset + int64_t(shapeNumel(shape) * int64_t(dtypeSize(dtype))) > run.arenaBytes)
        return Status::error(where + ": temporary '" + name + "' " + formatType(dtype, shape) +
                             " at byte " + std::to_string(offset) + " does not fit the arena of " +
                             std::to_string(run.arenaBytes) + " bytes");
      env[i] = Tensor::reinterpret(run.arena, dtype, shape, offset);
      if (run.plan.zeroEachRun[i])
        backend_->zero(env[i]);
      return Status::success();
    }
    try {
      env[i] = reusableBuffer(i, static_cast<DType>(b.dtype()), shape);
    } catch (const std::bad_alloc &) {
      // A shape from a corrupt artifact or an outsized feed: name the
      // buffer and its size rather than the step alone.
      std::string dims;
      for (int64_t d : shape)
        dims += (dims.empty() ? "" : ",") + std::to_string(d);
      return Status::error(artifact_->name() + ": " + where +
                           ": out of memory allocating temporary buffer '" + name + "' [" + dims +
                           "]");
    }
    if (run.plan.zeroEachRun[i])
      backend_->zero(env[i]);
    return Status::success();
  }
  case fb::BufferKind::View: {
    int32_t base = b.alias_of();
    Status s = materialize(run, base);
    if (!s.ok())
      return s;
    Shape shape;
    s = resolveShape(a, b, run.bindings, shape);
    if (!s.ok())
      return Status::error(where + ": " + s.message());
    // A view lies within its base: all of it, or a slice from `offset`.
    if (b.offset() < 0 || b.offset() + shapeNumel(shape) > env[base].numel())
      return Status::error(where + ": view '" + name + "' " +
                           formatType(static_cast<DType>(b.dtype()), shape) + " has " +
                           std::to_string(shapeNumel(shape)) + " elements" +
                           (b.offset() ? " at offset " + std::to_string(b.offset()) : "") +
                           " but '" + str(a.buffers()->Get(base)->name()) + "' " +
                           env[base].typeString() + " has " + std::to_string(env[base].numel()));
    env[i] = Tensor::view(env[base], shape, b.offset());
    return Status::success();
  }
  }
  return Status::error(where + ": buffer '" + name + "' has an unknown kind");
}

Status Session::runCall(ProgramRun &run, uint32_t c) {
  const fb::Artifact &a = run.a;
  const std::string &where = run.where;
  const fb::KernelCall &call = *run.program.calls()->Get(c);
  // Built only for messages: a step runs hundreds of calls.
  auto callLabel = [&] {
    const std::string origin = str(call.origin());
    return "'" + str(call.kernel()) + "'" + (origin.empty() ? "" : " (" + origin + ")");
  };
  auto callError = [&](const std::string &message) {
    return Status::error(where + ", call " + std::to_string(c) + " " + callLabel() + ": " +
                         message);
  };
  std::vector<Tensor *> ins, outs;
  if (call.inputs())
    for (int32_t i : *call.inputs()) {
      if (i < 0) {
        ins.push_back(nullptr);
        continue;
      }
      Status s = materialize(run, i);
      if (!s.ok())
        return s;
      int32_t root = storageRootOf(a, i);
      if (a.buffers()->Get(root)->kind() == fb::BufferKind::Persistent && !initialized_[root])
        return readBeforeInitialized(where, callLabel(), str(a.buffers()->Get(root)->name()));
      ins.push_back(&run.env[i]);
    }
  if (call.outputs())
    for (int32_t o : *call.outputs()) {
      if (o < 0) {
        outs.push_back(nullptr);
        continue;
      }
      Status s = materialize(run, o);
      if (!s.ok())
        return s;
      outs.push_back(&run.env[o]);
    }
  KernelFn fn = run.plan.kernels[c];
  KernelContext ctx(call, std::move(ins), std::move(outs), collectives_.get(), backend_.get(),
                    &rings_);
  ctx.setParameterServers(parameterServers_.get());
  std::chrono::steady_clock::time_point start;
  if (profile_)
    start = std::chrono::steady_clock::now();
  try {
    fn(ctx);
  } catch (const KernelError &e) {
    return callError(e.what());
  } catch (const std::bad_alloc &) {
    throw;
  } catch (const std::exception &e) {
    // A library failure inside a kernel still names the call.
    return callError(std::string("internal error: ") + e.what());
  }
  if (profile_) {
    if (Status synced = backend_->synchronize(); !synced.ok())
      return callError(synced.message());
    profile_->record(
        run.programName, c, str(call.kernel()), str(call.origin()),
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  // A program without c_wait (an artifact from before the runtime
  // overlapped communication) must see each collective complete before
  // its next call.
  if (run.plan.startsCollective[c] && !run.plan.waits && collectives_)
    if (Status w = collectives_->wait(); !w.ok())
      return callError(w.message());
  if (call.outputs())
    for (int32_t o : *call.outputs())
      if (o >= 0)
        initialized_[storageRootOf(a, o)] = true;
  return Status::success();
}

Status Session::fetchResults(ProgramRun &run, TensorMap &fetches) {
  const fb::Artifact &a = run.a;
  if (Status synced = backend_->synchronize(); !synced.ok())
    return Status::error(run.where + ": " + synced.message());
  for (const fb::Fetch *f : *run.program.fetches()) {
    Status s = materialize(run, f->buffer());
    if (!s.ok())
      return s;
    int32_t root = storageRootOf(a, f->buffer());
    if (a.buffers()->Get(root)->kind() == fb::BufferKind::Persistent && !initialized_[root])
      return readBeforeInitialized(run.where, "fetch '" + str(f->name()) + "'",
                                   str(a.buffers()->Get(root)->name()));
    fetches[str(f->name())] = run.env[f->buffer()].clone();
  }
  return Status::success();
}

Status Session::bindArena(ProgramRun &run) {
  const fb::Arena *arena = run.program.arena();
  if (!arena || !arena->slots() || arena->slots()->size() == 0)
    return Status::success();
  int64_t bytes = arena->static_bytes();
  if (arena->scaled_symbol() >= 0) {
    const int64_t units = run.bindings[size_t(arena->scaled_symbol())];
    if (units > 0 && arena->scaled_unit_bytes() > (INT64_MAX - bytes) / units)
      return Status::error(run.where + ": an arena of " + std::to_string(bytes) + " + " +
                           std::to_string(arena->scaled_unit_bytes()) + " x " +
                           std::to_string(units) + " bytes does not fit in memory");
    bytes += arena->scaled_unit_bytes() * units;
  }
  run.arenaBytes = bytes;
  Tensor &block = arenas_[&run.program];
  if (!block.defined() || int64_t(block.byteSize()) < bytes) {
    block = Tensor(); // the old block goes before the new one comes
    try {
      block = backend_->allocate(DType::UInt8, {std::max<int64_t>(bytes, 1)});
    } catch (const std::bad_alloc &) {
      return Status::error(artifact_->name() + ": " + run.where + ": out of memory allocating its " +
                           std::to_string(bytes) + "-byte arena");
    }
  }
  run.arena = block;
  return Status::success();
}

Status Session::executeCalls(const fb::Program &program, const TensorMap &feeds,
                             TensorMap *fetches) {
  const ProgramPlan &programPlan = plan(program);
  if (Status s = checkRanks(programPlan); !s.ok())
    return s;
  ProgramRun run(*artifact_->artifact(), program, programPlan, feeds);
  if (Status s = bindSymbols(run.a, program, feeds, run.bindings); !s.ok())
    return s;
  if (Status s = bindArena(run); !s.ok())
    return s;
  const int myRank = collectives_ ? collectives_->rank() : 0;
  try {
    if (program.calls())
      for (uint32_t c = 0; c < program.calls()->size(); ++c) {
        // Reduce strategy: another rank owns this update.
        const int owner = program.calls()->Get(c)->rank();
        if (owner >= 0 && owner != myRank)
          continue;
        if (Status s = runCall(run, c); !s.ok())
          return s;
      }
    if (fetches && program.fetches())
      if (Status s = fetchResults(run, *fetches); !s.ok())
        return s;
    if (profile_)
      profile_->endRun(run.programName);
  } catch (const std::bad_alloc &) {
    return Status::error(run.where + ": out of memory");
  }
  return Status::success();
}

} // namespace distc::runtime
