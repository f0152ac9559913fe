//===- ImageFolder.cpp - Datasets from folders of class folders -----------===//

#include "distc/Training/ImageFolder.h"

#include "distc/Training/ImageDecode.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <filesystem>
#include <system_error>

namespace distc::training {

namespace fs = std::filesystem;

namespace {

bool parsePositive(std::string_view text, int64_t &value) {
  const char *end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  return ec == std::errc() && ptr == end && value > 0 && value <= 65535;
}

bool isImageName(const std::string &name) {
  std::string lower = name;
  for (char &c : lower)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char *ext : {".png", ".jpg", ".jpeg"}) {
    const std::string e = ext;
    if (lower.size() > e.size() && lower.compare(lower.size() - e.size(), e.size(), e) == 0)
      return true;
  }
  return false;
}

bool isDirectory(const fs::path &p) {
  std::error_code ec;
  return fs::is_directory(p, ec);
}

/// The entries of `dir` sorted by name; an error naming `dir`.
Status sortedEntries(const std::string &dir, std::vector<fs::path> &out) {
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  if (ec)
    return Status::error(dir + ": cannot list the folder: " + ec.message());
  out.clear();
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec)
      return Status::error(dir + ": cannot list the folder: " + ec.message());
    out.push_back(it->path());
  }
  if (ec)
    return Status::error(dir + ": cannot list the folder: " + ec.message());
  std::sort(out.begin(), out.end(),
            [](const fs::path &a, const fs::path &b) { return a.filename() < b.filename(); });
  return Status::success();
}

const char *channelName(int channels) { return channels == 1 ? "gray" : "RGB"; }

/// "a, b, c and 4 more".
std::string listSome(const std::vector<std::string> &items, size_t shown = 3) {
  std::string s;
  for (size_t i = 0; i < items.size() && i < shown; ++i)
    s += (i ? ", " : "") + items[i];
  if (items.size() > shown)
    s += " and " + std::to_string(items.size() - shown) + " more";
  return s;
}

Status storeLabel(Tensor &labels, int64_t row, int64_t value) {
  switch (labels.dtype()) {
  case DType::Int64:
    labels.data<int64_t>()[row] = value;
    return Status::success();
  case DType::Int32:
    labels.data<int32_t>()[row] = static_cast<int32_t>(value);
    return Status::success();
  case DType::Float32:
    labels.data<float>()[row] = static_cast<float>(value);
    return Status::success();
  case DType::Float64:
    labels.data<double>()[row] = static_cast<double>(value);
    return Status::success();
  default:
    break;
  }
  return Status::error("label column of type " + runtime::formatType(labels.dtype(), {}) +
                       ": expected i64, i32, f32 or f64");
}

} // namespace

Status parseImageFolderOptions(std::string_view text, ImageFolderOptions &out) {
  ImageFolderOptions options;
  options.labelType = out.labelType;
  int names = 0;
  size_t pos = 0;
  while (!text.empty() && pos <= text.size()) {
    size_t comma = text.find(',', pos);
    std::string_view item =
        text.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
    auto bad = [&](const std::string &why) {
      return Status::error("image options '" + std::string(text) + "': '" + std::string(item) +
                           "' " + why);
    };
    if (item.rfind("size=", 0) == 0) {
      std::string_view v = item.substr(5);
      size_t x = v.find('x');
      if (x == std::string_view::npos || !parsePositive(v.substr(0, x), options.height) ||
          !parsePositive(v.substr(x + 1), options.width))
        return bad("is not size=HxW with 1 <= H, W <= 65535");
    } else if (item.rfind("channels=", 0) == 0) {
      std::string_view v = item.substr(9);
      if (v != "1" && v != "3")
        return bad("is not channels=1 (gray) or channels=3 (RGB)");
      options.channels = v == "1" ? 1 : 3;
    } else if (item == "flat") {
      options.flat = true;
    } else if (!item.empty() && item.find('=') == std::string_view::npos && names < 2) {
      (names++ == 0 ? options.imageFeed : options.labelFeed) = std::string(item);
    } else {
      return bad("is not IMAGE_FEED, LABEL_FEED, size=HxW, channels=1|3 or flat");
    }
    if (comma == std::string_view::npos)
      break;
    pos = comma + 1;
  }
  if (options.imageFeed == options.labelFeed)
    return Status::error("image options '" + std::string(text) +
                         "': the image and label feeds are both '" + options.imageFeed + "'");
  out = std::move(options);
  return Status::success();
}

