//===- ArtifactValidator.cpp - Structural checks of an artifact -----------===//

#include "distc/Artifact/ArtifactValidator.h"
#include "distc/Artifact/ArenaLayout.h"
#include "distc/Artifact/ArtifactDesc.h"
#include "distc/Artifact/KernelSignatures.h"
#include "distc/Memory/PlanValidator.h"

#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>
#include <type_traits>
#include <unordered_map>

namespace distc::artifact {
namespace {

const char *attrTypeName(fb::AttrType t) {
  switch (t) {
  case fb::AttrType::Int:
    return "Int";
  case fb::AttrType::Float:
    return "Float";
  case fb::AttrType::String:
    return "String";
  case fb::AttrType::Ints:
    return "Ints";
  case fb::AttrType::Floats:
    return "Floats";
  }
  return "?";
}

std::string str(const flatbuffers::String *s) { return s ? s->str() : std::string(); }

/// The FlatBuffers verifier checks vectors for 4-byte alignment only; a
/// malformed file can place 8-byte elements (Dim, int64, double) off their
/// natural alignment, which is undefined behaviour to read.
template <typename Vec> bool elementsAligned(const Vec *v) {
  using Elem = std::remove_pointer_t<decltype(v->data())>;
  // Empty vectors are never read; writers do not align them.
  return !v || v->size() == 0 || reinterpret_cast<uintptr_t>(v->data()) % alignof(Elem) == 0;
}

class Validator {
public:
  Validator(const fb::Artifact &a, std::string &error) : a_(a), error_(error) {
    numBuffers_ = a.buffers() ? a.buffers()->size() : 0;
    numSymbols_ = a.symbols() ? a.symbols()->size() : 0;
    worldSize_ = a.world_size();
  }

  bool run() {
    if (a_.world_size() < 1)
      return fail("world_size is " + std::to_string(a_.world_size()) + ", not a rank count");
    if (a_.rings())
      for (uint32_t i = 0; i < a_.rings()->size(); ++i)
        if (!checkRing(i))
          return false;
    if (a_.data_ring() != -1 && !knownRing(a_.data_ring()))
      return fail("data_ring " + std::to_string(a_.data_ring()) + " is not a ring (" +
                  ringList() + ")");
    for (uint32_t i = 0; i < numBuffers_; ++i)
      if (!checkBuffer(i) || !checkSplitRings(i))
        return false;
    if (a_.programs())
      for (const fb::Program *p : *a_.programs())
        if (!checkProgram(*p))
          return false;
    if (a_.training() && !checkTraining(*a_.training()))
      return false;
    if (a_.inference() && !checkPersistentNames("inference model", a_.inference()->parameters()))
      return false;
    return validateParameterServers(a_, error_);
  }

private:
  bool fail(std::string msg) {
    error_ = std::move(msg);
    return false;
  }

  /// Ring table entry `i`: a positive id of its own, and a partition of the
  /// world's ranks into groups of group_size (each rank exactly once).
  bool checkRing(uint32_t i) {
    const fb::Ring &ring = *a_.rings()->Get(i);
    const std::string where = "ring " + std::to_string(ring.id());
    if (ring.id() <= 0)
      return fail("ring table entry " + std::to_string(i) + " has id " + std::to_string(ring.id()) +
                  "; ring ids are positive (ring 0, the world, is implicit)");
    for (uint32_t j = 0; j < i; ++j)
      if (a_.rings()->Get(j)->id() == ring.id())
        return fail(where + " appears twice in the ring table (entries " + std::to_string(j) +
                    " and " + std::to_string(i) + ")");
    const uint32_t n = ring.ranks() ? ring.ranks()->size() : 0;
    if (ring.group_size() < 1)
      return fail(where + " has group size " + std::to_string(ring.group_size()) +
                  ", not a rank count");
    if (n != uint32_t(worldSize_))
      return fail(where + " lists " + std::to_string(n) + " ranks for a world of " +
                  std::to_string(worldSize_));
    if (n % uint32_t(ring.group_size()) != 0)
      return fail(where + ": group size " + std::to_string(ring.group_size()) +
                  " does not divide its " + std::to_string(n) + " ranks");
    std::vector<bool> seen(n, false);
    for (uint32_t k = 0; k < n; ++k) {
      int32_t r = ring.ranks()->Get(k);
      if (r < 0 || r >= worldSize_)
        return fail(where + " lists rank " + std::to_string(r) + ", outside the world of " +
                    std::to_string(worldSize_) + " ranks");
      if (seen[uint32_t(r)])
        return fail(where + " lists rank " + std::to_string(r) + " twice");
      seen[uint32_t(r)] = true;
    }
    return true;
  }

