//===- ViewSharding.cpp - Shardings through reshapes and views ------------===//

#include "ViewSharding.h"

#include "AxisSharding.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/MathExtras.h"

#include <limits>

namespace distc::sharding::detail {

//===----------------------------------------------------------------------===//
// Dimension transformations (Paddle's DimTrans)
//===----------------------------------------------------------------------===//

DimTrans DimTrans::input(int64_t dim) {
  DimTrans t;
  t.kind = Kind::Input;
  t.inputDim = dim;
  return t;
}

DimTrans makeFlatten(std::vector<DimTrans> dims) {
  if (dims.empty())
    return DimTrans::singleton();
  if (dims.size() == 1)
    return std::move(dims.front());
  DimTrans t;
  t.kind = DimTrans::Kind::Flatten;
  t.operands = std::move(dims);
  return t;
}

DimTrans makeSplit(const DimTrans &dim, const std::vector<int64_t> &shape, int64_t id) {
  if (shape.size() == 1)
    return dim;
  if (shape[id] == 1)
    return DimTrans::singleton();
  DimTrans t;
  t.kind = DimTrans::Kind::Split;
  t.operands = {dim};
  t.splitShape = shape;
  t.splitId = id;
  return t;
}

namespace {

void markUsed(const DimTrans &t, std::vector<bool> &used) {
  if (t.kind == DimTrans::Kind::Input) {
    used[t.inputDim] = true;
    return;
  }
  for (const DimTrans &operand : t.operands)
    markUsed(operand, used);
}

/// Per input axis and mesh axis: may the mesh axis keep splitting it?
using Shardable = std::vector<std::vector<bool>>;

/// The input axis whose sharding output axis `t` takes, or -1 (Paddle's
/// GetDimTrans); records in `shardable` the input axes that must become
/// replicated: the non-first axes of a merged group, and a split axis whose
/// first piece the mesh axis does not divide.
int64_t propagate(const DimTrans &t, llvm::ArrayRef<int64_t> mapping,
                  llvm::ArrayRef<int64_t> meshShape, Shardable &shardable) {
  switch (t.kind) {
  case DimTrans::Kind::Input:
    return mapping[t.inputDim] != kReplicated ? t.inputDim : -1;
  case DimTrans::Kind::Singleton:
    return -1;
  case DimTrans::Kind::Flatten: {
    for (size_t i = 1; i < t.operands.size(); ++i) {
      const DimTrans &operand = t.operands[i];
      if (operand.kind == DimTrans::Kind::Input)
        shardable[operand.inputDim].assign(meshShape.size(), false);
      propagate(operand, mapping, meshShape, shardable);
    }
    const DimTrans &first = t.operands.front();
    return first.kind == DimTrans::Kind::Input && mapping[first.inputDim] != kReplicated
               ? first.inputDim
               : -1;
  }
  case DimTrans::Kind::Split: {
    int64_t dim = propagate(t.operands.front(), mapping, meshShape, shardable);
    if (t.splitId != 0)
      return -1;
    if (dim != -1) {
      int64_t piece = t.splitShape[t.splitId];
      for (size_t m = 0; m < meshShape.size(); ++m)
        shardable[dim][m] = piece % meshShape[m] == 0;
    }
    return dim;
  }
  }
  return -1;
}

} // namespace

ViewMappings inferFromDimTrans(llvm::ArrayRef<int64_t> mapping, llvm::ArrayRef<DimTrans> trans,
                               llvm::ArrayRef<int64_t> meshShape) {
  size_t rank = mapping.size();
  Shardable shardable(rank, std::vector<bool>(meshShape.size(), true));
  std::vector<bool> used(rank, false);
  for (const DimTrans &t : trans)
    markUsed(t, used);
  for (size_t i = 0; i < rank; ++i)
    if (!used[i])
      shardable[i].assign(meshShape.size(), false);

  std::vector<int64_t> target(rank, -1);
  for (size_t i = 0; i < trans.size(); ++i)
    if (int64_t dim = propagate(trans[i], mapping, meshShape, shardable); dim != -1)
      target[dim] = static_cast<int64_t>(i);

  ViewMappings result{std::vector<int64_t>(mapping.begin(), mapping.end()),
                      std::vector<int64_t>(trans.size(), kReplicated)};
  for (size_t i = 0; i < rank; ++i) {
    int64_t meshDim = mapping[i];
    if (meshDim != kReplicated && shardable[i][meshDim] && target[i] != -1)
      result.output[target[i]] = meshDim;
    else
      result.input[i] = kReplicated;
  }
  return result;
}

//===----------------------------------------------------------------------===//
// reshape
//===----------------------------------------------------------------------===//

std::string formatDims(llvm::ArrayRef<int64_t> dims) {
  std::string text = "[";
  for (size_t i = 0; i < dims.size(); ++i)
    text += (i ? ", " : "") + std::to_string(dims[i]);
  return text + "]";
}

llvm::Expected<int64_t> product(const SpmdCall &call, llvm::ArrayRef<int64_t> dims) {
  int64_t result = 1;
  for (int64_t dim : dims)
    if (llvm::MulOverflow(result, dim, result))
      return spmdError(call, "the element count of " + formatDims(dims) + " overflows");
  return result;
}

/// `shape` with its one -1 inferred so that it holds `numel` elements
/// (Paddle's InferTargetShape).
llvm::Expected<std::vector<int64_t>> inferTargetShape(const SpmdCall &call,
                                                      std::vector<int64_t> shape, int64_t numel) {
  int64_t inferred = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] != -1)
      continue;
    if (inferred != -1)
      return spmdError(call, "there can't be more than one -1 dimension in target shape " +
                                 formatDims(shape));
    inferred = static_cast<int64_t>(i);
  }
  auto product = detail::product(call, shape);
  if (!product)
    return product.takeError();
  int64_t known = *product;
  if (inferred == -1) {
    if (known != numel)
      return spmdError(call, "target shape " + formatDims(shape) + " holds " + llvm::Twine(known) +
                                 " elements, the input " + llvm::Twine(numel));
    return shape;
  }
  if (known >= 0 || known == std::numeric_limits<int64_t>::min())
    return spmdError(call, "target shape " + formatDims(shape) + " cannot hold the input's " +
                               llvm::Twine(numel) + " elements");
  known = -known;
  if (numel % known != 0)
    return spmdError(call, "target shape " + formatDims(shape) + " cannot hold the input's " +
                               llvm::Twine(numel) + " elements");
  shape[inferred] = numel / known;
  return shape;
}

