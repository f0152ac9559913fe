//===- AxisSharding.cpp - Einsum-notation sharding helpers ----------------===//

#include "AxisSharding.h"

#include "llvm/ADT/Twine.h"

#include <algorithm>

namespace distc::sharding::detail {

llvm::Error checkArity(const SpmdCall &call, size_t numInputs, bool reverse, size_t numOutputs) {
  if (call.inputs.size() != numInputs)
    return spmdError(call, "takes " + llvm::Twine(numInputs) + " inputs, got " +
                               llvm::Twine(call.inputs.size()));
  if (reverse && call.outputs.size() != numOutputs)
    return spmdError(call, "reverse inference takes " + llvm::Twine(numOutputs) + " outputs, got " +
                               llvm::Twine(call.outputs.size()));
  return llvm::Error::success();
}

llvm::Expected<AxisMap> mergeShardings(const SpmdCall &call, llvm::ArrayRef<AxisTensor> tensors,
                                       bool resolveConflicts) {
  AxisMap axisToMeshDim;
  // Per mesh axis, the letters it splits, in the order they were first seen.
  std::map<int64_t, std::string> meshDimToAxes;
  for (const AxisTensor &tensor : tensors) {
    if (tensor.axes.size() != tensor.dimsMapping.size())
      return spmdError(call, "einsum axes '" + tensor.axes + "' do not match a dims_mapping of " +
                                 llvm::Twine(tensor.dimsMapping.size()) + " entries");
    for (size_t i = 0; i < tensor.axes.size(); ++i) {
      char axis = tensor.axes[i];
      int64_t meshDim = tensor.dimsMapping[i];
      auto [it, inserted] = axisToMeshDim.try_emplace(axis, meshDim);
      if (!inserted && it->second != meshDim) {
        if (it->second == kReplicated)
          it->second = meshDim;
        else if (meshDim != kReplicated)
          return spmdError(call, llvm::Twine("tensor axis '") + llvm::Twine(axis) +
                                     "' is sharded by two different mesh dimensions, " +
                                     llvm::Twine(it->second) + " and " + llvm::Twine(meshDim));
      }
      int64_t merged = it->second;
      if (merged != kReplicated) {
        std::string &letters = meshDimToAxes[merged];
        if (letters.find(axis) == std::string::npos)
          letters += axis;
      }
    }
  }
  for (const auto &[meshDim, letters] : meshDimToAxes) {
    if (letters.size() <= 1)
      continue;
    if (!resolveConflicts)
      return spmdError(call, "tensor axes '" + letters + "' are all sharded by mesh dimension " +
                                 llvm::Twine(meshDim));
    for (size_t i = 1; i < letters.size(); ++i)
      axisToMeshDim[letters[i]] = kReplicated;
  }
  return axisToMeshDim;
}

std::vector<int64_t> mappingFor(std::string_view axes, const AxisMap &map) {
  std::vector<int64_t> mapping;
  mapping.reserve(axes.size());
  for (char axis : axes) {
    auto it = map.find(axis);
    mapping.push_back(it == map.end() ? kReplicated : it->second);
  }
  return mapping;
}

std::vector<int64_t> mappingForShape(std::string_view axes, llvm::ArrayRef<int64_t> shape,
                                     const AxisMap &map) {
  std::vector<int64_t> mapping = mappingFor(axes, map);
  for (size_t i = 0; i < mapping.size() && i < shape.size(); ++i)
    if (shape[i] == 1)
      mapping[i] = kReplicated;
  return mapping;
}

std::vector<int64_t> partialDimsFor(const AxisMap &map, std::string_view outputAxes) {
  std::vector<int64_t> dims;
  for (const auto &[axis, meshDim] : map)
    if (meshDim != kReplicated && outputAxes.find(axis) == std::string_view::npos)
      dims.push_back(meshDim);
  std::sort(dims.begin(), dims.end());
  dims.erase(std::unique(dims.begin(), dims.end()), dims.end());
  return dims;
}

std::string broadcastAxes(int64_t tensorRank, int64_t broadcastRank, std::string_view alphabet) {
  if (tensorRank <= 0 || broadcastRank < tensorRank ||
      broadcastRank > static_cast<int64_t>(alphabet.size()))
    return {};
  return std::string(alphabet.substr(broadcastRank - tensorRank, tensorRank));
}

TensorDistAttr makeDistAttr(std::vector<int64_t> dimsMapping, llvm::ArrayRef<int64_t> partialDims,
                            ReduceType type) {
  TensorDistAttr attr;
  attr.dimsMapping = std::move(dimsMapping);
  for (int64_t dim : partialDims)
    attr.partial[dim] = type;
  return attr;
}

TensorDistAttr withoutPartial(TensorDistAttr attr) {
  attr.partial.clear();
  return attr;
}

TensorDistAttr reduceGradBroadcastDims(size_t inputRank, const TensorDistAttr &grad) {
  size_t gradRank = grad.dimsMapping.size();
  if (gradRank <= inputRank)
    return grad;
  size_t broadcast = gradRank - inputRank;
  TensorDistAttr reduced;
  reduced.partial = grad.partial;
  reduced.dimsMapping.assign(grad.dimsMapping.begin() + broadcast, grad.dimsMapping.end());
  for (size_t i = 0; i < broadcast; ++i)
    if (int64_t meshDim = grad.dimsMapping[i]; meshDim != kReplicated)
      reduced.partial.try_emplace(meshDim, ReduceType::Sum);
  return reduced;
}

std::vector<int64_t> mappingWithSizeOne(std::string_view axes, const AxisMap &map) {
  std::vector<int64_t> mapping = mappingFor(axes, map);
  for (size_t i = 0; i < axes.size(); ++i)
    if (axes[i] == kSizeOneAxis)
      mapping[i] = kReplicated;
  return mapping;
}

llvm::Expected<std::string> axesOfRank(const SpmdCall &call, int64_t rank, llvm::StringRef what) {
  if (rank > static_cast<int64_t>(kAlphabet.size()))
    return spmdError(call, what + " has " + llvm::Twine(rank) + " axes; at most " +
                               llvm::Twine(kAlphabet.size()) + " are supported");
  return std::string(kAlphabet.substr(0, static_cast<size_t>(rank)));
}

} // namespace distc::sharding::detail
