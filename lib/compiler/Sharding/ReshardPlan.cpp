//===- ReshardPlan.cpp - From one layout to another, step by step ---------===//

#include "ReshardPlan.h"

#include <cassert>

namespace distc::sharding {

std::string ReshardStep::str() const {
  std::string mesh = " over mesh axis " + std::to_string(meshAxis);
  switch (kind) {
  case Kind::AllReduce:
    return "all-reduce(" + std::string(reduceTypeName(reduce)) + ")" + mesh;
  case Kind::ReduceScatter:
    return "reduce-scatter(axis " + std::to_string(axis) + ")" + mesh;
  case Kind::AllGather:
    return "all-gather(axis " + std::to_string(axis) + ")" + mesh;
  case Kind::AllToAll:
    return "all-to-all(axis " + std::to_string(axis) + " -> " + std::to_string(toAxis) + ")" +
           mesh;
  case Kind::Slice:
    return "slice(axis " + std::to_string(axis) + ")" + mesh;
  case Kind::RootOnly:
    return "partial(" + std::string(reduceTypeName(reduce)) + ")" + mesh;
  }
  return "?";
}

std::vector<ReshardStep> planReshard(const TensorDistAttr &from, const TensorDistAttr &to,
                                     llvm::ArrayRef<int64_t> meshShape) {
  std::vector<ReshardStep> steps;
  TensorDistAttr cur = from;
  auto step = [&](ReshardStep::Kind kind, int64_t meshAxis, int64_t axis, int64_t toAxis,
                  ReduceType reduce) {
    steps.push_back({kind, meshAxis, axis, toAxis, reduce, cur});
  };
  const int64_t meshRank = static_cast<int64_t>(meshShape.size());

  // 1. Complete partial values the target does not keep partial.
  for (int64_t a = 0; a < meshRank; ++a) {
    auto partial = cur.partial.find(a);
    if (partial == cur.partial.end())
      continue;
    ReduceType reduce = partial->second;
    auto wanted = to.partial.find(a);
    if (wanted != to.partial.end() && wanted->second == reduce)
      continue;
    cur.partial.erase(a);
    int64_t target = to.tensorAxisOf(a);
    if (reduce == ReduceType::Sum && target >= 0 && cur.dimsMapping[target] == kReplicated) {
      cur.dimsMapping[target] = a;
      step(ReshardStep::Kind::ReduceScatter, a, target, -1, reduce);
    } else {
      step(ReshardStep::Kind::AllReduce, a, -1, -1, reduce);
    }
  }

  // 2. Undo or move the splits the target does not have.
  for (int64_t a = 0; a < meshRank; ++a) {
    int64_t axis = cur.tensorAxisOf(a);
    if (axis < 0 || to.dimsMapping[axis] == a)
      continue;
    int64_t target = to.tensorAxisOf(a);
    cur.dimsMapping[axis] = kReplicated;
    if (target >= 0 && cur.dimsMapping[target] == kReplicated) {
      cur.dimsMapping[target] = a;
      step(ReshardStep::Kind::AllToAll, a, axis, target, ReduceType::Sum);
    } else {
      step(ReshardStep::Kind::AllGather, a, axis, -1, ReduceType::Sum);
    }
  }

  // 3. Split what the target splits.
  for (size_t axis = 0; axis < to.dimsMapping.size(); ++axis) {
    int64_t a = to.dimsMapping[axis];
    if (a == kReplicated || cur.dimsMapping[axis] == a)
      continue;
    assert(cur.dimsMapping[axis] == kReplicated && cur.tensorAxisOf(a) < 0);
    cur.dimsMapping[axis] = a;
    step(ReshardStep::Kind::Slice, a, static_cast<int64_t>(axis), -1, ReduceType::Sum);
  }

  // 4. Make partial what the target holds partial. A replicated value is
  // already its own max, min or average over the group; a sum keeps it on
  // one rank.
  for (auto [a, reduce] : to.partial) {
    if (cur.partial.count(a))
      continue;
    cur.partial[a] = reduce;
    if (reduce == ReduceType::Sum)
      step(ReshardStep::Kind::RootOnly, a, -1, -1, reduce);
  }
  if (!steps.empty())
    steps.back().after = cur;
  assert(cur == to && "reshard plan does not reach its target");
  return steps;
}

} // namespace distc::sharding
