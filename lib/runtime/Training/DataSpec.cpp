//===- DataSpec.cpp - The `--data` argument -------------------------------===//

#include "distc/Training/DataSpec.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <glob.h>

namespace distc::training {

namespace {

const char kForms[] =
    "expected NAME=@FILE.npy, FILE.npz[:MAPPING], FILE.csv[.gz]:MAPPING or images=DIR[:OPTIONS]";

bool endsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

} // namespace

Status parseDataSpec(std::string_view text, DataSpec &out) {
  auto bad = [&](const std::string &why) {
    return Status::error("--data '" + std::string(text) + "': " + why);
  };
  DataSpec spec;
  size_t at = text.find("=@");
  size_t colon = text.find(':');
  if (at != std::string_view::npos && at > 0 && (colon == std::string_view::npos || at < colon)) {
    spec.kind = DataSpec::Kind::Npy;
    spec.feed = std::string(text.substr(0, at));
    spec.path = std::string(text.substr(at + 2));
    if (spec.path.empty())
      return bad("no file after '=@'");
    out = std::move(spec);
    return Status::success();
  }
  // images=DIR[:OPTIONS]: the folder ends at the first ':'.
  if (text.substr(0, 7) == "images=") {
    spec.kind = DataSpec::Kind::Images;
    std::string_view rest = text.substr(7);
    size_t sep = rest.find(':');
    spec.path = std::string(rest.substr(0, sep));
    if (spec.path.empty())
      return bad("no folder after 'images='");
    if (spec.path.find_first_of("*?[") != std::string::npos)
      return bad("images=DIR takes one folder, not a wildcard");
    if (sep != std::string_view::npos)
      if (Status st = parseImageFolderOptions(rest.substr(sep + 1), spec.images); !st.ok())
        return bad(st.message());
    out = std::move(spec);
    return Status::success();
  }
  // The path ends at the first format suffix followed by ':' or the end.
  struct Suffix {
    std::string_view text;
    DataSpec::Kind kind;
  };
  const Suffix suffixes[] = {{".npz", DataSpec::Kind::Npz},
                             {".csv.gz", DataSpec::Kind::Csv},
                             {".csv", DataSpec::Kind::Csv}};
  size_t pathEnd = std::string_view::npos;
  for (size_t pos = 0; pos <= text.size() && pathEnd == std::string_view::npos; ++pos) {
    if (pos < text.size() && text[pos] != ':')
      continue;
    for (const Suffix &s : suffixes)
      if (endsWith(text.substr(0, pos), s.text)) {
        pathEnd = pos;
        spec.kind = s.kind;
        break;
      }
  }
  if (pathEnd == std::string_view::npos)
    return bad(std::string("cannot tell the file's format; ") + kForms);
  spec.path = std::string(text.substr(0, pathEnd));
  bool hasMapping = pathEnd < text.size();
  std::string_view mapping = hasMapping ? text.substr(pathEnd + 1) : std::string_view();
  if (spec.kind == DataSpec::Kind::Npz) {
    if (hasMapping)
      if (Status st = parseNpzMapping(mapping, spec.npzFeeds); !st.ok())
        return bad(st.message());
  } else {
    if (!hasMapping || mapping.empty())
      return bad("a CSV file needs a column mapping, e.g. " + spec.path + ":x=0:64,label=64");
    if (Status st = parseCsvColumnMapping(mapping, spec.csvColumns); !st.ok())
      return bad(st.message());
  }
  out = std::move(spec);
  return Status::success();
}

Status expandDataFiles(DataSpec &spec) {
  spec.files.clear();
  if (spec.path.find_first_of("*?[") == std::string::npos) {
    spec.files.push_back(spec.path);
    return Status::success();
  }
  glob_t matches{};
  int rc = glob(spec.path.c_str(), 0, nullptr, &matches);
  if (rc == 0)
    for (size_t i = 0; i < matches.gl_pathc; ++i)
      spec.files.push_back(matches.gl_pathv[i]);
  globfree(&matches);
  if (rc == GLOB_NOMATCH || spec.files.empty())
    return Status::error("--data: no file matches '" + spec.path + "'");
  if (rc != 0)
    return Status::error("--data: cannot list the files matching '" + spec.path + "'");
  return Status::success();
}

std::vector<std::string> fileShard(const std::vector<std::string> &files, int rank, int workers) {
  if (workers < 1 || rank < 0 || rank >= workers)
    return {};
  const size_t n = files.size(), block = n / size_t(workers), longer = n % size_t(workers);
  const size_t r = size_t(rank);
  const size_t begin = r * block + std::min(r, longer);
  const size_t count = block + (r < longer ? 1 : 0);
  return std::vector<std::string>(files.begin() + begin, files.begin() + begin + count);
}

namespace {

Status loadFile(Dataset &into, const DataSpec &spec, const std::string &path,
                const std::map<std::string, FeedSpec> &feeds, std::vector<std::string> *report) {
  switch (spec.kind) {
  case DataSpec::Kind::Npy:
    return loadNpyColumn(into, spec.feed, path);
  case DataSpec::Kind::Npz:
    return loadNpzColumns(into, path, spec.npzFeeds);
  case DataSpec::Kind::Csv: {
    CsvOptions options;
    options.columns = spec.csvColumns;
    for (CsvColumn &c : options.columns)
      if (auto it = feeds.find(c.feed); it != feeds.end())
        c.dtype = it->second.dtype;
    return loadCsv(into, path, options);
  }
  case DataSpec::Kind::Images: {
    ImageFolderOptions options = spec.images;
    if (auto it = feeds.find(options.labelFeed); it != feeds.end()) {
      options.labelType = it->second.dtype;
      options.labelColumnRank1 = it->second.dims.size() == 1;
    }
    return loadImageFolder(into, path, options, report);
  }
  }
  return Status::error("--data: unknown kind");
}

std::string describeLoad(const Dataset &part, const std::string &file,
                         std::chrono::steady_clock::duration elapsed) {
  size_t bytes = 0;
  for (const auto &[name, column] : part.columns)
    bytes += column.byteSize();
  char line[160];
  std::snprintf(line, sizeof line, "loaded %lld rows x %zu columns (%.1f MB) from ",
                static_cast<long long>(part.numRows()), part.columns.size(), double(bytes) / 1e6);
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, " in %.3g s",
                std::chrono::duration<double>(elapsed).count());
  return line + file + seconds;
}

} // namespace

Status loadData(Dataset &into, const DataSpec &spec, const std::map<std::string, FeedSpec> &feeds,
                std::vector<std::string> *report) {
  const std::vector<std::string> files =
      spec.files.empty() ? std::vector<std::string>{spec.path} : spec.files;
  Dataset rows;
  for (const std::string &file : files) {
    Dataset part;
    auto start = std::chrono::steady_clock::now();
    std::vector<std::string> notes;
    if (Status s = loadFile(part, spec, file, feeds, &notes); !s.ok())
      return s;
    if (report)
      report->insert(report->end(), notes.begin(), notes.end());
    if (report)
      report->push_back(describeLoad(part, file, std::chrono::steady_clock::now() - start));
    if (files.size() == 1)
      return mergeDatasets(into, std::move(part));
    if (Status s = appendRows(rows, part); !s.ok())
      return s;
  }
  return mergeDatasets(into, std::move(rows));
}

} // namespace distc::training
