//===- PirImporter.cpp - Paddle 3 PIR JSON programs as ProgramDescs -------===//
//
// Reads the JSON form of a PIR program (Paddle's
// paddle/fluid/pir/serialize_deserialize: schema.h's compressed keys,
// ir_serialize.cc's layout) and writes the ProgramDesc of the same model, so
// that the ProgramDesc importer builds the module from it:
//
//   * `{"#": "p", "A": [is_distributed, is_parameter, need_clip, name],
//      "O": {"%": id, "TT": type}, "OA": [persistable, stop_gradient,
//      trainable]}` (builtin.parameter) -> a persistable parameter variable;
//   * `1.data` (pd_op.data {name}) and `1.feed` -> a variable and a feed op,
//     `col` in program order; `1.fetch` {name, col} and
//     `0.shadow_output` {output_name} -> fetch ops; a fetched value takes the
//     fetch's name, as Paddle's fetch targets are named;
//   * `1.full` / `1.full_int_array` -> constants: an operand that carries an
//     attribute (Paddle's mutable attributes: scale's `scale`, reshape's
//     `shape`, concat's `axis`) takes their value; a `full` used as a tensor
//     becomes `fill_constant`;
//   * `0.combine` / `0.split` / `0.slice` -> the argument lists of variadic
//     slots (concat's inputs, split's outputs);
//   * every other op -> its catalog op, by the op's PIR form in the registry
//     (PirForms.h): operands and results by position, attributes renamed,
//     converted by the catalog attribute's kind.
//
// Op names are `<dialect id>.<name>` (0 builtin, 1 pd_op, 2 cf, 3 custom_op,
// 4 dist_op); the uncompressed `pd_op.matmul` is read too. Value ids are
// positive, 0 is the null value; ids under "%" (older files: "#").
// Variables other than feeds, parameters and fetched values are named
// `<op>_<index>.tmp_<result>` after the PIR op that computes them, so that
// the importer's messages lead back to the op.
//
//===----------------------------------------------------------------------===//

#include "distc/Import/PirImport.h"

#include "distc/Dialect/Pd/OpCatalog.h"
#include "distc/Dialect/Pd/PirForms.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <vector>

namespace distc {
namespace {

namespace proto = ::paddle::framework::proto;
using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Value;

/// A tensor or vector type from a value's "TT".
struct TypeInfo {
  enum Kind { Null, Tensor, Vector } kind = Null;
  proto::VarType::Type dtype = proto::VarType::FP32;
  std::vector<int64_t> dims;
  std::vector<TypeInfo> elements;
};

/// A PIR attribute value ("AT").
struct PirAttr {
  enum Kind { Bool, I32, I64, F32, F64, Str, IntArray, DType, Array, Other } kind = Other;
  bool b = false;
  int64_t i = 0;
  double f = 0;
  std::string s; // strings; the type name for Other
  std::vector<int64_t> ints;
  std::vector<PirAttr> elements;
};

/// What the reader knows about a PIR value.
struct ValueInfo {
  int opIndex = -1;
  TypeInfo type;
  std::string name;                // its variable ("" until it needs one)
  std::vector<int64_t> elementIds; // a vector's elements
  bool isScalarConst = false;      // from pd_op.full: `scalar`
  bool isListConst = false;        // from pd_op.full_int_array: `ints`
  double scalar = 0;
  std::vector<int64_t> ints;
  const Object *fullOp = nullptr; // a pd_op.full not yet written as fill_constant
};

std::string opName(std::string_view compressed) {
  static const std::map<std::string, std::string, std::less<>> dialects = {
      {"0", "builtin"}, {"1", "pd_op"}, {"2", "cf"}, {"3", "custom_op"}, {"4", "dist_op"}};
  size_t dot = compressed.find('.');
  if (dot == std::string_view::npos)
    return std::string(compressed);
  auto it = dialects.find(compressed.substr(0, dot));
  if (it == dialects.end())
    return std::string(compressed);
  return it->second + std::string(compressed.substr(dot));
}

std::optional<proto::VarType::Type> dtypeOfTypeName(llvm::StringRef name) {
  using T = proto::VarType;
  static const std::map<std::string, T::Type, std::less<>> types = {
      {"t_bool", T::BOOL}, {"t_i8", T::INT8},   {"t_ui8", T::UINT8}, {"t_i16", T::INT16},
      {"t_i32", T::INT32}, {"t_i64", T::INT64}, {"t_f16", T::FP16},  {"t_bf16", T::BF16},
      {"t_f32", T::FP32},  {"t_f64", T::FP64}};
  auto it = types.find(name);
  if (it == types.end())
    return std::nullopt;
  return it->second;
}

/// Paddle's DataType names (phi::DataTypeToString) as VarType values; -1
/// for undefined (Paddle's "use the input's").
std::optional<int> dtypeOfDataTypeName(llvm::StringRef name) {
  using T = proto::VarType;
  static const std::map<std::string, int, std::less<>> types = {
      {"bool", T::BOOL},    {"int8", T::INT8},   {"uint8", T::UINT8},  {"int16", T::INT16},
      {"int32", T::INT32},  {"int64", T::INT64}, {"float16", T::FP16}, {"bfloat16", T::BF16},
      {"float32", T::FP32}, {"float64", T::FP64}};
  auto it = types.find(name);
  if (it != types.end())
    return it->second;
  if (name.starts_with_insensitive("undefined"))
    return -1;
  return std::nullopt;
}

/// The form of `pd_op.<name>`; an in-place variant (`relu_`) has the form
/// of its op, whose operands and results it shares.
const pd::PirForm *formFor(llvm::StringRef name) {
  std::string_view view(name.data(), name.size());
  if (const pd::PirForm *form = pd::lookupPirForm(view))
    return form;
  if (name.size() > 1 && name.ends_with("_"))
    return pd::lookupPirForm(view.substr(0, view.size() - 1));
  return nullptr;
}

/// `v` as a float; values beyond its range become infinities (a plain
/// conversion of those is undefined).
float toFloat(double v) {
  if (v > std::numeric_limits<float>::max())
    return std::numeric_limits<float>::infinity();
  if (v < std::numeric_limits<float>::lowest())
    return -std::numeric_limits<float>::infinity();
  return static_cast<float>(v);
}

/// The part after the dialect id: "0.t_f32" -> "t_f32".
llvm::StringRef typeName(llvm::StringRef id) {
  return id.contains('.') ? id.split('.').second : id;
}

class PirReader {
public:
  explicit PirReader(proto::BlockDesc &block) : block(block) {}

