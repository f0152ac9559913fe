//===- ImageTest.cpp - PNG/JPEG decoding, resizing and image folders ------===//
//
// The images are written here with libpng's and libjpeg's own encoders;
// the bilinear values are PyTorch's (interpolate(mode="bilinear",
// align_corners=False) in float64), computed once and pasted in.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "distc/Training/DataSpec.h"
#include "distc/Training/ImageDecode.h"
#include "distc/Training/ImageFolder.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include <jpeglib.h>
#include <png.h>

using namespace distc::training;
using distc::training::test::TempDir;

namespace {

/// PNG bytes of `pixels` (HWC, 1 to 4 channels) via libpng's writer.
std::string encodePng(const std::vector<uint8_t> &pixels, int width, int height, int channels) {
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  image.width = png_uint_32(width);
  image.height = png_uint_32(height);
  image.format = channels == 1   ? PNG_FORMAT_GRAY
                 : channels == 2 ? PNG_FORMAT_GA
                 : channels == 3 ? PNG_FORMAT_RGB
                                 : PNG_FORMAT_RGBA;
  png_alloc_size_t size = 0;
  EXPECT_TRUE(png_image_write_to_memory(&image, nullptr, &size, 0, pixels.data(), 0, nullptr));
  std::string bytes(size, '\0');
  EXPECT_TRUE(png_image_write_to_memory(&image, bytes.data(), &size, 0, pixels.data(), 0, nullptr));
  bytes.resize(size);
  return bytes;
}

/// JPEG bytes (quality 100) of `pixels` (HWC, 1 or 3 channels) via libjpeg.
std::string encodeJpeg(const std::vector<uint8_t> &pixels, int width, int height, int channels) {
  jpeg_compress_struct info;
  jpeg_error_mgr errors;
  info.err = jpeg_std_error(&errors);
  jpeg_create_compress(&info);
  unsigned char *buffer = nullptr;
  unsigned long size = 0;
  jpeg_mem_dest(&info, &buffer, &size);
  info.image_width = JDIMENSION(width);
  info.image_height = JDIMENSION(height);
  info.input_components = channels;
  info.in_color_space = channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_set_defaults(&info);
  jpeg_set_quality(&info, 100, TRUE);
  jpeg_start_compress(&info, TRUE);
  while (info.next_scanline < info.image_height) {
    JSAMPROW row =
        const_cast<uint8_t *>(pixels.data()) + size_t(info.next_scanline) * width * channels;
    jpeg_write_scanlines(&info, &row, 1);
  }
  jpeg_finish_compress(&info);
  std::string bytes(reinterpret_cast<char *>(buffer), size);
  jpeg_destroy_compress(&info);
  std::free(buffer);
  return bytes;
}

void writeBytes(const std::string &path, const std::string &bytes) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << bytes;
}

std::vector<uint8_t> ramp(int n, int step = 7) {
  std::vector<uint8_t> v(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i)
    v[size_t(i)] = uint8_t((i * step) % 256);
  return v;
}

} // namespace

TEST(ImageDecode, PngGrayAndRgbRoundTrip) {
  for (int channels : {1, 3}) {
    std::vector<uint8_t> px = ramp(5 * 4 * channels);
    Image image;
    ASSERT_TRUE(decodeImage(encodePng(px, 5, 4, channels), "a.png", image).ok());
    EXPECT_EQ(image.height, 4);
    EXPECT_EQ(image.width, 5);
    EXPECT_EQ(image.channels, channels);
    EXPECT_EQ(image.pixels, px);
  }
}

TEST(ImageDecode, PngAlphaIsCompositedOntoBlack) {
  // Gray 200 at alpha 255, 128 and 0.
  std::vector<uint8_t> px = {200, 255, 200, 128, 200, 0};
  Image image;
  ASSERT_TRUE(decodeImage(encodePng(px, 3, 1, 2), "a.png", image).ok());
  ASSERT_EQ(image.channels, 1);
  EXPECT_EQ(image.pixels[0], 200);
  // Blended in linear light (libpng decodes sRGB): half of 200's
  // luminance is about 146 in sRGB, not 100.
  EXPECT_NEAR(image.pixels[1], 146, 4);
  EXPECT_EQ(image.pixels[2], 0);
}