  /// Whether `id` names a ring: 0 (the world) or an entry of the table.
  bool knownRing(int64_t id) const {
    if (id == 0)
      return true;
    if (a_.rings())
      for (const fb::Ring *r : *a_.rings())
        if (r->id() == id)
          return true;
    return false;
  }

  bool inRange(int64_t index) const { return index >= 0 && index < int64_t(numBuffers_); }

  std::string bufferLabel(uint32_t i) const {
    return "buffer %" + std::to_string(i) + " '" + str(a_.buffers()->Get(i)->name()) + "'";
  }

  bool checkBuffer(uint32_t i) {
    const fb::Buffer *b = a_.buffers()->Get(i);
    if (!elementsAligned(b->dims()))
      return fail(bufferLabel(i) + " has misaligned dims");
    if (b->dims())
      for (uint32_t d = 0; d < b->dims()->size(); ++d) {
        const fb::Dim *dim = b->dims()->Get(d);
        std::string where = bufferLabel(i) + " dim " + std::to_string(d);
        if (dim->sym() < 0) {
          if (dim->value() < 0)
            return fail(where + " has negative static size " + std::to_string(dim->value()));
          continue;
        }
        if (uint32_t(dim->sym()) >= numSymbols_)
          return fail(where + " uses symbol " + std::to_string(dim->sym()) +
                      " but the artifact has " + std::to_string(numSymbols_) + " symbols");
        if (dim->div() == 0)
          return fail(where + " has div 0");
        if (dim->value() <= 0 || dim->div() < 0)
          return fail(where + " has a non-positive multiplier or divisor");
      }
    // Static extents whose byte size overflows would make every later size
    // computation undefined; no real program comes near this bound.
    double bytes = 8;
    if (b->dims())
      for (const fb::Dim *dim : *b->dims())
        if (dim->sym() < 0)
          bytes *= double(dim->value());
    if (bytes > 0x1p62)
      return fail(bufferLabel(i) + " is too large (static size overflows)");
    if (b->kind() > fb::BufferKind::MAX)
      return fail(bufferLabel(i) + " has an unknown kind");
    if (b->dtype() < fb::DType::MIN || b->dtype() > fb::DType::MAX)
      return fail(bufferLabel(i) + " has an unknown dtype");
    if (b->kind() != fb::BufferKind::View) {
      if (b->offset() != 0)
        return fail(bufferLabel(i) + " has an offset but is not a view");
      return true;
    }
    // Follow alias_of to the storage owner; more steps than buffers means a cycle.
    uint32_t cur = i;
    for (uint32_t steps = 0;; ++steps) {
      int32_t next = a_.buffers()->Get(cur)->alias_of();
      if (!inRange(next))
        return fail(bufferLabel(cur) + " is a view of out-of-range buffer " + std::to_string(next));
      if (steps > numBuffers_)
        return fail(bufferLabel(i) + " is a view in a cycle of views");
      cur = uint32_t(next);
      const fb::Buffer *target = a_.buffers()->Get(cur);
      if (target->dtype() != b->dtype())
        return fail(bufferLabel(i) + " is a view of " + bufferLabel(cur) +
                    " with a different dtype");
      if (target->kind() != fb::BufferKind::View)
        break;
    }
    return checkViewExtent(i);
  }

