//===- ViewSharding.h - Shardings through reshapes and views ---*- C++ -*-===//
//
// How a sharding passes through an op whose output is a view of its input
// with the axes regrouped (reshape, flatten, squeeze, unsqueeze). As in
// Paddle (spmd_rules/dim_trans.cc), the view is described output axis by
// output axis (a DimTrans): an input axis, a new size-1 axis, a group of
// input axes merged into one, or one piece of an input axis (or group)
// split into several. A sharding survives only where the split axis stays
// whole:
//
//  * a merged group keeps the sharding of its first (outermost) axis; the
//    other axes of the group must be replicated;
//  * an axis split into pieces keeps its sharding on the first piece, and
//    only when the mesh axis divides that piece's size;
//  * input axes that vanish (size 1) are replicated.
//
// Also the XShape convention of the program ops reshape2, transpose2,
// squeeze2, unsqueeze2 and flatten_contiguous_range: XShape ([0] ++ X's
// dims, a shape carrier for the gradient) has X's dims_mapping behind a
// replicated leading axis, as in Paddle's *WithXShape rules.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_LIB_SHARDING_VIEWSHARDING_H
#define DISTC_LIB_SHARDING_VIEWSHARDING_H

#include "distc/Sharding/SpmdRule.h"

#include <string>
#include <vector>

namespace distc::sharding::detail {

/// How one output axis of a view is made of input axes.
struct DimTrans {
  enum class Kind { Input, Singleton, Flatten, Split };
  Kind kind = Kind::Singleton;
  /// Input: the input axis.
  int64_t inputDim = -1;
  /// Flatten: the merged axes, outermost first; Split: the one split.
  std::vector<DimTrans> operands;
  /// Split: the sizes the operand is split into, and which piece this is.
  std::vector<int64_t> splitShape;
  int64_t splitId = 0;

  static DimTrans input(int64_t dim);
  static DimTrans singleton() { return DimTrans(); }
};

/// Several axes merged: none is a new size-1 axis, one is itself.
DimTrans makeFlatten(std::vector<DimTrans> dims);
/// Piece `id` of `dim` split into `shape`: a size-1 piece is a new axis.
DimTrans makeSplit(const DimTrans &dim, const std::vector<int64_t> &shape, int64_t id);

/// The dims_mappings of a view's input (what may stay sharded) and output.
struct ViewMappings {
  std::vector<int64_t> input, output;
};

/// Both mappings from the input's `mapping` and the view's `trans` (one per
/// output axis) on a mesh of `meshShape` (Paddle's InferFromDimTrans).
ViewMappings inferFromDimTrans(llvm::ArrayRef<int64_t> mapping, llvm::ArrayRef<DimTrans> trans,
                               llvm::ArrayRef<int64_t> meshShape);

/// `shape` with its one -1 inferred so that it holds `numel` elements
/// (Paddle's InferTargetShape).
llvm::Expected<std::vector<int64_t>> inferTargetShape(const SpmdCall &call,
                                                      std::vector<int64_t> shape, int64_t numel);

/// The view of `src` reshaped to `tgt` (one -1 allowed), output axis by
/// output axis (Paddle's MakeReshapeDimTrans).
llvm::Expected<std::vector<DimTrans>>
makeReshapeDimTrans(const SpmdCall &call, llvm::ArrayRef<int64_t> src, llvm::ArrayRef<int64_t> tgt);

/// `shape` with each dynamic dim (-1) as 256, Paddle's stand-in in reshape.
std::vector<int64_t> staticDims(llvm::ArrayRef<int64_t> shape);

/// A tensor of `shape` and `mapping` reshaped to the `shape` attribute
/// `target` (0 copies the input's dim, one -1 is inferred).
llvm::Expected<ViewMappings> reshapeMappings(const SpmdCall &call, llvm::ArrayRef<int64_t> shape,
                                             llvm::ArrayRef<int64_t> mapping,
                                             llvm::ArrayRef<int64_t> target);

/// `[2, 3]`.
std::string formatDims(llvm::ArrayRef<int64_t> dims);
/// The number of elements of `dims`; an error when it overflows.
llvm::Expected<int64_t> product(const SpmdCall &call, llvm::ArrayRef<int64_t> dims);

/// The dist attr of XShape: X's dims_mapping behind a replicated axis.
TensorDistAttr xshapeDistAttr(llvm::ArrayRef<int64_t> xMapping);

/// A reverse query of a view gives its output, or (`withXShape`) its output
/// and XShape; the error says what it got.
llvm::Error checkViewOutputs(const SpmdCall &call, bool withXShape);

/// Appends XShape to the answer of a view whose first input is X: always
/// forward, and in reverse when the query gave it.
void addXShape(const SpmdCall &call, bool reverse, SpmdInfo &info);

} // namespace distc::sharding::detail

#endif // DISTC_LIB_SHARDING_VIEWSHARDING_H
