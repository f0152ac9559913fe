//===- Emit.cpp - printing a phase's programs -----------------------------===//

#include "Emit.h"

#include "distc/Dialect/Pd/PdDialect.h"
#include "distc/Dialect/Pd/PdOps.h"
#include "distc/Export/Export.h"
#include "distc/Pipeline/Diagnostics.h"
#include "distc/ProgramDesc/ProgramDesc.h"

#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/raw_ostream.h"

#include <iostream>

using namespace mlir;

namespace distc::pipeline {
namespace {

/// The program a `--emit=program-json` request names in `module`: before the
/// modes phase `@main`/`@startup`, after it `@<mode>.<program>`. Empty (after
/// reporting what exists) when there is none.
std::string selectProgram(ModuleOp module, const CompileOptions &options, bool modesDerived) {
  // A parameter-server role's programs are its train programs.
  std::string defaultMode = options.role.empty() ? "predict" : "train";
  std::string name =
      modesDerived ? (options.mode.empty() ? defaultMode : options.mode) + "." + options.program
                   : options.program;
  for (Operation &op : module.getBody()->getOperations())
    if (op.getName().getStringRef() == "pd.program" && SymbolTable::getSymbolName(&op) == name)
      return name;
  std::string available;
  for (Operation &op : module.getBody()->getOperations())
    if (op.getName().getStringRef() == "pd.program")
      available += (available.empty() ? "" : ", ") + SymbolTable::getSymbolName(&op).str();
  reportError("no program '" + name + "' at this phase (have: " + available + ")");
  return "";
}

/// What rank `rank` runs of an SPMD program: under the Reduce strategy the
/// ops another rank owns (`owner_rank`) are not its; the attribute is
/// dropped from the ops it keeps. Every op stays when `rank` < 0.
void keepRankOps(programdesc::ProgramDesc &desc, int rank) {
  for (auto &block : *desc.mutable_blocks()) {
    auto *ops = block.mutable_ops();
    for (int i = ops->size() - 1; i >= 0; --i) {
      auto *attrs = ops->Mutable(i)->mutable_attrs();
      for (int a = 0; a < attrs->size(); ++a) {
        if (attrs->Get(a).name() != "owner_rank")
          continue;
        if (rank < 0)
          break;
        if (attrs->Get(a).i() != rank)
          ops->DeleteSubrange(i, 1);
        else
          attrs->DeleteSubrange(a, 1);
        break;
      }
    }
  }
}

/// The communicator setup as rank `rank` runs it: the SPMD program's rank
/// -1 ("bound at run time") becomes `rank`. The endpoints stay empty: the
/// launcher's rendezvous provides the peers when the job runs.
void bindCommunicatorRank(programdesc::ProgramDesc &desc, int rank) {
  if (rank < 0)
    return;
  for (auto &block : *desc.mutable_blocks())
    for (auto &op : *block.mutable_ops()) {
      if (op.type() != "c_gen_nccl_id" && op.type() != "c_comm_init")
        continue;
      for (auto &attr : *op.mutable_attrs())
        if (attr.name() == "rank" && attr.i() == -1)
          attr.set_i(rank);
    }
}

/// A partitioned program as rank `rank` runs it (its dist_main_program):
/// c_split keeps the slice of the rank's coordinate on its ring's mesh axis
/// (ring 1 + a), which the SPMD program leaves to run time (-1).
void bindMeshCoordinates(programdesc::ProgramDesc &desc, ModuleOp module, int rank) {
  if (rank < 0 || !module->hasAttr(pd::kPartitionedAttr))
    return;
  auto meshes = module.getOps<pd::MeshOp>();
  if (meshes.empty())
    return;
  sharding::ProcessMesh mesh = (*meshes.begin()).getProcessMesh();
  std::optional<std::vector<int64_t>> coordinate = mesh.coordinatesOf(rank);
  if (!coordinate)
    return;
  for (auto &block : *desc.mutable_blocks())
    for (auto &op : *block.mutable_ops()) {
      if (op.type() != "c_split")
        continue;
      int64_t ring = 0;
      for (const auto &attr : op.attrs())
        if (attr.name() == "ring_id")
          ring = attr.i();
      for (auto &attr : *op.mutable_attrs())
        if (attr.name() == "rank" && attr.i() == -1)
          attr.set_i(ring >= 1 && ring <= mesh.rank() ? (*coordinate)[ring - 1] : rank);
    }
}

/// The module that holds the programs of `--role`: the server at
/// `--endpoint` (a nested module of the parameter-server transpile), else
/// `module` itself. Null (after reporting) when no server has the endpoint.
ModuleOp roleModule(ModuleOp module, const CompileOptions &options) {
  if (options.role != "pserver")
    return module;
  for (auto nested : module.getOps<ModuleOp>()) {
    auto endpoint = nested->getAttrOfType<StringAttr>("pd.endpoint");
    if (endpoint && endpoint.getValue() == options.endpoint)
      return nested;
  }
  reportError("no parameter-server programs for endpoint " + options.endpoint +
              " at this phase (the servers' programs exist from the distributed phase on)");
  return nullptr;
}

int emitProgramJson(ModuleOp module, llvm::StringRef program, int rank) {
  programdesc::ProgramDesc desc;
  if (failed(exportProgram(module, program, desc)))
    return 1;
  keepRankOps(desc, rank);
  bindCommunicatorRank(desc, rank);
  bindMeshCoordinates(desc, module, rank);
  std::string json, error;
  if (!programdesc::programToJson(desc, json, error)) {
    reportError(error);
    return 1;
  }
  std::cout << json;
  if (!json.empty() && json.back() != '\n')
    std::cout << '\n';
  return 0;
}

} // namespace

int emitPrograms(ModuleOp module, const CompileOptions &options, PhaseResult result) {
  if (options.emit == "program-json") {
    ModuleOp programs = roleModule(module, options);
    if (!programs)
      return 1;
    std::string program =
        selectProgram(programs, options, /*modesDerived=*/result == PhaseResult::ModePrograms);
    return program.empty() ? 1 : emitProgramJson(programs, program, options.rank);
  }
  module->print(llvm::outs());
  llvm::outs() << "\n";
  return 0;
}

} // namespace distc::pipeline
