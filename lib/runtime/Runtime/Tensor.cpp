//===- Tensor.cpp - Host tensors ------------------------------------------===//

#include "distc/Runtime/Tensor.h"
#include "distc/Runtime/HostMemory.h"

#include <cstring>

namespace distc::runtime {

int64_t shapeNumel(const Shape &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

std::string formatType(DType dtype, const Shape &shape) {
  std::string s = dtypeName(dtype);
  s += '[';
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      s += ',';
    s += std::to_string(shape[i]);
  }
  return s + ']';
}

Tensor::Tensor(DType dtype, Shape shape) : dtype_(dtype), shape_(std::move(shape)) {
  storage_ = allocateHostStorage(byteSize());
}

Tensor Tensor::view(const Tensor &base, Shape shape, int64_t offset) {
  Tensor t;
  t.dtype_ = base.dtype_;
  t.shape_ = std::move(shape);
  t.storage_ = offset == 0
                   ? base.storage_
                   : std::shared_ptr<uint8_t>(base.storage_, base.storage_.get() +
                                                                 offset * dtypeSize(base.dtype_));
  return t;
}

Tensor Tensor::reinterpret(const Tensor &base, DType dtype, Shape shape, int64_t byteOffset) {
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = std::move(shape);
  t.storage_ = std::shared_ptr<uint8_t>(base.storage_, base.storage_.get() + byteOffset);
  return t;
}

Tensor Tensor::adopt(DType dtype, Shape shape, std::shared_ptr<uint8_t> storage) {
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = std::move(shape);
  t.storage_ = std::move(storage);
  return t;
}

Tensor Tensor::clone() const {
  if (!defined())
    return Tensor();
  Tensor t(dtype_, shape_);
  std::memcpy(t.data(), data(), byteSize());
  return t;
}

std::string Tensor::typeString() const { return formatType(dtype_, shape_); }

} // namespace distc::runtime
