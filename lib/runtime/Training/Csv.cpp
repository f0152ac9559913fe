//===- Csv.cpp - Dataset columns from numeric CSV, plain or gzipped -------===//
//
// zlib's gzread reads gzip streams and, transparently, plain files, so one
// code path serves `.csv` and `.csv.gz` and the format follows the content.
//
//===----------------------------------------------------------------------===//

#include "distc/Training/Dataset.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>
#include <zlib.h>

namespace distc::training {

namespace {

Status readMaybeGzipped(const std::string &path, std::string &text) {
  gzFile file = gzopen(path.c_str(), "rb");
  if (!file)
    return Status::error(path +
                         ": cannot open: " + (errno ? std::strerror(errno) : "out of memory"));
  std::string out;
  char buffer[1 << 16];
  for (;;) {
    int n = gzread(file, buffer, sizeof buffer);
    if (n < 0) {
      int code = 0;
      std::string message = gzerror(file, &code);
      if (code == Z_ERRNO)
        message = std::strerror(errno);
      gzclose(file);
      return Status::error(path + ": cannot read: " + message);
    }
    if (n == 0)
      break;
    out.append(buffer, static_cast<size_t>(n));
  }
  // gzclose_r reports a truncated gzip stream (Z_BUF_ERROR) only here.
  int code = gzclose(file);
  if (code == Z_BUF_ERROR)
    return Status::error(path + ": truncated gzip stream");
  if (code != Z_OK)
    return Status::error(path + ": cannot read the gzip stream (zlib error " +
                         std::to_string(code) + ")");
  text = std::move(out);
  return Status::success();
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

/// Strict, locale-independent parse of a whole field as a double.
bool parseDouble(std::string_view field, double &value) {
  if (!field.empty() && field.front() == '+')
    field.remove_prefix(1);
  if (field.empty())
    return false;
  const char *end = field.data() + field.size();
  auto [ptr, ec] = std::from_chars(field.data(), end, value);
  return ec == std::errc() && ptr == end;
}

bool parseInt64(std::string_view field, int64_t &value) {
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

struct Line {
  std::string_view text;
  int64_t number; // 1-based
};

} // namespace

Status parseCsvColumnMapping(std::string_view spec, std::vector<CsvColumn> &out) {
  std::vector<CsvColumn> columns;
  std::set<std::string> seen;
  auto bad = [&](std::string_view item, const std::string &why) {
    return Status::error("column mapping '" + std::string(spec) + "': '" + std::string(item) +
                         "' " + why);
  };
  auto parseIndex = [](std::string_view text, int64_t &value) {
    return !text.empty() && text.front() != '+' && parseInt64(text, value) && value >= 0;
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

  std::string text;
  if (Status st = readMaybeGzipped(path, text); !st.ok())
    return st;

  // Non-blank lines with their numbers.
  std::vector<Line> lines;
  int64_t number = 0;
  for (size_t pos = 0; pos < text.size();) {
    size_t nl = text.find('\n', pos);
    size_t end = nl == std::string::npos ? text.size() : nl;
    ++number;
    std::string_view line(text.data() + pos, end - pos);
    if (!trim(line).empty())
      lines.push_back({line, number});
    pos = end + 1;
  }
  if (lines.empty())
    return Status::error(path + ": no data rows");

  std::vector<std::string_view> fields;
  splitFields(lines[0].text, options.delimiter, fields);
  const size_t width = fields.size();
  if (static_cast<int64_t>(width) < maxField)
    return Status::error(path + ":" + std::to_string(lines[0].number) + ": " +
                         std::to_string(width) + " fields, but the column mapping uses field " +
                         std::to_string(maxField - 1) + " (fields are numbered from 0)");

  bool header = options.header == CsvHeader::Present;
  if (options.header == CsvHeader::Auto) {
    for (const CsvColumn &c : options.columns)
      for (int64_t f = c.begin; f < c.end && !header; ++f) {
        double ignored;
        header = !parseDouble(fields[static_cast<size_t>(f)], ignored);
      }
  }
  size_t firstRow = header ? 1 : 0;
  auto rows = static_cast<int64_t>(lines.size() - firstRow);
  if (rows == 0)
    return Status::error(path + ": no data rows after the header line");

  std::vector<Tensor> tensors;
  for (const CsvColumn &c : options.columns)
    tensors.emplace_back(c.dtype, Shape{rows, c.end - c.begin});

  for (size_t r = firstRow; r < lines.size(); ++r) {
    const Line &line = lines[r];
    splitFields(line.text, options.delimiter, fields);
    std::string where = path + ":" + std::to_string(line.number) + ": ";
    if (fields.size() != width)
      return Status::error(where + std::to_string(fields.size()) + " fields, but line " +
                           std::to_string(lines[0].number) + " has " + std::to_string(width));
    auto row = static_cast<int64_t>(r - firstRow);
    for (size_t k = 0; k < options.columns.size(); ++k) {
      const CsvColumn &c = options.columns[k];
      Tensor &t = tensors[k];
      int64_t perRow = c.end - c.begin;
      for (int64_t f = c.begin; f < c.end; ++f) {
        std::string_view field = fields[static_cast<size_t>(f)];
        std::string at = where + "field " + std::to_string(f) + ": ";
        if (field.empty())
          return Status::error(at + "empty value (feed '" + c.feed + "')");
        int64_t index = row * perRow + (f - c.begin);
        if (c.dtype == DType::Float32 || c.dtype == DType::Float64) {
          double value;
          if (!parseDouble(field, value))
            return Status::error(at + "'" + std::string(field) + "' is not a number");
          if (c.dtype == DType::Float32)
            t.data<float>()[index] = static_cast<float>(value);
          else
            t.data<double>()[index] = value;
          continue;
        }
        int64_t value;
        if (!parseInt64(field, value)) {
          double d;
          if (!parseDouble(field, d))
            return Status::error(at + "'" + std::string(field) + "' is not a number");
          // Integral values written as floats ("3.0", numpy's savetxt
          // default "3.000000000000000000e+00") are accepted exactly.
          if (!std::isfinite(d) || d != std::floor(d) || std::fabs(d) >= 9.2e18)
            return Status::error(at + "'" + std::string(field) + "' is not an integer (feed '" +
                                 c.feed + "' is " + runtime::dtypeName(c.dtype) + ")");
          value = static_cast<int64_t>(d);
        }
        if (c.dtype == DType::Int32) {
          if (value < std::numeric_limits<int32_t>::min() ||
              value > std::numeric_limits<int32_t>::max())
            return Status::error(at + "'" + std::string(field) + "' does not fit feed '" + c.feed +
                                 "' (i32)");
          t.data<int32_t>()[index] = static_cast<int32_t>(value);
        } else {
          t.data<int64_t>()[index] = value;
        }
      }
    }
  }

  Dataset loaded;
  for (size_t k = 0; k < options.columns.size(); ++k)
    if (Status st = addColumn(loaded, options.columns[k].feed, tensors[k],
                              path + " " + describeRange(options.columns[k]));
        !st.ok())
      return st;
  return mergeDatasets(into, std::move(loaded));
}

} // namespace distc::training
