//===- Checkpoint.cpp - Crash-safe training checkpoints -------------------===//

#include "distc/Training/Checkpoint.h"

#include "FileUtil.h"

#include "distc/Runtime/Npy.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>

namespace distc::training {

namespace fs = std::filesystem;
using detail::crc32Of;
using detail::errnoError;
using detail::fsyncPath;
using detail::readWholeFile;
using detail::writeFileAtomic;

namespace {

constexpr const char kFormat[] = "distc-checkpoint";
constexpr int kVersion = 1;
constexpr const char kManifest[] = "checkpoint.json";
constexpr const char kLatest[] = "latest";
constexpr const char kStepPrefix[] = "step-";
constexpr const char kPruningPrefix[] = ".pruning-";

std::string formatShape(const Shape &shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    out += (i ? "," : "") + std::to_string(shape[i]);
  return out + "]";
}

std::string hex32(uint32_t value) {
  char buffer[9];
  std::snprintf(buffer, sizeof buffer, "%08x", value);
  return buffer;
}

bool isSafeByte(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '@' || c == '-';
}

/// "step-<N>" -> N; nullopt for other names.
std::optional<int64_t> parseStepName(const std::string &name) {
  size_t prefix = sizeof kStepPrefix - 1;
  if (name.compare(0, prefix, kStepPrefix) != 0 || name.size() == prefix ||
      name.size() > prefix + 18)
    return std::nullopt;
  int64_t value = 0;
  for (size_t i = prefix; i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9')
      return std::nullopt;
    value = value * 10 + (name[i] - '0');
  }
  return value;
}

/// bfloat16 has no .npy type: its bit patterns travel as i2.
Tensor toStorable(const Tensor &t) {
  if (t.dtype() != DType::BFloat16)
    return t;
  Tensor bits(DType::Int16, t.shape());
  if (t.byteSize())
    std::memcpy(bits.data(), t.data(), t.byteSize());
  return bits;
}

Tensor fromStored(const Tensor &stored, DType dtype) {
  if (dtype != DType::BFloat16)
    return stored;
  Tensor t(DType::BFloat16, stored.shape());
  if (t.byteSize())
    std::memcpy(t.data(), stored.data(), t.byteSize());
  return t;
}

/// Renames the complete directory `from` to `to`. An existing `to` (the same
/// step saved again) is swapped atomically with renameat2(RENAME_EXCHANGE)
/// and the old one, now at `from`, removed; file systems without it fall back
/// to moving the old one aside first.
Status publishDirectory(const std::string &from, const std::string &to) {
  if (::rename(from.c_str(), to.c_str()) == 0)
    return Status::success();
  if (errno != ENOTEMPTY && errno != EEXIST)
    return errnoError(to, "cannot rename " + from + " to it");
  std::error_code ec;
  if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_EXCHANGE) == 0) {
    fs::remove_all(from, ec);
    return Status::success();
  }
  std::string aside = from + ".old";
  if (::rename(to.c_str(), aside.c_str()) != 0)
    return errnoError(to, "cannot move the old checkpoint aside");
  if (::rename(from.c_str(), to.c_str()) != 0)
    return errnoError(to, "cannot rename " + from + " to it");
  fs::remove_all(aside, ec);
  return Status::success();
}

/// The step `DIR/latest` names, if it names one.
std::optional<int64_t> latestStep(const std::string &dir) {
  std::string latest;
  if (!readWholeFile(dir + "/" + kLatest, latest).ok())
    return std::nullopt;
  while (!latest.empty() && (latest.back() == '\n' || latest.back() == '\r'))
    latest.pop_back();
  return parseStepName(latest);
}