  /// split_rings: only on persistent buffers, one entry per dim, each -1 or
  /// a ring of the table (not the world: a variable split over every rank
  /// is split over a one-axis mesh's ring), no ring twice.
  bool checkSplitRings(uint32_t i) {
    const fb::Buffer *b = a_.buffers()->Get(i);
    const auto *split = b->split_rings();
    if (!split || split->size() == 0)
      return true;
    if (b->kind() != fb::BufferKind::Persistent)
      return fail(bufferLabel(i) + " has split_rings but is not persistent");
    const uint32_t rank = b->dims() ? b->dims()->size() : 0;
    if (split->size() != rank)
      return fail(bufferLabel(i) + " has " + std::to_string(split->size()) +
                  " split_rings entries for " + std::to_string(rank) + " dims");
    for (uint32_t d = 0; d < rank; ++d) {
      int32_t ring = split->Get(d);
      if (ring == -1)
        continue;
      if (ring == 0 || !knownRing(ring))
        return fail(bufferLabel(i) + " dim " + std::to_string(d) + " is split by ring " +
                    std::to_string(ring) + ", not a ring of the table (" + ringList() + ")");
      for (uint32_t e = 0; e < d; ++e)
        if (split->Get(e) == ring)
          return fail(bufferLabel(i) + " is split by ring " + std::to_string(ring) +
                      " on dims " + std::to_string(e) + " and " + std::to_string(d));
    }
    return true;
  }

  /// Element count of buffer `i` when every dim is static.
  std::optional<double> staticCount(uint32_t i) const {
    double n = 1;
    if (const auto *dims = a_.buffers()->Get(i)->dims())
      for (const fb::Dim *dim : *dims) {
        if (dim->sym() >= 0)
          return std::nullopt;
        n *= double(dim->value());
      }
    return n;
  }

  /// A view lies within the buffer it views: offset + its element count <=
  /// that buffer's count. Views with an offset (slices) have static dims,
  /// as their base does; others are checked when their shapes are known.
  bool checkViewExtent(uint32_t i) {
    const fb::Buffer *b = a_.buffers()->Get(i);
    uint32_t base = uint32_t(b->alias_of());
    if (b->offset() < 0)
      return fail(bufferLabel(i) + " has negative offset " + std::to_string(b->offset()));
    std::optional<double> count = staticCount(i), baseCount = staticCount(base);
    if (count && baseCount) {
      if (double(b->offset()) + *count > *baseCount)
        return fail(bufferLabel(i) + " (" + std::to_string(int64_t(*count)) +
                    " elements at offset " + std::to_string(b->offset()) + ") does not fit in " +
                    bufferLabel(base) + " (" + std::to_string(int64_t(*baseCount)) + " elements)");
      return true;
    }
    if (b->offset() != 0)
      return fail(bufferLabel(i) + " has offset " + std::to_string(b->offset()) + " but it or " +
                  bufferLabel(base) + " has a symbolic shape");
    return true;
  }

  bool checkProgram(const fb::Program &p) {
    std::string where = "program " + str(p.mode()) + "/" + str(p.role()) + "/" +
                        (p.kind() == fb::ProgramKind::Startup ? "startup" : "main");
    if (p.feeds())
      for (const fb::Feed *f : *p.feeds()) {
        if (!inRange(f->buffer()))
          return fail(where + ": feed '" + str(f->name()) + "' refers to out-of-range buffer " +
                      std::to_string(f->buffer()));
        if (a_.buffers()->Get(f->buffer())->kind() != fb::BufferKind::Feed)
          return fail(where + ": feed '" + str(f->name()) + "' refers to " +
                      bufferLabel(f->buffer()) + ", which is not a Feed buffer");
      }
    if (p.fetches())
      for (const fb::Fetch *f : *p.fetches())
        if (!inRange(f->buffer()))
          return fail(where + ": fetch '" + str(f->name()) + "' refers to out-of-range buffer " +
                      std::to_string(f->buffer()));
    if (p.calls())
      for (uint32_t c = 0; c < p.calls()->size(); ++c)
        if (!checkCall(*p.calls()->Get(c), where + ", call " + std::to_string(c)))
          return false;
    return !p.arena() || checkArena(p, where);
  }

