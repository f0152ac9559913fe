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
                                static_cast<fb::BufferKind>(buf.kind), buf.aliasOf);
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
                                    call.origin.c_str());
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
  return fb::CreateProgramDirect(b, p.mode.c_str(), p.role.c_str(),
                                 static_cast<fb::ProgramKind>(p.kind), &feeds, &fetches, &calls);
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
  auto root = fb::CreateArtifactDirect(b, desc.producer.c_str(), desc.source.c_str(), &symbols,
                                       &buffers, &programs);
  fb::FinishArtifactBuffer(b, root);
  return std::vector<uint8_t>(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
}

} // namespace distc::artifact
