//===- DataSpec.h - The `--data` argument -----------------------*- C++ -*-===//
//
// One `--data` argument names a file and how its arrays become feeds:
//   NAME=@PATH.npy           one .npy array as feed NAME
//   PATH.npz                 every member of the archive, named after it
//   PATH.npz:MAPPING         feeds from members: "x,label=y" (Dataset.h)
//   PATH.csv:MAPPING         CSV columns: "x=0:64,label=64" (Dataset.h)
//   PATH.csv.gz:MAPPING      the same, gzip-compressed
// The path ends at the first ".npz:", ".csv:" or ".csv.gz:"; the format is
// told by that suffix. CSV needs a mapping.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_TRAINING_DATASPEC_H
#define DISTC_TRAINING_DATASPEC_H

#include "distc/Training/Dataset.h"

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace distc::training {

struct DataSpec {
  enum class Kind { Npy, Npz, Csv };
  Kind kind = Kind::Npy;
  std::string path;
  /// Npy: the feed.
  std::string feed;
  /// Npz: the mapping (empty: every member).
  std::vector<NpzFeed> npzFeeds;
  /// Csv: the mapping; dtypes are set by loadData.
  std::vector<CsvColumn> csvColumns;
};

/// Parses one `--data` argument. Errors quote it and show the accepted forms.
Status parseDataSpec(std::string_view text, DataSpec &out);

/// Loads `spec` into `into`. CSV columns take the dtype of the feed of the
/// same name in `feeds` (f32 when the program has no such feed; the later
/// checkDatasetFeeds reports it).
Status loadData(Dataset &into, const DataSpec &spec, const std::map<std::string, FeedSpec> &feeds);

} // namespace distc::training

#endif // DISTC_TRAINING_DATASPEC_H