TEST(ImageDecode, JpegDecodesCloseToItsSource) {
  // A flat colour survives quality-100 JPEG within a few levels.
  for (int channels : {1, 3}) {
    std::vector<uint8_t> px(size_t(16 * 16 * channels));
    for (size_t i = 0; i < px.size(); ++i)
      px[i] = channels == 1 ? 90 : uint8_t(i % 3 == 0 ? 200 : i % 3 == 1 ? 40 : 120);
    Image image;
    ASSERT_TRUE(decodeImage(encodeJpeg(px, 16, 16, channels), "a.jpg", image).ok());
    EXPECT_EQ(image.channels, channels);
    ASSERT_EQ(image.pixels.size(), px.size());
    for (size_t i = 0; i < px.size(); ++i)
      EXPECT_NEAR(image.pixels[i], px[i], 3) << i;
  }
}

TEST(ImageDecode, TruncatedAndCorruptFilesAreErrors) {
  const std::string png = encodePng(ramp(32 * 32 * 3), 32, 32, 3);
  const std::string jpeg = encodeJpeg(ramp(32 * 32 * 3, 13), 32, 32, 3);
  Image image;
  Status s = decodeImage(png.substr(0, png.size() / 2), "t.png", image);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message().rfind("t.png: corrupt PNG: ", 0), 0u) << s.message();
  s = decodeImage(jpeg.substr(0, jpeg.size() / 2), "t.jpg", image);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message().rfind("t.jpg: corrupt JPEG: ", 0), 0u) << s.message();
  // A damaged IDAT: the CRC no longer matches.
  std::string flipped = png;
  flipped[flipped.size() - 20] ^= 0x55;
  s = decodeImage(flipped, "f.png", image);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("f.png: corrupt PNG"), std::string::npos) << s.message();
  s = decodeImage("hello", "notes.png", image);
  EXPECT_EQ(s.message(), "notes.png: not a PNG or JPEG file");
  s = decodeImage("", "empty.jpg", image);
  EXPECT_EQ(s.message(), "empty.jpg: not a PNG or JPEG file (empty)");
  // The format is told by content: a JPEG named .png decodes.
  EXPECT_TRUE(decodeImage(jpeg, "really-a-jpeg.png", image).ok());
}

TEST(ImageDecode, BilinearMatchesPyTorch) {
  Image image;
  image.height = 2;
  image.width = 3;
  image.channels = 1;
  image.pixels = {10, 50, 90, 200, 0, 255};
  // torch.nn.functional.interpolate(x, size=(3, 5), mode="bilinear",
  // align_corners=False), float64.
  const double expected35[] = {10.0,  26.0,  50.0,  74.0,  90.0, 105.0, 73.0, 25.0,
                               113.5, 172.5, 200.0, 120.0, 0.0,  153.0, 255.0};
  std::vector<float> out(15);
  imageToPlanes(image, 1, 3, 5, out.data());
  for (size_t i = 0; i < out.size(); ++i)
    EXPECT_NEAR(out[i], expected35[i] / 255.0, 1e-6) << i;
  const double expected12[] = {85.0, 135.625}; // size=(1, 2): downscaling
  imageToPlanes(image, 1, 1, 2, out.data());
  EXPECT_NEAR(out[0], expected12[0] / 255.0, 1e-6);
  EXPECT_NEAR(out[1], expected12[1] / 255.0, 1e-6);
  // Same size: the pixels scaled to [0, 1].
  imageToPlanes(image, 1, 2, 3, out.data());
  for (size_t i = 0; i < 6; ++i)
    EXPECT_FLOAT_EQ(out[i], float(image.pixels[i]) / 255.0f);
}