/// Per output axis of `src` reshaped to `tgt` (one -1 allowed), how it is
/// made of `src`'s axes (Paddle's MakeReshapeDimTrans): consecutive groups
/// of axes with equal element counts correspond; size-1 axes on either side
/// are skipped, except that a size-1 axis facing a size-1 axis stays itself.
llvm::Expected<std::vector<DimTrans>> makeReshapeDimTrans(const SpmdCall &call,
                                                          llvm::ArrayRef<int64_t> src,
                                                          llvm::ArrayRef<int64_t> tgtShape) {
  auto numel = product(call, src);
  if (!numel)
    return numel.takeError();
  auto tgt = inferTargetShape(call, tgtShape, *numel);
  if (!tgt)
    return tgt.takeError();
  auto mismatch = [&] {
    return spmdError(call,
                     "cannot match the dims of " + formatDims(src) + " with " + formatDims(*tgt));
  };
  std::vector<DimTrans> trans;
  size_t srcIdx = 0, tgtIdx = 0, srcLen = src.size(), tgtLen = tgt->size();
  while (srcIdx < srcLen || tgtIdx < tgtLen) {
    std::vector<int64_t> srcDims, tgtSplit;
    bool srcDone = srcIdx >= srcLen, tgtDone = tgtIdx >= tgtLen;
    int64_t s = 1, t = 1;
    if (!srcDone) {
      s = src[srcIdx];
      srcDims.push_back(static_cast<int64_t>(srcIdx++));
    }
    if (!tgtDone) {
      t = (*tgt)[tgtIdx++];
      tgtSplit.push_back(t);
    }
    if (s == 1 && t != 1) { // a size-1 input axis is dropped
      if (srcDone)
        return mismatch();
      --tgtIdx;
      tgtSplit.clear();
    } else if (s != 1 && t == 1) { // a size-1 output axis is new
      if (tgtDone)
        return mismatch();
      --srcIdx;
      srcDims.clear();
    } else {
      while (s != t) {
        if (s < t) {
          if (srcIdx >= srcLen)
            return mismatch();
          srcDims.push_back(static_cast<int64_t>(srcIdx));
          if (llvm::MulOverflow(s, src[srcIdx++], s))
            return mismatch();
        } else {
          if (tgtIdx >= tgtLen)
            return mismatch();
          tgtSplit.push_back((*tgt)[tgtIdx]);
          if (llvm::MulOverflow(t, (*tgt)[tgtIdx++], t))
            return mismatch();
        }
      }
    }
    if (tgtSplit.empty())
      continue;
    std::vector<DimTrans> inputs;
    for (int64_t dim : srcDims)
      if (src[dim] > 1 || (src[dim] == 1 && s == 1 && t == 1))
        inputs.push_back(DimTrans::input(dim));
    DimTrans merged = makeFlatten(std::move(inputs));
    for (size_t i = 0; i < tgtSplit.size(); ++i)
      trans.push_back(makeSplit(merged, tgtSplit, static_cast<int64_t>(i)));
  }
  return trans;
}

