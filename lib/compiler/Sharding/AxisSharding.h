//===- AxisSharding.h - Einsum-notation sharding helpers --------*- C++ -*-===//
//
// Most SPMD rules name each tensor axis with a letter, as an einsum does
// (matmul: `mk,kn->mn`), merge the mesh axes the inputs split each letter
// by, and read every tensor's dims_mapping back from the merged letters.
// These are Paddle's rule utilities (spmd_rules/utils.cc), with its merge
// semantics:
//
//  * a letter split by one tensor and replicated in another is split;
//  * a letter split by two different mesh axes is an error;
//  * a mesh axis that ends up splitting several letters keeps the first
//    letter (in the order the tensors and their axes were given) and the
//    others become replicated -- or, with `resolveConflicts` false, is an
//    error.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_LIB_SHARDING_AXISSHARDING_H
#define DISTC_LIB_SHARDING_AXISSHARDING_H

#include "distc/Sharding/SpmdRule.h"

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace distc::sharding::detail {

/// Checks that `call` has `numInputs` inputs and, for a reverse query,
/// `numOutputs` outputs; the error names the op and the counts.
llvm::Error checkArity(const SpmdCall &call, size_t numInputs, bool reverse, size_t numOutputs);

/// Per einsum letter, the mesh axis splitting it (kReplicated: none).
using AxisMap = std::map<char, int64_t>;

/// One tensor in einsum notation: one letter per axis.
struct AxisTensor {
  std::string axes;
  std::vector<int64_t> dimsMapping;
};

/// The default alphabet of broadcast and batch letters.
inline constexpr std::string_view kAlphabet = "abcdefghijklmnopqrstuvwxyz";

/// Merges the tensors' shardings letter by letter (see the file comment).
/// Errors are prefixed with `call.opName`.
llvm::Expected<AxisMap> mergeShardings(const SpmdCall &call, llvm::ArrayRef<AxisTensor> tensors,
                                       bool resolveConflicts = true);

/// The dims_mapping of a tensor whose axes are `axes`; letters the map
/// lacks are replicated.
std::vector<int64_t> mappingFor(std::string_view axes, const AxisMap &map);

/// As mappingFor, but an axis of size 1 is replicated (a broadcast axis is
/// never split).
std::vector<int64_t> mappingForShape(std::string_view axes, llvm::ArrayRef<int64_t> shape,
                                     const AxisMap &map);

/// The mesh axes splitting a letter that `outputAxes` does not have: a
/// contraction over them leaves the output partial there. Ascending.
std::vector<int64_t> partialDimsFor(const AxisMap &map, std::string_view outputAxes);

/// The last `tensorRank` letters of the first `broadcastRank` of `alphabet`:
/// the broadcast axes of a tensor of `tensorRank` axes among `broadcastRank`
/// aligned from the right.
std::string broadcastAxes(int64_t tensorRank, int64_t broadcastRank,
                          std::string_view alphabet = kAlphabet);

/// A dist attr of `dimsMapping`, partial (with `type`) over `partialDims`.
TensorDistAttr makeDistAttr(std::vector<int64_t> dimsMapping,
                            llvm::ArrayRef<int64_t> partialDims = {},
                            ReduceType type = ReduceType::Sum);

/// `attr` with every partial mesh axis dropped (Paddle's
/// CopyTensorDistAttrForOutput: inputs a rule asks for are never partial).
TensorDistAttr withoutPartial(TensorDistAttr attr);

/// The gradient of an input of `inputRank` axes broadcast to `grad`'s rank
/// (Paddle's ReduceGradBroadCastDims): the leading broadcast axes are summed
/// away, so a mesh axis that split one of them leaves the gradient partial.
TensorDistAttr reduceGradBroadcastDims(size_t inputRank, const TensorDistAttr &grad);

/// Paddle's '1' letter: an axis of size 1 (a broadcast operand's, or one a
/// reduction keeps) merges like a letter but is never split.
inline constexpr char kSizeOneAxis = '1';

/// mappingFor, with every kSizeOneAxis replicated (Paddle's
/// GetDimsMappingForAxes).
std::vector<int64_t> mappingWithSizeOne(std::string_view axes, const AxisMap &map);

/// The first `rank` letters of kAlphabet, one per axis of a tensor; the
/// error names `what` when it has more axes than letters.
llvm::Expected<std::string> axesOfRank(const SpmdCall &call, int64_t rank, llvm::StringRef what);

} // namespace distc::sharding::detail

#endif // DISTC_LIB_SHARDING_AXISSHARDING_H