/// Removes what interrupted saves and prunes leave in a checkpoint root:
/// `.pruning-step-N` directories (a prune renames a checkpoint to that
/// before deleting it) and `step-N` directories without a manifest (left by
/// a prune that deleted in place). With `temporaries`, also the hidden
/// temporaries (".step-N.tmp-...", ".latest.tmp-...") of saves that crashed
/// before publishing; only a saver may remove those, as a reader could race
/// a save in progress. Best effort: what cannot be removed stays, and no
/// loader ever takes any of it for a checkpoint.
void removeLeftovers(const std::string &dir, bool temporaries) {
  std::optional<int64_t> latest = latestStep(dir);
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    std::error_code ignored;
    bool leftover = name.rfind(kPruningPrefix, 0) == 0;
    if (std::optional<int64_t> step = parseStepName(name))
      // The one `latest` names stays, so that loading it reports what is
      // missing rather than that nothing is there.
      leftover = step != latest && fs::is_directory(it->path(), ignored) &&
                 !fs::exists(it->path() / kManifest, ignored);
    if (temporaries && (name.rfind(".step-", 0) == 0 || name.rfind(".latest.", 0) == 0) &&
        name.find(".tmp-") != std::string::npos)
      leftover = true;
    if (leftover)
      fs::remove_all(it->path(), ignored);
  }
}

/// Deletes checkpoint `step` without ever leaving a torn `step-N` behind:
/// it is renamed out of the loader's sight first, then deleted.
Status removeCheckpoint(const std::string &dir, int64_t step) {
  std::string name = kStepPrefix + std::to_string(step);
  std::string doomed = dir + "/" + kPruningPrefix + name;
  std::error_code ec;
  fs::remove_all(doomed, ec); // an earlier prune of the same step that died
  if (::rename((dir + "/" + name).c_str(), doomed.c_str()) != 0)
    return errnoError(dir + "/" + name, "cannot remove an old checkpoint: cannot rename it to " +
                                            doomed);
  fs::remove_all(doomed, ec);
  if (ec)
    return Status::error(doomed + ": cannot remove an old checkpoint: " + ec.message());
  return Status::success();
}

/// Keeps the newest `keepLast` checkpoints and `savedStep`. (Leftovers of
/// interrupted saves and prunes went when this save began.)
Status prune(const std::string &dir, int64_t savedStep, int keepLast) {
  if (keepLast <= 0)
    return Status::success();
  std::vector<int64_t> steps;
  if (Status st = listCheckpoints(dir, steps); !st.ok())
    return st;
  int kept = 0;
  for (auto it = steps.rbegin(); it != steps.rend(); ++it) {
    if (kept < keepLast || *it == savedStep) {
      ++kept;
      continue;
    }
    if (Status st = removeCheckpoint(dir, *it); !st.ok())
      return st;
  }
  return Status::success();
}

struct ManifestEntry {
  std::string file;
  DType dtype = DType::Float32;
  Shape shape;
  uint64_t bytes = 0;
  uint32_t crc = 0;
};

Status parseManifestEntry(const std::string &where, const std::string &name,
                          const nlohmann::json &json, ManifestEntry &out) {
  std::string prefix = where + ": variable '" + name + "': ";
  if (!json.is_object())
    return Status::error(prefix + "not a JSON object");
  auto file = json.find("file");
  if (file == json.end() || !file->is_string())
    return Status::error(prefix + "'file' is missing or not a string");
  out.file = file->get<std::string>();
  if (out.file.empty() || out.file.find('/') != std::string::npos || out.file[0] == '.')
    return Status::error(prefix + "'file' is '" + out.file + "', not a plain file name");
  auto dtype = json.find("dtype");
  std::optional<DType> parsed;
  if (dtype != json.end() && dtype->is_string())
    parsed = runtime::dtypeFromName(dtype->get<std::string>());
  if (!parsed)
    return Status::error(prefix + "'dtype' is missing or unknown");
  out.dtype = *parsed;
  auto shape = json.find("shape");
  if (shape == json.end() || !shape->is_array())
    return Status::error(prefix + "'shape' is missing or not an array");
  out.shape.clear();
  for (const auto &d : *shape) {
    if (!d.is_number_integer() || d.get<int64_t>() < 0)
      return Status::error(prefix + "'shape' holds something other than extents >= 0");
    out.shape.push_back(d.get<int64_t>());
  }
  auto bytes = json.find("bytes");
  if (bytes == json.end() || !bytes->is_number_unsigned())
    return Status::error(prefix + "'bytes' is missing or not a count");
  out.bytes = bytes->get<uint64_t>();
  auto crc = json.find("crc32");
  if (crc == json.end() || !crc->is_string() || crc->get_ref<const std::string &>().size() != 8)
    return Status::error(prefix + "'crc32' is missing or not 8 hex digits");
  char *end = nullptr;
  const std::string &text = crc->get_ref<const std::string &>();
  out.crc = static_cast<uint32_t>(std::strtoul(text.c_str(), &end, 16));
  if (*end != '\0')
    return Status::error(prefix + "'crc32' is '" + text + "', not 8 hex digits");
  return Status::success();
}

} // namespace