TEST(ImageDecode, ChannelConversionAndChwLayout) {
  Image rgb;
  rgb.height = 1;
  rgb.width = 2;
  rgb.channels = 3;
  rgb.pixels = {255, 0, 0, 10, 20, 30};
  std::vector<float> planes(6), gray(2);
  imageToPlanes(rgb, 3, 1, 2, planes.data());
  // CHW: the R plane, then G, then B.
  const float chw[] = {255, 10, 0, 20, 0, 30};
  for (size_t i = 0; i < 6; ++i)
    EXPECT_FLOAT_EQ(planes[i], chw[i] / 255.0f);
  imageToPlanes(rgb, 1, 1, 2, gray.data());
  EXPECT_NEAR(gray[0], 0.299, 1e-6);
  EXPECT_NEAR(gray[1], (0.299 * 10 + 0.587 * 20 + 0.114 * 30) / 255.0, 1e-6);
  Image g;
  g.height = 1;
  g.width = 1;
  g.channels = 1;
  g.pixels = {51};
  float three[3];
  imageToPlanes(g, 3, 1, 1, three);
  EXPECT_FLOAT_EQ(three[0], 0.2f);
  EXPECT_FLOAT_EQ(three[1], 0.2f);
  EXPECT_FLOAT_EQ(three[2], 0.2f);
}

TEST(ImageFolder, ParsesOptions) {
  ImageFolderOptions o;
  ASSERT_TRUE(parseImageFolderOptions("img,cls,size=84x42,channels=1,flat", o).ok());
  EXPECT_EQ(o.imageFeed, "img");
  EXPECT_EQ(o.labelFeed, "cls");
  EXPECT_EQ(o.height, 84);
  EXPECT_EQ(o.width, 42);
  EXPECT_EQ(o.channels, 1);
  EXPECT_TRUE(o.flat);
  ImageFolderOptions d;
  ASSERT_TRUE(parseImageFolderOptions("", d).ok());
  EXPECT_EQ(d.imageFeed, "x");
  EXPECT_EQ(d.labelFeed, "label");
  EXPECT_EQ(d.channels, 3);
  EXPECT_EQ(parseImageFolderOptions("x,label,size=84", d).message(),
            "image options 'x,label,size=84': 'size=84' is not size=HxW with 1 <= H, W <= 65535");
  EXPECT_EQ(
      parseImageFolderOptions("channels=4", d).message(),
      "image options 'channels=4': 'channels=4' is not channels=1 (gray) or channels=3 (RGB)");
  EXPECT_FALSE(parseImageFolderOptions("a,b,c", d).ok());
  EXPECT_FALSE(parseImageFolderOptions("x,x", d).ok());
  DataSpec spec;
  ASSERT_TRUE(parseDataSpec("images=data/train:x,label,size=8x8", spec).ok());
  EXPECT_EQ(spec.kind, DataSpec::Kind::Images);
  EXPECT_EQ(spec.path, "data/train");
  EXPECT_EQ(spec.images.height, 8);
  EXPECT_FALSE(parseDataSpec("images=", spec).ok());
  EXPECT_FALSE(parseDataSpec("images=d/*", spec).ok());
  // NAME=@FILE.npy is still a .npy feed, even for a feed named "images".
  ASSERT_TRUE(parseDataSpec("images=@x.npy", spec).ok());
  EXPECT_EQ(spec.kind, DataSpec::Kind::Npy);
}

