//===- ProgramDesc.cpp - Read and write Paddle programs -------------------===//
//
// JSON is read by protobuf's JSON transcoder, which maps the text onto
// framework.proto and names any field that does not fit. Before it, one
// pass of nlohmann/json's SAX parser (no document) finds syntax errors with
// their line and column, and what the transcoder would accept silently.
// Required fields are checked after a partial parse so the error can name
// each missing one.
//
//===----------------------------------------------------------------------===//

#include "distc/ProgramDesc/ProgramDesc.h"
#include "distc/Support/InputFile.h"

#include <google/protobuf/util/json_util.h>
#include <google/protobuf/util/type_resolver_util.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <set>

namespace distc::programdesc {
namespace {

using OrderedJson = nlohmann::ordered_json;

constexpr const char *kTypeUrlPrefix = "type.googleapis.com";

/// Protobuf and nlohmann messages may span lines (context + caret); a
/// diagnostic must be one line.
std::string oneLine(std::string text) {
  std::string out;
  out.reserve(text.size());
  bool lastSpace = false;
  for (char c : text) {
    bool space = c == '\n' || c == '\r' || c == '\t' || c == ' ';
    if (space) {
      if (!lastSpace && !out.empty())
        out.push_back(' ');
    } else {
      out.push_back(c);
    }
    lastSpace = space;
  }
  while (!out.empty() && out.back() == ' ')
    out.pop_back();
  return out;
}

std::string prefixed(std::string_view sourceName, const std::string &message) {
  return std::string(sourceName) + ": " + message;
}

bool checkComplete(const ProgramDesc &program, std::string_view sourceName, std::string &error) {
  if (!program.IsInitialized()) {
    error = prefixed(sourceName, "missing required fields: " + program.InitializationErrorString());
    return false;
  }
  if (program.blocks_size() == 0) {
    error = prefixed(sourceName, "empty program: it has no blocks");
    return false;
  }
  // Paddle numbers blocks by position; block 0 is the root (parent -1) and
  // every other block nests in one before it, so parents form a tree.
  for (int i = 0; i < program.blocks_size(); ++i) {
    const auto &block = program.blocks(i);
    std::string where = "blocks[" + std::to_string(i) + "]";
    if (block.idx() != i) {
      error = prefixed(sourceName, "malformed program: " + where + " has idx " +
                                       std::to_string(block.idx()) + "; blocks are numbered by "
                                       "position");
      return false;
    }
    bool parentOk = i == 0 ? block.parent_idx() == -1
                           : block.parent_idx() >= 0 && block.parent_idx() < i;
    if (!parentOk) {
      error = prefixed(sourceName,
                       "malformed program: " + where + " has parent_idx " +
                           std::to_string(block.parent_idx()) +
                           (i == 0 ? "; the root block's parent_idx is -1"
                                   : "; a sub-block's parent is a block before it"));
      return false;
    }
  }
  return true;
}

google::protobuf::util::TypeResolver *typeResolver() {
  static std::unique_ptr<google::protobuf::util::TypeResolver> resolver(
      google::protobuf::util::NewTypeResolverForDescriptorPool(
          kTypeUrlPrefix, google::protobuf::DescriptorPool::generated_pool()));
  return resolver.get();
}

std::string typeUrl() {
  return std::string(kTypeUrlPrefix) + "/" + ProgramDesc::descriptor()->full_name();
}

/// Walks the JSON text once (no document is built) before protobuf's
/// transcoder reads it: for a syntax error, with its line and column (which
/// protobuf's message lacks), and for what the transcoder lets through
/// silently: a key given twice in one object (the last would win), and
/// `null` or a nested array as an element of a repeated field (skipped).
/// Either is almost surely a broken program. Stops at the first finding,
/// which names its path ("blocks[0].ops[3]").
class JsonShapeCheck : public nlohmann::json_sax<OrderedJson> {
public:
  /// The finding, or "" when the text is clean.
  std::string finding;
  /// nlohmann's syntax error ("parse error at line L, column C: ..."), or
  /// "" when the text is JSON.
  std::string syntaxError;

