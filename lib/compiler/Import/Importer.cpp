//===- Importer.cpp - Paddle programs to the pd dialect -------------------===//
//
// A ProgramDesc block is a list of ops reading and writing named variables;
// the importer walks it once, keeping for every variable name the SSA value
// that currently holds it. Persistable variables become module-level
// `pd.var`s, read on first use (`pd.read_var`) and written back where an op
// produces them (`pd.write_var`), so in-place updates stay visible.
//
// Result types come from Paddle's inference (ShapeInference.h) and are
// reconciled with the VarDesc declarations: declarations may add static
// dims the inference cannot know, but never contradict it.
//
//===----------------------------------------------------------------------===//

#include "distc/Import/Import.h"

#include "distc/Dialect/Pd/OpAttributes.h"
#include "distc/Dialect/Pd/OpCatalog.h"
#include "distc/Dialect/Pd/PdDialect.h"
#include "distc/Dialect/Pd/PdOps.h"
#include "distc/Dialect/Pd/ShapeInference.h"
#include "distc/Import/Conversions.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <vector>

using namespace mlir;

namespace distc {
namespace {

namespace proto = ::paddle::framework::proto;
using importer::attrTypeName;

constexpr llvm::StringLiteral kOutNames("pd.out_names");

bool isFeedFetchListType(proto::VarType::Type type) {
  return type == proto::VarType::FEED_MINIBATCH || type == proto::VarType::FETCH_LIST ||
         type == proto::VarType::FEED_LIST || type == proto::VarType::FETCH_VAR_LIST;
}

std::string quoteList(llvm::ArrayRef<std::string_view> names) {
  std::string out;
  for (std::string_view name : names) {
    if (!out.empty())
      out += ", ";
    out += std::string(name);
  }
  return out.empty() ? "none" : out;
}

/// The persistable variables of the module: one `pd.var` each.
struct VarTable {
  llvm::StringMap<RankedTensorType> tensors;
  /// Persistable variables that are not tensors (readers, step scopes, ...):
  /// declared but unusable; using one is an error.
  llvm::StringMap<std::string> unusable;
  /// The persistable RAW variables among them: c_gen_nccl_id may write one
  /// (the communicator id) for c_comm_init to read; no other op may use them.
  llvm::StringSet<> raw;
};

/// Imports one program (block 0 of a ProgramDesc) into a `pd.program`.
class ProgramImporter {
public:
  ProgramImporter(MLIRContext &ctx, const VarTable &vars, StringRef source,
                  ArrayRef<std::string> opOrigins = {})
      : ctx(ctx), vars(vars), builder(&ctx), feedBuilder(&ctx),
        fileLoc(FileLineColLoc::get(&ctx, source, 0, 0)), opOrigins(opOrigins) {}

  LogicalResult run(const proto::BlockDesc &block, pd::ProgramOp program);

private:
  Location opLoc(int index, const proto::OpDesc &op);
  /// Fails naming every op type of `block` that the dialect lacks.
  LogicalResult checkOpTypes(const proto::BlockDesc &block);
  Location varLoc(StringRef name) {
    return NameLoc::get(StringAttr::get(&ctx, "variable '" + name + "'"), fileLoc);
  }

  LogicalResult importOp(int index, const proto::OpDesc &op);
  LogicalResult importFeed(Location loc, const proto::OpDesc &op);
  /// The `col` attribute of a feed or fetch op (0 when absent).
  FailureOr<int32_t> importColumn(Location loc, const proto::OpDesc &op);
  LogicalResult importFetch(Location loc, const proto::OpDesc &op);
  LogicalResult importCatalogOp(Location loc, const proto::OpDesc &op, const pd::OpSpec &spec);
  /// The steps of importCatalogOp: operands by catalog input slot, and the
  /// names and types of the results by catalog output slot.
  struct CatalogOperands {
    SmallVector<Value> values;
    SmallVector<SmallVector<Type, 1>> typesBySlot;
    SmallVector<int32_t> segments;
  };
  LogicalResult importOperands(Location loc, const pd::OpSpec &spec,
                               const llvm::StringMap<const proto::OpDesc::Var *> &given,
                               CatalogOperands &out);
  struct CatalogResults {
    SmallVector<Type> types;
    SmallVector<std::string> names;
    SmallVector<int32_t> segments;
  };
  LogicalResult nameResults(Location loc, const pd::OpSpec &spec,
                            const llvm::StringMap<const proto::OpDesc::Var *> &given,
                            ArrayRef<SmallVector<Type, 1>> resultsBySlot, CatalogResults &out);

  /// The value variable `name` holds before the current op, creating a
  /// read_var or an implicit feed on first use.
  FailureOr<Value> lookupInput(Location loc, StringRef slot, const std::string &name);

  /// Common and unknown attributes, generic mapping (`skip` names handled
  /// by the caller).
  LogicalResult importExtraAttrs(Location loc, const proto::OpDesc &op,
                                 const llvm::StringSet<> &skip, NamedAttrList &out,
                                 std::optional<RegisteredOperationName> opName);

  /// The type of output `name`: the inferred one, refined by its VarDesc.
  FailureOr<Type> reconcile(Location loc, StringRef slot, const std::string &name, Type inferred);

  /// Records that `value` now holds `name`, writing persistables back.
  LogicalResult define(Location loc, const std::string &name, Value value);

  /// `op` with the input slots that stand for attributes
  /// (OpSpec::foldedInputs) replaced by those attributes, or nullopt when
  /// it gives none; fails naming a slot whose value is computed at run time.
  FailureOr<std::optional<proto::OpDesc>> foldInputs(Location loc, const proto::OpDesc &op,
                                                     const pd::OpSpec &spec);
  /// Records the value `op` (just imported) produced when it is known at
  /// compile time: fill_constant, shape of a static tensor, assign and cast
  /// of such values.
  void recordKnownValue(const proto::OpDesc &op);

