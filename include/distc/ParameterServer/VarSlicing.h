//===- VarSlicing.h - DistributeTranspiler's variable blocks ----*- C++ -*-===//
//
// Parameter-server training cuts each dense parameter, and its gradient,
// into blocks of whole rows that the servers share (Paddle's
// slice_variable). A block is a run of rows along dim 0: at least
// min_block_size elements where the variable is that large, at most one
// block per server. For a variable of N elements, S servers and minimum
// block size M:
//
//   split  = min(S, max(1, floor(N / M)))
//   block  = ceil(N / split), rounded up to whole rows (a multiple of the
//            product of dims 1.. for a tensor of rank >= 2)
//   blocks = ceil(N / block), the last holding what remains.
//
// A variable of one block keeps its name; one of several becomes
// `<name>.block<i>`. In synchronous training with several trainers each
// trainer sends its gradient blocks as `<block name>.trainer_<id>`, so the
// server tells them apart before it sums them.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_PARAMETERSERVER_VARSLICING_H
#define DISTC_PARAMETERSERVER_VARSLICING_H

#include <cstdint>
#include <string>
#include <vector>

namespace distc::ps {

/// Paddle's smallest allowed min_block_size (DistributeTranspilerConfig
/// asserts it), which is also its default.
inline constexpr int64_t kMinBlockSize = 8192;

/// One block of a variable: its index among the variable's blocks and its
/// element count. `str()` is Paddle's VarBlock form "name:index:size".
struct VarBlock {
  std::string varName;
  int64_t index = 0;
  int64_t size = 0;
  /// The element offset of the block's first element in the variable.
  int64_t offset = 0;
  /// The block's shape: the variable's with dim 0 cut to its rows.
  std::vector<int64_t> shape;

  std::string str() const;
};

/// The blocks of a variable of `shape` over `sliceCount` servers (1 without
/// slice_var_up) with blocks of at least `minBlockSize` elements. Every dim
/// must be positive and sliceCount, minBlockSize >= 1.
std::vector<VarBlock> sliceVariable(const std::string &name, const std::vector<int64_t> &shape,
                                    int64_t sliceCount, int64_t minBlockSize);

/// The name of block `index` of a variable cut into `count` blocks:
/// `name` itself when count is 1, else `name.block<index>`.
std::string blockVarName(const std::string &name, int64_t index, int64_t count);

/// A gradient block's name as trainer `trainerId` sends it in synchronous
/// training with several trainers: `name.trainer_<id>`.
std::string trainerVarName(const std::string &name, int64_t trainerId);

/// Paddle's same_or_split_var: `name` is `var` or one of its blocks.
bool isVarOrBlockOf(const std::string &name, const std::string &var);

} // namespace distc::ps

#endif // DISTC_PARAMETERSERVER_VARSLICING_H
