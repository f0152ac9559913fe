//===- MatmulRules.cpp - SPMD rules of matrix products --------------------===//
//
// matmul (matmul_v2, and v1 matmul through its attribute renames), its
// gradient, and the flattening `mul`. A matrix product is the einsum
// `...mk,...kn->...mn`: the batch letters broadcast from the right, `k` is
// contracted, so a split `k` leaves the output partial (sum) over its mesh
// axis -- the row-parallel linear layer.
//
//===----------------------------------------------------------------------===//

#include "AxisSharding.h"
#include "RuleFamilies.h"

#include "llvm/ADT/Twine.h"

#include <algorithm>

namespace distc::sharding::detail {
namespace {

// Batch letters avoid k, m and n, which name the matrix axes.
constexpr std::string_view kBatchAlphabet = "abcdefghijlopqrstuvwxyz";

struct MatmulNotation {
  std::string x, y, out;
};

llvm::Expected<MatmulNotation> matmulNotation(const SpmdCall &call, int64_t xRank, int64_t yRank) {
  MatmulNotation n;
  if (xRank < 1 || yRank < 1)
    return spmdError(call, "matmul operands need at least one axis, got ranks " +
                               llvm::Twine(xRank) + " and " + llvm::Twine(yRank));
  if (xRank == 1 && yRank == 1)
    return MatmulNotation{"k", "k", ""};
  if (xRank == 1) {
    std::string batch = broadcastAxes(yRank - 2, yRank - 2, kBatchAlphabet);
    return MatmulNotation{"k", batch + "kn", batch + "n"};
  }
  if (yRank == 1) {
    std::string batch = broadcastAxes(xRank - 2, xRank - 2, kBatchAlphabet);
    return MatmulNotation{batch + "mk", "k", batch + "m"};
  }
  int64_t batchRank = std::max(xRank, yRank) - 2;
  std::string xBatch = broadcastAxes(xRank - 2, batchRank, kBatchAlphabet);
  std::string yBatch = broadcastAxes(yRank - 2, batchRank, kBatchAlphabet);
  return MatmulNotation{xBatch + "mk", yBatch + "kn", (xRank > yRank ? xBatch : yBatch) + "mn"};
}

/// Swaps the last two entries (a transposed operand's view).
template <typename T> std::vector<T> swappedLastTwo(std::vector<T> v, bool swap) {
  if (swap && v.size() >= 2)
    std::iter_swap(v.end() - 2, v.end() - 1);
  return v;
}

/// The dist attr an operand must have, in its own (untransposed) layout.
TensorDistAttr operandDistAttr(const DistTensorSpec &spec, const std::string &axes,
                               const AxisMap &merged, bool transposed) {
  std::vector<int64_t> viewShape = swappedLastTwo(spec.shape, transposed);
  return makeDistAttr(swappedLastTwo(mappingForShape(axes, viewShape, merged), transposed));
}

llvm::Error checkTransposable(const SpmdCall &call, const DistTensorSpec &spec, bool trans,
                              llvm::StringRef which) {
  if (trans && spec.rank() < 2)
    return spmdError(call, "trans_" + which + " needs " + which.upper() +
                               " of at least 2 axes, got " + llvm::Twine(spec.rank()));
  return llvm::Error::success();
}

llvm::Expected<SpmdInfo> matmulForward(const SpmdCall &call, const DistTensorSpec &x,
                                       const DistTensorSpec &y, bool transX, bool transY) {
  if (llvm::Error err = checkTransposable(call, x, transX, "x"))
    return std::move(err);
  if (llvm::Error err = checkTransposable(call, y, transY, "y"))
    return std::move(err);
  auto notation = matmulNotation(call, x.rank(), y.rank());
  if (!notation)
    return notation.takeError();
  auto merged = mergeShardings(call, {{notation->x, swappedLastTwo(x.dist.dimsMapping, transX)},
                                      {notation->y, swappedLastTwo(y.dist.dimsMapping, transY)}});
  if (!merged)
    return merged.takeError();
  SpmdInfo info;
  info.inputs.push_back(operandDistAttr(x, notation->x, *merged, transX));
  info.inputs.push_back(operandDistAttr(y, notation->y, *merged, transY));
  info.outputs.push_back(
      makeDistAttr(mappingFor(notation->out, *merged), partialDimsFor(*merged, notation->out)));
  return info;
}

llvm::Expected<SpmdInfo> inferMatmul(const SpmdCall &call) {
  if (llvm::Error err = checkArity(call, 2, false, 0))
    return std::move(err);
  return matmulForward(call, call.inputs[0], call.inputs[1], call.attrs.getBool("trans_x", false),
                       call.attrs.getBool("trans_y", false));
}

/// From the output alone: the inputs' current dist attrs do not matter.
llvm::Expected<SpmdInfo> inferMatmulReverse(const SpmdCall &call) {
  if (llvm::Error err = checkArity(call, 2, true, 1))
    return std::move(err);
  const DistTensorSpec &x = call.inputs[0], &y = call.inputs[1], &out = call.outputs[0];
  bool transX = call.attrs.getBool("trans_x", false), transY = call.attrs.getBool("trans_y", false);
  if (llvm::Error err = checkTransposable(call, x, transX, "x"))
    return std::move(err);
  if (llvm::Error err = checkTransposable(call, y, transY, "y"))
    return std::move(err);
  auto notation = matmulNotation(call, x.rank(), y.rank());
  if (!notation)
    return notation.takeError();
  if (notation->out.size() != out.shape.size())
    return spmdError(call, "the output has " + llvm::Twine(out.rank()) + " axes; x and y give " +
                               llvm::Twine(notation->out.size()));
  auto merged = mergeShardings(call, {{notation->out, out.dist.dimsMapping}},
                               /*resolveConflicts=*/false);
  if (!merged)
    return merged.takeError();
  SpmdInfo info;
  info.inputs.push_back(operandDistAttr(x, notation->x, *merged, transX));
  info.inputs.push_back(operandDistAttr(y, notation->y, *merged, transY));
  info.outputs.push_back(out.dist);
  return info;
}

DistTensorSpec withDist(const DistTensorSpec &spec, TensorDistAttr dist) {
  return DistTensorSpec{spec.shape, std::move(dist)};
}

/// The gradients of one matmul_grad call with out_grad laid out as `gDist`
/// (see inferMatmulGrad).
llvm::Expected<SpmdInfo> matmulGradWith(const SpmdCall &call, const SpmdInfo &forward,
                                        const TensorDistAttr &gDist, bool transX, bool transY) {
  DistTensorSpec x = withDist(call.inputs[0], forward.inputs[0]);
  DistTensorSpec y = withDist(call.inputs[1], forward.inputs[1]);
  DistTensorSpec g = withDist(call.inputs[2], gDist);

  // Each product as (lhs, rhs, trans_lhs, trans_rhs) over x, y and g.
  struct Product {
    const DistTensorSpec *lhs, *rhs;
    bool transLhs, transRhs;
  };
  Product dx, dy;
  if (!transX && !transY) {
    dx = {&g, &y, false, true};
    dy = {&x, &g, true, false};
  } else if (transX && !transY) {
    dx = {&y, &g, false, true};
    dy = {&x, &g, false, false};
  } else if (!transX && transY) {
    dx = {&g, &y, false, false};
    dy = {&g, &x, true, false};
  } else {
    dx = {&y, &g, true, true};
    dy = {&g, &x, true, true};
  }
  auto dxInfo = matmulForward(call, *dx.lhs, *dx.rhs, dx.transLhs, dx.transRhs);
  if (!dxInfo)
    return dxInfo.takeError();
  auto dyInfo = matmulForward(call, *dy.lhs, *dy.rhs, dy.transLhs, dy.transRhs);
  if (!dyInfo)
    return dyInfo.takeError();

  // The operands each product wants must be the ones it was given.
  auto agree = [&](const Product &p, const SpmdInfo &info, llvm::StringRef what) -> llvm::Error {
    if (info.inputs[0] != p.lhs->dist || info.inputs[1] != p.rhs->dist)
      return spmdError(call, "out_grad " + g.dist.str() + " does not fit x " + x.dist.str() +
                                 " and y " + y.dist.str() + " in the product of " + what);
    return llvm::Error::success();
  };
  if (llvm::Error err = agree(dx, *dxInfo, "x_grad"))
    return std::move(err);
  if (llvm::Error err = agree(dy, *dyInfo, "y_grad"))
    return std::move(err);

  SpmdInfo info;
  info.inputs = {x.dist, y.dist, g.dist};
  info.outputs.push_back(reduceGradBroadcastDims(x.shape.size(), dxInfo->outputs[0]));
  info.outputs.push_back(reduceGradBroadcastDims(y.shape.size(), dyInfo->outputs[0]));
  return info;
}

/// matmul_grad: inputs (x, y, out_grad), outputs (x_grad, y_grad). As in
/// Paddle's MatmulGradInferSpmd, x and y first take the dist attrs the
/// forward product needs; each gradient is then the forward rule of its own
/// product (for X·Y: dX = G·Yᵀ, dY = Xᵀ·G), which must agree on out_grad.
/// When out_grad as given does not fit both products (its producer laid it
/// out for another op, e.g. gathered for a reshape the mesh cannot split),
/// it takes the layout of the forward product's output, which always fits:
/// the partitioner reshards it there.
llvm::Expected<SpmdInfo> inferMatmulGrad(const SpmdCall &call) {
  if (llvm::Error err = checkArity(call, 3, false, 0))
    return std::move(err);
  bool transX = call.attrs.getBool("trans_x", false), transY = call.attrs.getBool("trans_y", false);
  auto forward = matmulForward(call, call.inputs[0], call.inputs[1], transX, transY);
  if (!forward)
    return forward.takeError();
  auto given = matmulGradWith(call, *forward, withoutPartial(call.inputs[2].dist), transX, transY);
  if (given)
    return given;
  auto asForward =
      matmulGradWith(call, *forward, withoutPartial(forward->outputs[0]), transX, transY);
  if (!asForward) {
    llvm::consumeError(asForward.takeError());
    return given;
  }
  llvm::consumeError(given.takeError());
  return asForward;
}

//===----------------------------------------------------------------------===//
// mul: X flattened to 2-D at x_num_col_dims, Y at y_num_col_dims.
//===----------------------------------------------------------------------===//

struct MulNotation {
  std::string x, y, out;
};

/// X's leading x_num_col_dims axes are rows (kept), the rest contracted; Y's
/// leading y_num_col_dims axes are contracted, the rest columns (kept). A
/// contracted side of more than one axis has no axis-to-axis match, so its
/// letters are each tensor's own and must stay replicated.
llvm::Expected<MulNotation> mulNotation(const SpmdCall &call, int64_t xRank, int64_t yRank) {
  int64_t xCols = call.attrs.getInt("x_num_col_dims", 1);
  int64_t yCols = call.attrs.getInt("y_num_col_dims", 1);
  if (xCols < 1 || xCols >= xRank || yCols < 1 || yCols >= yRank)
    return spmdError(call, "x_num_col_dims " + llvm::Twine(xCols) + " and y_num_col_dims " +
                               llvm::Twine(yCols) + " do not split X of rank " +
                               llvm::Twine(xRank) + " and Y of rank " + llvm::Twine(yRank));
  MulNotation n;
  std::string_view letters = kAlphabet;
  size_t next = 0;
  auto fresh = [&] { return letters[next++]; };
  for (int64_t i = 0; i < xCols; ++i)
    n.x += fresh();
  bool oneToOne = xRank - xCols == 1 && yCols == 1;
  if (oneToOne) {
    char k = fresh();
    n.x += k;
    n.y += k;
  } else {
    for (int64_t i = xCols; i < xRank; ++i)
      n.x += fresh();
    for (int64_t i = 0; i < yCols; ++i)
      n.y += fresh();
  }
  n.out = n.x.substr(0, xCols);
  for (int64_t i = yCols; i < yRank; ++i) {
    char c = fresh();
    n.y += c;
    n.out += c;
  }
  return n;
}

/// Replicates every letter of a multi-axis contraction (see mulNotation).
void replicateUnmatchedContraction(AxisMap &merged, const MulNotation &n) {
  for (auto &[axis, meshDim] : merged) {
    bool inX = n.x.find(axis) != std::string::npos, inY = n.y.find(axis) != std::string::npos;
    bool inOut = n.out.find(axis) != std::string::npos;
    if (!inOut && !(inX && inY))
      meshDim = kReplicated;
  }
}

/// What a mul rule merges: the forward rule the operands, the reverse rule
/// the output alone, the gradient rule the operands and Out@GRAD.
enum class MulMerge { Operands, Output, OperandsAndGrad };

struct MulMerged {
  MulNotation notation;
  AxisMap axes;
};

llvm::Expected<MulMerged> mergeMul(const SpmdCall &call, MulMerge what) {
  bool reverse = what == MulMerge::Output;
  size_t numInputs = what == MulMerge::OperandsAndGrad ? 3 : 2;
  if (llvm::Error err = checkArity(call, numInputs, reverse, 1))
    return std::move(err);
  const DistTensorSpec &x = call.inputs[0], &y = call.inputs[1];
  auto n = mulNotation(call, x.rank(), y.rank());
  if (!n)
    return n.takeError();
  const DistTensorSpec *out = reverse                             ? &call.outputs[0]
                              : what == MulMerge::OperandsAndGrad ? &call.inputs[2]
                                                                  : nullptr;
  if (out && n->out.size() != out->shape.size())
    return spmdError(call, llvm::Twine(reverse ? "the output" : "Out@GRAD") + " has " +
                               llvm::Twine(out->rank()) + " axes; X and Y give " +
                               llvm::Twine(n->out.size()));
  std::vector<AxisTensor> tensors;
  if (what != MulMerge::Output)
    tensors = {{n->x, x.dist.dimsMapping}, {n->y, y.dist.dimsMapping}};
  if (out)
    tensors.push_back({n->out, out->dist.dimsMapping});
  auto merged = mergeShardings(call, tensors, /*resolveConflicts=*/!reverse);
  if (!merged)
    return merged.takeError();
  if (!reverse)
    replicateUnmatchedContraction(*merged, *n);
  return MulMerged{std::move(*n), std::move(*merged)};
}

/// X and Y as the merged letters place them.
SpmdInfo mulOperands(const SpmdCall &call, const MulMerged &m) {
  SpmdInfo info;
  info.inputs.push_back(makeDistAttr(mappingForShape(m.notation.x, call.inputs[0].shape, m.axes)));
  info.inputs.push_back(makeDistAttr(mappingForShape(m.notation.y, call.inputs[1].shape, m.axes)));
  return info;
}

llvm::Expected<SpmdInfo> inferMul(const SpmdCall &call) {
  auto m = mergeMul(call, MulMerge::Operands);
  if (!m)
    return m.takeError();
  SpmdInfo info = mulOperands(call, *m);
  const std::string &out = m->notation.out;
  info.outputs.push_back(makeDistAttr(mappingFor(out, m->axes), partialDimsFor(m->axes, out)));
  return info;
}

llvm::Expected<SpmdInfo> inferMulReverse(const SpmdCall &call) {
  auto m = mergeMul(call, MulMerge::Output);
  if (!m)
    return m.takeError();
  SpmdInfo info = mulOperands(call, *m);
  info.outputs.push_back(call.outputs[0].dist);
  return info;
}

/// mul_grad: inputs (X, Y, Out@GRAD), outputs (X@GRAD, Y@GRAD). The operands
/// and Out@GRAD are merged; each gradient has its operand's layout, partial
/// over the mesh axes of the letters its product contracts (Y's columns for
/// X@GRAD, X's rows for Y@GRAD).
llvm::Expected<SpmdInfo> inferMulGrad(const SpmdCall &call) {
  auto m = mergeMul(call, MulMerge::OperandsAndGrad);
  if (!m)
    return m.takeError();
  SpmdInfo info = mulOperands(call, *m);
  const MulNotation &n = m->notation;
  info.inputs.push_back(makeDistAttr(mappingFor(n.out, m->axes)));
  info.outputs.push_back(makeDistAttr(mappingFor(n.x, m->axes), partialDimsFor(m->axes, n.x)));
  info.outputs.push_back(makeDistAttr(mappingFor(n.y, m->axes), partialDimsFor(m->axes, n.y)));
  return info;
}

} // namespace

void appendMatmulRules(std::vector<SpmdRule> &rules) {
  rules.push_back({"matmul", inferMatmul, inferMatmulReverse, 1});
  rules.push_back({"matmul_grad", inferMatmulGrad, nullptr, -1});
  rules.push_back({"mul", inferMul, inferMulReverse, 1});
  rules.push_back({"mul_grad", inferMulGrad, nullptr, -1});
}

} // namespace distc::sharding::detail