  /// True when `name` is declared as a RAW variable (persistable or not).
  bool isRawVariable(StringRef name) const;
  /// Checks the uses of RAW variables by `op`: only c_gen_nccl_id writes
  /// one (its communicator id) and only c_comm_init reads one, which a
  /// c_gen_nccl_id of this program must have written.
  LogicalResult checkRawVariables(Location loc, const proto::OpDesc &op);

  /// coalesce_tensor's Output variables alias its FusedOutput: a group per
  /// fused variable, so that reading an Output after the fused variable
  /// changed (scaled, all-reduced in place) reads the new slices.
  struct FusedGroup {
    std::vector<std::string> members;
    SmallVector<int64_t> offsets;
    SmallVector<Type> types;
    Value slicedFrom; // the fused value the members' values are slices of
  };
  LogicalResult recordCoalesce(Location loc, Operation *coalesce,
                               ArrayRef<std::string> resultNames);
  /// Rebinds the members of `group` to slices of its fused variable's
  /// current value when that changed.
  void refreshSlices(StringRef fusedName, FusedGroup &group);

  MLIRContext &ctx;
  const VarTable &vars;
  OpBuilder builder;
  OpBuilder feedBuilder; // where implicit feeds go: the top of the block
  Location fileLoc;
  llvm::StringMap<const proto::VarDesc *> varDescs;
  llvm::StringMap<Value> env;
  bool hasExplicitFeeds = false;
  int32_t nextImplicitCol = 0;
  llvm::StringMap<FusedGroup> fusedGroups;    // by fused variable
  llvm::StringMap<std::string> fusedMemberOf; // coalesced variable -> fused variable
  Operation *defining = nullptr;              // the op whose results are being defined
  /// Values known at compile time, by variable (recordKnownValue).
  llvm::StringMap<std::vector<double>> known;
  ArrayRef<std::string> opOrigins; // per op: where it comes from, if given
};

Location ProgramImporter::opLoc(int index, const proto::OpDesc &op) {
  // An op read from another form is named as it is there, with its type.
  bool origin = index < static_cast<int>(opOrigins.size());
  std::string text = origin ? opOrigins[index] + " ('" + op.type() + "'"
                            : "op #" + std::to_string(index) + " '" + op.type() + "'";
  for (const auto &slot : op.outputs())
    if (slot.arguments_size() > 0) {
      text += (origin ? ", output " : " (output ") + slot.arguments(0) + ")";
      origin = false;
      break;
    }
  if (origin)
    text += ")";
  return NameLoc::get(StringAttr::get(&ctx, text), fileLoc);
}

LogicalResult ProgramImporter::run(const proto::BlockDesc &block, pd::ProgramOp program) {
  for (const proto::VarDesc &var : block.vars())
    if (!varDescs.try_emplace(var.name(), &var).second)
      return emitError(varLoc(var.name())) << "variable declared twice in block 0";
  for (const proto::OpDesc &op : block.ops())
    if (op.type() == "feed")
      hasExplicitFeeds = true;
  if (failed(checkOpTypes(block)))
    return failure();

  Block &body = program.getBody().front();
  builder.setInsertionPointToEnd(&body);
  feedBuilder.setInsertionPointToStart(&body);
  for (int i = 0; i < block.ops_size(); ++i)
    if (failed(importOp(i, block.ops(i))))
      return failure();
  return success();
}

LogicalResult ProgramImporter::checkOpTypes(const proto::BlockDesc &block) {
  // Every type the dialect lacks, with its first op, in program order: a
  // model that needs several gets one message listing them all.
  llvm::SmallVector<std::pair<std::string, int>> unknown;
  llvm::StringSet<> seen;
  for (int i = 0; i < block.ops_size(); ++i) {
    const std::string &type = block.ops(i).type();
    if (type != "feed" && type != "fetch" && !pd::lookupOp(type) && seen.insert(type).second)
      unknown.emplace_back(type, i);
  }
  if (unknown.empty())
    return success();
  const auto &[firstType, firstIndex] = unknown.front();
  InFlightDiagnostic error = emitError(opLoc(firstIndex, block.ops(firstIndex)));
  if (unknown.size() == 1)
    return error << "unknown op type '" << firstType << "': the pd dialect does not model it";
  error << unknown.size() << " unknown op types (the pd dialect does not model them): ";
  for (size_t k = 0; k < unknown.size(); ++k)
    error << (k ? ", " : "") << "'" << unknown[k].first << "' (" << (k ? "" : "first at ") << "op #"
          << unknown[k].second << ")";
  return error;
}

LogicalResult ProgramImporter::importOp(int index, const proto::OpDesc &op) {
  Location loc = opLoc(index, op);
  if (op.type() == "feed")
    return importFeed(loc, op);
  if (op.type() == "fetch")
    return importFetch(loc, op);
  const pd::OpSpec *spec = pd::lookupOp(op.type());
  assert(spec && "checkOpTypes refused unknown op types before any op was imported");
  FailureOr<std::optional<proto::OpDesc>> folded = foldInputs(loc, op, *spec);
  if (failed(folded))
    return failure();
  const proto::OpDesc &effective = *folded ? **folded : op;
  if (failed(importCatalogOp(loc, effective, *spec)))
    return failure();
  recordKnownValue(effective);
  return success();
}

/// Finds the single argument of slot `slot` in `slots`.
const proto::OpDesc::Var *
findSlot(const google::protobuf::RepeatedPtrField<proto::OpDesc::Var> &slots,
         std::string_view slot) {
  for (const auto &var : slots)
    if (var.parameter() == slot)
      return &var;
  return nullptr;
}

const proto::OpDesc::Attr *findAttr(const proto::OpDesc &op, std::string_view name) {
  for (const auto &attr : op.attrs())
    if (attr.name() == name)
      return &attr;
  return nullptr;
}

/// Sets attribute `name` of `op` (replacing it) to `values` as `kind`;
/// false with `error` when they do not fit it.
static bool setAttr(proto::OpDesc &op, std::string_view name, pd::AttrKind kind,
                    const std::vector<double> &values, std::string &error) {
  for (double v : values)
    if (kind != pd::AttrKind::Float && kind != pd::AttrKind::Floats &&
        kind != pd::AttrKind::Float64 && kind != pd::AttrKind::Float64s &&
        (v != std::floor(v) || std::fabs(v) > 9.0e15)) {
      error = "holds " + std::to_string(v) + ", not an integer";
      return false;
    }
  const bool list = kind == pd::AttrKind::Ints || kind == pd::AttrKind::Longs ||
                    kind == pd::AttrKind::Floats || kind == pd::AttrKind::Float64s;
  if (!list && values.size() != 1) {
    error = "holds " + std::to_string(values.size()) + " values for one";
    return false;
  }
  auto *attrs = op.mutable_attrs();
  for (int i = 0; i < attrs->size(); ++i)
    if (attrs->Get(i).name() == name) {
      attrs->DeleteSubrange(i, 1);
      break;
    }
  proto::OpDesc::Attr *attr = op.add_attrs();
  attr->set_name(std::string(name));
  attr->set_type(static_cast<proto::AttrType>(kind));
  for (double v : values)
    switch (kind) {
    case pd::AttrKind::Int:
      attr->set_i(static_cast<int32_t>(v));
      break;
    case pd::AttrKind::Long:
      attr->set_l(static_cast<int64_t>(v));
      break;
    case pd::AttrKind::Float:
      attr->set_f(static_cast<float>(v));
      break;
    case pd::AttrKind::Float64:
      attr->set_float64(v);
      break;
    case pd::AttrKind::Ints:
      attr->add_ints(static_cast<int32_t>(v));
      break;
    case pd::AttrKind::Longs:
      attr->add_longs(static_cast<int64_t>(v));
      break;
    case pd::AttrKind::Floats:
      attr->add_floats(static_cast<float>(v));
      break;
    case pd::AttrKind::Float64s:
      attr->add_float64s(v);
      break;
    default:
      error = "cannot stand for a non-numeric attribute";
      return false;
    }
  return true;
}

FailureOr<std::optional<proto::OpDesc>>
ProgramImporter::foldInputs(Location loc, const proto::OpDesc &op, const pd::OpSpec &spec) {
  std::optional<proto::OpDesc> out;
  for (const pd::FoldedInput &fold : spec.foldedInputs) {
    const proto::OpDesc::Var *slot = findSlot(op.inputs(), fold.slot);
    if (!slot || slot->arguments_size() == 0)
      continue;
    std::vector<double> values;
    std::string runTimeName; // a variable with an element computed at run time
    for (const std::string &name : slot->arguments()) {
      auto it = known.find(name);
      if (it == known.end())
        return emitError(loc) << "input slot '" << fold.slot << "' reads '" << name
                              << "', which is computed at run time; distc needs its value "
                                 "when compiling (give attribute '"
                              << fold.attrs.front() << "' instead)";
      if (runTimeName.empty() && llvm::any_of(it->second, [](double v) { return std::isnan(v); }))
        runTimeName = name;
      values.insert(values.end(), it->second.begin(), it->second.end());
    }
    // Elements computed at run time (a dynamic dim, from `shape`): one may
    // stand as -1 where the attribute infers it.
    const auto unknown = llvm::count_if(values, [](double v) { return std::isnan(v); });
    if (unknown > 0 && !(fold.unknownAsInferred && unknown == 1))
      return emitError(loc) << "input slot '" << fold.slot << "' holds " << unknown
                            << (unknown == 1 ? " value" : " values")
                            << " computed at run time (a dynamic dim, e.g. of '" << runTimeName
                            << "'); "
                            << (fold.unknownAsInferred
                                    ? "distc infers one (as -1) but needs the others"
                                    : "distc needs every value")
                            << " when compiling (give attribute '" << fold.attrs.front()
                            << "' instead)";
    for (double &v : values)
      if (std::isnan(v))
        v = -1; // inferred
    if (fold.attrs.size() > 1 && values.size() != fold.attrs.size())
      return emitError(loc) << "input slot '" << fold.slot << "' holds " << values.size()
                            << " values for the " << fold.attrs.size()
                            << " attributes it stands for";
    if (!out)
      out = op;
    for (size_t k = 0; k < fold.attrs.size(); ++k) {
      const pd::AttrSpec *attr = nullptr;
      for (const pd::AttrSpec &a : spec.attrs)
        if (a.name == fold.attrs[k])
          attr = &a;
      std::vector<double> part = fold.attrs.size() == 1 ? values : std::vector<double>{values[k]};
      std::string error;
      if (!attr || !setAttr(*out, fold.attrs[k], attr->kind, part, error))
        return emitError(loc) << "input slot '" << fold.slot << "' " << error << " (attribute '"
                              << fold.attrs[k] << "')";
    }
    auto *inputs = out->mutable_inputs();
    for (int i = 0; i < inputs->size(); ++i)
      if (inputs->Get(i).parameter() == fold.slot) {
        inputs->DeleteSubrange(i, 1);
        break;
      }
  }
  return out;
}

void ProgramImporter::recordKnownValue(const proto::OpDesc &op) {
  // Small values only: shapes, axes, sizes.
  constexpr int64_t kMaxKnown = 4096;
  auto only = [&](const auto &slots, std::string_view name) -> std::string {
    const proto::OpDesc::Var *slot = findSlot(slots, name);
    return slot && slot->arguments_size() == 1 ? slot->arguments(0) : std::string();
  };
  const std::string out = only(op.outputs(), "Out");
  if (out.empty())
    return;
  if (op.type() == "fill_constant") {
    const proto::OpDesc::Attr *shape = findAttr(op, "shape");
    const proto::OpDesc::Attr *value = findAttr(op, "value");
    const proto::OpDesc::Attr *text = findAttr(op, "str_value");
    int64_t count = 1;
    if (shape)
      for (int64_t d : shape->longs())
        count = d < 0 || count * std::max<int64_t>(d, 1) > kMaxKnown ? kMaxKnown + 1 : count * d;
    double v = value ? value->f() : 0.0;
    if (text && !text->s().empty()) {
      char *end = nullptr;
      v = std::strtod(text->s().c_str(), &end);
      if (*end != '\0')
        return;
    }
    if (count <= kMaxKnown)
      known[out] = std::vector<double>(static_cast<size_t>(count), v);
  } else if (op.type() == "shape") {
    // A dynamic dim (the batch) is NaN: known to exist, not its value.
    auto type = dyn_cast<RankedTensorType>(env.lookup(only(op.inputs(), "Input")).getType());
    if (type) {
      std::vector<double> dims;
      for (int64_t d : type.getShape())
        dims.push_back(ShapedType::isDynamic(d) ? std::nan("") : double(d));
      known[out] = std::move(dims);
    }
  } else if (op.type() == "slice") {
    // Elements of a known 1-D value, as `paddle.shape(x)[i]` writes it.
    auto it = known.find(only(op.inputs(), "Input"));
    const proto::OpDesc::Attr *axes = findAttr(op, "axes"), *starts = findAttr(op, "starts"),
                              *ends = findAttr(op, "ends");
    if (it == known.end() || !axes || !starts || !ends || axes->ints_size() != 1 ||
        axes->ints(0) != 0 || starts->ints_size() != 1 || ends->ints_size() != 1)
      return;
    const int64_t size = static_cast<int64_t>(it->second.size());
    auto clamp = [&](int64_t i) { return std::clamp<int64_t>(i < 0 ? i + size : i, 0, size); };
    const int64_t begin = clamp(starts->ints(0)), end = clamp(ends->ints(0));
    if (begin < end)
      known[out] = std::vector<double>(it->second.begin() + begin, it->second.begin() + end);
  } else if (op.type() == "assign" || op.type() == "cast") {
    auto it = known.find(only(op.inputs(), "X"));
    if (it != known.end()) {
      std::vector<double> values = it->second;
      const proto::OpDesc::Attr *to = findAttr(op, "out_dtype");
      // Paddle's VarType FP16, FP32, FP64, BF16 keep fractions.
      bool floating = !to || to->i() == 4 || to->i() == 5 || to->i() == 6 || to->i() == 22;
      if (!floating)
        for (double &v : values)
          v = std::trunc(v);
      known[out] = std::move(values);
    }
  }
}

LogicalResult ProgramImporter::importExtraAttrs(Location loc, const proto::OpDesc &op,
                                                const llvm::StringSet<> &skip, NamedAttrList &out,
                                                std::optional<RegisteredOperationName> opName) {
  llvm::StringSet<> seen;
  for (const auto &attr : op.attrs()) {
    if (!seen.insert(attr.name()).second)
      return emitError(loc) << "attribute '" << attr.name() << "' given twice";
    // Python tracebacks of the program's construction, not its meaning.
    if (attr.name() == "op_callstack" || skip.contains(attr.name()))
      continue;
    StringRef name = attr.name();
    bool reserved =
        name.empty() || name.starts_with("pd.") || name.contains('.') ||
        (opName && llvm::is_contained(opName->getAttributeNames(), StringAttr::get(&ctx, name)));
    if (reserved)
      return emitError(loc) << "attribute name '" << name
                            << "' cannot be represented (empty, dotted or reserved)";
    std::string error;
    Attribute value = importer::importAttrGeneric(&ctx, attr, error);
    if (!value)
      return emitError(loc) << "attribute '" << name << "' " << error;
    out.append(name, value);
  }
  return success();
}

FailureOr<Value> ProgramImporter::lookupInput(Location loc, StringRef slot,
                                              const std::string &name) {
  if (auto member = fusedMemberOf.find(name); member != fusedMemberOf.end())
    refreshSlices(member->second, fusedGroups[member->second]);
  auto it = env.find(name);
  if (it != env.end())
    return it->second;

  auto persistable = vars.tensors.find(name);
  if (persistable != vars.tensors.end()) {
    OperationState state(varLoc(name), pd::ReadVarOp::getOperationName());
    state.addAttribute("var", FlatSymbolRefAttr::get(&ctx, name));
    state.addTypes(persistable->second);
    Value value = builder.create(state)->getResult(0);
    env[name] = value;
    return value;
  }
  auto unusable = vars.unusable.find(name);
  if (unusable != vars.unusable.end())
    return emitError(loc) << "input slot '" << slot << "' reads persistable variable '" << name
                          << "', which " << unusable->second;

  auto desc = varDescs.find(name);
  if (desc == varDescs.end())
    return emitError(loc) << "input slot '" << slot << "' reads undefined variable '" << name
                          << "'";
  if (hasExplicitFeeds)
    return emitError(loc) << "input slot '" << slot << "' reads variable '" << name
                          << "' before any op writes it, and no feed op provides it";

  // Programs saved without feed ops (training programs built in Python)
  // read their data variables directly: those are the inputs.
  std::string error;
  RankedTensorType type = importer::importVarType(&ctx, *desc->second, error);
  if (!type)
    return emitError(loc) << "input variable '" << name << "' " << error;
  OperationState state(varLoc(name), pd::FeedOp::getOperationName());
  state.addAttribute("col", feedBuilder.getI32IntegerAttr(nextImplicitCol++));
  state.addAttribute(kOutNames, feedBuilder.getStrArrayAttr({name}));
  state.addTypes(type);
  Operation *feed = feedBuilder.create(state);
  feedBuilder.setInsertionPointAfter(feed);
  env[name] = feed->getResult(0);
  return feed->getResult(0);
}

FailureOr<Type> ProgramImporter::reconcile(Location loc, StringRef slot, const std::string &name,
                                           Type inferred) {
  if (name.empty())
    return inferred;
  Type declared;
  auto persistable = vars.tensors.find(name);
  if (persistable != vars.tensors.end()) {
    declared = persistable->second;
  } else if (auto unusable = vars.unusable.find(name); unusable != vars.unusable.end()) {
    return emitError(loc) << "output slot '" << slot << "' writes persistable variable '" << name
                          << "', which " << unusable->second;
  } else if (auto desc = varDescs.find(name); desc != varDescs.end()) {
    std::string error;
    declared = importer::importVarType(&ctx, *desc->second, error);
    if (!declared)
      return emitError(loc) << "output variable '" << name << "' " << error;
  } else {
    return inferred; // undeclared intermediates are typed by inference alone
  }

  if (!pd::isCompatibleWithInferred(declared, inferred))
    return emitError(loc) << "output '" << name << "' (slot " << slot << ") is declared as "
                          << importer::describeTensorType(declared) << " but the op computes "
                          << importer::describeTensorType(inferred);
  auto d = cast<RankedTensorType>(declared);
  auto i = dyn_cast<RankedTensorType>(inferred);
  if (!i)
    return declared;
  if (d.getRank() != i.getRank()) // a scalar written as [1] or as 0-D
    return d.hasStaticShape() ? declared : inferred;
  SmallVector<int64_t> shape;
  for (auto [dd, id] : llvm::zip_equal(d.getShape(), i.getShape()))
    shape.push_back(ShapedType::isDynamic(id) ? dd : id);
  return Type(RankedTensorType::get(shape, i.getElementType()));
}

LogicalResult ProgramImporter::recordCoalesce(Location loc, Operation *coalesce,
                                              ArrayRef<std::string> resultNames) {
  const std::string &fused = resultNames.back();
  if (fused.empty())
    return emitError(loc) << "coalesce_tensor needs a FusedOutput variable";
  FusedGroup group;
  int64_t offset = 0;
  for (auto [name, result] : llvm::zip(resultNames.drop_back(), coalesce->getResults())) {
    auto type = cast<RankedTensorType>(result.getType());
    if (!type.hasStaticShape())
      return emitError(loc) << "coalesce_tensor output '" << name << "' has dynamic shape "
                            << importer::describeTensorType(type)
                            << "; coalesced variables need static shapes";
    if (name.empty() || name == fused)
      return emitError(loc) << "coalesce_tensor needs a distinct Output variable per Input";
    group.members.push_back(name);
    group.offsets.push_back(offset);
    group.types.push_back(type);
    offset += type.getNumElements();
  }
  group.slicedFrom = coalesce->getResults().back();
  if (fusedGroups.count(fused))
    for (const std::string &member : fusedGroups[fused].members)
      if (fusedMemberOf.lookup(member) == fused)
        fusedMemberOf.erase(member);
  for (const std::string &member : group.members)
    fusedMemberOf[member] = fused;
  fusedGroups[fused] = std::move(group);
  return success();
}

void ProgramImporter::refreshSlices(StringRef fusedName, FusedGroup &group) {
  Value current = env.lookup(fusedName);
  if (!current || current == group.slicedFrom)
    return;
  auto slices =
      pd::FusedSlicesOp::create(builder, current.getLoc(), group.types, current, group.offsets);
  if (Operation *def = current.getDefiningOp())
    if (Attribute role = def->getAttr("op_role"))
      slices->setAttr("op_role", role);
  SmallVector<StringRef> names(group.members.begin(), group.members.end());
  slices->setAttr(kOutNames, builder.getStrArrayAttr(names));
  for (auto [name, slice] : llvm::zip(group.members, slices.getResults()))
    if (fusedMemberOf.lookup(name) == fusedName)
      env[name] = slice;
  group.slicedFrom = current;
}

LogicalResult ProgramImporter::define(Location loc, const std::string &name, Value value) {
  if (name.empty())
    return success();
  known.erase(name); // recordKnownValue records it again when it is still known
  if (auto member = fusedMemberOf.find(name);
      member != fusedMemberOf.end() && !isa_and_nonnull<pd::CoalesceTensorOp>(defining))
    return emitError(loc) << "writes '" << name << "', which a coalesce_tensor made a slice of '"
                          << member->second
                          << "'; writing coalesced variables in place is not supported "
                             "(coalesce them after they are computed, with copy_data)";
  env[name] = value;
  if (vars.tensors.count(name)) {
    OperationState state(loc, pd::WriteVarOp::getOperationName());
    state.addAttribute("var", FlatSymbolRefAttr::get(&ctx, name));
    state.addOperands(value);
    builder.create(state);
  }
  return success();
}

FailureOr<int32_t> ProgramImporter::importColumn(Location loc, const proto::OpDesc &op) {
  const proto::OpDesc::Attr *attr = findAttr(op, "col");
  if (!attr)
    return 0;
  std::string error;
  Attribute value = importer::importAttrAsKind(&ctx, *attr, pd::AttrKind::Int, error);
  if (!value)
    return emitError(loc) << "attribute 'col' " << error;
  return static_cast<int32_t>(cast<IntegerAttr>(value).getInt());
}

LogicalResult ProgramImporter::importFeed(Location loc, const proto::OpDesc &op) {
  const proto::OpDesc::Var *out = findSlot(op.outputs(), "Out");
  if (!out || out->arguments_size() != 1)
    return emitError(loc) << "feed op needs exactly one output variable in slot 'Out'";
  const std::string &name = out->arguments(0);
  FailureOr<int32_t> col = importColumn(loc, op);
  if (failed(col))
    return failure();
  if (vars.tensors.count(name) || vars.unusable.count(name))
    return emitError(loc) << "feed op writes persistable variable '" << name
                          << "'; only non-persistable variables can be fed";
  auto desc = varDescs.find(name);
  if (desc == varDescs.end())
    return emitError(loc) << "feed op writes variable '" << name
                          << "', which the program does not declare";
  std::string error;
  RankedTensorType type = importer::importVarType(&ctx, *desc->second, error);
  if (!type)
    return emitError(loc) << "fed variable '" << name << "' " << error;

  NamedAttrList attrs;
  if (failed(importExtraAttrs(loc, op, {"col"}, attrs, std::nullopt)))
    return failure();
  OperationState state(loc, pd::FeedOp::getOperationName());
  state.addAttribute("col", builder.getI32IntegerAttr(*col));
  state.addAttributes(attrs);
  state.addAttribute(kOutNames, builder.getStrArrayAttr({name}));
  state.addTypes(type);
  Operation *feed = builder.create(state);
  return define(loc, name, feed->getResult(0));
}

LogicalResult ProgramImporter::importFetch(Location loc, const proto::OpDesc &op) {
  const proto::OpDesc::Var *in = findSlot(op.inputs(), "X");
  if (!in || in->arguments_size() != 1)
    return emitError(loc) << "fetch op needs exactly one input variable in slot 'X'";
  FailureOr<int32_t> col = importColumn(loc, op);
  if (failed(col))
    return failure();
  FailureOr<Value> value = lookupInput(loc, "X", in->arguments(0));
  if (failed(value))
    return failure();
  NamedAttrList attrs;
  if (failed(importExtraAttrs(loc, op, {"col"}, attrs, std::nullopt)))
    return failure();
  OperationState state(loc, pd::FetchOp::getOperationName());
  state.addOperands(*value);
  state.addAttribute("col", builder.getI32IntegerAttr(*col));
  state.addAttributes(attrs);
  builder.create(state);
  return success();
}

bool ProgramImporter::isRawVariable(StringRef name) const {
  if (vars.raw.contains(name))
    return true;
  auto desc = varDescs.find(name);
  return desc != varDescs.end() && desc->second->type().type() == proto::VarType::RAW;
}

LogicalResult ProgramImporter::checkRawVariables(Location loc, const proto::OpDesc &op) {
  auto notSupported = [&](StringRef direction, StringRef slot, StringRef name) {
    return emitError(loc)
           << direction << " slot '" << slot << "' " << (direction == "input" ? "reads" : "writes")
           << " variable '" << name
           << "', which has type RAW; only LOD_TENSOR variables are supported (and RAW "
              "ones as the communicator id c_gen_nccl_id writes for c_comm_init)";
  };
  for (const auto &slot : op.inputs())
    for (const std::string &name : slot.arguments()) {
      if (!isRawVariable(name))
        continue;
      if (op.type() != "c_comm_init")
        return notSupported("input", slot.parameter(), name);
      if (!env.count(name))
        return emitError(loc) << "input slot '" << slot.parameter() << "' reads communicator id '"
                              << name << "', which no c_gen_nccl_id before it writes";
    }
  for (const auto &slot : op.outputs())
    for (const std::string &name : slot.arguments()) {
      bool raw = isRawVariable(name);
      if (raw && op.type() != "c_gen_nccl_id")
        return notSupported("output", slot.parameter(), name);
      bool declared = varDescs.count(name) || vars.tensors.count(name) || vars.unusable.count(name);
      if (!raw && declared && op.type() == "c_gen_nccl_id")
        return emitError(loc) << "output slot '" << slot.parameter() << "' writes variable '"
                              << name
                              << "', which is not a RAW variable: the communicator id needs one";
    }
  return success();
}

/// The given slots of `op` by name; fails on a slot given twice, or on a
/// non-empty slot that `catalogSlots` does not list (`unsupported` ones
/// named as such). `kind` is "input" or "output".
static LogicalResult
collectSlots(Location loc, const proto::OpDesc &op, StringRef kind,
             const google::protobuf::RepeatedPtrField<proto::OpDesc::Var> &slots,
             ArrayRef<pd::SlotSpec> catalogSlots, ArrayRef<std::string_view> unsupported,
             llvm::StringMap<const proto::OpDesc::Var *> &given) {
  for (const auto &slot : slots) {
    if (!given.try_emplace(slot.parameter(), &slot).second)
      return emitError(loc) << kind << " slot '" << slot.parameter() << "' given twice";
    bool known = llvm::any_of(catalogSlots,
                              [&](const pd::SlotSpec &s) { return s.name == slot.parameter(); });
    if (known || slot.arguments_size() == 0)
      continue; // Paddle writes empty slots for those an op can take
    if (llvm::is_contained(unsupported, slot.parameter()))
      return emitError(loc) << kind << " slot '" << slot.parameter() << "' of '" << op.type()
                            << "' is not supported; give the value as an attribute instead";
    llvm::SmallVector<std::string_view> names;
    for (const pd::SlotSpec &s : catalogSlots)
      names.push_back(s.name);
    return emitError(loc) << "unknown " << kind << " slot '" << slot.parameter() << "' for '"
                          << op.type() << "' (its " << kind << " slots: " << quoteList(names)
                          << ")";
  }
  return success();
}

/// The given variable of catalog slot `name`, or null.
static const proto::OpDesc::Var *givenSlot(const llvm::StringMap<const proto::OpDesc::Var *> &given,
                                           StringRef name) {
  auto it = given.find(name);
  return it == given.end() ? nullptr : it->second;
}

LogicalResult
ProgramImporter::importOperands(Location loc, const pd::OpSpec &spec,
                                const llvm::StringMap<const proto::OpDesc::Var *> &given,
                                CatalogOperands &out) {
  for (const pd::SlotSpec &slot : spec.inputs) {
    const proto::OpDesc::Var *var = givenSlot(given, slot.name);
    int count = var ? var->arguments_size() : 0;
    if (!slot.optional && !slot.variadic && count != 1)
      return emitError(loc) << "input slot '" << slot.name << "' needs exactly one variable, got "
                            << count;
    if (slot.optional && count > 1)
      return emitError(loc) << "input slot '" << slot.name << "' takes at most one variable, got "
                            << count;
    SmallVector<Type, 1> types;
    for (int a = 0; a < count; ++a) {
      FailureOr<Value> value = lookupInput(loc, slot.name, var->arguments(a));
      if (failed(value))
        return failure();
      out.values.push_back(*value);
      types.push_back(value->getType());
    }
    out.typesBySlot.push_back(std::move(types));
    out.segments.push_back(count);
  }
  return success();
}

/// Every catalog attribute of `spec`, given in `op` or defaulted, so that
/// an op reads the same whether or not its program spelled defaults; their
/// names go to `catalogNames`.
static LogicalResult importCatalogAttrs(MLIRContext &ctx, Location loc, const proto::OpDesc &op,
                                        const pd::OpSpec &spec, NamedAttrList &inherent,
                                        llvm::StringSet<> &catalogNames) {
  for (const pd::AttrSpec &attrSpec : spec.attrs) {
    catalogNames.insert(attrSpec.name);
    const proto::OpDesc::Attr *given = findAttr(op, attrSpec.name);
    Attribute value;
    if (given) {
      std::string error;
      value = importer::importAttrAsKind(&ctx, *given, attrSpec.kind, error);
      if (!value)
        return emitError(loc) << "attribute '" << attrSpec.name << "' " << error;
    } else if (attrSpec.required) {
      return emitError(loc) << "missing required attribute '" << attrSpec.name << "'";
    } else {
      value = pd::catalogDefault(&ctx, attrSpec);
      if (!value)
        return emitError(loc) << "the op catalog's default of attribute '" << attrSpec.name
                              << "' is malformed";
    }
    inherent.append(attrSpec.name, value);
  }
  return success();
}

/// The inferred result types of `op`, by catalog output slot; a variadic
/// output slot has as many results as it names variables.
static LogicalResult inferCatalogResults(MLIRContext &ctx, Location loc, const proto::OpDesc &op,
                                         const pd::OpSpec &spec,
                                         const llvm::StringMap<const proto::OpDesc::Var *> &given,
                                         ArrayRef<SmallVector<Type, 1>> operandsBySlot,
                                         const NamedAttrList &inherent,
                                         SmallVector<SmallVector<Type, 1>> &resultsBySlot) {
  unsigned variadicCount = 0;
  for (const pd::SlotSpec &slot : spec.outputs)
    if (slot.variadic)
      if (const proto::OpDesc::Var *var = givenSlot(given, slot.name))
        variadicCount = static_cast<unsigned>(var->arguments_size());
  if (failed(pd::inferResultTypes(&ctx, loc, op.type(), operandsBySlot,
                                  inherent.getDictionary(&ctx), resultsBySlot, variadicCount)))
    return failure();
  if (resultsBySlot.size() != spec.outputs.size())
    return emitError(loc) << "shape inference returned " << resultsBySlot.size()
                          << " output slots, the op catalog lists " << spec.outputs.size();
  return success();
}

LogicalResult ProgramImporter::nameResults(Location loc, const pd::OpSpec &spec,
                                           const llvm::StringMap<const proto::OpDesc::Var *> &given,
                                           ArrayRef<SmallVector<Type, 1>> resultsBySlot,
                                           CatalogResults &out) {
  for (auto [slot, inferred] : llvm::zip_equal(spec.outputs, resultsBySlot)) {
    const proto::OpDesc::Var *var = givenSlot(given, slot.name);
    size_t count = var ? static_cast<size_t>(var->arguments_size()) : 0;
    if (slot.variadic ? count != inferred.size() : (count > 1 || inferred.size() != 1))
      return emitError(loc) << "output slot '" << slot.name << "' names " << count
                            << " variables but the op produces " << inferred.size();
    for (size_t r = 0; r < inferred.size(); ++r) {
      std::string name = r < count ? var->arguments(static_cast<int>(r)) : std::string();
      // The communicator id has no tensor declaration to reconcile with.
      FailureOr<Type> type = isRawVariable(name) ? FailureOr<Type>(inferred[r])
                                                 : reconcile(loc, slot.name, name, inferred[r]);
      if (failed(type))
        return failure();
      out.types.push_back(*type);
      out.names.push_back(name);
    }
    out.segments.push_back(static_cast<int32_t>(inferred.size()));
  }
  return success();
}

LogicalResult ProgramImporter::importCatalogOp(Location loc, const proto::OpDesc &op,
                                               const pd::OpSpec &spec) {
  if (failed(checkRawVariables(loc, op)))
    return failure();
  std::string mlirName = "pd." + op.type();
  std::optional<RegisteredOperationName> opName = RegisteredOperationName::lookup(mlirName, &ctx);
  if (!opName)
    return emitError(loc) << "op type '" << op.type()
                          << "' is in the op catalog but the pd dialect does not define it";

  llvm::StringMap<const proto::OpDesc::Var *> givenInputs;
  CatalogOperands operands;
  if (failed(collectSlots(loc, op, "input", op.inputs(), spec.inputs, spec.unsupportedInputs,
                          givenInputs)) ||
      failed(importOperands(loc, spec, givenInputs, operands)))
    return failure();

  NamedAttrList inherent, extra;
  llvm::StringSet<> catalogNames;
  if (failed(importCatalogAttrs(ctx, loc, op, spec, inherent, catalogNames)) ||
      failed(importExtraAttrs(loc, op, catalogNames, extra, opName)))
    return failure();

  llvm::StringMap<const proto::OpDesc::Var *> givenOutputs;
  SmallVector<SmallVector<Type, 1>> resultsBySlot;
  CatalogResults results;
  if (failed(collectSlots(loc, op, "output", op.outputs(), spec.outputs, {}, givenOutputs)) ||
      failed(inferCatalogResults(ctx, loc, op, spec, givenOutputs, operands.typesBySlot, inherent,
                                 resultsBySlot)) ||
      failed(nameResults(loc, spec, givenOutputs, resultsBySlot, results)))
    return failure();

  OperationState state(loc, *opName);
  state.addOperands(operands.values);
  state.addTypes(results.types);
  state.addAttributes(inherent);
  if (opName->hasTrait<OpTrait::AttrSizedOperandSegments>())
    state.addAttribute("operandSegmentSizes", builder.getDenseI32ArrayAttr(operands.segments));
  if (opName->hasTrait<OpTrait::AttrSizedResultSegments>())
    state.addAttribute("resultSegmentSizes", builder.getDenseI32ArrayAttr(results.segments));
  state.addAttributes(extra);
  SmallVector<StringRef> nameRefs(results.names.begin(), results.names.end());
  state.addAttribute(kOutNames, builder.getStrArrayAttr(nameRefs));
  Operation *created = builder.create(state);

  defining = created;
  for (auto [name, result] : llvm::zip_equal(results.names, created->getResults()))
    if (failed(define(loc, name, result)))
      return failure();
  defining = nullptr;
  if (isa<pd::CoalesceTensorOp>(created))
    return recordCoalesce(loc, created, results.names);
  return success();
}

/// Collects the persistable variables of `block` into `table`, in order.
LogicalResult
collectPersistables(MLIRContext &ctx, const proto::BlockDesc &block, Location fileLoc,
                    VarTable &table,
                    SmallVectorImpl<std::pair<std::string, const proto::VarDesc *>> &order) {
  for (const proto::VarDesc &var : block.vars()) {
    if (!var.persistable() || isFeedFetchListType(var.type().type()))
      continue;
    Location loc = NameLoc::get(StringAttr::get(&ctx, "variable '" + var.name() + "'"), fileLoc);
    if (var.name().empty())
      return emitError(loc) << "persistable variable without a name";
    if (var.type().type() != proto::VarType::LOD_TENSOR) {
      if (var.type().type() == proto::VarType::RAW)
        table.raw.insert(var.name());
      table.unusable.try_emplace(var.name(), "has type " +
                                                 proto::VarType::Type_Name(var.type().type()) +
                                                 "; only LOD_TENSOR variables are supported");
      continue;
    }
    std::string error;
    RankedTensorType type = importer::importVarType(&ctx, var, error);
    if (!type)
      return emitError(loc) << "persistable variable " << error;
    if (!type.hasStaticShape())
      return emitError(loc) << "persistable variable has dynamic shape "
                            << importer::describeTensorType(type)
                            << "; persistable variables need static shapes";
    auto [it, inserted] = table.tensors.try_emplace(var.name(), type);
    if (!inserted) {
      if (it->second != type)
        return emitError(loc) << "declared as " << importer::describeTensorType(it->second)
                              << " in one program and as " << importer::describeTensorType(type)
                              << " in the other";
      continue;
    }
    order.emplace_back(var.name(), &var);
  }
  return success();
}

LogicalResult checkSingleBlock(MLIRContext &ctx, const proto::ProgramDesc &program,
                               Location fileLoc) {
  if (program.blocks_size() == 0)
    return emitError(fileLoc) << "empty program: it has no blocks";
  if (program.blocks_size() > 1)
    return emitError(fileLoc) << "the program has " << program.blocks_size()
                              << " blocks; only single-block programs are supported (sub-blocks "
                                 "belong to control-flow ops such as while or conditional_block)";
  return success();
}

/// The startup program runs once, before any data exists; a feed in it (a
/// feed op, or a variable read before anything writes it) could never be
/// satisfied, so it is refused here rather than at the first run.
LogicalResult checkStartupHasNoFeeds(ModuleOp module) {
  for (auto program : module.getOps<pd::ProgramOp>()) {
    if (program.getSymName() != "startup")
      continue;
    WalkResult result = program.walk([](pd::FeedOp feed) {
      auto names = feed->getAttrOfType<ArrayAttr>(kOutNames);
      std::string name = names && !names.empty() ? cast<StringAttr>(names[0]).str() : "?";
      feed.emitError() << "the startup program feeds '" << name
                       << "', but it runs once before any data is fed; initialize '" << name
                       << "' with an op (fill_constant, uniform_random, ...) or move the feed "
                          "to the main program";
      return WalkResult::interrupt();
    });
    if (result.wasInterrupted())
      return failure();
  }
  return success();
}

} // namespace

void loadImportDialects(MLIRContext &ctx) { ctx.getOrLoadDialect<pd::PdDialect>(); }

OwningOpRef<ModuleOp> importProgram(MLIRContext &ctx, const programdesc::ProgramDesc &main,
                                    const programdesc::ProgramDesc *startup, StringRef mainSource,
                                    StringRef startupSource, ArrayRef<std::string> mainOpOrigins) {
  loadImportDialects(ctx);
  Location mainLoc = FileLineColLoc::get(&ctx, mainSource, 0, 0);
  Location startupLoc = FileLineColLoc::get(&ctx, startupSource, 0, 0);
  if (failed(checkSingleBlock(ctx, main, mainLoc)) ||
      (startup && failed(checkSingleBlock(ctx, *startup, startupLoc))))
    return nullptr;

  VarTable vars;
  SmallVector<std::pair<std::string, const proto::VarDesc *>> order;
  if (failed(collectPersistables(ctx, main.blocks(0), mainLoc, vars, order)) ||
      (startup && failed(collectPersistables(ctx, startup->blocks(0), startupLoc, vars, order))))
    return nullptr;

  OwningOpRef<ModuleOp> module = ModuleOp::create(mainLoc);
  OpBuilder builder(&ctx);
  builder.setInsertionPointToEnd(module->getBody());
  for (const auto &[name, desc] : order) {
    OperationState state(NameLoc::get(StringAttr::get(&ctx, "variable '" + name + "'"), mainLoc),
                         pd::VarOp::getOperationName());
    state.addAttribute("sym_name", builder.getStringAttr(name));
    state.addAttribute("type", TypeAttr::get(vars.tensors.lookup(name)));
    state.addAttribute("persistable", builder.getUnitAttr());
    if (desc->is_parameter())
      state.addAttribute("is_parameter", builder.getUnitAttr());
    if (desc->stop_gradient())
      state.addAttribute("stop_gradient", builder.getUnitAttr());
    builder.create(state);
  }

  auto importOne = [&](const programdesc::ProgramDesc &program, StringRef symbol, StringRef source,
                       Location loc, ArrayRef<std::string> origins) -> LogicalResult {
    OpBuilder::InsertionGuard guard(builder);
    auto op = pd::ProgramOp::create(builder, loc, symbol);
    if (op.getBody().empty())
      op.getBody().emplaceBlock();
    ProgramImporter importer(ctx, vars, source, origins);
    return importer.run(program.blocks(0), op);
  };
  if (failed(importOne(main, "main", mainSource, mainLoc, mainOpOrigins)))
    return nullptr;
  if (startup && failed(importOne(*startup, "startup", startupSource, startupLoc, {})))
    return nullptr;
  if (startup && failed(checkStartupHasNoFeeds(*module)))
    return nullptr;
  if (failed(verify(*module)))
    return nullptr;
  return module;
}

} // namespace distc
