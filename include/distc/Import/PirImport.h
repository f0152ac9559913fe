//===- PirImport.h - Paddle 3 PIR programs as ProgramDescs ------*- C++ -*-===//
//
// Paddle 3 (`paddle.jit.save`, PaddleOCR/PaddleX model zoos) saves inference
// programs as PIR JSON (`inference.json` beside `inference.pdiparams`):
//
//   {"base_code": {"magic": "pir", "version": 1, "trainable": false},
//    "program": {"regions": [{"#": "region_0", "blocks": [{"#": "block_0",
//      "args": [], "ops": [{"#": "1.matmul", "I": [{"%": 3}, {"%": 2}],
//                           "O": [{"%": 4, "TT": {...}}], "A": [...]}, ...]}]}]}}
//
// The reader turns such a program into the ProgramDesc the same model has in
// Paddle 2's form — `builtin.parameter` ops become persistable parameter
// variables, `pd_op.data` feeds, `pd_op.fetch` fetches, every other op its
// catalog op through the PIR forms of the op registry (PirForms.h) — so
// that importProgram builds the same `pd` module from it and everything
// downstream is unchanged. docs/programs.md lists what is read.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_IMPORT_PIRIMPORT_H
#define DISTC_IMPORT_PIRIMPORT_H

#include "distc/ProgramDesc/ProgramDesc.h"

#include <string>
#include <string_view>
#include <vector>

namespace distc {

/// The PIR serialization versions (`base_code.version`) the reader takes.
inline constexpr int kMinPirVersion = 1;
inline constexpr int kMaxPirVersion = 4;

/// Whether `bytes`, a JSON text, is a PIR program rather than a ProgramDesc:
/// a top-level object with a `base_code` member. Cheap: only texts that
/// hold the key are parsed.
bool isPirProgram(std::string_view bytes);

/// Converts the PIR program in `bytes` to `program`. On failure returns
/// false with `error` set to one line starting with `sourceName`: malformed
/// JSON (with line and column), a schema violation (with the op's index and
/// name), an unsupported version, or every op distc has no form for with
/// the index of its first occurrence. `opOrigins`, when given, receives per
/// ProgramDesc op the PIR op it comes from (`op #5 'pd_op.matmul'`), for
/// importProgram's diagnostics.
bool pirToProgramDesc(std::string_view bytes, std::string_view sourceName,
                      programdesc::ProgramDesc &program, std::string &error,
                      std::vector<std::string> *opOrigins = nullptr);

} // namespace distc

#endif // DISTC_IMPORT_PIRIMPORT_H
