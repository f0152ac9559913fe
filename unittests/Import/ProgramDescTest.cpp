//===- ProgramDescTest.cpp - Loading and saving Paddle programs -----------===//

#include "distc/ProgramDesc/ProgramDesc.h"

#include <gtest/gtest.h>

using namespace distc::programdesc;

namespace {

const char *kSmallProgram = R"({"blocks": [{"idx": 0, "parent_idx": -1,
  "vars": [{"name": "x", "type": {"type": "DENSE_TENSOR",
            "lod_tensor": {"tensor": {"data_type": "FP32", "dims": [-1, "64"]}}}}],
  "ops": [{"type": "relu", "inputs": [{"parameter": "X", "arguments": ["x"]}],
           "outputs": [{"parameter": "Out", "arguments": ["y"]}],
           "attrs": [{"name": "shape", "type": "LONGS", "longs": [1, "2"]}]}]}]})";

TEST(ProgramDesc, ParsesJsonWithNumbersOrStringsForInt64AndAliasedEnums) {
  ProgramDesc program;
  std::string error;
  ASSERT_TRUE(parseProgram(kSmallProgram, "small.json", program, error)) << error;
  const auto &var = program.blocks(0).vars(0);
  EXPECT_EQ(var.type().type(), proto::VarType::LOD_TENSOR); // DENSE_TENSOR is its alias
  ASSERT_EQ(var.type().lod_tensor().tensor().dims_size(), 2);
  EXPECT_EQ(var.type().lod_tensor().tensor().dims(0), -1);
  EXPECT_EQ(var.type().lod_tensor().tensor().dims(1), 64);
  EXPECT_EQ(program.blocks(0).ops(0).attrs(0).longs(1), 2);
}

TEST(ProgramDesc, BinaryAndJsonRoundTrip) {
  ProgramDesc program, fromBinary, fromJson;
  std::string error, binary, json;
  ASSERT_TRUE(parseProgram(kSmallProgram, "small.json", program, error)) << error;
  ASSERT_TRUE(programToBinary(program, binary, error)) << error;
  ASSERT_EQ(detectProgramFormat(binary), ProgramFormat::Binary);
  ASSERT_TRUE(parseProgram(binary, "small.pdmodel", fromBinary, error)) << error;
  EXPECT_EQ(fromBinary.SerializeAsString(), binary);
  ASSERT_TRUE(programToJson(program, json, error)) << error;
  EXPECT_NE(json.find("\"dims\": [-1, 64]"), std::string::npos) << json;
  ASSERT_TRUE(parseProgram(json, "again.json", fromJson, error)) << error;
  EXPECT_EQ(fromJson.SerializeAsString(), binary);
}

TEST(ProgramDesc, ErrorsAreOneLineAndNameTheFile) {
  struct Case {
    const char *text;
    const char *expected;
  } cases[] = {
      {"{\"blocks\": [\n {\"idx\": 0,,}]}", "bad.json: malformed JSON: parse error at line 2"},
      {"{\"blocks\": [{\"idx\": 0, \"parent_idx\": -1, \"bogus\": 1}]}",
       "bad.json: JSON does not match the ProgramDesc schema"},
      {"{\"blocks\": [{\"idx\": 0}]}", "bad.json: JSON does not match the ProgramDesc schema"},
      {"{}", "bad.json: empty program"},
      {"   \n", "bad.json: empty program: the file is empty"},
      {"\x0a\x05\x08", "bad.json: malformed protobuf"},
  };
  for (const Case &c : cases) {
    ProgramDesc program;
    std::string error;
    EXPECT_FALSE(parseProgram(c.text, "bad.json", program, error)) << c.text;
    EXPECT_EQ(error.rfind(c.expected, 0), 0u) << error;
    EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  }
}

TEST(ProgramDesc, MissingRequiredFieldsInBinaryAreNamed) {
  ProgramDesc program;
  program.add_blocks()->set_idx(0); // parent_idx missing
  std::string bytes = program.SerializePartialAsString();
  std::string error;
  ProgramDesc parsed;
  EXPECT_FALSE(parseProgram(bytes, "partial.pdmodel", parsed, error));
  EXPECT_NE(error.find("missing required fields: blocks[0].parent_idx"), std::string::npos)
      << error;
  std::string out;
  EXPECT_FALSE(programToBinary(program, out, error));
}

TEST(ProgramDesc, LoadsTheExamples) {
  for (const char *name : {"/mlp/main.json", "/mlp/startup.json", "/transformer/main.json"}) {
    ProgramDesc program;
    std::string error;
    EXPECT_TRUE(loadProgramFile(std::string(DISTC_EXAMPLES_DIR) + name, program, error)) << error;
  }
  ProgramDesc program;
  std::string error;
  EXPECT_FALSE(loadProgramFile("/nonexistent/prog.json", program, error));
  EXPECT_EQ(error.rfind("/nonexistent/prog.json: cannot open", 0), 0u) << error;
}

} // namespace
