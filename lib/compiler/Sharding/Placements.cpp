//===- Placements.cpp - User sharding annotations (--placements) ----------===//

#include "distc/Sharding/Placements.h"

#include "distc/Dialect/Pd/OpCatalog.h"
#include "distc/Dialect/Pd/PdOps.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MemoryBuffer.h"

#include <nlohmann/json.hpp>

namespace distc::sharding {

namespace {

llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

using nlohmann::json;

llvm::Expected<std::vector<int64_t>> intList(const json &value, const std::string &where) {
  if (!value.is_array())
    return fail(where + " must be a list of integers");
  std::vector<int64_t> out;
  for (const json &e : value) {
    if (!e.is_number_integer())
      return fail(where + " must be a list of integers, got " + e.dump());
    out.push_back(e.get<int64_t>());
  }
  return out;
}

llvm::Error parseMesh(const json &mesh, ProcessMesh &out, const std::string &source) {
  if (!mesh.is_object() || !mesh.contains("shape"))
    return fail(source + ": \"mesh\" must be an object with \"shape\"");
  auto shape = intList(mesh["shape"], source + ": mesh.shape");
  if (!shape)
    return shape.takeError();
  out.shape = *shape;
  if (mesh.contains("dim_names")) {
    const json &names = mesh["dim_names"];
    if (!names.is_array())
      return fail(source + ": mesh.dim_names must be a list of strings");
    for (const json &name : names) {
      if (!name.is_string())
        return fail(source + ": mesh.dim_names must be a list of strings, got " + name.dump());
      out.dimNames.push_back(name.get<std::string>());
    }
  }
  if (mesh.contains("process_ids")) {
    auto ids = intList(mesh["process_ids"], source + ": mesh.process_ids");
    if (!ids)
      return ids.takeError();
    out.processIds = *ids;
  }
  for (const auto &[key, value] : mesh.items())
    if (key != "shape" && key != "dim_names" && key != "process_ids")
      return fail(source + ": unknown mesh key \"" + key +
                  "\" (expected shape, dim_names, process_ids)");
  if (llvm::Error err = out.verify())
    return fail(source + ": " + llvm::toString(std::move(err)));
  out.fillDefaults();
  return llvm::Error::success();
}

} // namespace

llvm::Expected<PlacementsSpec> parsePlacements(llvm::StringRef text, llvm::StringRef sourceRef) {
  std::string source = sourceRef.str();
  json root = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded())
    return fail(source + " is not valid JSON");
  if (!root.is_object())
    return fail(source + ": expected an object with \"mesh\" and \"tensors\"");
  for (const auto &[key, value] : root.items())
    if (key != "mesh" && key != "tensors")
      return fail(source + ": unknown key \"" + key + "\" (expected mesh, tensors)");
  PlacementsSpec spec;
  if (!root.contains("mesh"))
    return fail(source + " has no \"mesh\"");
  if (llvm::Error err = parseMesh(root["mesh"], spec.mesh, source))
    return std::move(err);
  if (!root.contains("tensors") || !root["tensors"].is_object())
    return fail(source + ": \"tensors\" must be an object of tensor name -> placements");
  for (const auto &[name, list] : root["tensors"].items()) {
    std::string where = source + ": tensor '" + name + "'";
    if (!list.is_array())
      return fail(where + ": placements must be a list such as [\"Shard(0)\", \"Replicate()\"]");
    if (static_cast<int64_t>(list.size()) != spec.mesh.rank())
      return fail(where + " lists " + llvm::Twine(list.size()) + " placements for a mesh of " +
                  llvm::Twine(spec.mesh.rank()) + " axes (" + spec.mesh.str() + ")");
    std::vector<Placement> placements;
    for (const json &item : list) {
      if (!item.is_string())
        return fail(where + ": a placement must be a string, got " + item.dump());
      llvm::Expected<Placement> p = Placement::parse(item.get<std::string>());
      if (!p)
        return fail(where + ": " + llvm::toString(p.takeError()));
      placements.push_back(*p);
    }
    spec.tensors.emplace_back(name, std::move(placements));
  }
  return spec;
}

llvm::Expected<PlacementsSpec> readPlacementsFile(llvm::StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer)
    return fail("cannot read placements file '" + path + "': " + buffer.getError().message());
  return parsePlacements((*buffer)->getBuffer(), path);
}