  bool null() override { return element("null"); }
  bool boolean(bool) override { return element(nullptr); }
  bool number_integer(number_integer_t) override { return element(nullptr); }
  bool number_unsigned(number_unsigned_t) override { return element(nullptr); }
  bool number_float(number_float_t, const string_t &) override { return element(nullptr); }
  bool string(string_t &) override { return element(nullptr); }
  bool binary(binary_t &) override { return element(nullptr); }
  bool start_object(std::size_t) override {
    if (!element(nullptr))
      return false;
    frames.push_back(Frame{/*isObject=*/true});
    return true;
  }
  bool end_object() override {
    frames.pop_back();
    return true;
  }
  bool start_array(std::size_t) override {
    if (!element("an array"))
      return false;
    frames.push_back(Frame{/*isObject=*/false});
    return true;
  }
  bool end_array() override {
    frames.pop_back();
    return true;
  }
  bool key(string_t &name) override {
    Frame &f = frames.back();
    if (!f.keys.insert(name).second) {
      finding = path() + ": key \"" + name + "\" is given twice";
      return false;
    }
    f.lastKey = name;
    return true;
  }
  bool parse_error(std::size_t, const std::string &,
                   const nlohmann::detail::exception &e) override {
    // "[json.exception.parse_error.101] parse error at line L, column C:
    // ..."; the bracketed id means nothing to a user.
    syntaxError = e.what();
    size_t close = syntaxError.find("] ");
    if (close != std::string::npos)
      syntaxError = syntaxError.substr(close + 2);
    return false;
  }

private:
  struct Frame {
    bool isObject;
    std::set<std::string> keys;
    std::string lastKey;
    int64_t index = -1;
  };
  std::vector<Frame> frames;

  /// Called for every value; `refused` names a value an array may not hold.
  bool element(const char *refused) {
    if (frames.empty() || frames.back().isObject)
      return true;
    ++frames.back().index;
    if (!refused)
      return true;
    finding = path() + ": " + refused + " is not a valid element of a repeated field";
    return false;
  }

  std::string path() const {
    std::string out;
    for (const Frame &f : frames) {
      if (f.isObject) {
        if (&f != &frames.back())
          out += (out.empty() ? "" : ".") + f.lastKey;
      } else {
        out += "[" + std::to_string(f.index) + "]";
      }
    }
    return out.empty() ? "top level" : out;
  }
};

bool parseJson(std::string_view bytes, std::string_view sourceName, ProgramDesc &program,
               std::string &error) {
  JsonShapeCheck shapeCheck;
  (void)OrderedJson::sax_parse(bytes.begin(), bytes.end(), &shapeCheck);
  if (!shapeCheck.finding.empty()) {
    error = prefixed(sourceName, "malformed program: " + shapeCheck.finding);
    return false;
  }
  if (!shapeCheck.syntaxError.empty()) {
    error = prefixed(sourceName, "malformed JSON: " + oneLine(shapeCheck.syntaxError));
    return false;
  }
  // The text is JSON: whatever protobuf refuses does not fit the schema.
  std::string binary;
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = false;
  auto status = google::protobuf::util::JsonToBinaryString(typeResolver(), typeUrl(),
                                                           std::string(bytes), &binary, options);
  if (!status.ok() || !program.ParsePartialFromString(binary)) {
    std::string why = status.ok() ? "" : ": " + oneLine(std::string(status.message()));
    error = prefixed(sourceName, "JSON does not match the ProgramDesc schema" + why);
    return false;
  }
  return checkComplete(program, sourceName, error);
}

bool parseBinary(std::string_view bytes, std::string_view sourceName, ProgramDesc &program,
                 std::string &error) {
  if (bytes.size() > static_cast<size_t>(INT32_MAX) ||
      !program.ParsePartialFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    error = prefixed(sourceName, "malformed protobuf: not a binary ProgramDesc (nor JSON)");
    return false;
  }
  return checkComplete(program, sourceName, error);
}

bool isBlank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/// Protobuf's JSON printer writes int64 values as strings ("dims": ["-1"]);
/// Paddle users read and write them as numbers. Only fields that are int64 in
/// framework.proto are converted, identified by their key and parent key.
void int64StringsToNumbers(OrderedJson &node, std::string_view parentKey) {
  auto toNumber = [](OrderedJson &value) {
    if (!value.is_string())
      return;
    const std::string &s = value.get_ref<const std::string &>();
    char *end = nullptr;
    errno = 0;
    long long v = std::strtoll(s.c_str(), &end, 10);
    if (!s.empty() && end && *end == '\0' && errno == 0)
      value = static_cast<int64_t>(v);
  };
  if (node.is_array()) {
    for (OrderedJson &element : node)
      int64StringsToNumbers(element, parentKey);
    return;
  }
  if (!node.is_object())
    return;
  for (auto it = node.begin(); it != node.end(); ++it) {
    const std::string &key = it.key();
    OrderedJson &value = it.value();
    bool int64Field = key == "dims" || key == "longs" || key == "l" ||
                      (key == "version" && parentKey == "version") ||
                      (key == "i" && (parentKey == "scalar" || parentKey == "scalars"));
    if (int64Field) {
      if (value.is_array()) {
        for (OrderedJson &element : value)
          toNumber(element);
      } else {
        toNumber(value);
      }
      continue;
    }
    int64StringsToNumbers(value, key);
  }
}

/// Indented JSON like nlohmann's dump(2), except that arrays of scalars stay
/// on one line ("dims": [-1, 64]): programs are read by people.
void printJson(const OrderedJson &node, int indent, std::string &out) {
  auto scalar = [](const OrderedJson &v) {
    return v.dump(-1, ' ', false, OrderedJson::error_handler_t::replace);
  };
  std::string pad(static_cast<size_t>(indent + 2), ' ');
  std::string closePad(static_cast<size_t>(indent), ' ');
  if (node.is_object()) {
    if (node.empty()) {
      out += "{}";
      return;
    }
    out += "{\n";
    bool first = true;
    for (auto it = node.begin(); it != node.end(); ++it) {
      if (!first)
        out += ",\n";
      first = false;
      out += pad + scalar(OrderedJson(it.key())) + ": ";
      printJson(it.value(), indent + 2, out);
    }
    out += "\n" + closePad + "}";
    return;
  }
  if (node.is_array()) {
    bool flat = std::all_of(node.begin(), node.end(),
                            [](const OrderedJson &v) { return v.is_primitive(); });
    if (node.empty() || flat) {
      out += "[";
      bool first = true;
      for (const OrderedJson &element : node) {
        if (!first)
          out += ", ";
        first = false;
        out += scalar(element);
      }
      out += "]";
      return;
    }
    out += "[\n";
    bool first = true;
    for (const OrderedJson &element : node) {
      if (!first)
        out += ",\n";
      first = false;
      out += pad;
      printJson(element, indent + 2, out);
    }
    out += "\n" + closePad + "]";
    return;
  }
  out += scalar(node);
}

} // namespace

ProgramFormat detectProgramFormat(std::string_view bytes) {
  for (char c : bytes) {
    if (isBlank(c))
      continue;
    return c == '{' ? ProgramFormat::Json : ProgramFormat::Binary;
  }
  return ProgramFormat::Binary;
}

bool parseProgram(std::string_view bytes, std::string_view sourceName, ProgramDesc &program,
                  std::string &error) {
  program.Clear();
  bool blank = true;
  for (char c : bytes)
    if (!isBlank(c)) {
      blank = false;
      break;
    }
  if (blank) {
    error = prefixed(sourceName, "empty program: the file is empty");
    return false;
  }
  if (detectProgramFormat(bytes) == ProgramFormat::Json)
    return parseJson(bytes, sourceName, program, error);
  return parseBinary(bytes, sourceName, program, error);
}

bool writeFileBytes(const std::string &path, std::string_view bytes, std::string &error) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) {
    error = path + ": cannot open file for writing: " + std::strerror(errno);
    return false;
  }
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) {
    error = path + ": cannot write file";
    return false;
  }
  return true;
}

