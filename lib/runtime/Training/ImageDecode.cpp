//===- ImageDecode.cpp - PNG and JPEG files to float pixels ---------------===//
//
// libpng's simplified API and libjpeg-turbo's libjpeg API; see
// ImageDecode.h for what is converted and how. libjpeg reports fatal errors
// through a longjmp out of its calls: the function that calls setjmp
// (decodeJpegRaw) holds only trivially destructible locals, so jumping out
// of libjpeg skips no destructor.
//
//===----------------------------------------------------------------------===//

#include "distc/Training/ImageDecode.h"

#include "FileUtil.h"

#include <algorithm>
#include <cmath>
#include <csetjmp>
#include <cstdio>
#include <cstring>

#include <jpeglib.h>
#include <png.h>

namespace distc::training {

namespace {

/// Decoded images larger than this many bytes are refused instead of
/// allocated (a corrupt header can claim any size).
constexpr uint64_t kMaxImageBytes = uint64_t(1) << 30;

Status tooLarge(const std::string &name, uint64_t height, uint64_t width) {
  return Status::error(name + ": image of " + std::to_string(width) + "x" + std::to_string(height) +
                       " pixels is too large (limit 1 GiB decoded)");
}

Status decodePng(std::string_view bytes, const std::string &name, Image &out) {
  png_image image;
  std::memset(&image, 0, sizeof image);
  image.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_memory(&image, bytes.data(), bytes.size()))
    return Status::error(name + ": corrupt PNG: " + image.message);
  const bool color = (image.format & PNG_FORMAT_FLAG_COLOR) != 0;
  image.format = color ? PNG_FORMAT_RGB : PNG_FORMAT_GRAY;
  const uint64_t size = uint64_t(image.height) * image.width * (color ? 3 : 1);
  if (size > kMaxImageBytes) {
    png_image_free(&image);
    return tooLarge(name, image.height, image.width);
  }
  Image result;
  result.height = image.height;
  result.width = image.width;
  result.channels = color ? 3 : 1;
  // Zeroed: alpha is composited onto the buffer, that is onto black.
  result.pixels.assign(size, 0);
  if (!png_image_finish_read(&image, nullptr, result.pixels.data(), 0, nullptr))
    return Status::error(name + ": corrupt PNG: " + image.message);
  if (image.warning_or_error & PNG_IMAGE_WARNING)
    return Status::error(name + ": corrupt PNG: " + image.message);
  out = std::move(result);
  return Status::success();
}

/// libjpeg's error manager, extended with where to jump and the message.
struct JpegErrors {
  jpeg_error_mgr base;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

[[noreturn]] void jpegFail(j_common_ptr info) {
  auto *errors = reinterpret_cast<JpegErrors *>(info->err);
  (*info->err->format_message)(info, errors->message);
  std::longjmp(errors->jump, 1);
}

/// Warnings (level -1: truncated data, corrupt segments) are errors too:
/// libjpeg would otherwise fill the missing part of the image with gray.
void jpegMessage(j_common_ptr info, int level) {
  if (level < 0)
    jpegFail(info);
}

/// The libjpeg part: returns false with errors->message on failure. `pixels`
/// lives in the caller's frame, so the longjmp skips no destructor.
bool decodeJpegRaw(const unsigned char *data, unsigned long size, JpegErrors *errors,
                   std::vector<uint8_t> *pixels, int64_t *height, int64_t *width, int *channels) {
  jpeg_decompress_struct info;
  std::memset(&info, 0, sizeof info); // destroy is safe before create
  info.err = jpeg_std_error(&errors->base);
  errors->base.error_exit = jpegFail;
  errors->base.emit_message = jpegMessage;
  errors->message[0] = '\0';
  if (setjmp(errors->jump)) {
    jpeg_destroy_decompress(&info);
    return false;
  }
  jpeg_create_decompress(&info);
  jpeg_mem_src(&info, data, size);
  jpeg_read_header(&info, TRUE);
  info.out_color_space = info.jpeg_color_space == JCS_GRAYSCALE ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_start_decompress(&info);
  const uint64_t rowBytes = uint64_t(info.output_width) * uint64_t(info.output_components);
  if (uint64_t(info.output_height) * rowBytes > kMaxImageBytes) {
    std::snprintf(errors->message, sizeof errors->message,
                  "image of %ux%u pixels is too large (limit 1 GiB decoded)", info.output_width,
                  info.output_height);
    jpeg_destroy_decompress(&info);
    return false;
  }
  pixels->assign(size_t(info.output_height * rowBytes), 0);
  while (info.output_scanline < info.output_height) {
    JSAMPROW row = pixels->data() + info.output_scanline * rowBytes;
    jpeg_read_scanlines(&info, &row, 1);
  }
  jpeg_finish_decompress(&info);
  *height = info.output_height;
  *width = info.output_width;
  *channels = info.output_components;
  jpeg_destroy_decompress(&info);
  return true;
}

Status decodeJpeg(std::string_view bytes, const std::string &name, Image &out) {
  JpegErrors errors;
  Image result;
  if (!decodeJpegRaw(reinterpret_cast<const unsigned char *>(bytes.data()),
                     static_cast<unsigned long>(bytes.size()), &errors, &result.pixels,
                     &result.height, &result.width, &result.channels))
    return Status::error(name + ": corrupt JPEG: " + errors.message);
  if (result.channels != 1 && result.channels != 3)
    return Status::error(name + ": JPEG with " + std::to_string(result.channels) +
                         " channels; expected gray or RGB");
  out = std::move(result);
  return Status::success();
}

} // namespace

ImageFormat sniffImageFormat(std::string_view bytes) {
  static const char png[] = "\x89PNG\r\n\x1a\n";
  if (bytes.size() >= 8 && std::memcmp(bytes.data(), png, 8) == 0)
    return ImageFormat::Png;
  if (bytes.size() >= 3 && static_cast<unsigned char>(bytes[0]) == 0xFF &&
      static_cast<unsigned char>(bytes[1]) == 0xD8 && static_cast<unsigned char>(bytes[2]) == 0xFF)
    return ImageFormat::Jpeg;
  return ImageFormat::Unknown;
}

Status decodeImage(std::string_view bytes, const std::string &name, Image &out) {
  switch (sniffImageFormat(bytes)) {
  case ImageFormat::Png:
    return decodePng(bytes, name, out);
  case ImageFormat::Jpeg:
    return decodeJpeg(bytes, name, out);
  case ImageFormat::Unknown:
    break;
  }
  return Status::error(name + ": not a PNG or JPEG file" + (bytes.empty() ? " (empty)" : ""));
}

Status decodeImageFile(const std::string &path, Image &out) {
  std::string bytes;
  if (Status s = detail::readWholeFile(path, bytes); !s.ok())
    return s;
  return decodeImage(bytes, path, out);
}

namespace {

/// Source coordinate of each output index along one axis: the two
/// neighbours and the second one's weight (half-pixel centres, clamped).
struct Taps {
  std::vector<int64_t> lo, hi;
  std::vector<float> weight;
};

Taps bilinearTaps(int64_t in, int64_t out) {
  Taps taps;
  taps.lo.resize(size_t(out));
  taps.hi.resize(size_t(out));
  taps.weight.resize(size_t(out));
  const double scale = double(in) / double(out);
  for (int64_t i = 0; i < out; ++i) {
    double src = (double(i) + 0.5) * scale - 0.5;
    if (src < 0)
      src = 0;
    int64_t lo = std::min(static_cast<int64_t>(src), in - 1);
    taps.lo[size_t(i)] = lo;
    taps.hi[size_t(i)] = std::min(lo + 1, in - 1);
    taps.weight[size_t(i)] = static_cast<float>(src - double(lo));
  }
  return taps;
}

} // namespace

void imageToPlanes(const Image &image, int channels, int64_t height, int64_t width, float *out) {
  const int inChannels = image.channels;
  const int64_t plane = height * width;
  const uint8_t *px = image.pixels.data();
  const int64_t stride = image.width * inChannels;
  const Taps ty = bilinearTaps(image.height, height), tx = bilinearTaps(image.width, width);
  const bool same = image.height == height && image.width == width;
  float value[3];
  for (int64_t y = 0; y < height; ++y) {
    const uint8_t *r0 = px + ty.lo[size_t(y)] * stride, *r1 = px + ty.hi[size_t(y)] * stride;
    const float wy = ty.weight[size_t(y)];
    for (int64_t x = 0; x < width; ++x) {
      if (same) {
        for (int c = 0; c < inChannels; ++c)
          value[c] = float(r0[x * inChannels + c]);
      } else {
        const int64_t a = tx.lo[size_t(x)] * inChannels, b = tx.hi[size_t(x)] * inChannels;
        const float wx = tx.weight[size_t(x)];
        for (int c = 0; c < inChannels; ++c) {
          const float top = (1 - wx) * float(r0[a + c]) + wx * float(r0[b + c]);
          const float bottom = (1 - wx) * float(r1[a + c]) + wx * float(r1[b + c]);
          value[c] = (1 - wy) * top + wy * bottom;
        }
      }
      float *o = out + y * width + x;
      if (channels == inChannels) {
        for (int c = 0; c < channels; ++c)
          o[c * plane] = value[c] / 255.0f;
      } else if (channels == 3) { // gray to RGB
        o[0] = o[plane] = o[2 * plane] = value[0] / 255.0f;
      } else { // RGB to gray: BT.601 luma
        o[0] = (0.299f * value[0] + 0.587f * value[1] + 0.114f * value[2]) / 255.0f;
      }
    }
  }
}

} // namespace distc::training