nlohmann::json TrainingState::toJson() const {
  nlohmann::json json = {{"step", step}, {"epoch", epoch}, {"extra", extra}};
  if (batcher)
    json["batcher"] = batcher->toJson();
  return json;
}

Status TrainingState::fromJson(const nlohmann::json &json, TrainingState &out) {
  if (!json.is_object())
    return Status::error("training state is not a JSON object");
  TrainingState s;
  for (auto [key, field] : {std::pair{"step", &s.step}, std::pair{"epoch", &s.epoch}}) {
    auto it = json.find(key);
    if (it == json.end() || !it->is_number_integer() || it->get<int64_t>() < 0)
      return Status::error(std::string("training state: '") + key +
                           "' is missing or not an integer >= 0");
    *field = it->get<int64_t>();
  }
  if (auto it = json.find("batcher"); it != json.end()) {
    BatcherState b;
    if (Status st = BatcherState::fromJson(*it, b); !st.ok())
      return Status::error("training state: " + st.message());
    s.batcher = b;
  }
  if (auto it = json.find("extra"); it != json.end()) {
    if (!it->is_object())
      return Status::error("training state: 'extra' is not a JSON object");
    s.extra = *it;
  }
  out = std::move(s);
  return Status::success();
}

std::string encodeVarFileName(const std::string &name) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (size_t i = 0; i < name.size(); ++i) {
    auto c = static_cast<unsigned char>(name[i]);
    if (isSafeByte(c) && !(i == 0 && c == '.')) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out + ".npy";
}

std::optional<std::string> decodeVarFileName(const std::string &fileName) {
  if (fileName.size() < 5 || fileName.compare(fileName.size() - 4, 4, ".npy") != 0)
    return std::nullopt;
  std::string stem = fileName.substr(0, fileName.size() - 4);
  auto hexValue = [](char c) -> int {
    if (c >= '0' && c <= '9')
      return c - '0';
    if (c >= 'A' && c <= 'F')
      return c - 'A' + 10;
    return -1;
  };
  std::string out;
  for (size_t i = 0; i < stem.size(); ++i) {
    if (stem[i] != '%') {
      out += stem[i];
      continue;
    }
    if (i + 2 >= stem.size())
      return std::nullopt;
    int hi = hexValue(stem[i + 1]), lo = hexValue(stem[i + 2]);
    if (hi < 0 || lo < 0)
      return std::nullopt;
    out += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  if (encodeVarFileName(out) != fileName)
    return std::nullopt;
  return out;
}

Status listCheckpoints(const std::string &dir, std::vector<int64_t> &steps) {
  std::error_code ec;
  std::vector<int64_t> found;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::optional<int64_t> step = parseStepName(it->path().filename().string());
    std::error_code ignored;
    if (step && fs::is_regular_file(it->path() / kManifest, ignored))
      found.push_back(*step);
  }
  if (ec)
    return Status::error(dir + ": cannot list checkpoints: " + ec.message());
  std::sort(found.begin(), found.end());
  steps = std::move(found);
  return Status::success();
}