bool loadProgramFile(const std::string &path, ProgramDesc &program, std::string &error) {
  std::string bytes;
  if (!support::readInputFile(path, bytes, error))
    return false;
  return parseProgram(bytes, path, program, error);
}

bool programToBinary(const ProgramDesc &program, std::string &out, std::string &error) {
  if (!program.IsInitialized()) {
    error =
        "cannot serialize program: missing required fields: " + program.InitializationErrorString();
    return false;
  }
  if (!program.SerializeToString(&out)) {
    error = "cannot serialize program";
    return false;
  }
  return true;
}

bool programToJson(const ProgramDesc &program, std::string &out, std::string &error) {
  if (!program.IsInitialized()) {
    error =
        "cannot serialize program: missing required fields: " + program.InitializationErrorString();
    return false;
  }
  std::string compact;
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  auto status = google::protobuf::util::MessageToJsonString(program, &compact, options);
  if (!status.ok()) {
    error = "cannot serialize program to JSON: " + oneLine(std::string(status.message()));
    return false;
  }
  OrderedJson doc = OrderedJson::parse(compact, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) {
    error = "cannot serialize program to JSON";
    return false;
  }
  int64StringsToNumbers(doc, "");
  out.clear();
  printJson(doc, 0, out);
  out += "\n";
  return true;
}

bool saveProgramFile(const ProgramDesc &program, const std::string &path, ProgramFormat format,
                     std::string &error) {
  std::string bytes;
  bool ok = format == ProgramFormat::Json ? programToJson(program, bytes, error)
                                          : programToBinary(program, bytes, error);
  if (!ok) {
    error = path + ": " + error;
    return false;
  }
  return writeFileBytes(path, bytes, error);
}

} // namespace distc::programdesc
