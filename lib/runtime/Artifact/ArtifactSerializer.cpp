//===- ArtifactSerializer.cpp - ArtifactDesc to FlatBuffer ----------------===//

#include "distc/Artifact/ArtifactDesc.h"
#include "distc/Artifact/artifact_generated.h"

#include <algorithm>

namespace distc::artifact {
namespace {

using flatbuffers::FlatBufferBuilder;
using flatbuffers::Offset;

Offset<fb::Buffer> buildBuffer(FlatBufferBuilder &b, const BufferDesc &buf) {
  std::vector<fb::Dim> dims;
  dims.reserve(buf.dims.size());
  for (const DimDesc &d : buf.dims)
    dims.emplace_back(d.sym, d.value, d.div);
  return fb::CreateBufferDirect(b, buf.name.c_str(), static_cast<fb::DType>(buf.dtype), &dims,
                                static_cast<fb::BufferKind>(buf.kind), buf.aliasOf, buf.offset,
                                buf.splitRings.empty() ? nullptr : &buf.splitRings);
}

Offset<fb::KernelCall> buildCall(FlatBufferBuilder &b, const KernelCallDesc &call) {
  // Attr.name is the FlatBuffers key: lookups (LookupByKey) binary-search,
  // so the vector must be sorted by name.
  std::vector<const AttrDesc *> sorted;
  for (const AttrDesc &a : call.attrs)
    sorted.push_back(&a);
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const AttrDesc *l, const AttrDesc *r) { return l->name < r->name; });
  std::vector<Offset<fb::Attr>> attrs;
  for (const AttrDesc *a : sorted)
    attrs.push_back(fb::CreateAttrDirect(b, a->name.c_str(), static_cast<fb::AttrType>(a->type),
                                         a->i, a->f, a->s.c_str(), &a->ints, &a->floats));
  return fb::CreateKernelCallDirect(b, call.kernel.c_str(), &call.inputs, &call.outputs, &attrs,
                                    call.origin.c_str(), call.rank);
}

Offset<fb::Program> buildProgram(FlatBufferBuilder &b, const ProgramDesc &p) {
  std::vector<Offset<fb::Feed>> feeds;
  for (const NamedBuffer &f : p.feeds)
    feeds.push_back(fb::CreateFeedDirect(b, f.name.c_str(), f.buffer));
  std::vector<Offset<fb::Fetch>> fetches;
  for (const NamedBuffer &f : p.fetches)
    fetches.push_back(fb::CreateFetchDirect(b, f.name.c_str(), f.buffer));
  std::vector<Offset<fb::KernelCall>> calls;
  for (const KernelCallDesc &c : p.calls)
    calls.push_back(buildCall(b, c));
  Offset<fb::Arena> arena = 0;
  if (!p.arena.slots.empty()) {
    std::vector<Offset<fb::ArenaSlot>> slots;
    for (const ArenaSlotDesc &slot : p.arena.slots)
      slots.push_back(fb::CreateArenaSlot(b, slot.buffer, slot.offset, slot.scaled));
    arena = fb::CreateArenaDirect(b, p.arena.staticBytes, p.arena.scaledSymbol,
                                  p.arena.scaledUnitBytes, &slots);
  }
  return fb::CreateProgramDirect(b, p.mode.c_str(), p.role.c_str(),
                                 static_cast<fb::ProgramKind>(p.kind), &feeds, &fetches, &calls,
                                 arena);
}

std::vector<Offset<flatbuffers::String>> buildStrings(FlatBufferBuilder &b,
                                                      const std::vector<std::string> &strings) {
  std::vector<Offset<flatbuffers::String>> out;
  for (const std::string &s : strings)
    out.push_back(b.CreateString(s));
  return out;
}

Offset<fb::Training> buildTraining(FlatBufferBuilder &b, const TrainingDesc &t) {
  Offset<fb::LRSchedule> schedule = 0;
  if (t.hasSchedule) {
    const LRScheduleDesc &s = t.schedule;
    schedule = fb::CreateLRScheduleDirect(b, s.kind.c_str(), s.baseLr, s.stepSize, s.gamma,
                                          &s.boundaries, &s.values, s.decaySteps, s.endLr,
                                          s.warmupSteps, s.warmupStartLr);
  }
  auto parameters = buildStrings(b, t.parameters);
  auto state = buildStrings(b, t.optimizerState);
  return fb::CreateTrainingDirect(b, t.loss.c_str(), t.optimizer.c_str(),
                                  t.learningRateVar.c_str(), t.stepVar.c_str(), schedule,
                                  &parameters, &state, t.config.c_str(),
                                  t.optimizerStateOwner.empty() ? nullptr
                                                                : &t.optimizerStateOwner);
}

Offset<fb::InferenceModel> buildInference(FlatBufferBuilder &b, const InferenceModelDesc &m) {
  auto parameters = buildStrings(b, m.parameters);
  return fb::CreateInferenceModelDirect(b, &m.program, &parameters);
}

} // namespace

std::vector<uint8_t> serializeArtifact(const ArtifactDesc &desc) {
  FlatBufferBuilder b(4096);
  std::vector<Offset<flatbuffers::String>> symbols;
  for (const std::string &s : desc.symbols)
    symbols.push_back(b.CreateString(s));
  std::vector<Offset<fb::Buffer>> buffers;
  for (const BufferDesc &buf : desc.buffers)
    buffers.push_back(buildBuffer(b, buf));
  std::vector<Offset<fb::Program>> programs;
  for (const ProgramDesc &p : desc.programs)
    programs.push_back(buildProgram(b, p));
  Offset<fb::Training> training = desc.hasTraining ? buildTraining(b, desc.training) : 0;
  Offset<fb::InferenceModel> inference =
      desc.hasInference ? buildInference(b, desc.inference) : 0;
  std::vector<Offset<fb::Ring>> rings;
  for (const RingDesc &r : desc.rings)
    rings.push_back(fb::CreateRingDirect(b, r.id, r.groupSize, &r.ranks));
  std::vector<Offset<fb::ParameterServer>> pservers;
  auto slots = [&](const std::vector<ServerSlotDesc> &list) {
    std::vector<Offset<fb::ServerSlot>> out;
    for (const ServerSlotDesc &slot : list)
      out.push_back(fb::CreateServerSlotDirect(b, slot.name.c_str(), &slot.buffers, slot.block,
                                               slot.variable.c_str(), slot.row, slot.rows,
                                               slot.rowBuffers.empty() ? nullptr
                                                                       : &slot.rowBuffers,
                                               slot.prefetch));
    return out;
  };
  for (const ParameterServerDesc &server : desc.pservers) {
    auto receives = slots(server.receives);
    auto serves = slots(server.serves);
    auto state = slots(server.state);
    pservers.push_back(fb::CreateParameterServerDirect(b, server.endpoint.c_str(), &server.artifact,
                                                       &receives, &serves, &state));
  }
  // An artifact without rings (servers) has no ring (server) vector at all,
  // as before they existed.
  auto root = fb::CreateArtifactDirect(
      b, desc.producer.c_str(), desc.source.c_str(), &symbols, &buffers, &programs, training,
      inference, desc.worldSize, rings.empty() ? nullptr : &rings, desc.dataRing,
      pservers.empty() ? nullptr : &pservers, desc.psTrainers, desc.psSyncMode);
  fb::FinishArtifactBuffer(b, root);
  return std::vector<uint8_t>(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
}

} // namespace distc::artifact
