//===- PirImportTest.cpp - Paddle 3 PIR programs through the API ----------===//
//
// The PIR reader's API (PirImport.h): telling PIR from ProgramDesc JSON, the
// ProgramDesc it writes, the op origins it reports for diagnostics, and that
// importProgramFile takes PIR files by content.
//
//===----------------------------------------------------------------------===//

#include "distc/Import/PirImport.h"
#include "distc/Import/Diagnostics.h"
#include "distc/Import/Import.h"
#include "distc/Support/InputFile.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>

using namespace distc;
using namespace distc::programdesc;

namespace {

// x [-1, 4] -> matmul with the parameter w [4, 2] -> relu_ (in place) -> fetch "y".
const char *kPir = R"({"base_code":{"magic":"pir","trainable":false,"version":2},
 "program":{"regions":[{"#":"region_0","blocks":[{"#":"block_0","args":[],"ops":[
  {"#":"p","A":[0,1,1,"w"],"O":{"%":1,"TT":{"#":"0.t_dtensor","D":[{"#":"0.t_f32"},[4,2],"NCHW",[],0]}}},
  {"#":"1.data","I":[],"O":[{"%":2,"TT":{"#":"0.t_dtensor","D":[{"#":"0.t_f32"},[-1,4],"NCHW",[],0]}}],
   "A":[{"N":"name","AT":{"#":"0.a_str","D":"x"}}]},
  {"#":"1.matmul","I":[{"%":2},{"%":1}],"O":[{"%":3,"TT":{"#":"0.t_dtensor","D":[{"#":"0.t_f32"},[-1,2],"NCHW",[],0]}}],
   "A":[{"N":"transpose_x","AT":{"#":"0.a_bool","D":false}},{"N":"transpose_y","AT":{"#":"0.a_bool","D":false}}]},
  {"#":"1.relu_","I":[{"%":3}],"O":[{"%":4,"TT":{"#":"0.t_dtensor","D":[{"#":"0.t_f32"},[-1,2],"NCHW",[],0]}}],"A":[]},
  {"#":"1.fetch","I":[{"%":4}],"O":[{"%":5,"TT":{"#":"0.t_dtensor","D":[{"#":"0.t_f32"},[-1,2],"NCHW",[],0]}}],
   "A":[{"N":"name","AT":{"#":"0.a_str","D":"y"}},{"N":"col","AT":{"#":"0.a_i32","D":0}}]}]}]}]}})";

TEST(PirImport, TellsPirFromProgramDescJson) {
  EXPECT_TRUE(isPirProgram(kPir));
  // A ProgramDesc that merely names a variable base_code is no PIR program.
  EXPECT_FALSE(isPirProgram(R"({"blocks": [{"idx": 0, "vars": [{"name": "base_code"}]}]})"));
  EXPECT_FALSE(isPirProgram(R"({"blocks": []})"));
}

TEST(PirImport, WritesTheProgramDescOfTheModel) {
  ProgramDesc program;
  std::string error;
  std::vector<std::string> origins;
  ASSERT_TRUE(pirToProgramDesc(kPir, "m.json", program, error, &origins)) << error;
  const auto &block = program.blocks(0);
  std::vector<std::string> types;
  for (const auto &op : block.ops())
    types.push_back(op.type());
  EXPECT_EQ(types, (std::vector<std::string>{"feed", "matmul_v2", "relu", "fetch"}));
  EXPECT_EQ(origins, (std::vector<std::string>{"op #1 'pd_op.data'", "op #2 'pd_op.matmul'",
                                               "op #3 'pd_op.relu_'", "op #4 'pd_op.fetch'"}));
  // The parameter is persistable, the fetched value takes the fetch's name.
  bool sawParameter = false;
  for (const auto &var : block.vars())
    if (var.name() == "w") {
      sawParameter = true;
      EXPECT_TRUE(var.persistable());
      EXPECT_TRUE(var.is_parameter());
    }
  EXPECT_TRUE(sawParameter);
  EXPECT_EQ(block.ops(2).outputs(0).arguments(0), "y");
  const auto &matmul = block.ops(1);
  ASSERT_EQ(matmul.attrs_size(), 2);
  EXPECT_EQ(matmul.attrs(0).name(), "trans_x");
}

