//===- ImageDecode.h - PNG and JPEG files to float pixels -------*- C++ -*-===//
//
// Image-folder datasets (ImageFolder.h) decode each file with the packaged
// libraries, libpng (its simplified API) and libjpeg-turbo (the libjpeg
// API), rather than a bundled single-header decoder: both are Debian
// packages the build already finds, they are the reference implementations
// of the formats, and they report truncated or corrupt files instead of
// guessing (libjpeg's "premature end of data" warnings are errors here).
//
// The format is told by the file's first bytes, not its name. Decoded
// pixels are 8-bit; images with an alpha channel are composited onto black
// (in linear light, as libpng does).
// Channel counts are converted, never refused: grayscale to RGB copies the
// value into the three channels, RGB to grayscale is ITU-R BT.601 luma
// (0.299 R + 0.587 G + 0.114 B). Resizing is bilinear with half-pixel
// centres (OpenCV's INTER_LINEAR, PyTorch's interpolate(mode="bilinear",
// align_corners=False) without antialiasing), then values are scaled to
// [0, 1] (v / 255), as the few-shot readers do.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_TRAINING_IMAGEDECODE_H
#define DISTC_TRAINING_IMAGEDECODE_H

#include "distc/Runtime/Status.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace distc::training {

using runtime::Status;

/// A decoded image: height x width x channels bytes, row-major, channels
/// interleaved (HWC), channels 1 (gray) or 3 (RGB).
struct Image {
  int64_t height = 0;
  int64_t width = 0;
  int channels = 0;
  std::vector<uint8_t> pixels;
};

enum class ImageFormat { Unknown, Png, Jpeg };

/// The format `bytes` start with (PNG's 8-byte signature, JPEG's SOI
/// marker FF D8 FF).
ImageFormat sniffImageFormat(std::string_view bytes);

/// Decodes PNG or JPEG `bytes` to 1 (gray) or 3 (RGB) channels, whichever
/// the file holds. `name` is for messages: "a/b.png: not a PNG or JPEG
/// file", "a/b.jpg: corrupt JPEG: Premature end of JPEG file".
Status decodeImage(std::string_view bytes, const std::string &name, Image &out);

/// Reads and decodes the file at `path`.
Status decodeImageFile(const std::string &path, Image &out);

/// Writes `image` as float32 CHW planes of `channels` (1 or 3) x `height` x
/// `width` into `out` (channels*height*width floats): channel conversion,
/// bilinear resizing and scaling to [0, 1] as described above.
void imageToPlanes(const Image &image, int channels, int64_t height, int64_t width, float *out);

} // namespace distc::training

#endif // DISTC_TRAINING_IMAGEDECODE_H