/// Reshape's axes use 256 for a dynamic input dim (Paddle's stand-in).
std::vector<int64_t> staticDims(llvm::ArrayRef<int64_t> shape) {
  std::vector<int64_t> dims(shape.begin(), shape.end());
  for (int64_t &dim : dims)
    if (dim == -1)
      dim = 256;
  return dims;
}

/// X (of `shape`, `mapping`) reshaped to the `shape` attribute `target` (0
/// copies X's dim, one -1 is inferred).
llvm::Expected<ViewMappings> reshapeMappings(const SpmdCall &call, llvm::ArrayRef<int64_t> shape,
                                             llvm::ArrayRef<int64_t> mapping,
                                             llvm::ArrayRef<int64_t> target) {
  std::vector<int64_t> src = staticDims(shape);
  std::vector<int64_t> tgt(target.begin(), target.end());
  for (size_t i = 0; i < tgt.size(); ++i) {
    if (tgt[i] != 0)
      continue;
    if (i >= src.size())
      return spmdError(call, "shape " + formatDims(target) + " copies dim " + llvm::Twine(i) +
                                 " of an input of only " + llvm::Twine(src.size()) + " dims");
    tgt[i] = src[i];
  }
  auto trans = makeReshapeDimTrans(call, src, tgt);
  if (!trans)
    return trans.takeError();
  return inferFromDimTrans(mapping, *trans, call.meshShape);
}

/// The dist attr of XShape: X's dims_mapping behind a replicated axis.
TensorDistAttr xshapeDistAttr(llvm::ArrayRef<int64_t> xMapping) {
  std::vector<int64_t> mapping{kReplicated};
  mapping.insert(mapping.end(), xMapping.begin(), xMapping.end());
  return makeDistAttr(std::move(mapping));
}

/// A reverse query of a view with an XShape gives Out, or Out and XShape.
llvm::Error checkViewOutputs(const SpmdCall &call, bool withXShape) {
  size_t given = call.outputs.size();
  if (given == 1 || (withXShape && given == 2))
    return llvm::Error::success();
  return spmdError(call, llvm::Twine("reverse inference takes the output") +
                             (withXShape ? " (and XShape)" : "") + ", got " + llvm::Twine(given) +
                             " outputs");
}

/// Appends XShape to a rule's answer where the op writes it: always
/// forward, and in reverse when the query gave it.
void addXShape(const SpmdCall &call, bool reverse, SpmdInfo &info) {
  if (!reverse || call.outputs.size() == 2)
    info.outputs.push_back(xshapeDistAttr(info.inputs.front().dimsMapping));
}

} // namespace distc::sharding::detail
