//===- TestUtil.h - Helpers for the training library's tests ----*- C++ -*-===//

#ifndef DISTC_UNITTESTS_TRAINING_TESTUTIL_H
#define DISTC_UNITTESTS_TRAINING_TESTUTIL_H

#include "distc/Runtime/Tensor.h"

#include <string>
#include <vector>

namespace distc::training::test {

/// A fresh directory under $TMPDIR (or /tmp), removed with its contents when
/// the object goes away.
class TempDir {
public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;
  const std::string &path() const { return path_; }
  std::string file(const std::string &name) const { return path_ + "/" + name; }

private:
  std::string path_;
};

void writeText(const std::string &path, const std::string &text);
void writeGzip(const std::string &path, const std::string &text);
std::string readText(const std::string &path);

/// A float tensor of `shape` holding 0, 1, 2, ... times `scale`.
runtime::Tensor iotaF32(const runtime::Shape &shape, float scale = 1.0f);
runtime::Tensor fromI64(const runtime::Shape &shape, const std::vector<int64_t> &values);

/// Same dtype, shape and bytes.
bool sameTensor(const runtime::Tensor &a, const runtime::Tensor &b);

} // namespace distc::training::test

#endif // DISTC_UNITTESTS_TRAINING_TESTUTIL_H