  /// A program's arena (artifact.fbs, Arena): every slot a Temp buffer the
  /// program uses, once, with a footprint the arena can hold; and no two
  /// slots of one region whose uses overlap, recomputed from the calls,
  /// sharing bytes. A plan that lets two live temporaries overlap would
  /// corrupt training silently; this refuses it before anything runs.
  bool checkArena(const fb::Program &p, const std::string &where) {
    const fb::Arena &arena = *p.arena();
    const std::string at = where + ": arena";
    if (arena.static_bytes() < 0 || arena.static_bytes() % kArenaAlignment != 0)
      return fail(at + " has a static region of " + std::to_string(arena.static_bytes()) +
                  " bytes, not a multiple of " + std::to_string(kArenaAlignment));
    if (arena.scaled_unit_bytes() < 0)
      return fail(at + " has " + std::to_string(arena.scaled_unit_bytes()) +
                  " bytes per unit of its scaled region");
    if (arena.scaled_symbol() < -1 || arena.scaled_symbol() >= int32_t(numSymbols_))
      return fail(at + " scales with symbol " + std::to_string(arena.scaled_symbol()) +
                  ", which the artifact does not have");
    std::vector<int64_t> first(numBuffers_, -1), last(numBuffers_, -1);
    for (const TempLifetime &t : tempLifetimesOf(a_, p)) {
      first[size_t(t.buffer)] = t.first;
      last[size_t(t.buffer)] = t.last;
    }
    std::vector<memory::BufferLifetime> regions[2];
    std::vector<int64_t> offsets[2];
    std::vector<char> seen(numBuffers_, 0);
    const uint32_t n = arena.slots() ? arena.slots()->size() : 0;
    for (uint32_t k = 0; k < n; ++k) {
      const fb::ArenaSlot &slot = *arena.slots()->Get(k);
      const std::string slotAt = at + " slot " + std::to_string(k);
      if (!inRange(slot.buffer()))
        return fail(slotAt + " refers to out-of-range buffer " + std::to_string(slot.buffer()));
      const uint32_t b = uint32_t(slot.buffer());
      const fb::Buffer &buffer = *a_.buffers()->Get(b);
      if (buffer.kind() != fb::BufferKind::Temp)
        return fail(slotAt + " holds " + bufferLabel(b) + ", which is not a Temp buffer");
      if (seen[b])
        return fail(slotAt + " holds " + bufferLabel(b) + " a second time");
      seen[b] = 1;
      if (first[b] < 0)
        return fail(slotAt + " holds " + bufferLabel(b) + ", which the program never uses");
      ArenaFootprint f = arenaFootprintOf(a_, b);
      const bool scaled = slot.scaled();
      if (f.kind != (scaled ? ArenaFootprint::Kind::Scaled : ArenaFootprint::Kind::Static) ||
          (scaled && f.symbol != arena.scaled_symbol()))
        return fail(slotAt + " puts " + bufferLabel(b) + " in the " +
                    (scaled ? "scaled" : "static") + " region, which its dims do not fit");
      if (slot.offset() < 0 || slot.offset() % kArenaAlignment != 0)
        return fail(slotAt + " puts " + bufferLabel(b) + " at offset " +
                    std::to_string(slot.offset()) + ", not a multiple of " +
                    std::to_string(kArenaAlignment));
      regions[scaled].push_back({int64_t(b), first[b], last[b] + 1, f.bytes});
      offsets[scaled].push_back(slot.offset());
    }
    const int64_t sizes[2] = {arena.static_bytes(), arena.scaled_unit_bytes()};
    for (int scaled = 0; scaled < 2; ++scaled) {
      std::string violation = memory::findPlanViolation(regions[scaled], offsets[scaled],
                                                        sizes[scaled]);
      if (!violation.empty())
        return fail(at + ", " + (scaled ? "scaled region (bytes per unit)" : "static region") +
                    ": " + violation + " (ids are buffer indices)");
    }
    return true;
  }

