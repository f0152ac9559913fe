//===- ImportExportTest.cpp - Importer and exporter APIs ------------------===//

#include "distc/Export/Export.h"
#include "distc/Import/Diagnostics.h"
#include "distc/Import/Import.h"

#include "distc/Dialect/Pd/PdOps.h"

#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

using namespace distc;
using namespace distc::programdesc;

namespace {

/// Collects the diagnostics of a context as formatted lines.
struct Collected {
  explicit Collected(mlir::MLIRContext &ctx) : handler(&ctx, os) {}
  std::string text;
  llvm::raw_string_ostream os{text};
  ProgramDiagnosticHandler handler;
};

ProgramDesc parse(const char *json) {
  ProgramDesc program;
  std::string error;
  EXPECT_TRUE(parseProgram(json, "test.json", program, error)) << error;
  return program;
}

std::string print(mlir::ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os);
  return text;
}

const char *kProgram = R"({"blocks": [{"idx": 0, "parent_idx": -1,
  "vars": [{"name": "x", "type": {"type": "LOD_TENSOR", "lod_tensor": {"tensor": {"data_type": "FP32", "dims": [-1, 4]}}}},
           {"name": "w", "persistable": true, "is_parameter": true,
            "type": {"type": "LOD_TENSOR", "lod_tensor": {"tensor": {"data_type": "FP32", "dims": [4, 2]}}}}],
  "ops": [{"type": "mul", "inputs": [{"parameter": "X", "arguments": ["x"]}, {"parameter": "Y", "arguments": ["w"]}],
           "outputs": [{"parameter": "Out", "arguments": ["y"]}],
           "attrs": [{"name": "op_role", "type": "INT", "i": 0}, {"name": "op_callstack", "type": "STRINGS", "strings": ["f"]}]},
          {"type": "softmax", "inputs": [{"parameter": "X", "arguments": ["y"]}], "outputs": [{"parameter": "Out", "arguments": ["p"]}]}]}]})";

TEST(Import, BuildsTypedModuleWithImplicitFeed) {
  mlir::MLIRContext ctx;
  Collected diags(ctx);
  ProgramDesc program = parse(kProgram);
  auto module = importProgram(ctx, program, nullptr, "test.json");
  ASSERT_TRUE(module) << diags.text;
  std::string ir = print(*module);
  EXPECT_NE(ir.find("pd.var @w persistable is_parameter : tensor<4x2xf32>"), std::string::npos)
      << ir;
  EXPECT_NE(ir.find("pd.feed {pd.out_names = [\"x\"]} : tensor<?x4xf32>"), std::string::npos) << ir;
  EXPECT_NE(ir.find("-> tensor<?x2xf32>"), std::string::npos) << ir;
  EXPECT_EQ(ir.find("op_callstack"), std::string::npos) << ir;
}

TEST(Import, ExportThenImportIsIdentity) {
  mlir::MLIRContext ctx;
  Collected diags(ctx);
  auto first = importProgram(ctx, parse(kProgram), nullptr, "test.json");
  ASSERT_TRUE(first) << diags.text;
  ProgramDesc exported;
  ASSERT_TRUE(mlir::succeeded(exportProgram(*first, "main", exported))) << diags.text;
  auto second = importProgram(ctx, exported, nullptr, "exported");
  ASSERT_TRUE(second) << diags.text;
  EXPECT_EQ(print(*first), print(*second));
  EXPECT_TRUE(hasProgram(*first, "main"));
  EXPECT_FALSE(hasProgram(*first, "startup"));
}

TEST(Import, DiagnosticsNameFileOpAndOutput) {
  mlir::MLIRContext ctx;
  Collected diags(ctx);
  ProgramDesc program = parse(kProgram);
  program.mutable_blocks(0)->mutable_ops(1)->set_type("no_such_op");
  EXPECT_FALSE(importProgram(ctx, program, nullptr, "test.json"));
  EXPECT_EQ(diags.text, "test.json: op #1 'no_such_op' (output p): error: unknown op type "
                        "'no_such_op': the pd dialect does not model it\n");
}

TEST(Import, StartupWritesParameters) {
  mlir::MLIRContext ctx;
  Collected diags(ctx);
  ProgramDesc startup = parse(R"({"blocks": [{"idx": 0, "parent_idx": -1,
    "vars": [{"name": "w", "persistable": true, "is_parameter": true,
              "type": {"type": "LOD_TENSOR", "lod_tensor": {"tensor": {"data_type": "FP32", "dims": [4, 2]}}}}],
    "ops": [{"type": "gaussian_random", "outputs": [{"parameter": "Out", "arguments": ["w"]}],
             "attrs": [{"name": "shape", "type": "INTS", "ints": [4, 2]}, {"name": "seed", "type": "INT", "i": 9}]}]}]})");
  auto module = importProgram(ctx, parse(kProgram), &startup, "main.json", "startup.json");
  ASSERT_TRUE(module) << diags.text;
  std::string ir = print(*module);
  EXPECT_NE(ir.find("pd.write_var @w"), std::string::npos) << ir;
  EXPECT_NE(ir.find("seed = 9 : i32, shape = array<i64: 4, 2>"), std::string::npos) << ir;
  ProgramDesc exported;
  ASSERT_TRUE(mlir::succeeded(exportProgram(*module, "startup", exported)));
  ASSERT_EQ(exported.blocks(0).ops_size(), 1);
  EXPECT_EQ(exported.blocks(0).ops(0).outputs(0).arguments(0), "w");
}

TEST(Diagnostics, FormatsProgramLocations) {
  mlir::MLIRContext ctx;
  auto file = mlir::FileLineColLoc::get(&ctx, "prog.json", 0, 0);
  auto op = mlir::NameLoc::get(mlir::StringAttr::get(&ctx, "op #7 'relu' (output y)"), file);
  EXPECT_EQ(formatProgramLocation(op), "prog.json: op #7 'relu' (output y)");
  EXPECT_EQ(formatProgramLocation(mlir::FileLineColLoc::get(&ctx, "a.mlir", 3, 5)), "a.mlir:3:5");
  EXPECT_EQ(formatProgramLocation(mlir::UnknownLoc::get(&ctx)), "");
}

} // namespace