Status listImageFolder(const std::string &dir, ImageFolderListing &out) {
  if (!isDirectory(dir))
    return Status::error(dir + ": not a folder (images=DIR needs a folder of class folders)");
  std::vector<fs::path> top;
  if (Status s = sortedEntries(dir, top); !s.ok())
    return s;
  ImageFolderListing listing;
  for (const fs::path &entry : top) {
    if (!isDirectory(entry)) {
      listing.skipped.push_back(entry.string());
      continue;
    }
    std::vector<fs::path> inner;
    if (Status s = sortedEntries(entry.string(), inner); !s.ok())
      return s;
    std::vector<std::string> files;
    for (const fs::path &f : inner) {
      std::error_code ec;
      if (fs::is_regular_file(f, ec) && isImageName(f.filename().string()))
        files.push_back(f.string());
      else
        listing.skipped.push_back(f.string());
    }
    if (files.empty())
      return Status::error(entry.string() + ": empty class folder (no .png, .jpg or .jpeg files)");
    listing.classes.push_back(entry.filename().string());
    listing.files.push_back(std::move(files));
  }
  if (listing.classes.empty())
    return Status::error(dir + ": no class folders (images=DIR needs DIR/<class>/<image>)");
  out = std::move(listing);
  return Status::success();
}

Status loadImageFolder(Dataset &into, const std::string &dir, const ImageFolderOptions &options,
                       std::vector<std::string> *report) {
  ImageFolderListing listing;
  if (Status s = listImageFolder(dir, listing); !s.ok())
    return s;
  int64_t rows = 0;
  for (const auto &files : listing.files)
    rows += static_cast<int64_t>(files.size());
  const int C = options.channels;
  int64_t H = options.height, W = options.width;
  Tensor images, labels(options.labelType, options.labelColumnRank1 ? Shape{rows} : Shape{rows, 1});
  int64_t resized = 0, converted = 0, row = 0;
  Image image;
  for (size_t c = 0; c < listing.files.size(); ++c)
    for (const std::string &path : listing.files[c]) {
      if (Status s = decodeImageFile(path, image); !s.ok())
        return s;
      if (H == 0) {
        H = image.height;
        W = image.width;
      }
      if (!images.defined()) {
        Shape shape = options.flat ? Shape{rows, C * H * W} : Shape{rows, C, H, W};
        images = Tensor(DType::Float32, shape);
      }
      resized += image.height != H || image.width != W;
      converted += image.channels != C;
      imageToPlanes(image, C, H, W, images.data<float>() + row * C * H * W);
      if (Status s = storeLabel(labels, row, static_cast<int64_t>(c)); !s.ok())
        return Status::error(dir + ": " + s.message());
      ++row;
    }
  Dataset loaded;
  if (Status s = addColumn(loaded, options.imageFeed, std::move(images), dir + " images"); !s.ok())
    return s;
  if (Status s = addColumn(loaded, options.labelFeed, std::move(labels), dir + " class folders");
      !s.ok())
    return s;
  for (const std::string &name : listing.classes)
    loaded.classNames[options.labelFeed].push_back((fs::path(dir) / name).string());
  if (report) {
    if (!listing.skipped.empty())
      report->push_back(dir + ": skipped " + std::to_string(listing.skipped.size()) +
                        " entries that are not class folders or .png/.jpg/.jpeg files: " +
                        listSome(listing.skipped));
    if (resized)
      report->push_back(dir + ": resized " + std::to_string(resized) + " of " +
                        std::to_string(rows) + " images to " + std::to_string(H) + "x" +
                        std::to_string(W));
    if (converted)
      report->push_back(dir + ": converted " + std::to_string(converted) + " of " +
                        std::to_string(rows) + " images to " + channelName(C));
  }
  return mergeDatasets(into, std::move(loaded));
}

bool isFewShotRoot(const std::string &dir) {
  std::vector<fs::path> entries;
  if (!isDirectory(dir) || !sortedEntries(dir, entries).ok())
    return false;
  bool train = false, test = false;
  for (const fs::path &e : entries) {
    const std::string name = e.filename().string();
    if (!isDirectory(e) || (name != "train" && name != "val" && name != "test"))
      return false;
    train |= name == "train";
    test |= name == "test";
  }
  return train && test;
}

Status readFewShotSplits(const std::string &dir, FewShotSplits &out) {
  FewShotSplits splits;
  for (auto [name, path] : {std::pair<const char *, std::string *>{"train", &splits.train},
                            {"val", &splits.val},
                            {"test", &splits.test}}) {
    fs::path p = fs::path(dir) / name;
    if (isDirectory(p))
      *path = p.string();
    else if (std::string(name) != "val")
      return Status::error(dir + ": no '" + name +
                           "' folder (a few-shot root has train/, val/ and test/)");
  }
  out = std::move(splits);
  return Status::success();
}

} // namespace distc::training
