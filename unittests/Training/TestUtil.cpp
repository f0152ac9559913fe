//===- TestUtil.cpp - Helpers for the training library's tests ------------===//

#include "TestUtil.h"

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <zlib.h>

namespace distc::training::test {

TempDir::TempDir() {
  const char *base = std::getenv("TMPDIR");
  std::string pattern = std::string(base && *base ? base : "/tmp") + "/distc-training-XXXXXX";
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  if (!::mkdtemp(buffer.data()))
    throw std::runtime_error("mkdtemp failed");
  path_ = buffer.data();
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

void writeText(const std::string &path, const std::string &text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

void writeGzip(const std::string &path, const std::string &text) {
  gzFile file = gzopen(path.c_str(), "wb");
  gzwrite(file, text.data(), static_cast<unsigned>(text.size()));
  gzclose(file);
}

std::string readText(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

runtime::Tensor iotaF32(const runtime::Shape &shape, float scale) {
  runtime::Tensor t(runtime::DType::Float32, shape);
  for (int64_t i = 0; i < t.numel(); ++i)
    t.data<float>()[i] = static_cast<float>(i) * scale;
  return t;
}

runtime::Tensor fromI64(const runtime::Shape &shape, const std::vector<int64_t> &values) {
  runtime::Tensor t(runtime::DType::Int64, shape);
  for (size_t i = 0; i < values.size(); ++i)
    t.data<int64_t>()[i] = values[i];
  return t;
}

bool sameTensor(const runtime::Tensor &a, const runtime::Tensor &b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() &&
         (a.byteSize() == 0 || std::memcmp(a.data(), b.data(), a.byteSize()) == 0);
}

} // namespace distc::training::test
