//===- ResizeSpec.h - Paddle's padding and resize attribute rules -*- C++ -*-===//
//
// How pad2d/pad3d and the interpolate v2 ops read their attributes: which
// dims they pad or resize, by how much, and how the output size follows
// from `scale`. Shape inference (dialect) and the lowering (compiler) both
// read the attributes through these, so the two cannot disagree.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_DIALECT_PD_RESIZESPEC_H
#define DISTC_DIALECT_PD_RESIZESPEC_H

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace distc::pd {

/// The layout of an N-D image tensor: channels first (NCHW, NCDHW) or last
/// (NHWC, NDHWC). Returns the first spatial dim, or nullopt for an unknown
/// format string. `spatial` is the number of spatial dims (rank − 2).
inline std::optional<int64_t> firstSpatialDim(std::string_view format, int64_t spatial) {
  std::string channelsFirst = spatial == 3 ? "NCDHW" : "NCHW";
  std::string channelsLast = spatial == 3 ? "NDHWC" : "NHWC";
  if (format == channelsFirst)
    return 2;
  if (format == channelsLast)
    return 1;
  return std::nullopt;
}

/// Per dim of a rank-`rank` input, the (before, after) padding `paddings`
/// gives: pad2d lists [top, bottom, left, right] (outer spatial dim first),
/// pad3d [left, right, top, bottom, front, back] (`innerFirst`). Nullopt
/// when the format is unknown or `paddings` has not 2 × (rank − 2) entries.
inline std::optional<std::vector<std::pair<int64_t, int64_t>>>
padsPerDim(int64_t rank, const std::vector<int64_t> &paddings, std::string_view format,
           bool innerFirst) {
  int64_t spatial = rank - 2;
  std::optional<int64_t> first = firstSpatialDim(format, spatial);
  if (spatial < 1 || !first || static_cast<int64_t>(paddings.size()) != 2 * spatial)
    return std::nullopt;
  std::vector<std::pair<int64_t, int64_t>> pads(rank, {0, 0});
  for (int64_t s = 0; s < spatial; ++s) {
    int64_t entry = innerFirst ? spatial - 1 - s : s;
    pads[*first + s] = {paddings[2 * entry], paddings[2 * entry + 1]};
  }
  return pads;
}

/// The kernel's padding mode for a Paddle `mode`: pad3d's `replicate` is
/// pad2d's `edge`. Empty for a mode neither op knows.
inline std::string padKernelMode(std::string_view mode) {
  if (mode == "constant" || mode == "reflect" || mode == "edge" || mode == "circular")
    return std::string(mode);
  if (mode == "replicate")
    return "edge";
  return "";
}

/// The (scale_h, scale_w) an interpolate v2 op's `scale` attribute gives:
/// one entry scales both dims; (0, 0) when it is empty. Nullopt when it has
/// more than two entries or a non-positive one.
inline std::optional<std::pair<double, double>> interpScales(const std::vector<double> &scale) {
  if (scale.empty())
    return std::pair<double, double>{0, 0};
  if (scale.size() > 2)
    return std::nullopt;
  double h = scale[0], w = scale.size() == 2 ? scale[1] : scale[0];
  if (!(h > 0) || !(w > 0))
    return std::nullopt;
  return std::pair<double, double>{h, w};
}

/// An output extent of an interpolate v2 op: int(in · scale) with a scale,
/// else `outAttr` (out_h or out_w).
inline int64_t interpOutSize(int64_t in, double scale, int64_t outAttr) {
  return scale > 0 ? static_cast<int64_t>(static_cast<double>(in) * scale) : outAttr;
}

} // namespace distc::pd

#endif // DISTC_DIALECT_PD_RESIZESPEC_H