TEST(ImageFolder, LoadsClassesInSortedOrderWithMixedSizesAndChannels) {
  TempDir dir;
  const std::string root = dir.file("data");
  // Classes "b" and "a" (written in that order; labels follow sorted names),
  // a 4x4 gray image, a 2x2 RGB one (resized and converted), a JPEG.
  writeBytes(root + "/b/1.png", encodePng(std::vector<uint8_t>(16, 255), 4, 4, 1));
  writeBytes(root + "/a/2.PNG", encodePng(std::vector<uint8_t>(12, 0), 2, 2, 3));
  writeBytes(root + "/a/1.jpg", encodeJpeg(std::vector<uint8_t>(16 * 16, 128), 16, 16, 1));
  writeBytes(root + "/a/notes.txt", "not an image");
  writeBytes(root + "/README", "top-level file");
  Dataset data;
  ImageFolderOptions o;
  o.channels = 1;
  o.height = 4;
  o.width = 4;
  std::vector<std::string> report;
  ASSERT_TRUE(loadImageFolder(data, root, o, &report).ok());
  const Tensor &x = data.columns.at("x");
  const Tensor &label = data.columns.at("label");
  EXPECT_EQ(x.shape(), (distc::runtime::Shape{3, 1, 4, 4}));
  EXPECT_EQ(label.shape(), (distc::runtime::Shape{3, 1}));
  // Rows: a/1.jpg, a/2.PNG, b/1.png.
  EXPECT_EQ(label.data<int64_t>()[0], 0);
  EXPECT_EQ(label.data<int64_t>()[1], 0);
  EXPECT_EQ(label.data<int64_t>()[2], 1);
  EXPECT_NEAR(x.data<float>()[0], 128 / 255.0, 2 / 255.0);
  EXPECT_FLOAT_EQ(x.data<float>()[16], 0.0f);
  EXPECT_FLOAT_EQ(x.data<float>()[32], 1.0f);
  ASSERT_EQ(data.classNames.at("label").size(), 2u);
  EXPECT_EQ(data.classNames.at("label")[1], root + "/b");
  ASSERT_EQ(report.size(), 3u);
  EXPECT_EQ(report[0], root +
                           ": skipped 2 entries that are not class folders or .png/.jpg/.jpeg "
                           "files: " +
                           root + "/README, " + root + "/a/notes.txt");
  EXPECT_EQ(report[1], root + ": resized 2 of 3 images to 4x4");
  EXPECT_EQ(report[2], root + ": converted 1 of 3 images to gray");
  // flat, RGB, the first image's size by default, i32 labels.
  Dataset flat;
  ImageFolderOptions f;
  f.flat = true;
  f.labelType = DType::Int32;
  ASSERT_TRUE(loadImageFolder(flat, root, f).ok());
  EXPECT_EQ(flat.columns.at("x").shape(), (distc::runtime::Shape{3, 3 * 16 * 16}));
  EXPECT_EQ(flat.columns.at("label").dtype(), DType::Int32);
}

TEST(ImageFolder, BadFoldersNameWhatIsWrong) {
  TempDir dir;
  Dataset data;
  ImageFolderOptions o;
  const std::string root = dir.file("data");
  EXPECT_EQ(loadImageFolder(data, root, o).message(),
            root + ": not a folder (images=DIR needs a folder of class folders)");
  std::filesystem::create_directories(root);
  EXPECT_EQ(loadImageFolder(data, root, o).message(),
            root + ": no class folders (images=DIR needs DIR/<class>/<image>)");
  writeBytes(root + "/1/a.png", encodePng({1, 2, 3, 4}, 2, 2, 1));
  std::filesystem::create_directories(root + "/2");
  EXPECT_EQ(loadImageFolder(data, root, o).message(),
            root + "/2: empty class folder (no .png, .jpg or .jpeg files)");
  const std::string good = encodePng(ramp(64), 8, 8, 1);
  writeBytes(root + "/2/b.png", good.substr(0, good.size() - 30));
  Status s = loadImageFolder(data, root, o);
  EXPECT_EQ(s.message().rfind(root + "/2/b.png: corrupt PNG: ", 0), 0u) << s.message();
  writeBytes(root + "/2/b.png", "GIF89a...");
  EXPECT_EQ(loadImageFolder(data, root, o).message(), root + "/2/b.png: not a PNG or JPEG file");
  EXPECT_TRUE(data.empty());
}

TEST(ImageFolder, FewShotRoot) {
  TempDir dir;
  const std::string root = dir.file("fs");
  for (const char *split : {"train", "val", "test"})
    std::filesystem::create_directories(root + "/" + split + "/c");
  EXPECT_TRUE(isFewShotRoot(root));
  EXPECT_FALSE(isFewShotRoot(root + "/train"));
  FewShotSplits splits;
  ASSERT_TRUE(readFewShotSplits(root, splits).ok());
  EXPECT_EQ(splits.train, root + "/train");
  EXPECT_EQ(splits.val, root + "/val");
  EXPECT_EQ(splits.test, root + "/test");
  std::filesystem::remove_all(root + "/test");
  EXPECT_FALSE(isFewShotRoot(root));
  EXPECT_EQ(readFewShotSplits(root, splits).message(),
            root + ": no 'test' folder (a few-shot root has train/, val/ and test/)");
}
