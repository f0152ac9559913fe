//===- ArtifactDesc.h - In-memory form of a distc artifact ----*- C++ -*-===//
//
// Plain C++ structs mirroring artifact.fbs one to one. The compiler's
// lowering fills an ArtifactDesc and serializes it; tests build small ones
// by hand. The runtime reads the FlatBuffer in place (ArtifactFile.h) and
// never needs these. See docs/artifact.md for the meaning of every field.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_ARTIFACT_ARTIFACTDESC_H
#define DISTC_ARTIFACT_ARTIFACTDESC_H

#include <cstdint>
#include <string>
#include <vector>

namespace distc::artifact {

/// Element types; values match distc.fb.DType.
enum class DType : int8_t {
  Bool = 0, Int8, UInt8, Int16, Int32, Int64, Float16, BFloat16, Float32, Float64
};

/// Bytes of one element of `dtype`.
inline int64_t elementBytes(DType dtype) {
  switch (dtype) {
  case DType::Bool:
  case DType::Int8:
  case DType::UInt8:
    return 1;
  case DType::Int16:
  case DType::Float16:
  case DType::BFloat16:
    return 2;
  case DType::Int32:
  case DType::Float32:
    return 4;
  case DType::Int64:
  case DType::Float64:
    return 8;
  }
  return 1;
}

enum class BufferKind : int8_t { Temp = 0, Persistent = 1, Feed = 2, View = 3 };
enum class AttrType : int8_t { Int = 0, Float, String, Ints, Floats };
enum class ProgramKind : int8_t { Main = 0, Startup = 1 };

/// Static when sym < 0 (size = value); else size = binding[sym] * value / div.
struct DimDesc {
  int32_t sym = -1;
  int64_t value = 0;
  int64_t div = 1;

  static DimDesc fixed(int64_t size) { return {-1, size, 1}; }
  static DimDesc symbolic(int32_t sym, int64_t mul = 1, int64_t div = 1) {
    return {sym, mul, div};
  }
  bool isStatic() const { return sym < 0; }
};

struct BufferDesc {
  std::string name;
  DType dtype = DType::Float32;
  std::vector<DimDesc> dims;
  BufferKind kind = BufferKind::Temp;
  int32_t aliasOf = -1; // for View buffers
  int64_t offset = 0;   // for View buffers: first element within aliasOf
  /// Persistent buffers: per dim, the ring that splits it, or -1 (empty:
  /// whole). See split_rings in artifact.fbs.
  std::vector<int32_t> splitRings;
};

struct AttrDesc {
  std::string name;
  AttrType type = AttrType::Int;
  int64_t i = 0;
  double f = 0;
  std::string s;
  std::vector<int64_t> ints;
  std::vector<double> floats;

