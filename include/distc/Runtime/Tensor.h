//===- Tensor.h - Host tensors ----------------------------------*- C++ -*-===//
//
// A Tensor is an element type, a shape (int64 extents, row-major/C order) and
// a reference-counted, 64-byte aligned block of host memory. Copying a Tensor
// shares its storage (like a shared_ptr); use clone() for a deep copy. A
// view (Tensor::view) shares storage with another tensor under a different
// shape, from an element offset on (a slice), which is how artifact View
// buffers work.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_RUNTIME_TENSOR_H
#define DISTC_RUNTIME_TENSOR_H

#include "distc/Runtime/DType.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace distc::runtime {

using Shape = std::vector<int64_t>;

/// Product of the extents (1 for rank 0).
int64_t shapeNumel(const Shape &shape);

/// "f32[2,3]"; rank 0 prints as "f32[]".
std::string formatType(DType dtype, const Shape &shape);

class Tensor {
public:
  /// An undefined tensor (no storage); defined() is false.
  Tensor() = default;

  /// Allocates zero-initialized storage for `shape`. Extents must be >= 0.
  Tensor(DType dtype, Shape shape);

  /// A tensor sharing `base`'s storage under `shape`, starting `offset`
  /// elements into `base`; offset + its element count must not exceed
  /// base's (checked by the caller).
  static Tensor view(const Tensor &base, Shape shape, int64_t offset = 0);

  /// A tensor of `dtype` and `shape` over `base`'s storage from
  /// `byteOffset` bytes on (a program's arena, whose bytes its temporaries
  /// share); byteOffset + its byteSize() must not exceed base's (checked by
  /// the caller).
  static Tensor reinterpret(const Tensor &base, DType dtype, Shape shape, int64_t byteOffset);

  /// A tensor over storage a Backend allocated elsewhere (device or managed
  /// memory): `storage` holds at least byteSize() bytes and frees them
  /// through its deleter when the last tensor sharing it goes.
  static Tensor adopt(DType dtype, Shape shape, std::shared_ptr<uint8_t> storage);

  bool defined() const { return storage_ != nullptr; }
  DType dtype() const { return dtype_; }
  const Shape &shape() const { return shape_; }
  int64_t dim(int i) const { return shape_[i]; }
  int rank() const { return static_cast<int>(shape_.size()); }
  int64_t numel() const { return shapeNumel(shape_); }
  size_t byteSize() const { return static_cast<size_t>(numel()) * dtypeSize(dtype_); }

  void *data() { return storage_.get(); }
  const void *data() const { return storage_.get(); }
  template <typename T> T *data() { return static_cast<T *>(data()); }
  template <typename T> const T *data() const { return static_cast<const T *>(data()); }

  /// A deep copy with its own storage, in host memory (the source must be
  /// readable by the host: host memory, or a backend's managed memory once
  /// the backend is synchronized).
  Tensor clone() const;

  /// True if both start at the same element of one storage block (a tensor
  /// and its views at offset 0; not slices of other parts of the block).
  bool sharesStorageWith(const Tensor &other) const { return storage_ == other.storage_; }

  /// formatType(dtype(), shape()).
  std::string typeString() const;

private:
  DType dtype_ = DType::Float32;
  Shape shape_;
  // Points at the first element: a view at an offset shares the ownership
  // of its base's block (shared_ptr's aliasing constructor).
  std::shared_ptr<uint8_t> storage_;
};

/// Named tensors: feeds in, fetches out.
using TensorMap = std::map<std::string, Tensor>;

} // namespace distc::runtime

#endif // DISTC_RUNTIME_TENSOR_H
