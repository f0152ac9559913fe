//===- Csv.cpp - Dataset columns from numeric CSV, plain or gzipped -------===//
//
// zlib's gzread reads gzip streams and, transparently, plain files, so one
// code path serves `.csv` and `.csv.gz` and the format follows the content.
//
//===----------------------------------------------------------------------===//

#include "distc/Support/InputFile.h"
#include "distc/Training/Dataset.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <new>
#include <optional>
#include <set>
#include <zlib.h>

namespace distc::training {

namespace {

/// The lines of a plain or gzip-compressed text file, read in chunks: only
/// the chunk being parsed is in memory, never the whole inflated text.
class LineReader {
public:
  explicit LineReader(std::string path) : path_(std::move(path)) {}
  ~LineReader() {
    if (file_)
      gzclose(file_);
  }
  LineReader(const LineReader &) = delete;
  LineReader &operator=(const LineReader &) = delete;

  Status open() {
    // gzopen would read a directory or /dev/zero like a file.
    std::optional<uint64_t> size;
    std::string error;
    if (!support::checkInputFile(path_, size, error))
      return Status::error(error);
    errno = 0;
    file_ = gzopen(path_.c_str(), "rb");
    if (!file_)
      return Status::error(path_ +
                           ": cannot open: " + (errno ? std::strerror(errno) : "out of memory"));
    gzbuffer(file_, 1 << 17);
    return Status::success();
  }

  /// The next line without its '\n' and its 1-based number; false at the
  /// end of the file or on an error (then status() says which).
  bool next(std::string_view &line, int64_t &number) {
    for (;;) {
      const char *begin = buffer_.data() + begin_;
      if (const void *nl = std::memchr(begin, '\n', end_ - begin_)) {
        size_t length = static_cast<const char *>(nl) - begin;
        line = std::string_view(begin, length);
        begin_ += length + 1;
        number = ++lines_;
        return true;
      }
      if (eof_) {
        if (begin_ == end_)
          return false;
        line = std::string_view(begin, end_ - begin_);
        begin_ = end_;
        number = ++lines_;
        return true;
      }
      if (!fill())
        return false;
    }
  }

  /// Success, or why next() stopped early; a truncated gzip stream shows
  /// only when the file is closed, so it is checked here too.
  Status finish() {
    if (!status_.ok() || !file_)
      return status_;
    int code = gzclose(file_);
    file_ = nullptr;
    // gzclose_r reports a truncated gzip stream (Z_BUF_ERROR) only here.
    if (code == Z_BUF_ERROR)
      return Status::error(path_ + ": truncated gzip stream");
    if (code != Z_OK)
      return Status::error(path_ + ": cannot read the gzip stream (zlib error " +
                           std::to_string(code) + ")");
    return Status::success();
  }

  /// Bytes of text read so far (inflated).
  uint64_t textBytes() const { return textBytes_; }

private:
  static constexpr size_t kChunk = 1 << 20;
  /// A line longer than this is no CSV row (and protects against e.g. a
  /// file of zeros, which has no line ends at all).
  static constexpr size_t kMaxLine = size_t(64) << 20;

  /// Moves the partial last line to the front and reads the next chunk.
  bool fill() {
    size_t carry = end_ - begin_;
    if (carry >= kMaxLine) {
      status_ = Status::error(path_ + ":" + std::to_string(lines_ + 1) + ": line longer than " +
                              std::to_string(kMaxLine >> 20) + " MiB");
      return false;
    }
    if (carry > 0 && begin_ > 0)
      std::memmove(buffer_.data(), buffer_.data() + begin_, carry);
    begin_ = 0;
    end_ = carry;
    if (buffer_.size() < carry + kChunk)
      buffer_.resize(carry + kChunk);
    int n = gzread(file_, buffer_.data() + end_, static_cast<unsigned>(buffer_.size() - end_));
    if (n < 0) {
      int code = 0;
      std::string message = gzerror(file_, &code);
      if (code == Z_ERRNO)
        message = std::strerror(errno);
      status_ = Status::error(path_ + ": cannot read: " + message);
      return false;
    }
    if (n == 0) {
      // A truncated gzip stream ends like a complete one; zlib notes it as
      // Z_BUF_ERROR. Say so before the cut-off last line is parsed.
      int code = Z_OK;
      gzerror(file_, &code);
      if (code == Z_BUF_ERROR) {
        status_ = Status::error(path_ + ": truncated gzip stream");
        return false;
      }
      eof_ = true;
    }
    end_ += static_cast<size_t>(n);
    textBytes_ += static_cast<uint64_t>(n);
    return true;
  }

