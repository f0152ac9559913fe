//===- Dataset.h - Named columns of training data ---------------*- C++ -*-===//
//
// A dataset is a set of named columns, one per program feed. Every column is
// a runtime Tensor of rank >= 1 and all columns share the leading dimension
// N, the number of rows (examples); row i of a column is the sub-tensor at
// index i of dim 0. The batcher (Batcher.h) gathers rows into batches.
//
// Loaders append columns to a Dataset; each loader names the file and column
// in its one-line error messages. Formats (docs/training.md):
//   * .npy   one array per feed (`x=@x.npy`);
//   * .npz   NumPy archives (np.savez / np.savez_compressed), feeds mapped to
//            members (`x`, or `x=member`);
//   * CSV    numeric text, plain or gzip-compressed, with a column mapping
//            such as `x=0:64,label=64`.
// The library never throws; every failure is a Status.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_TRAINING_DATASET_H
#define DISTC_TRAINING_DATASET_H

#include "distc/Runtime/Status.h"
#include "distc/Runtime/Tensor.h"

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace distc::training {

using runtime::DType;
using runtime::Shape;
using runtime::Status;
using runtime::Tensor;
using runtime::TensorMap;

struct Dataset {
  /// Columns by feed name.
  TensorMap columns;
  /// For messages: where each column came from, e.g. "digits.csv.gz columns
  /// 0:64" or "train.npz member 'x'". Columns added without one have none.
  std::map<std::string, std::string> sources;
  /// For label columns read from class folders (ImageFolder.h): the folder
  /// of each class index, for messages ("digits/train/3"). Kept by
  /// mergeDatasets and selectRows.
  std::map<std::string, std::vector<std::string>> classNames;

  /// Dim 0 shared by the columns; 0 for a dataset without columns.
  int64_t numRows() const;
  bool empty() const { return columns.empty(); }
  /// "column 'x' (from x.npy)" or "column 'x'".
  std::string describeColumn(const std::string &name) const;
};

/// Adds `column` under `name`. Fails when the name is taken, the tensor is
/// undefined or rank 0, or its dim 0 differs from the dataset's rows:
/// "column 'label' (from y.npy) has 100 rows but column 'x' (from x.npy) has
/// 1797".
Status addColumn(Dataset &dataset, const std::string &name, Tensor column, std::string source = {});

/// Moves every column of `from` into `into` with addColumn's checks.
Status mergeDatasets(Dataset &into, Dataset from);

/// Appends the rows of `from` to `into` (an empty `into` becomes `from`):
/// the same columns, each of the same dtype and row shape. Errors name the
/// column and both sources; on failure `into` is unchanged.
Status appendRows(Dataset &into, const Dataset &from);

/// Checks that every column has rank >= 1 and that all share dim 0 (for
/// datasets assembled by hand rather than with addColumn).
Status checkRowCounts(const Dataset &dataset);

/// A new dataset with the given rows of every column, in the given order
/// (indices may repeat); sources are kept. Indices must lie in [0, numRows).
Dataset selectRows(const Dataset &dataset, const std::vector<int64_t> &rows);

/// Splits rows into a training part and a held-out part (`--holdout F`).
/// The held-out part has round(F * N) rows (halves round up), chosen as the
/// first ones of seededPermutation(N, mixSeed(seed)) (Random.h), so the
/// split is the same on every machine; both parts keep the original row
/// order. F must lie in [0, 1) and leave at least one training row.
Status splitDataset(const Dataset &all, double heldOutFraction, uint64_t seed, Dataset &train,
                    Dataset &heldOut);

/// What the program expects for one feed: element type and dims including
/// the leading batch dim, -1 for a dim that is not known before binding.
struct FeedSpec {
  DType dtype = DType::Float32;
  std::vector<int64_t> dims;
};

/// Checks that `column` can feed `feed`: same dtype, and its per-row shape
/// (dims after the first) equals the feed's dims after the first, where -1
/// matches any extent. Example: "column 'x' (from d.csv columns 0:63) does
/// not fit feed 'x': rows have shape [63] but the program expects [64] (feed
/// f32[-1,64])". A rank-1 feed ([-1]) takes a rank-1 column.
Status checkColumnFitsFeed(const Dataset &dataset, const std::string &column,
                           const std::string &feed, const FeedSpec &spec);

/// checkRowCounts, then for every feed a column of the same name that fits
/// it. A missing column ("the data has no column for feed 'label'; it has:
/// x") or a column that is not a feed ("the data has column 'y', which is
/// not a feed of the program; feeds: label, x") is an error.
Status checkDatasetFeeds(const Dataset &dataset, const std::map<std::string, FeedSpec> &feeds);

//===----------------------------------------------------------------------===//
// .npy and .npz
//===----------------------------------------------------------------------===//

/// Reads one .npy file (Npy.h) as column `feed` (`--data x=@x.npy`).
Status loadNpyColumn(Dataset &into, const std::string &feed, const std::string &path);

/// One feed taken from an archive member.
struct NpzFeed {
  std::string feed;
  /// Member name without the ".npy" suffix NumPy adds (np.savez(f, x=a)
  /// stores "x.npy"); the name with the suffix is accepted too.
  std::string member;
};

/// Parses "x,label=y": comma-separated `feed` (member of the same name) or
/// `feed=member` items. Duplicated feeds and empty names are errors.
Status parseNpzMapping(std::string_view spec, std::vector<NpzFeed> &out);

/// Loads the mapped members of the .npz archive at `path` as columns. With
/// no feeds, every member becomes a column named after it. A missing member
/// lists the archive's members.
Status loadNpzColumns(Dataset &into, const std::string &path, const std::vector<NpzFeed> &feeds);

//===----------------------------------------------------------------------===//
// CSV
//===----------------------------------------------------------------------===//

/// One feed cut from CSV fields: fields [begin, end) (0-based) give a column
/// of shape [N, end - begin]; a single index (`range` false, end = begin+1)
/// gives [N, 1].
struct CsvColumn {
  std::string feed;
  int64_t begin = 0;
  int64_t end = 1;
  bool range = false;
  /// Float32, Float64, Int32 or Int64; parseCsvColumnMapping sets Float32
  /// and the caller sets each feed's dtype from the program.
  DType dtype = DType::Float32;
};

/// Parses "x=0:64,label=64": comma-separated `feed=I` or `feed=B:E` with
/// 0-based field indices, B < E. Duplicated feeds are errors; ranges may
/// overlap.
Status parseCsvColumnMapping(std::string_view spec, std::vector<CsvColumn> &out);

enum class CsvHeader {
  /// A header row is present when any mapped field of the first row is not a
  /// number.
  Auto,
  Present,
  Absent,
};

struct CsvOptions {
  std::vector<CsvColumn> columns;
  CsvHeader header = CsvHeader::Auto;
  char delimiter = ',';
};

/// Reads numeric CSV at `path`, plain or gzip-compressed (detected from the
/// content, not the name), and adds one column per mapped feed. Fields are
/// trimmed of blanks; blank lines are skipped; CRLF line ends are accepted.
/// Every row must have as many fields as the first; only mapped fields are
/// parsed. Integer columns accept integral values written as floats ("3",
/// "3.0", "3e0"). Errors name the file, the 1-based line and the 0-based
/// field: "d.csv:12: field 64: '3.5' is not an integer (feed 'label' is i64)",
/// "d.csv:7: 64 fields, but line 1 has 65", "d.csv:3: field 2: 'abc' is not a
/// number".
Status loadCsv(Dataset &into, const std::string &path, const CsvOptions &options);

} // namespace distc::training

#endif // DISTC_TRAINING_DATASET_H