  bool run(const Value &root);
  const std::string &error() const { return err; }

private:
  // --- errors: `err` keeps the first one, as "<what>: <why>".
  bool fail(const std::string &message) {
    if (err.empty())
      err = message;
    return false;
  }
  std::string at(size_t index) const {
    return "op #" + std::to_string(index) + " '" + currentName + "'";
  }

public:
  /// Per ProgramDesc op, the PIR op it comes from.
  std::vector<std::string> origins;

private:
  bool failOp(size_t index, const std::string &why) { return fail(at(index) + ": " + why); }

  // --- schema pieces
  bool readType(const Value *tt, TypeInfo &out, std::string &why);
  bool readAttr(const Value *at, PirAttr &out, std::string &why);
  static std::optional<int64_t> valueId(const Object &value);

  /// A new op of the ProgramDesc, made from the PIR op being read.
  proto::OpDesc *addOp() {
    origins.push_back(at(currentIndex));
    return block.add_ops();
  }

  // --- variables
  std::string uniqueName(const std::string &base);
  void addVar(const std::string &name, const TypeInfo &type, bool persistable = false);
  bool nameResult(size_t index, const std::string &shortName, size_t k, int64_t id,
                  const TypeInfo &type, std::vector<std::string> &names);
  int64_t resolve(int64_t id) const {
    auto it = aliases.find(id);
    return it == aliases.end() ? id : it->second;
  }
  ValueInfo *lookup(int64_t id) {
    auto it = values.find(resolve(id));
    return it == values.end() ? nullptr : &it->second;
  }
  bool tensorNames(size_t index, int64_t id, bool variadic, std::vector<std::string> &out);

  // --- ops
  bool readOp(size_t index, const Object &op);
  bool readParameter(size_t index, const Object &op);
  bool readFeed(size_t index, const Object &op);
  bool readFetch(size_t index, const Object &op);
  bool readConstant(size_t index, const Object &op, bool list);
  bool readCombine(size_t index, const Object &op);
  bool readSplit(size_t index, const Object &op, bool slice);
  bool emitMapped(size_t index, const Object &op, const pd::PirForm &form);
  bool constantAttr(size_t index, int64_t id, pd::AttrKind kind, proto::OpDesc::Attr &out);
  bool attrToProto(const PirAttr &attr, std::optional<pd::AttrKind> kind, proto::OpDesc::Attr &out);
  std::map<std::string, PirAttr> attrsOf(size_t index, const Object &op, bool &ok,
                                         llvm::StringRef key = "A");
  std::map<std::string, PirAttr> attrsOfResults(size_t index, const Object &op, bool &ok) {
    return attrsOf(index, op, ok, "OA");
  }
  bool scanNames(const Array &ops);

