//===- TensorFormat.h - Printing and comparing tensors ----------*- C++ -*-===//
//
// Human-readable output for tools and tests: a NumPy-like nested layout,
// "[[1 2 3]\n [4 5 6]]", with every floating-point value printed with the
// fewest digits that read back to the same value (so text comparisons, e.g.
// FileCheck, are exact and stable). Bool prints as True/False.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_RUNTIME_TENSORFORMAT_H
#define DISTC_RUNTIME_TENSORFORMAT_H

#include "distc/Runtime/Tensor.h"

#include <optional>
#include <string>

namespace distc::runtime {

/// The values of `t` in a nested-bracket layout (no trailing newline).
std::string formatTensorValues(const Tensor &t);

/// One element, shortest round-trip form; `index` is a flat row-major index.
std::string formatElement(const Tensor &t, int64_t index);

/// Compares `got` with `expected`: same dtype and shape, and every element
/// with |got - expected| <= atol + rtol * |expected| (NaN equals NaN, equal
/// infinities are equal; integers and bools compare exactly). Returns
/// nullopt on agreement, else a message such as
/// "MISMATCH at [1,2]: got 0.5 expected 0.25" or "dtype f64 != expected f32".
std::optional<std::string> compareTensors(const Tensor &got, const Tensor &expected, double rtol,
                                          double atol);

} // namespace distc::runtime

#endif // DISTC_RUNTIME_TENSORFORMAT_H
