//===- PdRegistryGen.cpp - per-op tables from PdOps.td --------------------===//
//
// The `pd` op registry: each op is declared once, in PdOps.td, and every
// per-op table the compiler needs is generated from that declaration.
//
//   -gen-pd-op-catalog      Paddle slots, attributes (AttrType, default),
//                           unsupported inputs, initializer flag and
//                           gradient op: the OpSpec table (OpCatalog.h)
//   -gen-pd-infer-rules     op -> shape/dtype inference rule (ShapeInference),
//                           and the rules' declarations (InferContext.h)
//   -gen-pd-lowerings       op -> its lowering to runtime kernels (lib/compiler/Target)
//   -gen-pd-gradient-rules  op -> its own gradient rule, for ops whose
//                           backward is other forward ops (AppendBackward)
//   -gen-pd-pir-forms       op -> its Paddle 3 PIR form: PIR name, operand and
//                           result order, attribute renames (PirImporter)
//   -gen-pd-spmd-rules      op -> its SPMD sharding rule and the rule's view
//                           of its attributes (lib/compiler/Sharding)
//   -gen-pd-loop-ops        op -> its instruction in a generated element-wise
//                           loop: opcode, register operands, immediates
//                           (lib/compiler/Fusion)
//
// The fields read here are documented on `Pd_Op` and `Pd_CatalogOp`
// (PdDialect.td, PdOps.td). The generators check the declarations as they
// go (a catalog op without an inference rule or a lowering, a gradient op
// nobody names, ...) and stop the build with an error at the op's
// definition, so an incomplete op never compiles.
//
//===----------------------------------------------------------------------===//

#include "mlir/TableGen/Argument.h"
#include "mlir/TableGen/Attribute.h"
#include "mlir/TableGen/GenInfo.h"
#include "mlir/TableGen/Operator.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TableGen/Error.h"
#include "llvm/TableGen/Record.h"

#include <algorithm>
#include <vector>

using namespace mlir;
using llvm::Record;
using llvm::RecordKeeper;
using mlir::tblgen::Operator;