/// The uncompressed spelling of earlier files: full op names, value ids
/// under "#", builtin.parameter with named attributes.
TEST(PirImport, ReadsUncompressedNamesAndLegacyValueIds) {
  std::string text = kPir;
  auto replaceAll = [&](const std::string &from, const std::string &to) {
    for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
      text.replace(at, from.size(), to);
  };
  replaceAll("{\"%\":", "{\"#\":");
  replaceAll("\"1.", "\"pd_op.");
  replaceAll("{\"#\":\"p\",\"A\":[0,1,1,\"w\"],",
             "{\"#\":\"builtin.parameter\",\"A\":[{\"N\":\"parameter_name\",\"AT\":{\"#\":"
             "\"0.a_str\",\"D\":\"w\"}}],");
  ProgramDesc program;
  std::string error;
  ASSERT_TRUE(pirToProgramDesc(text, "old.json", program, error)) << error << "\n" << text;
  const auto &block = program.blocks(0);
  ASSERT_EQ(block.ops_size(), 4);
  EXPECT_EQ(block.ops(1).type(), "matmul_v2");
  EXPECT_EQ(block.ops(1).inputs(1).arguments(0), "w");
}

TEST(PirImport, FetchNamesWinOverGeneratedNames) {
  // The fetch is named like the name the matmul (op #2) would get.
  std::string text = kPir;
  text.replace(text.find("\"D\":\"y\""), 7, "\"D\":\"matmul_2.tmp_0\"");
  ProgramDesc program;
  std::string error;
  ASSERT_TRUE(pirToProgramDesc(text, "m.json", program, error)) << error;
  const auto &block = program.blocks(0);
  EXPECT_EQ(block.ops(1).outputs(0).arguments(0), "matmul_2.tmp_0_1");
  EXPECT_EQ(block.ops(2).outputs(0).arguments(0), "matmul_2.tmp_0");
  EXPECT_EQ(block.ops(3).inputs(0).arguments(0), "matmul_2.tmp_0");
}

TEST(PirImport, ErrorsAreOneLineAndNameTheFile) {
  ProgramDesc program;
  std::string error;
  std::string bad = kPir;
  bad.replace(bad.find("\"version\":2"), 11, "\"version\":0");
  EXPECT_FALSE(pirToProgramDesc(bad, "m.json", program, error));
  EXPECT_EQ(error, "m.json: PIR version 0 is not supported (supported: 1 to 4)");
  EXPECT_FALSE(pirToProgramDesc("{\"base_code\": ", "m.json", program, error));
  EXPECT_EQ(error.rfind("m.json: malformed JSON: ", 0), 0u) << error;
  EXPECT_EQ(error.find('\n'), std::string::npos);
}

TEST(PirImport, ImportProgramFileReadsPirByContent) {
  std::string path = ::testing::TempDir() + "/pir-model.json", error;
  ASSERT_TRUE(programdesc::writeFileBytes(path, kPir, error)) << error;
  mlir::MLIRContext ctx;
  auto module = importProgramFile(ctx, path);
  ASSERT_TRUE(module);
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  EXPECT_NE(text.find("pd.var @w persistable is_parameter : tensor<4x2xf32>"), std::string::npos)
      << text;
  EXPECT_NE(text.find("pd.relu"), std::string::npos) << text;
}

/// Damaged PIR programs (spans deleted, duplicated or overwritten in the
/// examples) either import or fail with a message; none crashes.
TEST(PirImport, DamagedProgramsFailWithoutCrashing) {
  uint64_t state = 7;
  auto next = [&](size_t n) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return n ? static_cast<size_t>(state >> 33) % n : 0;
  };
  for (const char *example : {"/mlp/inference.json", "/transformer/inference.json"}) {
    std::string original, error;
    ASSERT_TRUE(
        distc::support::readInputFile(std::string(DISTC_EXAMPLES_DIR) + example, original, error))
        << error;
    for (int round = 0; round < 200; ++round) {
      std::string bytes = original;
      size_t at = next(bytes.size()), length = 1 + next(24);
      switch (next(3)) {
      case 0:
        bytes.erase(at, length);
        break;
      case 1:
        bytes.insert(at, bytes.substr(next(bytes.size()), length));
        break;
      default:
        bytes.replace(at, std::min(length, bytes.size() - at),
                      std::string(length, "0-9\"{,]"[next(7)]));
      }
      ProgramDesc program;
      if (!pirToProgramDesc(bytes, "damaged", program, error)) {
        EXPECT_EQ(error.rfind("damaged: ", 0), 0u) << error;
        continue;
      }
      mlir::MLIRContext ctx;
      ctx.printOpOnDiagnostic(false);
      mlir::ScopedDiagnosticHandler quiet(&ctx, [](mlir::Diagnostic &) { return mlir::success(); });
      (void)importProgram(ctx, program, nullptr, "damaged");
    }
  }
}

} // namespace