Status saveCheckpoint(const std::string &dir, const TensorMap &tensors, const TrainingState &state,
                      const CheckpointOptions &options, std::string *savedPath) {
  if (state.step < 0)
    return Status::error(dir + ": cannot save a checkpoint for step " + std::to_string(state.step));
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec)
    return Status::error(dir + ": cannot create the checkpoint directory: " + ec.message());
  removeLeftovers(dir, /*temporaries=*/true);

  std::string stepName = kStepPrefix + std::to_string(state.step);
  std::string tmp = dir + "/" + detail::temporaryName(stepName);
  if (!fs::create_directory(tmp, ec) || ec)
    return Status::error(tmp + ": cannot create: " + (ec ? ec.message() : "it exists"));
  auto fail = [&](Status st) {
    std::error_code ignored;
    fs::remove_all(tmp, ignored);
    return st;
  };

  nlohmann::json variables = nlohmann::json::object();
  for (const auto &[name, tensor] : tensors) {
    if (!tensor.defined())
      return fail(Status::error("cannot checkpoint variable '" + name + "': it has no value"));
    std::string file = encodeVarFileName(name);
    if (name.empty() || file.size() > 255)
      return fail(Status::error("cannot checkpoint variable '" + name +
                                "': its name does not make a file name of at most 255 bytes"));
    std::string path = tmp + "/" + file;
    if (Status st = runtime::writeNpy(path, toStorable(tensor)); !st.ok())
      return fail(Status::error("cannot checkpoint variable '" + name + "': " + st.message()));
    // Read back: the CRC covers what reached the file, and fsync makes it
    // durable before the directory is published.
    std::string bytes;
    if (Status st = readWholeFile(path, bytes); !st.ok())
      return fail(st);
    if (Status st = fsyncPath(path); !st.ok())
      return fail(st);
    variables[name] = {{"file", file},
                       {"dtype", runtime::dtypeName(tensor.dtype())},
                       {"shape", tensor.shape()},
                       {"bytes", bytes.size()},
                       {"crc32", hex32(crc32Of(bytes))}};
  }
  nlohmann::json manifest = {{"format", kFormat},
                             {"version", kVersion},
                             {"state", state.toJson()},
                             {"variables", variables}};
  if (Status st = writeFileAtomic(tmp + "/" + kManifest, manifest.dump(2) + "\n"); !st.ok())
    return fail(st);
  if (Status st = fsyncPath(tmp); !st.ok())
    return fail(st);

  std::string final = dir + "/" + stepName;
  if (Status st = publishDirectory(tmp, final); !st.ok())
    return fail(st);
  if (Status st = fsyncPath(dir); !st.ok())
    return st;
  if (Status st = writeFileAtomic(dir + "/" + kLatest, stepName + "\n"); !st.ok())
    return st;
  if (savedPath)
    *savedPath = final;
  return prune(dir, state.step, options.keepLast);
}

Status resolveCheckpoint(const std::string &path, std::string &checkpointDir) {
  std::error_code ec;
  if (fs::is_regular_file(fs::path(path) / kManifest, ec)) {
    checkpointDir = path;
    return Status::success();
  }
  std::string latestPath = path + "/" + kLatest;
  if (!fs::exists(latestPath, ec)) {
    if (!fs::is_directory(path, ec))
      return Status::error(path + ": no such checkpoint directory");
    return Status::error(path + ": not a checkpoint: it has neither " + kManifest + " nor a '" +
                         kLatest + "' file");
  }
  removeLeftovers(path, /*temporaries=*/false);
  std::string latest;
  if (Status st = readWholeFile(latestPath, latest); !st.ok())
    return st;
  while (!latest.empty() && (latest.back() == '\n' || latest.back() == '\r'))
    latest.pop_back();
  if (!parseStepName(latest))
    return Status::error(latestPath + ": names '" + latest + "', not a step-<N> checkpoint");
  std::string dir = path + "/" + latest;
  if (!fs::is_regular_file(fs::path(dir) / kManifest, ec))
    return Status::error(latestPath + ": names " + dir + ", which has no " + kManifest);
  checkpointDir = dir;
  return Status::success();
}