  proto::BlockDesc &block;
  std::string err;
  std::string currentName;
  size_t currentIndex = 0;
  std::unordered_map<int64_t, ValueInfo> values;
  std::unordered_map<int64_t, int64_t> aliases;
  std::unordered_map<int64_t, std::string> fetchNames;
  std::set<std::string> fetchReserved; // the fetch names, kept from generated names
  std::map<std::pair<int64_t, int64_t>, std::string> elementFetchNames; // {vector, index}
  std::set<std::string> usedNames = {"feed", "fetch"};
  int64_t nextSyntheticId = std::numeric_limits<int64_t>::min() / 2;
  int feedCol = 0, fetchCol = 0;
  bool declaredFeed = false, declaredFetch = false;
};

std::optional<int64_t> PirReader::valueId(const Object &value) {
  if (auto id = value.getInteger("%"))
    return *id;
  if (auto id = value.getInteger("#")) // before the value key was "%"
    return *id;
  return std::nullopt;
}

bool PirReader::readType(const Value *tt, TypeInfo &out, std::string &why) {
  const Object *obj = tt ? tt->getAsObject() : nullptr;
  std::optional<llvm::StringRef> id = obj ? obj->getString("#") : std::nullopt;
  if (!id) {
    why = "a value has no type (\"TT\": {\"#\": ...})";
    return false;
  }
  llvm::StringRef name = typeName(*id);
  if (*id == "NULL") {
    out.kind = TypeInfo::Null;
    return true;
  }
  const Array *data = obj->getArray("D");
  if (name == "t_vec") {
    out.kind = TypeInfo::Vector;
    if (!data) {
      why = "vector type without \"D\"";
      return false;
    }
    for (const Value &element : *data) {
      TypeInfo e;
      if (!readType(&element, e, why))
        return false;
      out.elements.push_back(std::move(e));
    }
    return true;
  }
  if (name != "t_dtensor") {
    why = "values of type '" + id->str() + "' are not supported (only dense tensors)";
    return false;
  }
  if (!data || data->size() < 2) {
    why = "dense tensor type needs \"D\": [dtype, dims, layout, lod, offset]";
    return false;
  }
  const Object *dtype = (*data)[0].getAsObject();
  std::optional<llvm::StringRef> dtypeId = dtype ? dtype->getString("#") : std::nullopt;
  std::optional<proto::VarType::Type> t =
      dtypeId ? dtypeOfTypeName(typeName(*dtypeId)) : std::nullopt;
  if (!t) {
    why = "element type " + (dtypeId ? "'" + dtypeId->str() + "'" : std::string("(none)")) +
          " is not supported";
    return false;
  }
  const Array *dims = (*data)[1].getAsArray();
  if (!dims) {
    why = "dense tensor dims are not an array";
    return false;
  }
  out.kind = TypeInfo::Tensor;
  out.dtype = *t;
  for (const Value &d : *dims) {
    std::optional<int64_t> v = d.getAsInteger();
    if (!v || *v < -1) {
      why = "dense tensor dims must be integers >= -1";
      return false;
    }
    out.dims.push_back(*v);
  }
  return true;
}

bool PirReader::readAttr(const Value *at, PirAttr &out, std::string &why) {
  const Object *obj = at ? at->getAsObject() : nullptr;
  std::optional<llvm::StringRef> id = obj ? obj->getString("#") : std::nullopt;
  if (!id) {
    why = "attribute value without \"#\"";
    return false;
  }
  llvm::StringRef name = typeName(*id);
  const Value *d = obj->get("D");
  auto need = [&](bool ok) {
    if (!ok)
      why = "attribute of type '" + id->str() + "' has a malformed \"D\"";
    return ok;
  };
  if (name == "a_bool") {
    out.kind = PirAttr::Bool;
    return need(d && d->getAsBoolean() && ((out.b = *d->getAsBoolean()), true));
  }
  if (name == "a_i32" || name == "a_i64" || name == "a_index") {
    out.kind = name == "a_i32" ? PirAttr::I32 : PirAttr::I64;
    return need(d && d->getAsInteger() && ((out.i = *d->getAsInteger()), true));
  }
  if (name == "a_f32" || name == "a_f64") {
    out.kind = name == "a_f32" ? PirAttr::F32 : PirAttr::F64;
    if (std::optional<llvm::StringRef> special = obj->getString("VD")) {
      if (*special == "NaN")
        out.f = std::numeric_limits<double>::quiet_NaN();
      else if (*special == "INF")
        out.f = std::numeric_limits<double>::infinity();
      else if (*special == "-INF")
        out.f = -std::numeric_limits<double>::infinity();
      else
        return need(false);
      return true;
    }
    return need(d && d->getAsNumber() && ((out.f = *d->getAsNumber()), true));
  }
  if (name == "a_str" || name == "a_tensorname") {
    out.kind = PirAttr::Str;
    return need(d && d->getAsString() && ((out.s = d->getAsString()->str()), true));
  }
  if (name == "a_dtype") {
    out.kind = PirAttr::DType;
    return need(d && d->getAsString() && ((out.s = d->getAsString()->str()), true));
  }
  if (name == "a_intarray") {
    out.kind = PirAttr::IntArray;
    const Array *items = d ? d->getAsArray() : nullptr;
    if (!need(items != nullptr))
      return false;
    for (const Value &v : *items) {
      if (!need(v.getAsInteger().has_value()))
        return false;
      out.ints.push_back(*v.getAsInteger());
    }
    return true;
  }
  if (name == "a_array") {
    out.kind = PirAttr::Array;
    const Array *items = d ? d->getAsArray() : nullptr;
    if (!need(items != nullptr))
      return false;
    for (const Value &v : *items) {
      PirAttr element;
      if (!readAttr(&v, element, why))
        return false;
      out.elements.push_back(std::move(element));
    }
    return true;
  }
  out.kind = PirAttr::Other; // places, layouts, dist attributes: no Paddle 2 form
  out.s = id->str();
  return true;
}

std::string PirReader::uniqueName(const std::string &base) {
  std::string name = base;
  for (int n = 1; usedNames.count(name) || fetchReserved.count(name); ++n)
    name = base + "_" + std::to_string(n);
  usedNames.insert(name);
  return name;
}

void PirReader::addVar(const std::string &name, const TypeInfo &type, bool persistable) {
  proto::VarDesc *var = block.add_vars();
  var->set_name(name);
  proto::VarType *vt = var->mutable_type();
  vt->set_type(proto::VarType::LOD_TENSOR);
  proto::VarType::TensorDesc *tensor = vt->mutable_lod_tensor()->mutable_tensor();
  tensor->set_data_type(type.dtype);
  for (int64_t d : type.dims)
    tensor->add_dims(d);
  if (persistable)
    var->set_persistable(true);
}

/// Names result `k` of op `index` (id `id`): its fetch name, or
/// `<op>_<index>.tmp_<k>`; a vector result names each element.
bool PirReader::nameResult(size_t index, const std::string &shortName, size_t k, int64_t id,
                           const TypeInfo &type, std::vector<std::string> &names) {
  if (id <= 0)
    return failOp(index, "result " + std::to_string(k) + " has id " + std::to_string(id) +
                             "; results are numbered from 1");
  if (values.count(id) || aliases.count(id))
    return failOp(index, "result " + std::to_string(k) + " reuses value id " + std::to_string(id));
  ValueInfo &info = values[id];
  info.opIndex = static_cast<int>(index);
  info.type = type;
  std::string base = shortName + "_" + std::to_string(index) + ".tmp_" + std::to_string(k);
  if (type.kind == TypeInfo::Vector) {
    for (size_t e = 0; e < type.elements.size(); ++e) {
      if (type.elements[e].kind != TypeInfo::Tensor)
        return failOp(index, "result " + std::to_string(k) + " element " + std::to_string(e) +
                                 " is not a dense tensor");
      int64_t elementId = nextSyntheticId++;
      ValueInfo &element = values[elementId];
      element.opIndex = static_cast<int>(index);
      element.type = type.elements[e];
      auto fetched = elementFetchNames.find({id, static_cast<int64_t>(e)});
      if (fetched != elementFetchNames.end() && !usedNames.count(fetched->second)) {
        element.name = fetched->second;
        usedNames.insert(element.name);
      } else {
        element.name = uniqueName(base + "_" + std::to_string(e));
      }
      addVar(element.name, element.type);
      names.push_back(element.name);
      values[id].elementIds.push_back(elementId);
    }
    return true;
  }
  // A fetched value takes the fetch's name, which generated names avoid.
  auto fetched = fetchNames.find(id);
  if (fetched != fetchNames.end() && !usedNames.count(fetched->second)) {
    info.name = fetched->second;
    usedNames.insert(info.name);
  } else {
    info.name = uniqueName(base);
  }
  addVar(info.name, type);
  names.push_back(info.name);
  return true;
}

/// The variables value `id` stands for as an op input: one, or a vector's
/// elements for a variadic slot. A pd_op.full is written as fill_constant
/// on its first use as a tensor.
bool PirReader::tensorNames(size_t index, int64_t id, bool variadic,
                            std::vector<std::string> &out) {
  ValueInfo *info = lookup(id);
  if (!info)
    return failOp(index,
                  "operand reads value " + std::to_string(id) + ", which no earlier op defines");
  if (!info->elementIds.empty() || info->type.kind == TypeInfo::Vector) {
    if (!variadic)
      return failOp(index, "a vector value (builtin.combine) is given to a single-tensor slot");
    std::vector<int64_t> elements = info->elementIds;
    for (int64_t element : elements)
      if (!tensorNames(index, element, false, out))
        return false;
    return true;
  }
  if (info->isListConst)
    return failOp(index, "reads value " + std::to_string(id) + " of op #" +
                             std::to_string(info->opIndex) +
                             " 'pd_op.full_int_array' as a tensor; distc takes such lists "
                             "only as attributes");
  if (info->fullOp) {
    // Written now, under its own op's index; the constant stays known.
    ValueInfo constant = std::move(*info);
    values.erase(resolve(id));
    std::string savedName = currentName;
    size_t savedIndex = currentIndex;
    currentName = "pd_op.full";
    currentIndex = static_cast<size_t>(constant.opIndex);
    bool ok = emitMapped(currentIndex, *constant.fullOp, *pd::lookupPirForm("full"));
    currentName = savedName;
    currentIndex = savedIndex;
    if (!ok)
      return false;
    info = lookup(id);
    if (!info)
      return failOp(index, "pd_op.full of value " + std::to_string(id) + " has no result");
    info->isScalarConst = true;
    info->scalar = constant.scalar;
  }
  out.push_back(info->name);
  return true;
}

std::map<std::string, PirAttr> PirReader::attrsOf(size_t index, const Object &op, bool &ok,
                                                  llvm::StringRef key) {
  std::map<std::string, PirAttr> attrs;
  ok = true;
  const Array *list = op.getArray(key);
  if (!list)
    return attrs;
  for (const Value &entry : *list) {
    const Object *obj = entry.getAsObject();
    std::optional<llvm::StringRef> name = obj ? obj->getString("N") : std::nullopt;
    if (!name) {
      ok = failOp(index, "an attribute has no name (\"N\")");
      return attrs;
    }
    PirAttr attr;
    std::string why;
    if (!readAttr(obj->get("AT"), attr, why)) {
      ok = failOp(index, "attribute '" + name->str() + "': " + why);
      return attrs;
    }
    attrs[name->str()] = std::move(attr);
  }
  return attrs;
}

bool PirReader::attrToProto(const PirAttr &attr, std::optional<pd::AttrKind> kind,
                            proto::OpDesc::Attr &out) {
  using A = proto::AttrType;
  switch (attr.kind) {
  case PirAttr::Bool:
    out.set_type(A::BOOLEAN);
    out.set_b(attr.b);
    return true;
  case PirAttr::I32:
    out.set_type(A::INT);
    out.set_i(static_cast<int32_t>(attr.i));
    return true;
  case PirAttr::I64:
    out.set_type(A::LONG);
    out.set_l(attr.i);
    return true;
  case PirAttr::F32:
    out.set_type(A::FLOAT);
    out.set_f(toFloat(attr.f));
    return true;
  case PirAttr::F64:
    out.set_type(A::FLOAT64);
    out.set_float64(attr.f);
    return true;
  case PirAttr::Str:
    out.set_type(A::STRING);
    out.set_s(attr.s);
    return true;
  case PirAttr::IntArray:
    out.set_type(A::LONGS);
    for (int64_t v : attr.ints)
      out.add_longs(v);
    return true;
  case PirAttr::DType: {
    std::optional<int> t = dtypeOfDataTypeName(attr.s);
    if (!t)
      return false;
    out.set_type(A::INT);
    out.set_i(*t);
    return true;
  }
  case PirAttr::Array: {
    // The element kind decides (i32 and i64 mixed: i64); an empty list
    // takes the catalog's kind.
    std::optional<PirAttr::Kind> elementKind;
    for (const PirAttr &e : attr.elements) {
      bool isInt = e.kind == PirAttr::I32 || e.kind == PirAttr::I64;
      bool wasInt = elementKind == PirAttr::I32 || elementKind == PirAttr::I64;
      if (elementKind && isInt && wasInt)
        elementKind = e.kind == PirAttr::I64 ? PirAttr::I64 : *elementKind;
      else if (elementKind && *elementKind != e.kind)
        return false;
      else
        elementKind = e.kind;
    }
    if (!elementKind) {
      using K = pd::AttrKind;
      static const std::map<K, A> empties = {{K::Ints, A::INTS},       {K::Longs, A::LONGS},
                                             {K::Floats, A::FLOATS},   {K::Float64s, A::FLOAT64S},
                                             {K::Strings, A::STRINGS}, {K::Booleans, A::BOOLEANS}};
      auto it = kind ? empties.find(*kind) : empties.end();
      out.set_type(it == empties.end() ? A::STRINGS : it->second);
      return true;
    }
    for (const PirAttr &e : attr.elements) {
      switch (*elementKind) {
      case PirAttr::Bool:
        out.set_type(A::BOOLEANS);
        out.add_bools(e.b);
        break;
      case PirAttr::I32:
        out.set_type(A::INTS);
        out.add_ints(static_cast<int32_t>(e.i));
        break;
      case PirAttr::I64:
        out.set_type(A::LONGS);
        out.add_longs(e.i);
        break;
      case PirAttr::F32:
        out.set_type(A::FLOATS);
        out.add_floats(toFloat(e.f));
        break;
      case PirAttr::F64:
        out.set_type(A::FLOAT64S);
        out.add_float64s(e.f);
        break;
      case PirAttr::Str:
        out.set_type(A::STRINGS);
        out.add_strings(e.s);
        break;
      default:
        return false;
      }
    }
    return true;
  }
  case PirAttr::Other:
    return false;
  }
  return false;
}

/// The attribute a constant operand carries, as catalog kind `kind`.
bool PirReader::constantAttr(size_t index, int64_t id, pd::AttrKind kind,
                             proto::OpDesc::Attr &out) {
  using K = pd::AttrKind;
  using A = proto::AttrType;
  ValueInfo *info = lookup(id);
  if (!info)
    return failOp(index,
                  "operand reads value " + std::to_string(id) + ", which no earlier op defines");
  std::vector<double> items;
  bool list = false;
  if (info->isScalarConst) {
    items.push_back(info->scalar);
  } else if (info->isListConst) {
    list = true;
    for (int64_t v : info->ints)
      items.push_back(static_cast<double>(v));
  } else if (!info->elementIds.empty()) {
    list = true;
    for (int64_t element : info->elementIds) {
      ValueInfo *e = lookup(element);
      if (!e || !e->isScalarConst)
        return failOp(index, "attribute '" + std::string(out.name()) +
                                 "' is given as a list of tensors that are not all constants "
                                 "(pd_op.full); distc needs its value when compiling");
      items.push_back(e->scalar);
    }
  } else {
    std::string producer = info->opIndex >= 0 ? " of op #" + std::to_string(info->opIndex) : "";
    return failOp(index, "attribute '" + std::string(out.name()) + "' is given as value " +
                             std::to_string(id) + producer +
                             ", which is computed; distc needs a constant (pd_op.full or "
                             "pd_op.full_int_array)");
  }
  auto integral = [&](double v) {
    return std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9.2e18;
  };
  bool intKind = kind == K::Int || kind == K::Long || kind == K::Ints || kind == K::Longs;
  for (double v : items)
    if (intKind && !integral(v))
      return failOp(index, "attribute '" + std::string(out.name()) + "' must be an integer, got " +
                               llvm::formatv("{0}", v).str());
  bool listKind = kind == K::Ints || kind == K::Longs || kind == K::Floats || kind == K::Float64s ||
                  kind == K::Booleans;
  if (!listKind && (list || items.size() != 1))
    return failOp(index, "attribute '" + std::string(out.name()) + "' needs one value, got " +
                             std::to_string(items.size()));
  switch (kind) {
  case K::Int:
    out.set_type(A::INT);
    if (items[0] < std::numeric_limits<int32_t>::min() ||
        items[0] > std::numeric_limits<int32_t>::max())
      return failOp(index, "attribute '" + std::string(out.name()) + "' does not fit in INT");
    out.set_i(static_cast<int32_t>(items[0]));
    return true;
  case K::Long:
    out.set_type(A::LONG);
    out.set_l(static_cast<int64_t>(items[0]));
    return true;
  case K::Float:
    out.set_type(A::FLOAT);
    out.set_f(toFloat(items[0]));
    return true;
  case K::Float64:
    out.set_type(A::FLOAT64);
    out.set_float64(items[0]);
    return true;
  case K::Boolean:
    out.set_type(A::BOOLEAN);
    out.set_b(items[0] != 0);
    return true;
  case K::Ints:
  case K::Longs:
    out.set_type(A::LONGS);
    for (double v : items)
      out.add_longs(static_cast<int64_t>(v));
    return true;
  case K::Floats:
    out.set_type(A::FLOATS);
    for (double v : items)
      out.add_floats(toFloat(v));
    return true;
  case K::Float64s:
    out.set_type(A::FLOAT64S);
    for (double v : items)
      out.add_float64s(v);
    return true;
  case K::Booleans:
    out.set_type(A::BOOLEANS);
    for (double v : items)
      out.add_bools(v != 0);
    return true;
  default:
    return failOp(index, "attribute '" + std::string(out.name()) +
                             "' cannot be given as a tensor operand");
  }
}

bool PirReader::emitMapped(size_t index, const Object &op, const pd::PirForm &form) {
  const pd::OpSpec *spec = pd::lookupOp(form.type);
  if (!spec)
    return failOp(index, "its catalog op '" + std::string(form.type) + "' is unknown");
  auto slotSpec = [&](std::string_view slot) -> const pd::SlotSpec * {
    for (const pd::SlotSpec &s : spec->inputs)
      if (s.name == slot)
        return &s;
    return nullptr;
  };
  auto attrKind = [&](std::string_view name) -> std::optional<pd::AttrKind> {
    for (const pd::AttrSpec &a : spec->attrs)
      if (a.name == name)
        return a.kind;
    return std::nullopt;
  };

  std::vector<std::pair<std::string, std::vector<std::string>>> inputs, outputs;
  std::map<std::string, proto::OpDesc::Attr> attrs;
  std::map<std::string, int64_t> slotValue; // first value of each input slot

  const Array *operands = op.getArray("I");
  size_t numOperands = operands ? operands->size() : 0;
  if (numOperands > form.operands.size())
    return failOp(index, "has " + std::to_string(numOperands) + " operands; distc's form of it ('" +
                             std::string(form.type) + "') takes " +
                             std::to_string(form.operands.size()));
  for (size_t i = 0; i < numOperands; ++i) {
    const Object *operand = (*operands)[i].getAsObject();
    std::optional<int64_t> id = operand ? valueId(*operand) : std::nullopt;
    if (!id)
      return failOp(index, "operand " + std::to_string(i) + " has no value id (\"%\")");
    const pd::PirOperand &form_operand = form.operands[i];
    if (*id == 0)
      continue; // an absent optional operand
    if (!form_operand.slot.empty()) {
      const pd::SlotSpec *s = slotSpec(form_operand.slot);
      std::vector<std::string> names;
      if (!tensorNames(index, *id, s && s->variadic, names))
        return false;
      slotValue.emplace(std::string(form_operand.slot), resolve(*id));
      inputs.emplace_back(std::string(form_operand.slot), std::move(names));
    } else if (!form_operand.attr.empty()) {
      proto::OpDesc::Attr attr;
      attr.set_name(std::string(form_operand.attr));
      std::optional<pd::AttrKind> kind = attrKind(form_operand.attr);
      if (!kind || !constantAttr(index, *id, *kind, attr))
        return kind ? false
                    : failOp(index, "attribute '" + std::string(form_operand.attr) +
                                        "' is not in the catalog");
      attrs[attr.name()] = std::move(attr);
    } else {
      return failOp(index, "operand " + std::to_string(i) +
                               " is given, but distc does not support it (only its absence)");
    }
  }

  const Array *results = op.getArray("O");
  size_t numResults = results ? results->size() : 0;
  if (numResults > form.results.size())
    return failOp(index, "has " + std::to_string(numResults) + " results; distc's form of it ('" +
                             std::string(form.type) + "') has " +
                             std::to_string(form.results.size()));
  std::string shortName = currentName.substr(currentName.find('.') + 1);
  for (size_t k = 0; k < numResults; ++k) {
    const Object *result = (*results)[k].getAsObject();
    std::optional<int64_t> id = result ? valueId(*result) : std::nullopt;
    TypeInfo type;
    std::string why;
    if (!id)
      return failOp(index, "result " + std::to_string(k) + " has no value id (\"%\")");
    if (!readType(result->get("TT"), type, why))
      return failOp(index, "result " + std::to_string(k) + ": " + why);
    if (type.kind == TypeInfo::Null || *id == 0)
      continue;
    std::vector<std::string> names;
    if (!nameResult(index, shortName, k, *id, type, names))
      return false;
    outputs.emplace_back(std::string(form.results[k]), std::move(names));
  }

  bool ok = true;
  std::map<std::string, PirAttr> pirAttrs = attrsOf(index, op, ok);
  if (!ok)
    return false;
  for (const auto &[pirName, value] : pirAttrs) {
    std::string name = pirName;
    for (const auto &[from, to] : form.attrRenames)
      if (from == pirName)
        name = std::string(to);
    if (attrs.count(name))
      continue; // given by a constant operand
    std::optional<pd::AttrKind> kind = attrKind(name);
    proto::OpDesc::Attr attr;
    attr.set_name(name);
    if (!attrToProto(value, kind, attr)) {
      if (kind)
        return failOp(index, "attribute '" + pirName + "' has a value of type '" +
                                 (value.kind == PirAttr::Other ? value.s : std::string("list")) +
                                 "' that '" + name + "' of " + std::string(form.type) +
                                 " cannot take");
      continue; // places, layouts, dist attributes: nothing in Paddle 2 holds them
    }
    attrs[name] = std::move(attr);
  }
  for (const auto &[attrName, slot] : form.dtypeAttrs) {
    auto it = slotValue.find(std::string(slot));
    ValueInfo *info = it == slotValue.end() ? nullptr : lookup(it->second);
    if (!info || info->type.kind != TypeInfo::Tensor)
      continue;
    proto::OpDesc::Attr attr;
    attr.set_name(std::string(attrName));
    attr.set_type(proto::AttrType::INT);
    attr.set_i(info->type.dtype);
    attrs[attr.name()] = std::move(attr);
  }

  proto::OpDesc *desc = addOp();
  desc->set_type(std::string(form.type));
  for (auto &[slot, names] : inputs) {
    proto::OpDesc::Var *var = desc->add_inputs();
    var->set_parameter(slot);
    for (const std::string &n : names)
      var->add_arguments(n);
  }
  for (auto &[slot, names] : outputs) {
    proto::OpDesc::Var *var = desc->add_outputs();
    var->set_parameter(slot);
    for (const std::string &n : names)
      var->add_arguments(n);
  }
  for (auto &[name, attr] : attrs)
    *desc->add_attrs() = std::move(attr);
  return true;
}

bool PirReader::readParameter(size_t index, const Object &op) {
  // Compressed: "A": [is_distributed, is_parameter, need_clip, name] and
  // "OA": [persistable, stop_gradient, trainable]; the uncompressed
  // builtin.parameter has named attributes.
  const Object *result = op.getObject("O");
  if (!result)
    if (const Array *list = op.getArray("O"); list && list->size() == 1)
      result = (*list)[0].getAsObject();
  std::optional<int64_t> id = result ? valueId(*result) : std::nullopt;
  if (!id)
    return failOp(index, "a parameter needs one result with a value id");
  TypeInfo type;
  std::string why;
  if (!readType(result->get("TT"), type, why))
    return failOp(index, why);
  if (type.kind != TypeInfo::Tensor)
    return failOp(index, "a parameter must be a dense tensor");
  std::string name;
  bool isParameter = true, stopGradient = false;
  const Array *a = op.getArray("A");
  if (currentName == "p") {
    if (!a || a->size() != 4 || !(*a)[3].getAsString())
      return failOp(index, "a parameter needs its name: \"A\": [is_distributed, is_parameter, "
                           "need_clip, name]");
    name = (*a)[3].getAsString()->str();
    isParameter = (*a)[1].getAsInteger().value_or(1) != 0;
    if (const Array *oa = op.getArray("OA"); oa && oa->size() >= 2)
      stopGradient = (*oa)[1].getAsInteger().value_or(0) != 0;
  } else {
    bool ok = true;
    std::map<std::string, PirAttr> attrs = attrsOf(index, op, ok);
    if (!ok)
      return false;
    auto flag = [&](const char *key, bool fallback) {
      auto it = attrs.find(key);
      if (it == attrs.end())
        return fallback;
      const PirAttr &v = it->second;
      if (v.kind == PirAttr::Array && !v.elements.empty())
        return v.elements[0].b;
      return v.kind == PirAttr::Bool ? v.b : fallback;
    };
    auto it = attrs.find("parameter_name");
    if (it == attrs.end() || it->second.kind != PirAttr::Str)
      return failOp(index, "a parameter needs its name (\"A\": [.., .., .., \"name\"] or "
                           "attribute 'parameter_name')");
    name = it->second.s;
    isParameter = flag("is_parameter", true);
    stopGradient = flag("stop_gradient", false);
  }
  if (name.empty() || usedNames.count(name))
    return failOp(index, "parameter name '" + name + "' is empty or given twice");
  usedNames.insert(name);
  if (values.count(*id) || *id <= 0)
    return failOp(index, "parameter '" + name + "' has value id " + std::to_string(*id) +
                             ", which is not a new positive id");
  ValueInfo &info = values[*id];
  info.opIndex = static_cast<int>(index);
  info.type = type;
  info.name = name;
  addVar(name, type, /*persistable=*/true);
  proto::VarDesc &var = *block.mutable_vars(block.vars_size() - 1);
  if (isParameter)
    var.set_is_parameter(true);
  if (stopGradient)
    var.set_stop_gradient(true);
  return true;
}

bool PirReader::readFeed(size_t index, const Object &op) {
  bool ok = true;
  std::map<std::string, PirAttr> attrs = attrsOf(index, op, ok);
  if (!ok)
    return false;
  auto it = attrs.find("name");
  if (it == attrs.end() || it->second.kind != PirAttr::Str || it->second.s.empty())
    return failOp(index, "a feed needs its 'name' attribute");
  const Array *results = op.getArray("O");
  const Object *result = results && results->size() == 1 ? (*results)[0].getAsObject() : nullptr;
  std::optional<int64_t> id = result ? valueId(*result) : std::nullopt;
  if (!id || *id <= 0 || values.count(*id))
    return failOp(index, "a feed needs one result with a new value id");
  TypeInfo type;
  std::string why;
  if (!readType(result->get("TT"), type, why))
    return failOp(index, why);
  if (type.kind != TypeInfo::Tensor)
    return failOp(index, "a feed must be a dense tensor");
  std::string name = it->second.s;
  if (usedNames.count(name))
    return failOp(index, "feed name '" + name + "' is already a variable's");
  for (const auto &[key, value] : attrsOfResults(index, op, ok))
    if (key == "persistable" && value.kind == PirAttr::Array && !value.elements.empty() &&
        value.elements[0].kind == PirAttr::Bool && value.elements[0].b)
      return failOp(index, "'" + name +
                               "' is persistable: a training program's optimizer state, which "
                               "distc does not read from PIR programs");
  if (!ok)
    return false;
  usedNames.insert(name);
  ValueInfo &info = values[*id];
  info.opIndex = static_cast<int>(index);
  info.type = type;
  info.name = name;
  if (!declaredFeed) {
    proto::VarDesc *list = block.add_vars();
    list->set_name("feed");
    list->mutable_type()->set_type(proto::VarType::FEED_MINIBATCH);
    list->set_persistable(true);
    declaredFeed = true;
  }
  addVar(name, type);
  block.mutable_vars(block.vars_size() - 1)->set_need_check_feed(true);
  proto::OpDesc *feed = addOp();
  feed->set_type("feed");
  proto::OpDesc::Var *x = feed->add_inputs();
  x->set_parameter("X");
  x->add_arguments("feed");
  proto::OpDesc::Var *out = feed->add_outputs();
  out->set_parameter("Out");
  out->add_arguments(name);
  proto::OpDesc::Attr *col = feed->add_attrs();
  col->set_name("col");
  col->set_type(proto::AttrType::INT);
  col->set_i(feedCol++);
  return true;
}

bool PirReader::readFetch(size_t index, const Object &op) {
  const Array *operands = op.getArray("I");
  const Object *operand =
      operands && operands->size() == 1 ? (*operands)[0].getAsObject() : nullptr;
  std::optional<int64_t> id = operand ? valueId(*operand) : std::nullopt;
  if (!id)
    return failOp(index, "a fetch needs one operand");
  std::vector<std::string> names;
  if (!tensorNames(index, *id, false, names))
    return false;
  bool ok = true;
  std::map<std::string, PirAttr> attrs = attrsOf(index, op, ok);
  if (!ok)
    return false;
  // The fetched variable was named after the fetch (scanNames).
  int colValue = fetchCol;
  if (auto it = attrs.find("col"); it != attrs.end() && it->second.kind == PirAttr::I32)
    colValue = static_cast<int>(it->second.i);
  fetchCol = colValue + 1;
  if (!declaredFetch) {
    proto::VarDesc *list = block.add_vars();
    list->set_name("fetch");
    list->mutable_type()->set_type(proto::VarType::FETCH_LIST);
    list->set_persistable(true);
    declaredFetch = true;
  }
  proto::OpDesc *fetch = addOp();
  fetch->set_type("fetch");
  proto::OpDesc::Var *x = fetch->add_inputs();
  x->set_parameter("X");
  x->add_arguments(names[0]);
  proto::OpDesc::Var *out = fetch->add_outputs();
  out->set_parameter("Out");
  out->add_arguments("fetch");
  proto::OpDesc::Attr *col = fetch->add_attrs();
  col->set_name("col");
  col->set_type(proto::AttrType::INT);
  col->set_i(colValue);
  return true;
}

bool PirReader::readConstant(size_t index, const Object &op, bool list) {
  bool ok = true;
  std::map<std::string, PirAttr> attrs = attrsOf(index, op, ok);
  if (!ok)
    return false;
  const Array *results = op.getArray("O");
  const Object *result = results && results->size() == 1 ? (*results)[0].getAsObject() : nullptr;
  std::optional<int64_t> id = result ? valueId(*result) : std::nullopt;
  if (!id || *id <= 0 || values.count(*id))
    return failOp(index, "a constant needs one result with a new value id");
  TypeInfo type;
  std::string why;
  if (!readType(result->get("TT"), type, why))
    return failOp(index, why);
  ValueInfo &info = values[*id];
  info.opIndex = static_cast<int>(index);
  info.type = type;
  auto it = attrs.find("value");
  if (it == attrs.end())
    return failOp(index, "a constant needs its 'value' attribute");
  const PirAttr &value = it->second;
  if (list) {
    info.isListConst = true;
    if (value.kind == PirAttr::IntArray) {
      info.ints = value.ints;
    } else if (value.kind == PirAttr::Array) {
      for (const PirAttr &e : value.elements) {
        if (e.kind != PirAttr::I32 && e.kind != PirAttr::I64)
          return failOp(index, "'value' must be a list of integers");
        info.ints.push_back(e.i);
      }
    } else {
      return failOp(index, "'value' must be a list of integers");
    }
    return true;
  }
  switch (value.kind) {
  case PirAttr::Bool:
    info.scalar = value.b ? 1 : 0;
    break;
  case PirAttr::I32:
  case PirAttr::I64:
    info.scalar = static_cast<double>(value.i);
    break;
  case PirAttr::F32:
  case PirAttr::F64:
    info.scalar = value.f;
    break;
  default:
    return failOp(index, "'value' must be a number");
  }
  info.isScalarConst = true;
  info.fullOp = &op; // written as fill_constant when used as a tensor
  return true;
}

bool PirReader::readCombine(size_t index, const Object &op) {
  const Array *operands = op.getArray("I");
  const Array *results = op.getArray("O");
  const Object *result = results && results->size() == 1 ? (*results)[0].getAsObject() : nullptr;
  std::optional<int64_t> id = result ? valueId(*result) : std::nullopt;
  if (!operands || !id || *id <= 0 || values.count(*id))
    return failOp(index, "builtin.combine needs operands and one result with a new value id");
  ValueInfo &info = values[*id];
  info.opIndex = static_cast<int>(index);
  info.type.kind = TypeInfo::Vector;
  for (const Value &v : *operands) {
    const Object *operand = v.getAsObject();
    std::optional<int64_t> elementId = operand ? valueId(*operand) : std::nullopt;
    if (!elementId || !lookup(*elementId))
      return failOp(index, "an operand is not a value an earlier op defines");
    values[*id].elementIds.push_back(resolve(*elementId));
  }
  return true;
}

bool PirReader::readSplit(size_t index, const Object &op, bool slice) {
  const Array *operands = op.getArray("I");
  const Object *operand =
      operands && operands->size() == 1 ? (*operands)[0].getAsObject() : nullptr;
  std::optional<int64_t> id = operand ? valueId(*operand) : std::nullopt;
  ValueInfo *vector = id ? lookup(*id) : nullptr;
  if (!vector || vector->elementIds.empty())
    return failOp(index, "needs one operand that is a vector value");
  std::vector<int64_t> elements = vector->elementIds;
  const Array *results = op.getArray("O");
  if (!results)
    return failOp(index, "has no results");
  size_t first = 0;
  if (slice) {
    bool ok = true;
    std::map<std::string, PirAttr> attrs = attrsOf(index, op, ok);
    if (!ok)
      return false;
    auto it = attrs.find("index");
    if (it == attrs.end() || (it->second.kind != PirAttr::I32 && it->second.kind != PirAttr::I64))
      return failOp(index, "builtin.slice needs its 'index' attribute");
    if (it->second.i < 0)
      return failOp(index, "index " + std::to_string(it->second.i) + " is negative");
    first = static_cast<size_t>(it->second.i);
  }
  if (first + results->size() > elements.size())
    return failOp(index, "takes elements up to " + std::to_string(first + results->size()) +
                             " of a vector of " + std::to_string(elements.size()));
  for (size_t k = 0; k < results->size(); ++k) {
    const Object *result = (*results)[k].getAsObject();
    std::optional<int64_t> rid = result ? valueId(*result) : std::nullopt;
    if (!rid || *rid <= 0 || values.count(*rid) || aliases.count(*rid))
      return failOp(index, "result " + std::to_string(k) + " needs a new value id");
    aliases[*rid] = elements[first + k];
  }
  return true;
}

bool PirReader::readOp(size_t index, const Object &op) {
  std::string name = currentName;
  if (name == "p" || name == "builtin.parameter")
    return readParameter(index, op);
  if (name == "pd_op.data" || name == "pd_op.feed")
    return readFeed(index, op);
  if (name == "pd_op.fetch")
    return readFetch(index, op);
  if (name == "builtin.shadow_output")
    return readFetch(index, op);
  if (name == "pd_op.full")
    return readConstant(index, op, false);
  if (name == "pd_op.full_int_array")
    return readConstant(index, op, true);
  if (name == "builtin.combine")
    return readCombine(index, op);
  if (name == "builtin.split")
    return readSplit(index, op, false);
  if (name == "builtin.slice")
    return readSplit(index, op, true);
  llvm::StringRef short_ = name;
  short_.consume_front("pd_op.");
  return emitMapped(index, op, *formFor(short_));
}

/// Whether the reader handles op `name` by itself (structural ops).
bool isStructural(const std::string &name) {
  static const std::set<std::string> names = {"p",
                                              "builtin.parameter",
                                              "pd_op.data",
                                              "pd_op.feed",
                                              "pd_op.fetch",
                                              "builtin.shadow_output",
                                              "pd_op.full",
                                              "pd_op.full_int_array",
                                              "builtin.combine",
                                              "builtin.split",
                                              "builtin.slice"};
  return names.count(name) != 0;
}

/// First pass: op names (every unsupported one, once, in one message) and
/// the names fetches give their values.
bool PirReader::scanNames(const Array &ops) {
  std::vector<std::pair<std::string, size_t>> unsupported;
  std::set<std::string> seen;
  for (size_t i = 0; i < ops.size(); ++i) {
    const Object *op = ops[i].getAsObject();
    std::optional<llvm::StringRef> id = op ? op->getString("#") : std::nullopt;
    if (!id)
      return fail("op #" + std::to_string(i) + ": not an object with an op name (\"#\")");
    std::string name = opName(*id);
    llvm::StringRef short_ = name;
    bool pdOp = short_.consume_front("pd_op.");
    bool known = isStructural(name) || (pdOp && formFor(short_));
    if (op->get("regions"))
      known = false; // control flow
    if (!known && seen.insert(name).second)
      unsupported.emplace_back(name, i);
    if (name == "pd_op.fetch" || name == "builtin.shadow_output") {
      const Array *operands = op->getArray("I");
      const Object *operand =
          operands && operands->size() == 1 ? (*operands)[0].getAsObject() : nullptr;
      std::optional<int64_t> vid = operand ? valueId(*operand) : std::nullopt;
      bool ok = true;
      currentName = name;
      std::map<std::string, PirAttr> attrs = attrsOf(i, *op, ok);
      if (!ok)
        return false;
      auto it = attrs.find(name == "pd_op.fetch" ? "name" : "output_name");
      if (vid && it != attrs.end() && it->second.kind == PirAttr::Str && !it->second.s.empty()) {
        fetchNames.emplace(*vid, it->second.s);
        fetchReserved.insert(it->second.s);
      }
    }
  }
  // A fetched element of a vector (builtin.split / builtin.slice of split's
  // results) names that element.
  for (size_t i = 0; i < ops.size(); ++i) {
    const Object &op = *ops[i].getAsObject();
    std::string name = opName(*op.getString("#"));
    if (name != "builtin.split" && name != "builtin.slice")
      continue;
    const Array *operands = op.getArray("I");
    const Array *results = op.getArray("O");
    const Object *operand =
        operands && operands->size() == 1 ? (*operands)[0].getAsObject() : nullptr;
    std::optional<int64_t> vector = operand ? valueId(*operand) : std::nullopt;
    if (!vector || !results)
      continue; // readSplit reports it
    int64_t first = 0;
    if (name == "builtin.slice") {
      bool ok = true;
      currentName = name;
      std::map<std::string, PirAttr> attrs = attrsOf(i, op, ok);
      if (!ok)
        return false;
      auto it = attrs.find("index");
      first = it == attrs.end() ? 0 : it->second.i;
    }
    for (size_t k = 0; k < results->size(); ++k) {
      const Object *result = (*results)[k].getAsObject();
      std::optional<int64_t> id = result ? valueId(*result) : std::nullopt;
      auto fetched = id ? fetchNames.find(*id) : fetchNames.end();
      if (fetched != fetchNames.end())
        elementFetchNames.emplace(std::make_pair(*vector, first + static_cast<int64_t>(k)),
                                  fetched->second);
    }
  }
  if (unsupported.empty())
    return true;
  std::string message = unsupported.size() == 1 ? "unsupported op: " : "unsupported ops: ";
  for (size_t k = 0; k < unsupported.size(); ++k)
    message += (k ? ", '" : "'") + unsupported[k].first + "' (first at op #" +
               std::to_string(unsupported[k].second) + ")";
  return fail(message + "; distc has no form of " + (unsupported.size() == 1 ? "it" : "them") +
              " (docs/programs.md lists the PIR ops it reads)");
}

bool PirReader::run(const Value &root) {
  const Object *top = root.getAsObject();
  if (!top)
    return fail("malformed PIR program: the top level is not an object");
  const Object *base = top->getObject("base_code");
  if (!base)
    return fail("malformed PIR program: no \"base_code\" object");
  std::optional<llvm::StringRef> magic = base->getString("magic");
  if (!magic || *magic != "pir")
    return fail("not a PIR program: base_code.magic is " +
                (magic ? "'" + magic->str() + "'" : std::string("missing")) + ", expected 'pir'");
  std::optional<int64_t> version = base->getInteger("version");
  if (!version)
    return fail("malformed PIR program: base_code.version is missing or not an integer");
  if (*version < kMinPirVersion || *version > kMaxPirVersion)
    return fail("PIR version " + std::to_string(*version) + " is not supported (supported: " +
                std::to_string(kMinPirVersion) + " to " + std::to_string(kMaxPirVersion) + ")");
  const Object *program = top->getObject("program");
  const Array *regions = program ? program->getArray("regions") : nullptr;
  if (!regions || regions->size() != 1)
    return fail("malformed PIR program: program.regions must hold exactly one region");
  const Object *region = (*regions)[0].getAsObject();
  const Array *blocks = region ? region->getArray("blocks") : nullptr;
  if (!blocks || blocks->empty())
    return fail("malformed PIR program: the region has no blocks");
  if (blocks->size() != 1)
    return fail("the program has " + std::to_string(blocks->size()) +
                " top-level blocks; only one is supported");
  const Object *blockJson = (*blocks)[0].getAsObject();
  const Array *ops = blockJson ? blockJson->getArray("ops") : nullptr;
  if (!ops)
    return fail("malformed PIR program: block 0 has no \"ops\" array");
  if (const Array *args = blockJson->getArray("args"); args && !args->empty())
    return fail("block 0 has arguments; a top-level block has none");

  block.set_idx(0);
  block.set_parent_idx(-1);
  if (!scanNames(*ops))
    return false;
  for (size_t i = 0; i < ops->size(); ++i) {
    const Object &op = *(*ops)[i].getAsObject();
    currentName = opName(*op.getString("#"));
    currentIndex = i;
    if (!readOp(i, op))
      return false;
  }
  if (block.ops_size() == 0)
    return fail("empty program: no ops besides parameters and constants");
  return true;
}

} // namespace

bool isPirProgram(std::string_view bytes) {
  static constexpr std::string_view key = "\"base_code\"";
  if (bytes.find(key) == std::string_view::npos)
    return false;
  llvm::Expected<Value> root = llvm::json::parse(llvm::StringRef(bytes.data(), bytes.size()));
  if (!root) {
    // Malformed JSON naming base_code: the PIR reader says where it breaks.
    llvm::consumeError(root.takeError());
    return true;
  }
  const Object *top = root->getAsObject();
  return top && top->get("base_code");
}

bool pirToProgramDesc(std::string_view bytes, std::string_view sourceName,
                      programdesc::ProgramDesc &program, std::string &error,
                      std::vector<std::string> *opOrigins) {
  std::string prefix = std::string(sourceName) + ": ";
  llvm::Expected<Value> root = llvm::json::parse(llvm::StringRef(bytes.data(), bytes.size()));
  if (!root) {
    error = prefix + "malformed JSON: " + llvm::toString(root.takeError());
    return false;
  }
  program.Clear();
  PirReader reader(*program.add_blocks());
  if (!reader.run(*root)) {
    error = prefix + reader.error();
    return false;
  }
  if (opOrigins)
    *opOrigins = std::move(reader.origins);
  return true;
}

} // namespace distc
