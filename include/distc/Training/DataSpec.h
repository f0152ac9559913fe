//===- DataSpec.h - The `--data` argument -----------------------*- C++ -*-===//
//
// One `--data` argument names a file and how its arrays become feeds:
//   NAME=@PATH.npy           one .npy array as feed NAME
//   PATH.npz                 every member of the archive, named after it
//   PATH.npz:MAPPING         feeds from members: "x,label=y" (Dataset.h)
//   PATH.csv:MAPPING         CSV columns: "x=0:64,label=64" (Dataset.h)
//   PATH.csv.gz:MAPPING      the same, gzip-compressed
//   images=DIR[:OPTIONS]     a folder of class folders of PNG/JPEG files:
//                            "x,label,size=84x84,channels=3" (ImageFolder.h)
// The path ends at the first ".npz:", ".csv:" or ".csv.gz:"; the format is
// told by that suffix. CSV needs a mapping.
//
// A path with a wildcard (`*`, `?`, `[`) is a file list: the files it
// matches, in sorted order, each read with the same mapping and their rows
// appended ("data/part-*.csv.gz:x=0:64,label=64"). Data-parallel ranks can
// take disjoint shares of a list (fileShard, Paddle's get_file_shard /
// split_files) instead of sampling rows from all of it.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_TRAINING_DATASPEC_H
#define DISTC_TRAINING_DATASPEC_H

#include "distc/Training/Dataset.h"
#include "distc/Training/ImageFolder.h"

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace distc::training {

struct DataSpec {
  enum class Kind { Npy, Npz, Csv, Images };
  Kind kind = Kind::Npy;
  std::string path;
  /// Npy: the feed.
  std::string feed;
  /// Npz: the mapping (empty: every member).
  std::vector<NpzFeed> npzFeeds;
  /// Csv: the mapping; dtypes are set by loadData.
  std::vector<CsvColumn> csvColumns;
  /// Images: the options; the label dtype is set by loadData.
  ImageFolderOptions images;
  /// The files to read, in order (expandDataFiles); empty: `path`.
  std::vector<std::string> files;
};

/// Fills `spec.files`: the sorted matches of a wildcard path (an error
/// naming the pattern when nothing matches), else the path itself.
Status expandDataFiles(DataSpec &spec);

/// Paddle's split_files / fleet.util.get_file_shard: the share of `files`
/// of worker `rank` among `workers`. The list is cut into contiguous blocks
/// of floor(n / workers) files, the first n mod workers blocks one longer.
std::vector<std::string> fileShard(const std::vector<std::string> &files, int rank, int workers);

/// Parses one `--data` argument. Errors quote it and show the accepted forms.
Status parseDataSpec(std::string_view text, DataSpec &out);

/// Loads `spec` into `into`. CSV columns take the dtype of the feed of the
/// same name in `feeds` (f32 when the program has no such feed; the later
/// checkDatasetFeeds reports it).
///
/// With `report`, each file read adds a line (without '\n') to it:
///   loaded 10000000 rows x 2 columns (240.0 MB) from rows.csv.gz in 1.48 s
Status loadData(Dataset &into, const DataSpec &spec, const std::map<std::string, FeedSpec> &feeds,
                std::vector<std::string> *report = nullptr);

} // namespace distc::training

#endif // DISTC_TRAINING_DATASPEC_H
