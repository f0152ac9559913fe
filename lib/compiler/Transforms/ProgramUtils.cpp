//===- ProgramUtils.cpp - Finding things in pd programs -------------------===//

#include "distc/Transforms/ProgramUtils.h"

#include "distc/Dialect/Pd/CatalogSlots.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;

namespace distc {

Operation *findProgram(ModuleOp module, StringRef name) {
  for (Operation &op : module.getBody()->getOperations())
    if (op.getName().getStringRef() == "pd.program" && SymbolTable::getSymbolName(&op) == name)
      return &op;
  return nullptr;
}

/// Calls `fn(name, value)` for every named op result of `program`, in walk
/// order, so that a later definition of a name comes after an earlier one.
template <typename Fn> static void forEachNamedResult(Operation *program, Fn fn) {
  program->walk([&](Operation *op) {
    auto names = op->getAttrOfType<ArrayAttr>(pd::kOutNamesAttr);
    if (!names)
      return;
    for (auto [i, attr] : llvm::enumerate(names))
      if (auto str = dyn_cast<StringAttr>(attr); str && i < op->getNumResults())
        fn(str.getValue(), op->getResult(i));
  });
}

Value findVariable(Operation *program, StringRef name) {
  Value found;
  forEachNamedResult(program, [&](StringRef defined, Value value) {
    if (defined == name)
      found = value;
  });
  return found;
}

llvm::StringMap<Value> variablesByName(Operation *program) {
  llvm::StringMap<Value> values;
  forEachNamedResult(program, [&](StringRef name, Value value) { values[name] = value; });
  return values;
}

std::string variableName(Value value) {
  Operation *def = value.getDefiningOp();
  if (!def)
    return "";
  if (def->getName().getStringRef() == "pd.read_var")
    if (auto sym = def->getAttrOfType<FlatSymbolRefAttr>("var"))
      return sym.getValue().str();
  auto names = def->getAttrOfType<ArrayAttr>(pd::kOutNamesAttr);
  unsigned index = cast<OpResult>(value).getResultNumber();
  if (names && index < names.size())
    if (auto str = dyn_cast<StringAttr>(names[index]))
      return str.getValue().str();
  return "";
}

const pd::OpSpec *catalogSpecOf(Operation *op) {
  StringRef name = op->getName().getStringRef();
  if (!name.consume_front("pd."))
    return nullptr;
  return pd::lookupOp(std::string_view(name.data(), name.size()));
}

/// The values of group `slot` of `groups`; none when the op does not fit
/// its catalog entry (which the verifier reports).
template <typename Range>
static SmallVector<Value, 1> slotValues(Range values, const FailureOr<pd::SlotGroups> &groups,
                                        unsigned slot) {
  SmallVector<Value, 1> out;
  if (failed(groups))
    return out;
  auto [start, size] = (*groups)[slot];
  for (unsigned i = 0; i < size; ++i)
    out.push_back(values[start + i]);
  return out;
}

SmallVector<Value, 1> operandsOfSlot(Operation *op, const pd::OpSpec &spec, unsigned slot) {
  std::string why;
  return slotValues(op->getOperands(), pd::operandGroups(op, spec, why), slot);
}

SmallVector<Value, 1> resultsOfSlot(Operation *op, const pd::OpSpec &spec, unsigned slot) {
  std::string why;
  return slotValues(op->getResults(), pd::resultGroups(op, spec, why), slot);
}

int findSlot(const std::vector<pd::SlotSpec> &slots, StringRef name) {
  for (auto [i, slot] : llvm::enumerate(slots))
    if (slot.name == std::string_view(name.data(), name.size()))
      return static_cast<int>(i);
  return -1;
}

std::set<std::string> readVariables(Operation *program) {
  std::set<std::string> names;
  program->walk([&](Operation *op) {
    if (op->getName().getStringRef() == "pd.read_var")
      if (auto sym = op->getAttrOfType<FlatSymbolRefAttr>("var"))
        names.insert(sym.getValue().str());
  });
  return names;
}

int opRole(Operation *op) {
  if (auto role = op->getAttrOfType<IntegerAttr>("op_role"))
    return static_cast<int>(role.getInt());
  return pd::OpRole::Forward;
}

bool isTrainingOp(Operation *op) {
  return opRole(op) & (pd::OpRole::Backward | pd::OpRole::Optimize | pd::OpRole::LRSched);
}

bool hasOptimizerOps(Operation *program) {
  bool found = false;
  program->walk([&](Operation *op) {
    if (op != program && (opRole(op) & pd::OpRole::Optimize))
      found = true;
  });
  return found;
}

std::string firstCollectiveOp(Operation *op) {
  std::string found;
  op->walk([&](Operation *inner) {
    llvm::StringRef name = inner->getName().getStringRef();
    if (found.empty() && name.starts_with("pd.c_"))
      found = name.drop_front(3).str();
  });
  return found;
}

std::string seededLoss(Operation *program) {
  std::string loss;
  program->walk([&](Operation *op) {
    int role = opRole(op);
    if (!loss.empty() || !(role & pd::OpRole::Backward) || !(role & pd::OpRole::Loss) ||
        op->getNumResults() != 1)
      return;
    std::string grad = variableName(op->getResult(0));
    StringRef name(grad);
    if (name.consume_back("@GRAD"))
      loss = name.str();
  });
  return loss;
}

FailureOr<llvm::StringSet<>> skipSetOf(ModuleOp module, llvm::ArrayRef<std::string> skip) {
  llvm::StringSet<> set;
  for (const std::string &name : skip)
    set.insert(name);
  if (skip.empty())
    return set;
  llvm::StringSet<> known;
  for (Operation &op : module.getBody()->getOperations()) {
    if (op.getName().getStringRef() != "pd.program")
      continue;
    op.walk([&](Operation *nested) {
      for (Value result : nested->getResults())
        if (std::string name = variableName(result); !name.empty())
          known.insert(name);
    });
  }
  for (const std::string &name : skip)
    if (!known.contains(name))
      return module.emitError() << "skip_opt_set names '" << name
                                << "', which is no variable of any program";
  return set;
}

void forEachMainProgramBlock(ModuleOp module, llvm::function_ref<void(Block &)> fn) {
  for (Operation &op : module.getBody()->getOperations()) {
    if (op.getName().getStringRef() != "pd.program")
      continue;
    auto kind = op.getAttrOfType<StringAttr>("pd.kind");
    if (kind && kind.getValue() == "startup")
      continue;
    for (Region &region : op.getRegions())
      for (Block &block : region)
        fn(block);
  }
}

llvm::DenseMap<Value, Operation *> lastUsesIn(Block &block) {
  llvm::DenseMap<Value, Operation *> lastUse;
  for (Operation &op : block)
    op.walk([&](Operation *nested) {
      for (Value operand : nested->getOperands())
        if (operand.getParentBlock() == &block)
          lastUse[operand] = &op;
    });
  return lastUse;
}

bool isMemoryPassCandidate(Value value, const llvm::StringSet<> &skip) {
  std::string name = variableName(value);
  if (name.empty() || skip.contains(name))
    return false;
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || type.getRank() == 0)
    return false;
  if (Operation *def = value.getDefiningOp())
    if (def->getName().getStringRef() == "pd.read_var")
      return false;
  for (Operation *user : value.getUsers()) {
    StringRef kind = user->getName().getStringRef();
    if (kind == "pd.fetch" || kind == "pd.write_var")
      return false;
  }
  return true;
}

} // namespace distc
