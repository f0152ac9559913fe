//===- Npy.cpp - NumPy .npy files -----------------------------------------===//
//
// Format: "\x93NUMPY", major, minor, header length (uint16 for 1.0, uint32 for
// 2.0/3.0), then an ASCII Python dict literal with 'descr', 'fortran_order'
// and 'shape', padded so the data starts at a multiple of 64 bytes.
//
//===----------------------------------------------------------------------===//

#include "distc/Runtime/Npy.h"
#include "distc/Support/InputFile.h"

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>

namespace distc::runtime {
namespace {

const char kNpyMagic[] = "\x93NUMPY";
constexpr size_t kNpyMagicLen = 6;

struct DescrEntry {
  const char *code; // kind + size, without byte order
  DType dtype;
};
const DescrEntry kDescrs[] = {
    {"b1", DType::Bool},    {"i1", DType::Int8},    {"u1", DType::UInt8},
    {"i2", DType::Int16},   {"i4", DType::Int32},   {"i8", DType::Int64},
    {"f2", DType::Float16}, {"f4", DType::Float32}, {"f8", DType::Float64},
};

/// Finds `'key'` in the header dict and returns the position after its colon.
size_t findKey(const std::string &header, const char *key) {
  for (char quote : {'\'', '"'}) {
    std::string pattern = std::string(1, quote) + key + quote;
    size_t pos = header.find(pattern);
    if (pos == std::string::npos)
      continue;
    pos = header.find(':', pos + pattern.size());
    if (pos != std::string::npos)
      return pos + 1;
  }
  return std::string::npos;
}

size_t skipSpaces(const std::string &s, size_t pos) {
  while (pos < s.size() && std::isspace(static_cast<unsigned char>(s[pos])))
    ++pos;
  return pos;
}

Status parseHeader(const std::string &header, const std::string &name, DType &dtype, Shape &shape) {
  auto bad = [&](const std::string &why) {
    return Status::error(name + ": invalid .npy header: " + why);
  };
  // descr
  size_t pos = findKey(header, "descr");
  if (pos == std::string::npos)
    return bad("no 'descr'");
  pos = skipSpaces(header, pos);
  if (pos >= header.size() || (header[pos] != '\'' && header[pos] != '"'))
    return bad("'descr' is not a simple type string (structured arrays are not supported)");
  size_t end = header.find(header[pos], pos + 1);
  if (end == std::string::npos)
    return bad("unterminated 'descr'");
  std::string descr = header.substr(pos + 1, end - pos - 1);
  if (descr.size() < 2)
    return bad("unknown 'descr' '" + descr + "'");
  char order = descr[0];
  std::string code = descr.substr(1);
  if (order != '<' && order != '>' && order != '|' && order != '=') {
    order = '=';
    code = descr;
  }
  const DescrEntry *entry = nullptr;
  for (const DescrEntry &e : kDescrs)
    if (code == e.code)
      entry = &e;
  if (!entry)
    return Status::error(name + ": unsupported .npy dtype '" + descr +
                         "' (supported: bool, i1, u1, i2, i4, i8, f2, f4, f8)");
  if (order == '>' && dtypeSize(entry->dtype) > 1)
    return Status::error(name + ": big-endian .npy data ('" + descr +
                         "') is not supported; save it little-endian (e.g. astype('<" + code +
                         "'))");
  dtype = entry->dtype;

  // fortran_order
  pos = findKey(header, "fortran_order");
  if (pos == std::string::npos)
    return bad("no 'fortran_order'");
  pos = skipSpaces(header, pos);
  if (header.compare(pos, 4, "True") == 0)
    return Status::error(name + ": Fortran-ordered .npy arrays are not supported; save a "
                                "C-ordered array (numpy.ascontiguousarray)");
  if (header.compare(pos, 5, "False") != 0)
    return bad("'fortran_order' is neither True nor False");

  // shape
  pos = findKey(header, "shape");
  if (pos == std::string::npos)
    return bad("no 'shape'");
  pos = skipSpaces(header, pos);
  if (pos >= header.size() || header[pos] != '(')
    return bad("'shape' is not a tuple");
  end = header.find(')', pos);
  if (end == std::string::npos)
    return bad("unterminated 'shape'");
  shape.clear();
  std::string tuple = header.substr(pos + 1, end - pos - 1);
  size_t i = 0;
  while (true) {
    i = skipSpaces(tuple, i);
    if (i >= tuple.size())
      break;
    size_t start = i;
    while (i < tuple.size() && std::isdigit(static_cast<unsigned char>(tuple[i])))
      ++i;
    if (i == start || i - start > 18)
      return bad("'shape' holds something other than sizes");
    shape.push_back(std::stoll(tuple.substr(start, i - start)));
    i = skipSpaces(tuple, i);
    if (i < tuple.size()) {
      if (tuple[i] != ',')
        return bad("'shape' is malformed");
      ++i;
    }
  }
  return Status::success();
}

} // namespace

Status parseNpy(const std::string &bytes, const std::string &name, Tensor &out) {
  if (bytes.size() < kNpyMagicLen + 4 || bytes.compare(0, kNpyMagicLen, kNpyMagic) != 0)
    return Status::error(name + ": not a .npy file (missing \\x93NUMPY magic)");
  unsigned major = static_cast<unsigned char>(bytes[6]);
  size_t headerLen, headerStart;
  if (major == 1) {
    headerLen = static_cast<unsigned char>(bytes[8]) | static_cast<unsigned char>(bytes[9]) << 8;
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12)
      return Status::error(name + ": truncated .npy header");
    headerLen = 0;
    for (int i = 0; i < 4; ++i)
      headerLen |= size_t(static_cast<unsigned char>(bytes[8 + i])) << (8 * i);
    headerStart = 12;
  } else {
    return Status::error(name + ": unsupported .npy format version " + std::to_string(major));
  }
  if (bytes.size() < headerStart + headerLen)
    return Status::error(name + ": truncated .npy header");
  DType dtype;
  Shape shape;
  Status s = parseHeader(bytes.substr(headerStart, headerLen), name, dtype, shape);
  if (!s.ok())
    return s;
  // Guard the size computation against absurd headers before allocating.
  double approx = double(dtypeSize(dtype));
  for (int64_t d : shape)
    approx *= double(d);
  size_t dataStart = headerStart + headerLen;
  size_t available = bytes.size() - dataStart;
  if (approx > double(available))
    return Status::error(name + ": truncated .npy data: " + formatType(dtype, shape) + " needs " +
                         std::to_string(uint64_t(approx)) + " bytes, file has " +
                         std::to_string(available));
  Tensor t(dtype, shape);
  if (t.byteSize() != available)
    return Status::error(name + ": .npy data has " + std::to_string(available) +
                         " bytes, expected " + std::to_string(t.byteSize()) + " for " +
                         t.typeString());
  if (t.byteSize())
    std::memcpy(t.data(), bytes.data() + dataStart, t.byteSize());
  out = std::move(t);
  return Status::success();
}