  std::string path_;
  gzFile file_ = nullptr;
  std::string buffer_;
  size_t begin_ = 0, end_ = 0;
  bool eof_ = false;
  int64_t lines_ = 0;
  uint64_t textBytes_ = 0;
  Status status_ = Status::success();
};

/// One feed's values as rows arrive: a byte buffer that grows
/// geometrically, copied into the column's tensor at the end.
struct ColumnBuilder {
  const CsvColumn *column = nullptr;
  size_t elementSize = 0;
  int64_t perRow = 0;
  std::vector<char> bytes;

  template <typename T> T *at(int64_t row, int64_t field) {
    return reinterpret_cast<T *>(bytes.data()) + row * perRow + (field - column->begin);
  }
  void addRow() { bytes.resize(bytes.size() + elementSize * static_cast<size_t>(perRow)); }
  Tensor take(int64_t rows) {
    Tensor t(column->dtype, Shape{rows, perRow});
    if (t.byteSize())
      std::memcpy(t.data(), bytes.data(), t.byteSize());
    std::vector<char>().swap(bytes);
    return t;
  }
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

/// Strict, locale-independent parse of a whole field as a number (double
/// or int64_t); a leading '+' is allowed.
template <typename T> bool parseNumber(std::string_view field, T &value) {
  if (!field.empty() && field.front() == '+')
    field.remove_prefix(1);
  if (field.empty())
    return false;
  const char *end = field.data() + field.size();
  auto [ptr, ec] = std::from_chars(field.data(), end, value);
  return ec == std::errc() && ptr == end;
}

void splitFields(std::string_view line, char delimiter, std::vector<std::string_view> &fields) {
  fields.clear();
  size_t pos = 0;
  for (;;) {
    size_t next = line.find(delimiter, pos);
    if (next == std::string_view::npos) {
      fields.push_back(trim(line.substr(pos)));
      return;
    }
    fields.push_back(trim(line.substr(pos, next - pos)));
    pos = next + 1;
  }
}

bool isSupportedDType(DType dtype) {
  return dtype == DType::Float32 || dtype == DType::Float64 || dtype == DType::Int32 ||
         dtype == DType::Int64;
}

std::string describeRange(const CsvColumn &c) {
  return c.range ? "columns " + std::to_string(c.begin) + ":" + std::to_string(c.end)
                 : "column " + std::to_string(c.begin);
}

/// Where one field's value goes: which column builder.
using FieldTargets = std::vector<std::vector<size_t>>;

size_t countFields(std::string_view line, char delimiter) {
  return static_cast<size_t>(std::count(line.begin(), line.end(), delimiter)) + 1;
}

/// Parses `field` into row `row` of `builder`, or says why it cannot.
std::string parseField(std::string_view field, ColumnBuilder &builder, int64_t row, int64_t f) {
  const CsvColumn &c = *builder.column;
  if (field.empty())
    return "empty value (feed '" + c.feed + "')";
  if (c.dtype == DType::Float32 || c.dtype == DType::Float64) {
    double value;
    if (!parseNumber(field, value))
      return "'" + std::string(field) + "' is not a number";
    if (c.dtype == DType::Float32)
      *builder.at<float>(row, f) = static_cast<float>(value);
    else
      *builder.at<double>(row, f) = value;
    return "";
  }
  int64_t value;
  if (!parseNumber(field, value)) {
    double d;
    if (!parseNumber(field, d))
      return "'" + std::string(field) + "' is not a number";
    // Integral values written as floats ("3.0", numpy's savetxt default
    // "3.000000000000000000e+00") are accepted exactly.
    if (!std::isfinite(d) || d != std::floor(d) || std::fabs(d) >= 9.2e18)
      return "'" + std::string(field) + "' is not an integer (feed '" + c.feed + "' is " +
             runtime::dtypeName(c.dtype) + ")";
    value = static_cast<int64_t>(d);
  }
  if (c.dtype == DType::Int32) {
    if (value < std::numeric_limits<int32_t>::min() || value > std::numeric_limits<int32_t>::max())
      return "'" + std::string(field) + "' does not fit feed '" + c.feed + "' (i32)";
    *builder.at<int32_t>(row, f) = static_cast<int32_t>(value);
  } else {
    *builder.at<int64_t>(row, f) = value;
  }
  return "";
}

} // namespace

Status parseCsvColumnMapping(std::string_view spec, std::vector<CsvColumn> &out) {
  std::vector<CsvColumn> columns;
  std::set<std::string> seen;
  auto bad = [&](std::string_view item, const std::string &why) {
    return Status::error("column mapping '" + std::string(spec) + "': '" + std::string(item) +
                         "' " + why);
  };
  auto parseIndex = [](std::string_view text, int64_t &value) {
    return !text.empty() && text.front() != '+' && parseNumber(text, value) && value >= 0;
  };
  size_t pos = 0;
  for (;;) {
    size_t comma = spec.find(',', pos);
    std::string_view item =
        spec.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
    size_t eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0)
      return bad(item, "is not FEED=INDEX or FEED=BEGIN:END");
    CsvColumn column;
    column.feed = std::string(item.substr(0, eq));
    std::string_view where = item.substr(eq + 1);
    size_t colon = where.find(':');
    if (colon == std::string_view::npos) {
      if (!parseIndex(where, column.begin))
        return bad(item, "does not give a field index (a number >= 0)");
      column.end = column.begin + 1;
    } else {
      column.range = true;
      if (!parseIndex(where.substr(0, colon), column.begin) ||
          !parseIndex(where.substr(colon + 1), column.end))
        return bad(item, "does not give a field range BEGIN:END of numbers >= 0");
      if (column.end <= column.begin)
        return bad(item, "is an empty range: END must be greater than BEGIN (END is exclusive)");
    }
    if (!seen.insert(column.feed).second)
      return bad(item, "maps feed '" + column.feed + "' a second time");
    columns.push_back(std::move(column));
    if (comma == std::string_view::npos)
      break;
    pos = comma + 1;
  }
  out = std::move(columns);
  return Status::success();
}

Status loadCsv(Dataset &into, const std::string &path, const CsvOptions &options) {
  if (options.columns.empty())
    return Status::error(path + ": no column mapping given (e.g. x=0:64,label=64)");
  int64_t maxField = 0;
  for (const CsvColumn &c : options.columns) {
    if (!isSupportedDType(c.dtype))
      return Status::error(path + ": feed '" + c.feed + "' is " + runtime::dtypeName(c.dtype) +
                           "; CSV columns can be f32, f64, i32 or i64");
    if (c.begin < 0 || c.end <= c.begin)
      return Status::error(path + ": feed '" + c.feed + "' has an empty field range");
    maxField = std::max(maxField, c.end);
  }

  LineReader reader(path);
  if (Status st = reader.open(); !st.ok())
    return st;
  std::string_view line;
  int64_t number = 0, firstNumber = 0;
  bool any = false;
  while (reader.next(line, number))
    if (!trim(line).empty()) {
      any = true;
      break;
    }
  if (!any) {
    if (Status st = reader.finish(); !st.ok())
      return st;
    return Status::error(path + ": no data rows");
  }
  firstNumber = number;

  std::vector<std::string_view> fields;
  splitFields(line, options.delimiter, fields);
  const size_t width = fields.size();
  if (static_cast<int64_t>(width) < maxField)
    return Status::error(path + ":" + std::to_string(firstNumber) + ": " + std::to_string(width) +
                         " fields, but the column mapping uses field " +
                         std::to_string(maxField - 1) + " (fields are numbered from 0)");

  bool header = options.header == CsvHeader::Present;
  if (options.header == CsvHeader::Auto) {
    for (const CsvColumn &c : options.columns)
      for (int64_t f = c.begin; f < c.end && !header; ++f) {
        double ignored;
        header = !parseNumber(fields[static_cast<size_t>(f)], ignored);
      }
  }

  std::vector<ColumnBuilder> builders(options.columns.size());
  FieldTargets targets(width);
  for (size_t k = 0; k < options.columns.size(); ++k) {
    const CsvColumn &c = options.columns[k];
    builders[k].column = &c;
    builders[k].elementSize = runtime::dtypeSize(c.dtype);
    builders[k].perRow = c.end - c.begin;
    for (int64_t f = c.begin; f < c.end; ++f)
      targets[static_cast<size_t>(f)].push_back(k);
  }

  // Fields are cut from the line in place and parsed straight into the
  // column builders; strings are made only for an error message.
  int64_t rows = 0;
  auto parseRow = [&](std::string_view text, int64_t lineNumber) -> Status {
    auto where = [&] { return path + ":" + std::to_string(lineNumber) + ": "; };
    auto wrongWidth = [&](size_t count) {
      return Status::error(where() + std::to_string(count) + " fields, but line " +
                           std::to_string(firstNumber) + " has " + std::to_string(width));
    };
    for (ColumnBuilder &b : builders)
      b.addRow();
    size_t f = 0;
    size_t pos = 0;
    for (;; ++f) {
      size_t next = text.find(options.delimiter, pos);
      std::string_view field =
          text.substr(pos, next == std::string_view::npos ? std::string_view::npos : next - pos);
      if (f < width && !targets[f].empty()) {
        field = trim(field);
        for (size_t k : targets[f]) {
          std::string why = parseField(field, builders[k], rows, static_cast<int64_t>(f));
          if (!why.empty()) {
            size_t count = countFields(text, options.delimiter);
            if (count != width) // the row's shape is the first thing wrong
              return wrongWidth(count);
            return Status::error(where() + "field " + std::to_string(f) + ": " + why);
          }
        }
      }
      if (next == std::string_view::npos)
        break;
      pos = next + 1;
    }
    if (f + 1 != width)
      return wrongWidth(f + 1);
    ++rows;
    return Status::success();
  };

  try {
    if (!header)
      if (Status st = parseRow(line, firstNumber); !st.ok())
        return st;
    while (reader.next(line, number)) {
      if (trim(line).empty())
        continue;
      if (Status st = parseRow(line, number); !st.ok())
        return st;
    }
  } catch (const std::bad_alloc &) {
    return Status::error(path + ":" + std::to_string(number) + ": not enough memory to hold " +
                         std::to_string(rows) + " rows");
  }
  if (Status st = reader.finish(); !st.ok())
    return st;
  if (rows == 0)
    return Status::error(path + ": no data rows after the header line");

  std::vector<Tensor> tensors;
  for (ColumnBuilder &b : builders)
    tensors.push_back(b.take(rows));

  Dataset loaded;
  for (size_t k = 0; k < options.columns.size(); ++k)
    if (Status st = addColumn(loaded, options.columns[k].feed, tensors[k],
                              path + " " + describeRange(options.columns[k]));
        !st.ok())
      return st;
  return mergeDatasets(into, std::move(loaded));
}

} // namespace distc::training
