//===- ImageFolder.h - Datasets from folders of class folders ---*- C++ -*-===//
//
// `--data images=DIR[:OPTIONS]` reads a folder of class folders of PNG and
// JPEG files (torchvision's ImageFolder layout, what Paddle's few-shot
// readers Open_KS_ImageNet and Open_KS_Character read):
//
//   DIR/<class>/<image>.png|.jpg|.jpeg
//
// into two columns: the images, float32 NCHW [N, C, H, W] (or [N, C*H*W]
// with `flat`), decoded, converted, resized and scaled to [0, 1] as
// ImageDecode.h says; and the labels, the index of each image's class
// folder in sorted (byte-wise) name order, [N, 1] in the label feed's dtype
// ([N] for a rank-1 feed). Rows
// are in class order, then file-name order. Entries that are not class
// folders or not .png/.jpg/.jpeg files are skipped and reported; a class
// folder without images, or a file that does not decode, is an error
// naming it.
//
// Few-shot data (Paddle's Open_KS_read.read_dataset) is a root with
// `train/`, `val/` and `test/` folders, each a folder of class folders;
// readFewShotSplits finds them.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_TRAINING_IMAGEFOLDER_H
#define DISTC_TRAINING_IMAGEFOLDER_H

#include "distc/Training/Dataset.h"

#include <string>
#include <string_view>
#include <vector>

namespace distc::training {

/// The OPTIONS of `images=DIR:OPTIONS`, comma-separated:
///   FEED            the first bare name is the image feed, the second the
///                   label feed (defaults "x" and "label")
///   size=HxW        resize every image to H rows by W columns (default: the
///                   size of the first image; others are resized to it)
///   channels=1|3    gray or RGB (default 3; the other kind is converted)
///   flat            rows of C*H*W values instead of [C, H, W] (for MLPs)
struct ImageFolderOptions {
  std::string imageFeed = "x";
  std::string labelFeed = "label";
  /// 0: the first image's.
  int64_t height = 0;
  int64_t width = 0;
  int channels = 3;
  bool flat = false;
  /// The label column's element type (the label feed's; Int64 when the
  /// program has none): Int64, Int32, Float32 or Float64.
  DType labelType = DType::Int64;
  /// Labels as [N, 1] (like a CSV column `label=64`), or [N] for a rank-1
  /// label feed (set from the program by loadData).
  bool labelColumnRank1 = false;
};

/// Parses OPTIONS (see above); an unknown item names itself.
Status parseImageFolderOptions(std::string_view text, ImageFolderOptions &out);

/// The classes and files of a folder of class folders.
struct ImageFolderListing {
  /// Class folder names, sorted; `files[i]` are the image paths of class i,
  /// sorted.
  std::vector<std::string> classes;
  std::vector<std::vector<std::string>> files;
  /// Paths passed over: top-level entries that are not folders, and entries
  /// of class folders that are not .png/.jpg/.jpeg files.
  std::vector<std::string> skipped;
};

/// Lists `dir`. Errors: not a folder, no class folders, a class folder
/// without images ("DIR/3: empty class folder (no .png, .jpg or .jpeg
/// files)").
Status listImageFolder(const std::string &dir, ImageFolderListing &out);

/// Loads `dir` into two columns of `into` (see above) and records the
/// class folder of each label in `into.classNames`. With `report`, adds
/// lines (without '\n') saying what was skipped, converted or resized.
Status loadImageFolder(Dataset &into, const std::string &dir, const ImageFolderOptions &options,
                       std::vector<std::string> *report = nullptr);

/// Open_KS_read.read_dataset: the `train`, `val` and `test` folders of a
/// few-shot root (val may be missing: empty path).
struct FewShotSplits {
  std::string train, val, test;
};

/// Whether `dir` is a few-shot root: it has `train` and `test` folders and
/// nothing else but `val`.
bool isFewShotRoot(const std::string &dir);

/// Fills `out` for a few-shot root; an error naming what is missing.
Status readFewShotSplits(const std::string &dir, FewShotSplits &out);

} // namespace distc::training

#endif // DISTC_TRAINING_IMAGEFOLDER_H