Status readNpy(const std::string &path, Tensor &out) {
  // The magic first, so that a file that is no .npy is refused unread.
  std::string bytes, error;
  std::optional<uint64_t> size;
  if (!support::checkInputFile(path, size, error))
    return Status::error(error);
  if (size) {
    if (!support::readInputPrefix(path, kNpyMagicLen, bytes, error))
      return Status::error(error);
    if (bytes.size() < kNpyMagicLen || bytes.compare(0, kNpyMagicLen, kNpyMagic) != 0)
      return parseNpy(bytes, path, out);
  }
  if (!support::readInputFile(path, bytes, error))
    return Status::error(error);
  return parseNpy(bytes, path, out);
}

Status writeNpy(const std::string &path, const Tensor &tensor) {
  const char *descr = nullptr;
  switch (tensor.dtype()) {
  case DType::Bool:
    descr = "|b1";
    break;
  case DType::Int8:
    descr = "|i1";
    break;
  case DType::UInt8:
    descr = "|u1";
    break;
  case DType::Int16:
    descr = "<i2";
    break;
  case DType::Int32:
    descr = "<i4";
    break;
  case DType::Int64:
    descr = "<i8";
    break;
  case DType::Float16:
    descr = "<f2";
    break;
  case DType::Float32:
    descr = "<f4";
    break;
  case DType::Float64:
    descr = "<f8";
    break;
  case DType::BFloat16:
    return Status::error(path + ": bfloat16 has no .npy representation");
  }
  std::string dict = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (";
  for (size_t i = 0; i < tensor.shape().size(); ++i)
    dict += (i ? ", " : "") + std::to_string(tensor.shape()[i]);
  if (tensor.rank() == 1)
    dict += ','; // Python's one-element tuple
  dict += "), }";
  // Pad with spaces and a final newline so the data starts on 64 bytes.
  bool v2 = dict.size() + 11 > 65535;
  size_t prefix = v2 ? 12 : 10;
  size_t total = (prefix + dict.size() + 1 + 63) / 64 * 64;
  dict.append(total - prefix - dict.size() - 1, ' ');
  dict += '\n';
  std::string header(kNpyMagic, kNpyMagicLen);
  header += char(v2 ? 2 : 1);
  header += char(0);
  size_t len = dict.size();
  for (size_t i = 0; i < (v2 ? 4u : 2u); ++i)
    header += char((len >> (8 * i)) & 0xff);
  header += dict;

  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out)
    return Status::error(path + ": cannot create: " + std::strerror(errno));
  out.write(header.data(), header.size());
  out.write(static_cast<const char *>(tensor.data()), tensor.byteSize());
  out.close();
  if (!out)
    return Status::error(path + ": cannot write: " + std::strerror(errno));
  return Status::success();
}

} // namespace distc::runtime
