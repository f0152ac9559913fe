//===- ProgramDesc.h - Read and write Paddle programs -----------*- C++ -*-===//
//
// Loading and saving PaddlePaddle ProgramDesc messages (framework.proto) in
// both forms Paddle programs are found in:
//  * binary protobuf (`__model__`, `*.pdmodel`): one serialized ProgramDesc;
//  * JSON: protobuf's JSON mapping of the same message, with the field names
//    of framework.proto (`blocks[].ops[].inputs[].parameter`) and enum values
//    by name (`"type": "LOD_TENSOR"`). 64-bit integers may be JSON numbers or
//    strings; they are written as numbers.
// The format is detected from the content, never from the file name.
//
// No MLIR here: the runtime side and small tools may use this layer alone.
// Every error is one line that starts with the source (file) name.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_PROGRAMDESC_PROGRAMDESC_H
#define DISTC_PROGRAMDESC_PROGRAMDESC_H

#include "distc/ProgramDesc/framework.pb.h"

#include <string>
#include <string_view>

namespace distc::programdesc {

namespace proto = ::paddle::framework::proto;
using ProgramDesc = proto::ProgramDesc;

enum class ProgramFormat { Binary, Json };

/// Json when the first non-blank byte is '{', Binary otherwise. A binary
/// ProgramDesc starts with field 1 (byte 0x0a), never with '{'.
ProgramFormat detectProgramFormat(std::string_view bytes);

/// Parses `bytes` (either form) into `program`. On failure returns false and
/// sets `error` to one line starting with `sourceName`: malformed JSON (with
/// line and column), JSON that does not fit the schema (with the field),
/// malformed protobuf, missing required fields (named by their path, e.g.
/// `blocks[0].ops[3].type`), or a program without blocks.
bool parseProgram(std::string_view bytes, std::string_view sourceName, ProgramDesc &program,
                  std::string &error);

/// Reads the file at `path` and parses it as above.
bool loadProgramFile(const std::string &path, ProgramDesc &program, std::string &error);

/// Serializes `program` to binary protobuf. Fails (naming the missing fields)
/// when required fields are unset.
bool programToBinary(const ProgramDesc &program, std::string &out, std::string &error);

/// Serializes `program` to indented JSON with framework.proto's field names.
bool programToJson(const ProgramDesc &program, std::string &out, std::string &error);

/// Writes `program` to `path` in the given form.
bool saveProgramFile(const ProgramDesc &program, const std::string &path, ProgramFormat format,
                     std::string &error);

/// Writes a whole file; false with a one-line message naming it on failure.
bool writeFileBytes(const std::string &path, std::string_view bytes, std::string &error);

} // namespace distc::programdesc

#endif // DISTC_PROGRAMDESC_PROGRAMDESC_H
