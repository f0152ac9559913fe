//===- VarSlicing.cpp - DistributeTranspiler's variable blocks ------------===//

#include "distc/ParameterServer/VarSlicing.h"

#include <algorithm>
#include <cassert>

namespace distc::ps {

std::string VarBlock::str() const {
  return varName + ":" + std::to_string(index) + ":" + std::to_string(size);
}

static int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

std::vector<VarBlock> sliceVariable(const std::string &name, const std::vector<int64_t> &shape,
                                    int64_t sliceCount, int64_t minBlockSize) {
  assert(sliceCount >= 1 && minBlockSize >= 1 && "checked by the caller");
  int64_t numel = 1, rowWidth = 1;
  for (size_t d = 0; d < shape.size(); ++d) {
    numel *= shape[d];
    if (d > 0)
      rowWidth *= shape[d];
  }
  const int64_t most = std::max<int64_t>(1, numel / minBlockSize);
  int64_t split = std::min(sliceCount, most);
  int64_t block = ceilDiv(numel, split);
  // Blocks of whole rows: a server holds rows of the variable.
  if (shape.size() >= 2 && block % rowWidth != 0)
    block += rowWidth - block % rowWidth;
  split = ceilDiv(numel, block);
  std::vector<VarBlock> blocks;
  for (int64_t i = 0; i < split; ++i) {
    VarBlock b;
    b.varName = name;
    b.index = i;
    b.offset = i * block;
    b.size = std::min(block, numel - b.offset);
    b.shape = shape;
    if (!b.shape.empty())
      b.shape[0] = shape.size() >= 2 ? b.size / rowWidth : b.size;
    blocks.push_back(std::move(b));
  }
  return blocks;
}

std::string blockVarName(const std::string &name, int64_t index, int64_t count) {
  return count == 1 ? name : name + ".block" + std::to_string(index);
}

std::string trainerVarName(const std::string &name, int64_t trainerId) {
  return name + ".trainer_" + std::to_string(trainerId);
}

bool isVarOrBlockOf(const std::string &name, const std::string &var) {
  const std::string prefix = var + ".block";
  return name == var || name.compare(0, prefix.size(), prefix) == 0;
}

} // namespace distc::ps