  bool checkOperands(const flatbuffers::Vector<int32_t> *ops, int minCount, int maxCount,
                     uint32_t optionalMask, const char *what, const std::string &where) {
    int n = ops ? int(ops->size()) : 0;
    if (n < minCount || (maxCount != kVariadic && n > maxCount)) {
      std::string expected = maxCount == kVariadic ? "at least " + std::to_string(minCount)
                             : minCount == maxCount
                                 ? std::to_string(minCount)
                                 : std::to_string(minCount) + " to " + std::to_string(maxCount);
      return fail(where + " has " + std::to_string(n) + " " + what + ", expected " + expected);
    }
    for (int i = 0; i < n; ++i) {
      int32_t idx = ops->Get(i);
      bool optional = i < 32 && (optionalMask >> i) & 1;
      if (idx == -1 && optional)
        continue;
      if (!inRange(idx))
        return fail(where + " " + std::string(what, std::strlen(what) - 1) + " " +
                    std::to_string(i) + " refers to out-of-range buffer " + std::to_string(idx));
    }
    return true;
  }

  bool checkCall(const fb::KernelCall &call, std::string where) {
    std::string name = str(call.kernel());
    const KernelSignature *sig = findKernelSignature(name);
    where +=
        " ('" + name + "'" + (call.origin() ? ", from '" + str(call.origin()) + "'" : "") + ")";
    if (!sig)
      return fail(where + ": unknown kernel '" + name + "'");
    if (call.rank() < -1 || call.rank() >= worldSize_)
      return fail(where + ": runs on rank " + std::to_string(call.rank()) + " of a world of " +
                  std::to_string(worldSize_));
    if (!checkOperands(call.inputs(), sig->minInputs, sig->maxInputs, sig->optionalInputMask,
                       "inputs", where) ||
        !checkOperands(call.outputs(), sig->minOutputs, sig->maxOutputs, sig->optionalOutputMask,
                       "outputs", where))
      return false;
    if (call.attrs())
      for (const fb::Attr *at : *call.attrs())
        if (!elementsAligned(at->ints()) || !elementsAligned(at->floats()))
          return fail(where + ": attribute '" + str(at->name()) + "' has misaligned values");
    for (const AttrSignature &as : sig->attrs) {
      const fb::Attr *attr = nullptr;
      if (call.attrs())
        for (const fb::Attr *at : *call.attrs())
          if (at->name() && at->name()->string_view() == as.name)
            attr = at;
      if (!attr) {
        if (as.required)
          return fail(where + ": missing attribute '" + as.name + "' (" +
                      attrTypeName(static_cast<fb::AttrType>(as.type)) + ")");
        continue;
      }
      if (attr->type() != static_cast<fb::AttrType>(as.type))
        return fail(where + ": attribute '" + as.name + "' has type " + attrTypeName(attr->type()) +
                    ", expected " + attrTypeName(static_cast<fb::AttrType>(as.type)));
      if (as.type == AttrType::String && !attr->s())
        return fail(where + ": attribute '" + as.name + "' has no string value");
      if (as.type == AttrType::Ints && !attr->ints())
        return fail(where + ": attribute '" + as.name + "' has no integer list");
      if (as.type == AttrType::Floats && !attr->floats())
        return fail(where + ": attribute '" + as.name + "' has no float list");
      if (as.name == std::string_view("ring_id") && !knownRing(attr->i()))
        return fail(where + ": ring_id " + std::to_string(attr->i()) +
                    " is not in the artifact's ring table (" + ringList() + ")");
    }
    return true;
  }

  /// "rings: 0, 1, 2" for messages.
  std::string ringList() const {
    std::string s = "rings: 0";
    if (a_.rings())
      for (const fb::Ring *r : *a_.rings())
        s += ", " + std::to_string(r->id());
    return s;
  }

  /// The (first) persistent buffer named `name`, or null. Indexed once:
  /// the training table and the inference model name every parameter.
  const fb::Buffer *persistentBuffer(const std::string &name) {
    if (!persistentIndexed_) {
      for (uint32_t i = 0; i < numBuffers_; ++i) {
        const fb::Buffer *b = a_.buffers()->Get(i);
        if (b->kind() == fb::BufferKind::Persistent)
          persistentByName_.emplace(str(b->name()), b);
      }
      persistentIndexed_ = true;
    }
    auto it = persistentByName_.find(name);
    return it == persistentByName_.end() ? nullptr : it->second;
  }