namespace {

/// Where an annotation goes: a pd.var, or result `index` of an op.
struct Target {
  mlir::Operation *op = nullptr;
  unsigned index = 0;
  mlir::Type type;
};

/// The main program's values by Paddle variable name (pd.out_names).
llvm::StringMap<Target> valuesByName(mlir::ModuleOp module) {
  llvm::StringMap<Target> values;
  for (auto program : module.getOps<pd::ProgramOp>()) {
    if (program.getSymName() != "main")
      continue;
    program.getBody().walk([&](mlir::Operation *op) {
      auto names = op->getAttrOfType<mlir::ArrayAttr>(pd::kOutNamesAttr);
      if (!names)
        return;
      for (auto [i, name] : llvm::enumerate(names))
        if (auto s = llvm::dyn_cast<mlir::StringAttr>(name); s && !s.getValue().empty())
          values.try_emplace(s.getValue(),
                             Target{op, static_cast<unsigned>(i), op->getResult(i).getType()});
    });
  }
  return values;
}

} // namespace

llvm::Error annotate(mlir::ModuleOp module, const PlacementsSpec &spec) {
  mlir::MLIRContext *ctx = module.getContext();
  if (module.lookupSymbol(kDefaultMeshName))
    return fail("--placements: the program already has a symbol @" + kDefaultMeshName);
  llvm::StringMap<pd::VarOp> vars;
  for (auto var : module.getOps<pd::VarOp>())
    vars[var.getSymName()] = var;
  llvm::StringMap<Target> values = valuesByName(module);

  auto meshRef = mlir::FlatSymbolRefAttr::get(ctx, kDefaultMeshName);
  // Check everything first, so that a failure leaves the module unchanged.
  std::vector<std::pair<Target, mlir::Attribute>> annotations;
  for (const auto &[name, placements] : spec.tensors) {
    Target target;
    if (pd::VarOp var = vars.lookup(name))
      target = Target{var, 0, var.getType()};
    else if (auto it = values.find(name); it != values.end())
      target = it->second;
    else
      return fail("--placements: no variable or value of the main program is named '" + name + "'");
    auto tensor = llvm::dyn_cast<mlir::RankedTensorType>(target.type);
    if (!tensor)
      return fail("--placements: '" + name + "' is not a ranked tensor");
    auto sharding = pd::ShardingAttr::get(ctx, meshRef, placements, /*annotated=*/true);
    if (llvm::Error err = sharding.verifyOnMesh(tensor, spec.mesh.shape))
      return fail("--placements: tensor '" + name + "' " + sharding.placementsString() + ": " +
                  llvm::toString(std::move(err)));
    annotations.emplace_back(target, sharding);
  }

  mlir::OpBuilder builder(ctx);
  builder.setInsertionPointToStart(module.getBody());
  llvm::SmallVector<mlir::Attribute> names;
  for (const std::string &name : spec.mesh.dimNames)
    names.push_back(builder.getStringAttr(name));
  pd::MeshOp::create(builder, module.getLoc(), kDefaultMeshName,
                     builder.getDenseI64ArrayAttr(spec.mesh.shape), builder.getArrayAttr(names),
                     builder.getDenseI64ArrayAttr(spec.mesh.processIds));

  for (auto &[target, sharding] : annotations) {
    if (llvm::isa<pd::VarOp>(target.op)) {
      target.op->setAttr(pd::kVarShardingAttr, sharding);
      continue;
    }
    // One sharding per result; results not named stay open (replicated
    // placeholders are not annotations, so each gets its own later).
    llvm::SmallVector<mlir::Attribute> all;
    if (auto existing = target.op->getAttrOfType<mlir::ArrayAttr>(pd::kShardingsAttr))
      all.assign(existing.begin(), existing.end());
    if (all.size() != target.op->getNumResults()) {
      all.clear();
      std::vector<Placement> replicated(spec.mesh.shape.size(), Placement::replicate());
      all.assign(target.op->getNumResults(),
                 pd::ShardingAttr::get(ctx, meshRef, replicated, /*annotated=*/false));
    }
    all[target.index] = sharding;
    target.op->setAttr(pd::kShardingsAttr, builder.getArrayAttr(all));
  }
  return llvm::Error::success();
}

} // namespace distc::sharding