Status loadCheckpoint(const std::string &path, const VarSpecs *expected, TensorMap &tensors,
                      TrainingState &state) {
  std::string dir;
  if (Status st = resolveCheckpoint(path, dir); !st.ok())
    return st;
  std::string manifestPath = dir + "/" + kManifest;
  std::string text;
  if (Status st = readWholeFile(manifestPath, text); !st.ok())
    return st;
  nlohmann::json manifest = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (manifest.is_discarded() || !manifest.is_object())
    return Status::error(manifestPath + ": corrupt: not a JSON object");
  if (manifest.value("format", "") != kFormat)
    return Status::error(manifestPath + ": not a distc checkpoint manifest (no \"format\": \"" +
                         kFormat + "\")");
  auto version = manifest.find("version");
  if (version == manifest.end() || !version->is_number_integer())
    return Status::error(manifestPath + ": corrupt: no format version");
  if (version->get<int64_t>() > kVersion)
    return Status::error(manifestPath + ": written by a newer distc (checkpoint format version " +
                         std::to_string(version->get<int64_t>()) + "; this one reads " +
                         std::to_string(kVersion) + ")");
  TrainingState loadedState;
  auto stateJson = manifest.find("state");
  if (stateJson == manifest.end())
    return Status::error(manifestPath + ": corrupt: no training state");
  if (Status st = TrainingState::fromJson(*stateJson, loadedState); !st.ok())
    return Status::error(manifestPath + ": " + st.message());
  auto variables = manifest.find("variables");
  if (variables == manifest.end() || !variables->is_object())
    return Status::error(manifestPath + ": corrupt: 'variables' is missing or not an object");

  std::map<std::string, ManifestEntry> entries;
  for (const auto &[name, json] : variables->items()) {
    ManifestEntry entry;
    if (Status st = parseManifestEntry(manifestPath, name, json, entry); !st.ok())
      return st;
    entries.emplace(name, std::move(entry));
  }

  // Compare with the program before reading any data.
  if (expected) {
    const std::string other = "checkpoint from another program: ";
    for (const auto &[name, spec] : *expected)
      if (!entries.count(name))
        return Status::error(other + dir + " has no variable '" + name + "'");
    for (const auto &[name, entry] : entries) {
      auto it = expected->find(name);
      if (it == expected->end())
        return Status::error(other + dir + " has variable '" + name +
                             "', which the program does not have");
      if (entry.shape != it->second.shape)
        return Status::error(other + "variable '" + name + "' has shape " +
                             formatShape(entry.shape) + ", expected " +
                             formatShape(it->second.shape));
      if (entry.dtype != it->second.dtype)
        return Status::error(other + "variable '" + name + "' is " +
                             runtime::dtypeName(entry.dtype) + ", expected " +
                             runtime::dtypeName(it->second.dtype));
    }
  }

  TensorMap loaded;
  for (const auto &[name, entry] : entries) {
    std::string file = dir + "/" + entry.file;
    std::string bytes;
    if (Status st = readWholeFile(file, bytes); !st.ok())
      return Status::error("checkpoint variable '" + name + "': " + st.message());
    if (bytes.size() != entry.bytes)
      return Status::error("corrupt checkpoint file " + file + ": " + std::to_string(bytes.size()) +
                           " bytes, the manifest says " + std::to_string(entry.bytes));
    uint32_t crc = crc32Of(bytes);
    if (crc != entry.crc)
      return Status::error("corrupt checkpoint file " + file + ": CRC32 is " + hex32(crc) +
                           ", the manifest says " + hex32(entry.crc));
    Tensor stored;
    if (Status st = runtime::parseNpy(bytes, file, stored); !st.ok())
      return Status::error("corrupt checkpoint file " + st.message());
    DType storedType = entry.dtype == DType::BFloat16 ? DType::Int16 : entry.dtype;
    if (stored.dtype() != storedType || stored.shape() != entry.shape)
      return Status::error("corrupt checkpoint file " + file + ": holds " + stored.typeString() +
                           " but the manifest says " +
                           runtime::formatType(entry.dtype, entry.shape));
    loaded.emplace(name, fromStored(stored, entry.dtype));
  }
  tensors = std::move(loaded);
  state = std::move(loadedState);
  return Status::success();
}

} // namespace distc::training