  static AttrDesc ofInt(std::string name, int64_t v) {
    AttrDesc a; a.name = std::move(name); a.type = AttrType::Int; a.i = v; return a;
  }
  static AttrDesc ofFloat(std::string name, double v) {
    AttrDesc a; a.name = std::move(name); a.type = AttrType::Float; a.f = v; return a;
  }
  static AttrDesc ofString(std::string name, std::string v) {
    AttrDesc a; a.name = std::move(name); a.type = AttrType::String; a.s = std::move(v); return a;
  }
  static AttrDesc ofInts(std::string name, std::vector<int64_t> v) {
    AttrDesc a; a.name = std::move(name); a.type = AttrType::Ints; a.ints = std::move(v); return a;
  }
  static AttrDesc ofFloats(std::string name, std::vector<double> v) {
    AttrDesc a; a.name = std::move(name); a.type = AttrType::Floats; a.floats = std::move(v); return a;
  }
};

struct KernelCallDesc {
  std::string kernel;
  std::vector<int32_t> inputs;  // buffer indices; -1 = absent optional input
  std::vector<int32_t> outputs;
  std::vector<AttrDesc> attrs;  // any order; serialization sorts by name
  std::string origin;           // e.g. "elementwise_add -> fc_0.tmp_1"
  int32_t rank = -1;            // the only rank that runs it; -1: every rank
};

struct NamedBuffer {
  std::string name;
  int32_t buffer = -1;
};

/// See ArenaSlot and Arena in artifact.fbs.
struct ArenaSlotDesc {
  int32_t buffer = -1;
  int64_t offset = 0;
  bool scaled = false;
};

struct ArenaDesc {
  int64_t staticBytes = 0;
  int32_t scaledSymbol = -1;
  int64_t scaledUnitBytes = 0;
  std::vector<ArenaSlotDesc> slots;
};

struct ProgramDesc {
  std::string mode;  // "train" | "eval" | "predict"
  std::string role = "trainer";
  ProgramKind kind = ProgramKind::Main;
  std::vector<NamedBuffer> feeds;
  std::vector<NamedBuffer> fetches;
  std::vector<KernelCallDesc> calls;
  /// Empty slots: no arena (every temporary has storage of its own).
  ArenaDesc arena;
};

/// See LRSchedule in artifact.fbs.
struct LRScheduleDesc {
  std::string kind = "constant";
  double baseLr = 0;
  int64_t stepSize = 0;
  double gamma = 1;
  std::vector<int64_t> boundaries;
  std::vector<double> values;
  int64_t decaySteps = 0;
  double endLr = 0;
  int64_t warmupSteps = 0;
  double warmupStartLr = 0;
};

/// See Training in artifact.fbs.
struct TrainingDesc {
  std::string loss;
  std::string optimizer;
  std::string learningRateVar;
  std::string stepVar;
  bool hasSchedule = false;
  LRScheduleDesc schedule;
  std::vector<std::string> parameters;
  std::vector<std::string> optimizerState;
  /// Empty, or per optimizerState entry its owner rank (-1: every rank).
  std::vector<int32_t> optimizerStateOwner;
  std::string config;
};

/// See InferenceModel in artifact.fbs.
struct InferenceModelDesc {
  std::vector<uint8_t> program;
  std::vector<std::string> parameters;
};

/// See Ring in artifact.fbs: a partition of the world's ranks into groups
/// of `groupSize` consecutive entries of `ranks`; the position of a rank
/// within its group is its member index in the ring's collectives.
struct RingDesc {
  int32_t id = 0;
  int32_t groupSize = 1;
  std::vector<int32_t> ranks;
};

/// artifact.fbs's ServerSlot.
struct ServerSlotDesc {
  std::string name;
  std::vector<int32_t> buffers;
  int32_t block = -1;
  std::string variable;
  int64_t row = 0;
  int64_t rows = -1;
  /// Row-sparse receives: each copy's row-id buffer (artifact.fbs).
  std::vector<int32_t> rowBuffers;
  /// Served distributed-table blocks: answered by PREFETCH.
  bool prefetch = false;
};

/// artifact.fbs's ParameterServer: `artifact` is a complete artifact file
/// (header and payload) of the server's own buffers and programs.
struct ParameterServerDesc {
  std::string endpoint;
  std::vector<uint8_t> artifact;
  std::vector<ServerSlotDesc> receives;
  std::vector<ServerSlotDesc> serves;
  std::vector<ServerSlotDesc> state;
};

struct ArtifactDesc {
  std::string producer;
  std::string source;
  std::vector<std::string> symbols;
  std::vector<BufferDesc> buffers;
  std::vector<ProgramDesc> programs;
  bool hasTraining = false;
  TrainingDesc training;
  bool hasInference = false;
  InferenceModelDesc inference;
  /// Trainer ranks the programs' collectives expect (1: serial).
  int32_t worldSize = 1;
  /// The sub-group rings the calls' `ring_id` attributes name (ring 0, the
  /// world, is implicit).
  std::vector<RingDesc> rings;
  /// The ring whose member index is a rank's data-parallel replica (0: the
  /// world; -1: one replica). See data_ring in artifact.fbs.
  int32_t dataRing = 0;
  /// Parameter-server mode: the servers in endpoint order, the number of
  /// trainers and synchronous training (see artifact.fbs).
  std::vector<ParameterServerDesc> pservers;
  int32_t psTrainers = 0;
  bool psSyncMode = true;
};

/// Serializes to a FlatBuffer payload (no file header; see ArtifactFile.h).
std::vector<uint8_t> serializeArtifact(const ArtifactDesc &desc);

} // namespace distc::artifact

#endif // DISTC_ARTIFACT_ARTIFACTDESC_H