  bool checkPersistentNames(const std::string &where,
                            const flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>> *names) {
    if (names)
      for (const flatbuffers::String *n : *names)
        if (!persistentBuffer(str(n)))
          return fail(where + ": '" + str(n) + "' is not a persistent buffer");
    return true;
  }

  /// A host-written scalar: a persistent [1] (or 0-D) buffer of `dtype`.
  bool checkHostScalar(const char *what, const flatbuffers::String *name, fb::DType dtype) {
    if (!name || name->size() == 0)
      return true;
    const fb::Buffer *b = persistentBuffer(name->str());
    if (!b)
      return fail(std::string("training: ") + what + " '" + name->str() +
                  "' is not a persistent buffer");
    int64_t elements = 1;
    if (b->dims())
      for (const fb::Dim *d : *b->dims())
        elements *= d->sym() < 0 ? d->value() : -1;
    if (b->dtype() != dtype || elements != 1)
      return fail(std::string("training: ") + what + " '" + name->str() +
                  "' must be a one-element " + fb::EnumNameDType(dtype) + " buffer");
    return true;
  }

  bool checkTraining(const fb::Training &t) {
    if (!checkHostScalar("learning_rate_var", t.learning_rate_var(), fb::DType::Float32) ||
        !checkHostScalar("step_var", t.step_var(), fb::DType::Int64) ||
        !checkPersistentNames("training parameters", t.parameters()) ||
        !checkPersistentNames("training optimizer_state", t.optimizer_state()))
      return false;
    if (const auto *owners = t.optimizer_state_owner()) {
      size_t n = t.optimizer_state() ? t.optimizer_state()->size() : 0;
      if (!elementsAligned(owners) || owners->size() != n)
        return fail("training: optimizer_state_owner has " + std::to_string(owners->size()) +
                    " entries for " + std::to_string(n) + " optimizer_state variables");
      for (int32_t r : *owners)
        if (r < -1 || r >= worldSize_)
          return fail("training: optimizer state owned by rank " + std::to_string(r) +
                      " of a world of " + std::to_string(worldSize_));
    }
    if (const fb::LRSchedule *s = t.schedule()) {
      if (!elementsAligned(s->boundaries()) || !elementsAligned(s->values()))
        return fail("training: misaligned learning-rate schedule vectors");
      std::string kind = str(s->kind());
      if (kind != "constant" && kind != "step" && kind != "piecewise" && kind != "cosine")
        return fail("training: unknown learning-rate schedule '" + kind + "'");
      size_t nb = s->boundaries() ? s->boundaries()->size() : 0;
      size_t nv = s->values() ? s->values()->size() : 0;
      if (kind == "piecewise" && nv != nb + 1)
        return fail("training: a piecewise schedule needs one more value than boundaries");
      if (kind == "step" && s->step_size() < 1)
        return fail("training: a step schedule needs step_size >= 1");
      if (kind == "cosine" && s->decay_steps() < 1)
        return fail("training: a cosine schedule needs decay_steps >= 1");
      if (s->warmup_steps() < 0)
        return fail("training: negative warmup_steps");
      if (!t.learning_rate_var() || t.learning_rate_var()->size() == 0)
        return fail("training: a learning-rate schedule needs learning_rate_var");
    }
    return true;
  }

  const fb::Artifact &a_;
  std::string &error_;
  uint32_t numBuffers_ = 0;
  uint32_t numSymbols_ = 0;
  int32_t worldSize_ = 1;
  bool persistentIndexed_ = false;
  std::unordered_map<std::string, const fb::Buffer *> persistentByName_;
};

} // namespace

bool validateArtifact(const fb::Artifact &artifact, std::string &error) {
  return Validator(artifact, error).run();
}

} // namespace distc::artifact
