//===- ConvGeometry.h - Paddle's padding and output-size rules --*- C++ -*-===//
//
// The spatial arithmetic of conv2d, depthwise_conv2d, conv2d_transpose and
// pool2d as Paddle defines it (paddle/phi/infermeta and its UpdatePadding
// helpers): explicit paddings of 2 or 4 values, the SAME and VALID padding
// algorithms, and the output size of each op. Shape inference and the
// lowering both use it, so that the shapes the verifier checks and the
// paddings the kernels get come from one place.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_DIALECT_PD_CONVGEOMETRY_H
#define DISTC_DIALECT_PD_CONVGEOMETRY_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>

namespace distc::pd::conv {

/// One spatial dim the geometry could not be computed for (a dynamic size).
constexpr int64_t kUnknown = -1;

/// The window of a conv or pool over H and W after Paddle's padding rules.
struct Window {
  std::array<int64_t, 2> kernel{1, 1};
  std::array<int64_t, 2> strides{1, 1};
  std::array<int64_t, 2> dilations{1, 1};
  /// top, bottom, left, right (Paddle's order of 4-value paddings).
  std::array<int64_t, 4> paddings{0, 0, 0, 0};
};

/// Whether `format` is a data_format attribute Paddle accepts; NHWC is the
/// only channel-last one (AnyLayout is NCHW).
inline bool isDataFormat(llvm::StringRef format) {
  return format == "NCHW" || format == "NHWC" || format == "AnyLayout";
}
inline bool isChannelLast(llvm::StringRef format) { return format == "NHWC"; }

/// Fills `w` from the attributes: strides and dilations of 2 values,
/// paddings of 2 ([h, w], each used on both sides) or 4 values, and
/// padding_algorithm EXPLICIT, SAME (output ceil(in / stride), the padding
/// split with the smaller half first, dilations reset to 1) or VALID (no
/// padding). `inHW` is the input's spatial size (kUnknown where dynamic;
/// SAME then leaves the paddings unknown, as kUnknown). Returns an error
/// message naming the attribute, or "".
inline std::string resolveWindow(llvm::ArrayRef<int64_t> kernel, llvm::ArrayRef<int64_t> strides,
                                 llvm::ArrayRef<int64_t> paddings,
                                 llvm::ArrayRef<int64_t> dilations, llvm::StringRef algorithm,
                                 std::array<int64_t, 2> inHW, Window &w) {
  if (strides.size() != 2)
    return "attribute 'strides' must have 2 values";
  if (dilations.size() != 2)
    return "attribute 'dilations' must have 2 values";
  if (paddings.size() != 2 && paddings.size() != 4)
    return "attribute 'paddings' must have 2 or 4 values";
  if (algorithm != "EXPLICIT" && algorithm != "SAME" && algorithm != "VALID")
    return "attribute 'padding_algorithm' must be EXPLICIT, SAME or VALID, got '" +
           algorithm.str() + "'";
  for (int i = 0; i < 2; ++i) {
    w.kernel[i] = kernel[i];
    w.strides[i] = strides[i];
    w.dilations[i] = dilations[i];
    if (strides[i] < 1)
      return "attribute 'strides' must be positive";
    if (dilations[i] < 1)
      return "attribute 'dilations' must be positive";
    if (kernel[i] < 1)
      return "the window must be at least 1x1";
  }
  for (int i = 0; i < 4; ++i) {
    w.paddings[i] = paddings.size() == 4 ? paddings[i] : paddings[i / 2];
    if (w.paddings[i] < 0)
      return "attribute 'paddings' must not be negative";
  }
  if (algorithm == "VALID")
    w.paddings = {0, 0, 0, 0};
  if (algorithm == "SAME") {
    for (int i = 0; i < 2; ++i) {
      w.dilations[i] = 1;
      if (inHW[i] == kUnknown) {
        w.paddings[2 * i] = w.paddings[2 * i + 1] = kUnknown;
        continue;
      }
      int64_t out = (inHW[i] + w.strides[i] - 1) / w.strides[i];
      int64_t sum = std::max<int64_t>((out - 1) * w.strides[i] + w.kernel[i] - inHW[i], 0);
      w.paddings[2 * i] = sum / 2;
      w.paddings[2 * i + 1] = sum - sum / 2;
    }
  }
  return "";
}

/// The window's extent with dilation: d * (k - 1) + 1.
inline int64_t effectiveKernel(const Window &w, int i) {
  return w.dilations[i] * (w.kernel[i] - 1) + 1;
}

/// Output size of a conv along spatial dim `i` (0 = H, 1 = W), kUnknown for
/// an unknown input size or padding, or -2 when the padded input is smaller
/// than the dilated kernel.
inline int64_t convOutputSize(const Window &w, int i, int64_t in) {
  if (in == kUnknown || w.paddings[2 * i] == kUnknown)
    return kUnknown;
  int64_t padded = in + w.paddings[2 * i] + w.paddings[2 * i + 1];
  if (padded < effectiveKernel(w, i))
    return -2;
  return (padded - effectiveKernel(w, i)) / w.strides[i] + 1;
}

/// Output size of conv2d_transpose along dim `i` without output_size or
/// output_padding: (in - 1) * stride - pads + dilated kernel.
inline int64_t transposeOutputSize(const Window &w, int i, int64_t in) {
  if (in == kUnknown || w.paddings[2 * i] == kUnknown)
    return kUnknown;
  return (in - 1) * w.strides[i] - w.paddings[2 * i] - w.paddings[2 * i + 1] +
         effectiveKernel(w, i);
}

/// Output size of pool2d along dim `i` (not adaptive): floor, or ceil in
/// ceil_mode, of (in + pads - k) / stride, plus 1; -2 when the padded input
/// is smaller than the window.
inline int64_t poolOutputSize(const Window &w, int i, int64_t in, bool ceilMode) {
  if (in == kUnknown || w.paddings[2 * i] == kUnknown)
    return kUnknown;
  int64_t span = in + w.paddings[2 * i] + w.paddings[2 * i + 1] - w.kernel[i];
  if (span < 0)
    return -2;
  return (ceilMode ? span + w.strides[i] - 1 : span) / w.strides[i] + 1;
}

} // namespace distc::pd::conv

#endif // DISTC_DIALECT_PD_CONVGEOMETRY_H