namespace {

/// Every op of the pd dialect, in definition order.
std::vector<const Record *> pdOps(const RecordKeeper &records) {
  std::vector<const Record *> ops;
  for (const Record *def : records.getAllDerivedDefinitions("Pd_Op"))
    ops.push_back(def);
  std::sort(ops.begin(), ops.end(),
            [](const Record *a, const Record *b) { return a->getID() < b->getID(); });
  return ops;
}

bool inCatalog(const Record *def) { return def->getValueAsBit("inCatalog"); }

/// The Paddle op type: the mnemonic.
std::string paddleType(const Operator &op) {
  std::string name = op.getOperationName();
  return name.substr(name.find('.') + 1);
}

/// ODS names cannot hold '@': the gradient slot `X@GRAD` is `X_GRAD`.
std::string paddleSlotName(llvm::StringRef odsName) {
  if (odsName.consume_back("_GRAD"))
    return (odsName + "@GRAD").str();
  return odsName.str();
}

std::string quoted(llvm::StringRef s) {
  std::string out = "\"";
  llvm::raw_string_ostream os(out);
  llvm::printEscapedString(s, os);
  return out + "\"";
}

struct Slot {
  std::string name;
  bool optional = false, variadic = false;
};

std::string slotList(const std::vector<Slot> &slots) {
  std::string out = "{";
  for (const Slot &s : slots)
    out += "{" + quoted(s.name) + ", " + (s.optional ? "true" : "false") + ", " +
           (s.variadic ? "true" : "false") + "}, ";
  return out + "}";
}

std::vector<Slot> namedSlots(const Record *def, llvm::StringRef field) {
  std::vector<Slot> slots;
  for (llvm::StringRef name : def->getValueAsListOfStrings(field))
    slots.push_back({name.str()});
  return slots;
}

std::vector<Slot> inputSlots(const Operator &op) {
  const Record *def = &op.getDef();
  if (!def->getValueAsListOfStrings("paddleInputs").empty())
    return namedSlots(def, "paddleInputs");
  llvm::StringSet<> mayBeEmpty;
  for (llvm::StringRef name : def->getValueAsListOfStrings("optionalInputs"))
    mayBeEmpty.insert(name);
  std::vector<Slot> slots;
  for (int i = 0; i < op.getNumOperands(); ++i) {
    const tblgen::NamedTypeConstraint &operand = op.getOperand(i);
    bool optional =
        operand.isOptional() || (operand.isVariadic() && mayBeEmpty.contains(operand.name));
    slots.push_back({paddleSlotName(operand.name), optional, operand.isVariadic()});
  }
  return slots;
}

std::vector<Slot> outputSlots(const Operator &op) {
  const Record *def = &op.getDef();
  if (!def->getValueAsListOfStrings("paddleOutputs").empty())
    return namedSlots(def, "paddleOutputs");
  llvm::StringSet<> optional;
  for (llvm::StringRef name : def->getValueAsListOfStrings("optionalOutputs"))
    optional.insert(name);
  bool allOptional = def->getValueAsBit("allOutputsOptional");
  std::vector<Slot> slots;
  for (int i = 0; i < op.getNumResults(); ++i) {
    const tblgen::NamedTypeConstraint &result = op.getResult(i);
    slots.push_back({paddleSlotName(result.name), allOptional || optional.contains(result.name),
                     result.isVariadic()});
  }
  for (const auto &entry : optional)
    if (std::none_of(slots.begin(), slots.end(),
                     [&](const Slot &s) { return s.name == paddleSlotName(entry.getKey()); }))
      llvm::PrintFatalError(def->getLoc(), "optionalOutputs names '" + entry.getKey().str() +
                                               "', which is no result of " + op.getOperationName());
  return slots;
}

/// Paddle's AttrType for an attribute: the `pdKind` of the Pd* attribute
/// classes, or that of a required plain attribute (StrAttr, I32Attr).
std::string attrKind(const tblgen::NamedAttribute &named, const Record *opDef) {
  const Record &def = named.attr.getDef();
  if (def.getValue("pdKind"))
    return def.getValueAsString("pdKind").str();
  llvm::StringRef base = named.attr.getBaseAttr().getAttrDefName();
  if (base == "StrAttr")
    return "String";
  if (base == "I32Attr")
    return "Int";
  if (base == "I64Attr")
    return "Long";
  if (base == "F32Attr")
    return "Float";
  if (base == "BoolAttr")
    return "Boolean";
  llvm::PrintFatalError(opDef->getLoc(), "attribute '" + named.name.str() + "' of " +
                                             opDef->getName() +
                                             " has no Paddle AttrType (use a Pd* attribute)");
}

std::string attrList(const Operator &op) {
  std::string out = "{";
  for (const tblgen::NamedAttribute &named : op.getAttributes()) {
    if (named.attr.isDerivedAttr())
      continue;
    const Record &def = named.attr.getDef();
    bool hasPaddleDefault = def.getValue("pdDefault") != nullptr;
    std::string defaultValue =
        hasPaddleDefault ? def.getValueAsString("pdDefault").str() : std::string();
    bool required = !hasPaddleDefault && !named.attr.hasDefaultValue() && !named.attr.isOptional();
    out += "{" + quoted(named.name) + ", K::" + attrKind(named, &op.getDef()) + ", " +
           quoted(defaultValue) + ", " + (required ? "true" : "false") + "}, ";
  }
  return out + "}";
}

std::string stringList(const Record *def, llvm::StringRef field) {
  std::string out = "{";
  for (llvm::StringRef s : def->getValueAsListOfStrings(field))
    out += quoted(s) + ", ";
  return out + "}";
}

/// `foldedInputs` as FoldedInput initializers; each entry is
/// "SLOT=attr[,attr...]" naming attributes the op has, and a folded slot
/// is no ODS operand.
std::string foldedInputList(const Operator &op) {
  const Record *def = &op.getDef();
  std::string out = "{";
  for (llvm::StringRef entry : def->getValueAsListOfStrings("foldedInputs")) {
    auto [slotAndAttrs, marker] = entry.split('|');
    if (!marker.empty() && marker != "-1")
      llvm::PrintFatalError(def->getLoc(), "foldedInputs entry '" + entry.str() +
                                               "': the only marker is |-1");
    auto [slot, attrText] = slotAndAttrs.split('=');
    if (slot.empty() || attrText.empty())
      llvm::PrintFatalError(def->getLoc(), "foldedInputs entry '" + entry.str() +
                                               "' is not SLOT=attr[,attr...]");
    for (const auto &operand : op.getOperands())
      if (operand.name == slot)
        llvm::PrintFatalError(def->getLoc(), "folded input '" + slot.str() + "' is an operand");
    llvm::SmallVector<llvm::StringRef> attrs;
    attrText.split(attrs, ',');
    out += "{" + quoted(slot) + ", {";
    for (llvm::StringRef attr : attrs) {
      bool known = llvm::any_of(op.getAttributes(),
                                [&](const auto &named) { return named.name == attr; });
      if (!known)
        llvm::PrintFatalError(def->getLoc(), "folded input '" + slot.str() + "' names attribute '" +
                                                 attr.str() + "', which the op does not have");
      out += quoted(attr) + ", ";
    }
    if (!marker.empty() && attrs.size() != 1)
      llvm::PrintFatalError(def->getLoc(), "|-1 needs a slot standing for one attribute");
    out += "}, " + std::string(marker.empty() ? "false" : "true") + "}, ";
  }
  return out + "}";
}

void emitBanner(llvm::raw_ostream &os, llvm::StringRef what) {
  os << "// " << what << "\n// Generated by distc-tblgen from PdOps.td; do not edit.\n\n";
}

/// Checks the cross-op facts: a gradient op exists and is someone's.
void checkGradients(const std::vector<const Record *> &ops) {
  llvm::StringMap<const Record *> byType;
  for (const Record *def : ops)
    if (inCatalog(def))
      byType[paddleType(Operator(def))] = def;
  llvm::StringSet<> named;
  for (const Record *def : ops) {
    if (!inCatalog(def))
      continue;
    llvm::StringRef gradOp = def->getValueAsString("gradOp");
    if (gradOp.empty())
      continue;
    if (!byType.count(gradOp))
      llvm::PrintFatalError(def->getLoc(),
                            "gradOp '" + gradOp.str() + "' is not an op of the catalog");
    if (!def->getValueAsString("gradRule").empty())
      llvm::PrintFatalError(def->getLoc(), "an op has a gradOp or a gradRule, not both");
    named.insert(gradOp);
  }
  for (const Record *def : ops)
    if (inCatalog(def) && def->getValueAsBit("allOutputsOptional") &&
        !named.contains(paddleType(Operator(def))))
      llvm::PrintFatalError(def->getLoc(), "gradient op " + paddleType(Operator(def)) +
                                               " is no forward op's gradOp");
}

bool emitCatalog(const RecordKeeper &records, llvm::raw_ostream &os) {
  emitBanner(os, "The Paddle op catalog: one OpSpec initializer per catalog op.");
  std::vector<const Record *> ops = pdOps(records);
  checkGradients(ops);
  for (const Record *def : ops) {
    if (!inCatalog(def))
      continue;
    Operator op(def);
    os << "{" << quoted(paddleType(op)) << ",\n  " << slotList(inputSlots(op)) << ",\n  "
       << slotList(outputSlots(op)) << ",\n  " << attrList(op) << ",\n  "
       << stringList(def, "unsupportedInputs") << ",\n  "
       << (def->getValueAsBit("isInitializer") ? "true" : "false") << ",\n  "
       << quoted(def->getValueAsString("gradOp")) << ",\n  " << foldedInputList(op) << "},\n";
  }
  return false;
}

bool emitInferRules(const RecordKeeper &records, llvm::raw_ostream &os) {
  emitBanner(os, "Shape and dtype inference. With GET_PD_INFER_RULE_DECLS: the\n"
                 "// declaration of every rule an op names (inside namespace infer); with\n"
                 "// GET_PD_INFER_RULE_TABLE: {op type, rule} per catalog op.");
  std::vector<std::pair<std::string, std::string>> table;
  llvm::StringSet<> rules;
  std::vector<std::string> ruleOrder;
  for (const Record *def : pdOps(records)) {
    if (!inCatalog(def))
      continue;
    llvm::StringRef rule = def->getValueAsString("inferRule");
    if (rule.empty())
      llvm::PrintFatalError(def->getLoc(), def->getName() + " declares no inferRule");
    table.emplace_back(paddleType(Operator(def)), rule.str());
    if (rules.insert(rule).second)
      ruleOrder.push_back(rule.str());
  }
  os << "#ifdef GET_PD_INFER_RULE_DECLS\n#undef GET_PD_INFER_RULE_DECLS\n";
  for (const std::string &rule : ruleOrder)
    os << "::mlir::LogicalResult " << rule << "(InferContext &c);\n";
  os << "#endif // GET_PD_INFER_RULE_DECLS\n\n";
  os << "#ifdef GET_PD_INFER_RULE_TABLE\n#undef GET_PD_INFER_RULE_TABLE\n";
  for (const auto &[type, rule] : table)
    os << "{" << quoted(type) << ", infer::" << rule << "},\n";
  os << "#endif // GET_PD_INFER_RULE_TABLE\n";
  return false;
}

bool emitLowerings(const RecordKeeper &records, llvm::raw_ostream &os) {
  emitBanner(os, "Lowering to runtime kernels: {op type, lowering} per op. Each\n"
                 "// lowering is a call on `lowering` (a ProgramLowering) for `op`.");
  for (const Record *def : pdOps(records)) {
    llvm::StringRef body = def->getValueAsString("lowering").trim();
    if (body.empty()) {
      if (inCatalog(def))
        llvm::PrintFatalError(def->getLoc(), def->getName() + " declares no lowering");
      continue;
    }
    os << "{" << quoted(paddleType(Operator(def)))
       << ", [](ProgramLowering &lowering, ::mlir::Operation *op) -> ::mlir::LogicalResult {\n"
       << "   return lowering." << body << ";\n }},\n";
  }
  return false;
}

bool emitGradientRules(const RecordKeeper &records, llvm::raw_ostream &os) {
  emitBanner(os, "Gradients built from forward ops: {op type, BackwardBuilder rule}.");
  for (const Record *def : pdOps(records)) {
    if (!inCatalog(def))
      continue;
    llvm::StringRef rule = def->getValueAsString("gradRule");
    if (!rule.empty())
      os << "{" << quoted(paddleType(Operator(def))) << ", &BackwardBuilder::" << rule << "},\n";
  }
  return false;
}

/// Splits "a:b" into its two halves; an error at `def` when there is no ':'.
std::pair<std::string, std::string> splitPair(const Record *def, llvm::StringRef field,
                                              llvm::StringRef entry) {
  auto [first, second] = entry.split(':');
  if (second.empty() || first.empty())
    llvm::PrintFatalError(def->getLoc(),
                          field.str() + " entry '" + entry.str() + "' is not of the form 'a:b'");
  return {first.str(), second.str()};
}

/// One PIR form: the fields of `def` (the op itself, or a Pd_PirForm of
/// it) for catalog op `opDef`, as a PirForm initializer. Checks that every
/// entry names a slot or attribute of the op and that no two forms claim
/// the same PIR name.
void emitPirForm(const Record *def, const Record *opDef, llvm::StringMap<const Record *> &byPirName,
                 llvm::raw_ostream &os) {
  Operator op(opDef);
  std::string type = paddleType(op);
  std::string pirName = def->getValueAsString("pirName").str();
  if (pirName.empty())
    pirName = type;
  auto [it, inserted] = byPirName.try_emplace(pirName, def);
  if (!inserted)
    llvm::PrintFatalError(def->getLoc(), "PIR name 'pd_op." + pirName + "' is also " +
                                             it->second->getName() +
                                             "'s; set pirName or hasPirForm = 0");
  std::vector<Slot> inputs = inputSlots(op), outputs = outputSlots(op);
  llvm::StringSet<> attrs;
  for (const tblgen::NamedAttribute &named : op.getAttributes())
    attrs.insert(named.name);
  auto hasSlot = [](const std::vector<Slot> &slots, llvm::StringRef name) {
    return std::any_of(slots.begin(), slots.end(), [&](const Slot &s) { return s.name == name; });
  };

  std::string operands = "{";
  std::vector<std::string> operandList;
  for (llvm::StringRef e : def->getValueAsListOfStrings("pirOperands"))
    operandList.push_back(e.str());
  if (operandList.empty())
    for (const Slot &s : inputs)
      operandList.push_back(s.name);
  for (llvm::StringRef entry : operandList) {
    if (entry == "-") {
      operands += "{\"\", \"\"}, ";
    } else if (entry.consume_front("attr:")) {
      if (!attrs.contains(entry))
        llvm::PrintFatalError(def->getLoc(), "pirOperands names attribute '" + entry.str() +
                                                 "', which " + type + " does not have");
      operands += "{\"\", " + quoted(entry) + "}, ";
    } else {
      if (!hasSlot(inputs, entry))
        llvm::PrintFatalError(def->getLoc(), "pirOperands names input slot '" + entry.str() +
                                                 "', which " + type + " does not have");
      operands += "{" + quoted(entry) + ", \"\"}, ";
    }
  }
  operands += "}";

  std::string results = "{";
  std::vector<std::string> resultNames;
  for (llvm::StringRef e : def->getValueAsListOfStrings("pirResults"))
    resultNames.push_back(e.str());
  if (resultNames.empty())
    for (const Slot &s : outputs)
      resultNames.push_back(s.name);
  for (const std::string &name : resultNames) {
    if (!hasSlot(outputs, name))
      llvm::PrintFatalError(def->getLoc(), "pirResults names output slot '" + name + "', which " +
                                               type + " does not have");
    results += quoted(name) + ", ";
  }
  results += "}";

  auto pairs = [&](llvm::StringRef field, bool secondIsSlot) {
    std::string out = "{";
    for (llvm::StringRef entry : def->getValueAsListOfStrings(field)) {
      auto [a, b] = splitPair(def, field, entry);
      const std::string &attr = secondIsSlot ? a : b;
      if (!attrs.contains(attr))
        llvm::PrintFatalError(def->getLoc(), field.str() + " names attribute '" + attr +
                                                 "', which " + type + " does not have");
      if (secondIsSlot && !hasSlot(inputs, b))
        llvm::PrintFatalError(def->getLoc(), field.str() + " names input slot '" + b + "', which " +
                                                 type + " does not have");
      out += "{" + quoted(a) + ", " + quoted(b) + "}, ";
    }
    return out + "}";
  };
  os << "{" << quoted(pirName) << ", " << quoted(type) << ",\n  " << operands << ",\n  " << results
     << ",\n  " << pairs("pirAttrs", false) << ",\n  " << pairs("pirDtypeAttrs", true) << "},\n";
}

/// The PIR forms: {pir name, Paddle type, operands, results, attribute
/// renames, dtype attributes} per catalog op with one, then the further
/// forms (Pd_PirForm defs).
bool emitPirForms(const RecordKeeper &records, llvm::raw_ostream &os) {
  emitBanner(os, "Paddle 3 PIR forms: one PirForm initializer per PIR op distc reads.");
  llvm::StringMap<const Record *> byPirName;
  for (const Record *def : pdOps(records))
    if (inCatalog(def) && def->getValueAsBit("hasPirForm"))
      emitPirForm(def, def, byPirName, os);
  std::vector<const Record *> extra;
  for (const Record *def : records.getAllDerivedDefinitions("Pd_PirForm"))
    extra.push_back(def);
  std::sort(extra.begin(), extra.end(),
            [](const Record *a, const Record *b) { return a->getID() < b->getID(); });
  for (const Record *form : extra) {
    const Record *opDef = form->getValueAsDef("op");
    if (!inCatalog(opDef))
      llvm::PrintFatalError(form->getLoc(), opDef->getName() + " is no catalog op");
    if (form->getValueAsString("pirName").empty())
      llvm::PrintFatalError(form->getLoc(), "a Pd_PirForm needs its pirName");
    emitPirForm(form, opDef, byPirName, os);
  }
  return false;
}

/// The SPMD rules: {op type, Paddle rule name, {rule attr, op attr}...} per
/// catalog op that declares `spmdRule`. Each rename must name an attribute
/// of the op; the rule name is checked against the rule registry by
/// unittests/Sharding (the registry is C++, not TableGen).
bool emitSpmdRules(const RecordKeeper &records, llvm::raw_ostream &os) {
  emitBanner(os, "SPMD rules: one OpSpmdBinding initializer per catalog op with a rule.");
  for (const Record *def : pdOps(records)) {
    if (!inCatalog(def))
      continue;
    Operator op(def);
    llvm::StringRef rule = def->getValueAsString("spmdRule");
    auto renames = def->getValueAsListOfStrings("spmdAttrs");
    if (rule.empty()) {
      if (!renames.empty())
        llvm::PrintFatalError(def->getLoc(), "spmdAttrs without an spmdRule");
      continue;
    }
    llvm::StringSet<> attrs;
    for (const tblgen::NamedAttribute &named : op.getAttributes())
      attrs.insert(named.name);
    std::string renameList = "{";
    for (llvm::StringRef entry : renames) {
      auto [ruleAttr, opAttr] = splitPair(def, "spmdAttrs", entry);
      if (!attrs.contains(opAttr))
        llvm::PrintFatalError(def->getLoc(), "spmdAttrs names attribute '" + opAttr + "', which " +
                                                 paddleType(op) + " does not have");
      renameList += "{" + quoted(ruleAttr) + ", " + quoted(opAttr) + "}, ";
    }
    os << "{" << quoted(paddleType(op)) << ", " << quoted(rule) << ", " << renameList << "}},\n";
  }
  return false;
}

/// The loop instructions: {op type, opcode, {operand index...}, {immediate
/// attribute...}, variant attribute, variant opcode} per op that declares
/// `loopOp`. Operands and immediates must name the op's operands and
/// attributes, and the op must have exactly one result; the opcodes are
/// checked against the runtime's vocabulary by unittests/Dialect (the
/// vocabulary is C++, not TableGen).
bool emitLoopOps(const RecordKeeper &records, llvm::raw_ostream &os) {
  emitBanner(os, "Element-wise loop instructions: one LoopOpSpec initializer per op with a "
                 "loopOp.");
  for (const Record *def : pdOps(records)) {
    llvm::StringRef opcode = def->getValueAsString("loopOp");
    if (opcode.empty())
      continue;
    Operator op(def);
    if (op.getNumResults() != 1 || op.getNumVariableLengthOperands() != 0)
      llvm::PrintFatalError(def->getLoc(), "a loopOp needs one result and fixed operands");
    std::string operands = "{";
    auto names = def->getValueAsListOfStrings("loopOperands");
    if (names.empty())
      for (int i = 0; i < op.getNumOperands(); ++i)
        operands += std::to_string(i) + ", ";
    for (llvm::StringRef name : names) {
      int index = -1;
      for (int i = 0; i < op.getNumOperands(); ++i)
        if (op.getOperand(i).name == name)
          index = i;
      if (index < 0)
        llvm::PrintFatalError(def->getLoc(), "loopOperands names '" + name.str() +
                                                 "', which is not an operand");
      operands += std::to_string(index) + ", ";
    }
    llvm::StringSet<> attrs;
    for (const tblgen::NamedAttribute &named : op.getAttributes())
      attrs.insert(named.name);
    std::string immediates = "{";
    for (llvm::StringRef name : def->getValueAsListOfStrings("loopImmediates")) {
      if (!attrs.contains(name))
        llvm::PrintFatalError(def->getLoc(), "loopImmediates names '" + name.str() +
                                                 "', which is not an attribute");
      immediates += quoted(name) + ", ";
    }
    std::string variantAttr, variantOp;
    if (llvm::StringRef variant = def->getValueAsString("loopVariant"); !variant.empty()) {
      std::tie(variantAttr, variantOp) = splitPair(def, "loopVariant", variant);
      if (!attrs.contains(variantAttr))
        llvm::PrintFatalError(def->getLoc(), "loopVariant names '" + variantAttr +
                                                 "', which is not an attribute");
    }
    os << "{" << quoted(paddleType(op)) << ", " << quoted(opcode) << ", " << operands << "}, "
       << immediates << "}, " << quoted(variantAttr) << ", " << quoted(variantOp) << "},\n";
  }
  return false;
}

GenRegistration genCatalog("gen-pd-op-catalog", "Generate the pd op catalog (OpSpec table)",
                           emitCatalog);
GenRegistration genInferRules("gen-pd-infer-rules",
                              "Generate the pd shape inference dispatch table", emitInferRules);
GenRegistration genLowerings("gen-pd-lowerings", "Generate the pd lowering dispatch table",
                             emitLowerings);
GenRegistration genGradientRules("gen-pd-gradient-rules",
                                 "Generate the pd custom gradient rule table", emitGradientRules);
GenRegistration genPirForms("gen-pd-pir-forms", "Generate the pd op PIR form table", emitPirForms);
GenRegistration genSpmdRules("gen-pd-spmd-rules", "Generate the pd op SPMD rule table",
                             emitSpmdRules);
GenRegistration genLoopOps("gen-pd-loop-ops", "Generate the pd op element-wise loop table",
                           emitLoopOps);

} // namespace
