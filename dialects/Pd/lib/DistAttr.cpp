//===- DistAttr.cpp - Process meshes and tensor distributions -------------===//

#include "distc/Sharding/DistAttr.h"

#include <algorithm>

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FormatVariadic.h"

#include <set>

namespace distc::sharding {

namespace {

llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

std::string joinInts(llvm::ArrayRef<int64_t> values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i)
    out += (i ? ", " : "") + std::to_string(values[i]);
  return out + "]";
}

constexpr std::pair<ReduceType, std::string_view> kReduceNames[] = {
    {ReduceType::Sum, "sum"}, {ReduceType::Avg, "avg"},   {ReduceType::Max, "max"},
    {ReduceType::Min, "min"}, {ReduceType::Prod, "prod"}, {ReduceType::Any, "any"},
    {ReduceType::All, "all"},
};

} // namespace

std::string_view reduceTypeName(ReduceType type) {
  for (auto [value, name] : kReduceNames)
    if (value == type)
      return name;
  return "sum";
}

std::optional<ReduceType> parseReduceType(std::string_view name) {
  llvm::StringRef text(name.data(), name.size());
  text = text.trim();
  text.consume_front("ReduceType.");
  if (text.consume_front("kRed"))
    ; // Paddle's enumerator spelling: kRedSum
  std::string lower = text.lower();
  if (lower == "mean")
    lower = "avg";
  for (auto [value, spelled] : kReduceNames)
    if (lower == spelled)
      return value;
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// ProcessMesh
//===----------------------------------------------------------------------===//

int64_t ProcessMesh::size() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

/// The distance between neighbours along each axis of a row-major mesh.
static std::vector<int64_t> rowMajorStrides(const std::vector<int64_t> &shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t a = shape.size(); a-- > 1;)
    strides[a - 1] = strides[a] * shape[a];
  return strides;
}

std::optional<std::vector<int64_t>> ProcessMesh::coordinatesOf(int64_t rank) const {
  auto it = std::find(processIds.begin(), processIds.end(), rank);
  if (it == processIds.end())
    return std::nullopt;
  int64_t index = it - processIds.begin();
  std::vector<int64_t> strides = rowMajorStrides(shape), coordinates(shape.size());
  for (size_t a = 0; a < shape.size(); ++a)
    coordinates[a] = index / strides[a] % shape[a];
  return coordinates;
}

std::vector<std::vector<int64_t>> ProcessMesh::groupsAlong(int64_t axis) const {
  std::vector<int64_t> strides = rowMajorStrides(shape);
  std::vector<std::vector<int64_t>> groups;
  // Every position whose coordinate on `axis` is 0 starts a group.
  for (int64_t start = 0; start < size(); ++start) {
    if (start / strides[axis] % shape[axis] != 0)
      continue;
    std::vector<int64_t> &group = groups.emplace_back();
    for (int64_t k = 0; k < shape[axis]; ++k)
      group.push_back(processIds[start + k * strides[axis]]);
  }
  return groups;
}

int64_t ProcessMesh::axisNamed(std::string_view name) const {
  for (size_t i = 0; i < dimNames.size(); ++i)
    if (dimNames[i] == name)
      return static_cast<int64_t>(i);
  return -1;
}

void ProcessMesh::fillDefaults() {
  if (dimNames.empty())
    for (size_t i = 0; i < shape.size(); ++i)
      dimNames.push_back("d" + std::to_string(i));
  if (processIds.empty())
    for (int64_t r = 0, n = size(); r < n; ++r)
      processIds.push_back(r);
}

llvm::Error ProcessMesh::verify() const {
  if (shape.empty())
    return fail("the mesh has no axes");
  for (size_t i = 0; i < shape.size(); ++i)
    if (shape[i] <= 0)
      return fail("mesh axis " + llvm::Twine(i) + " has size " + llvm::Twine(shape[i]) +
                  "; sizes must be positive");
  if (!dimNames.empty()) {
    if (dimNames.size() != shape.size())
      return fail("the mesh has " + llvm::Twine(shape.size()) + " axes but " +
                  llvm::Twine(dimNames.size()) + " dim_names");
    std::set<std::string> seen;
    for (const std::string &name : dimNames) {
      if (name.empty())
        return fail("a mesh axis name is empty");
      if (!seen.insert(name).second)
        return fail("mesh axis name '" + name + "' is used twice");
    }
  }
  if (!processIds.empty()) {
    if (static_cast<int64_t>(processIds.size()) != size())
      return fail("the mesh of shape " + joinInts(shape) + " holds " + llvm::Twine(size()) +
                  " ranks but lists " + llvm::Twine(processIds.size()) + " process ids");
    std::set<int64_t> seen;
    for (int64_t id : processIds)
      if (id < 0 || !seen.insert(id).second)
        return fail("process id " + llvm::Twine(id) + " is negative or listed twice");
  }
  return llvm::Error::success();
}

std::string ProcessMesh::str() const {
  std::string out = "shape " + joinInts(shape);
  if (!dimNames.empty())
    out += ", dim_names [" + llvm::join(dimNames, ", ") + "]";
  return out;
}

//===----------------------------------------------------------------------===//
// TensorDistAttr
//===----------------------------------------------------------------------===//

TensorDistAttr TensorDistAttr::replicated(size_t rank) {
  TensorDistAttr attr;
  attr.dimsMapping.assign(rank, kReplicated);
  return attr;
}

std::vector<int64_t> TensorDistAttr::partialDims() const {
  std::vector<int64_t> dims;
  for (const auto &entry : partial)
    dims.push_back(entry.first);
  return dims;
}

int64_t TensorDistAttr::tensorAxisOf(int64_t meshDim) const {
  for (size_t axis = 0; axis < dimsMapping.size(); ++axis)
    if (dimsMapping[axis] == meshDim)
      return static_cast<int64_t>(axis);
  return -1;
}

std::string TensorDistAttr::str() const {
  std::string out = joinInts(dimsMapping);
  if (!partial.empty()) {
    out += " partial(";
    bool first = true;
    for (auto [dim, type] : partial) {
      out += (first ? "" : ", ") + std::to_string(dim) + ":" + std::string(reduceTypeName(type));
      first = false;
    }
    out += ")";
  }
  return out;
}

//===----------------------------------------------------------------------===//
// Placement
//===----------------------------------------------------------------------===//

std::string Placement::str() const {
  switch (kind) {
  case Kind::Replicate:
    return "Replicate()";
  case Kind::Shard:
    return "Shard(" + std::to_string(dim) + ")";
  case Kind::Partial:
    return "Partial(" + std::string(reduceTypeName(reduce)) + ")";
  }
  return "Replicate()";
}

llvm::Expected<Placement> Placement::parse(std::string_view input) {
  llvm::StringRef text = llvm::StringRef(input.data(), input.size()).trim();
  llvm::StringRef name = text, argument;
  bool hasParens = false;
  if (size_t open = text.find('('); open != llvm::StringRef::npos) {
    if (!text.ends_with(")"))
      return fail("placement '" + text + "' has no closing parenthesis");
    name = text.take_front(open).trim();
    argument = text.slice(open + 1, text.size() - 1).trim();
    hasParens = true;
  }
  if (name == "Replicate" || name == "R") {
    if (!argument.empty())
      return fail("placement '" + text + "': Replicate() takes no argument");
    return Placement::replicate();
  }
  if (name == "Shard" || name == "S") {
    int64_t dim;
    if (!hasParens || argument.getAsInteger(10, dim) || dim < 0)
      return fail("placement '" + text + "': Shard needs a tensor axis, as in Shard(0)");
    return Placement::shard(dim);
  }
  if (name == "Partial" || name == "P") {
    if (argument.empty())
      return Placement::partialOf(ReduceType::Sum);
    argument.consume_front("reduce_type=");
    if (std::optional<ReduceType> type = parseReduceType(argument.str()))
      return Placement::partialOf(*type);
    return fail("placement '" + text + "': unknown reduction '" + argument +
                "' (sum, avg, max, min, prod, any, all)");
  }
  return fail("placement '" + text +
              "' is none of Shard(d), Replicate(), Partial(sum|avg|max|min)");
}

std::vector<Placement> toPlacements(const TensorDistAttr &attr, int64_t meshRank) {
  std::vector<Placement> placements(static_cast<size_t>(meshRank));
  for (size_t axis = 0; axis < attr.dimsMapping.size(); ++axis) {
    int64_t meshDim = attr.dimsMapping[axis];
    if (meshDim >= 0 && meshDim < meshRank)
      placements[meshDim] = Placement::shard(static_cast<int64_t>(axis));
  }
  for (auto [meshDim, type] : attr.partial)
    if (meshDim >= 0 && meshDim < meshRank)
      placements[meshDim] = Placement::partialOf(type);
  return placements;
}

llvm::Expected<TensorDistAttr> fromPlacements(llvm::ArrayRef<Placement> placements,
                                              int64_t tensorRank) {
  TensorDistAttr attr = TensorDistAttr::replicated(static_cast<size_t>(tensorRank));
  for (size_t meshDim = 0; meshDim < placements.size(); ++meshDim) {
    const Placement &p = placements[meshDim];
    if (p.kind == Placement::Kind::Partial) {
      attr.partial[static_cast<int64_t>(meshDim)] = p.reduce;
      continue;
    }
    if (p.kind != Placement::Kind::Shard)
      continue;
    if (p.dim >= tensorRank)
      return fail(p.str() + " on mesh axis " + llvm::Twine(meshDim) + ": the tensor has " +
                  llvm::Twine(tensorRank) + " axes");
    int64_t &entry = attr.dimsMapping[p.dim];
    if (entry != kReplicated)
      return fail("tensor axis " + llvm::Twine(p.dim) + " is sharded by mesh axes " +
                  llvm::Twine(entry) + " and " + llvm::Twine(meshDim) +
                  "; an axis may be split by one mesh axis only");
    entry = static_cast<int64_t>(meshDim);
  }
  return attr;
}

std::string formatPlacements(llvm::ArrayRef<Placement> placements) {
  std::string out = "[";
  for (size_t i = 0; i < placements.size(); ++i)
    out += (i ? ", " : "") + placements[i].str();
  return out + "]";
}

llvm::Error verifyDistAttr(const TensorDistAttr &attr, llvm::ArrayRef<int64_t> shape,
                           llvm::ArrayRef<int64_t> meshShape) {
  int64_t meshRank = static_cast<int64_t>(meshShape.size());
  if (attr.dimsMapping.size() != shape.size())
    return fail("dims_mapping " + joinInts(attr.dimsMapping) + " has " +
                llvm::Twine(attr.dimsMapping.size()) + " entries for a tensor of " +
                llvm::Twine(shape.size()) + " axes " + joinInts(shape));
  std::map<int64_t, size_t> axisOfMeshDim;
  for (size_t axis = 0; axis < shape.size(); ++axis) {
    int64_t meshDim = attr.dimsMapping[axis];
    if (meshDim == kReplicated)
      continue;
    if (meshDim < -1 || meshDim >= meshRank)
      return fail("dims_mapping " + joinInts(attr.dimsMapping) + ": mesh axis " +
                  llvm::Twine(meshDim) + " is not one of the mesh's " + llvm::Twine(meshRank) +
                  " axes");
    if (auto [it, inserted] = axisOfMeshDim.try_emplace(meshDim, axis); !inserted)
      return fail("dims_mapping " + joinInts(attr.dimsMapping) + ": mesh axis " +
                  llvm::Twine(meshDim) + " splits tensor axes " + llvm::Twine(it->second) +
                  " and " + llvm::Twine(axis) + "; a mesh axis may split one tensor axis only");
    // A dynamic size (the batch) is checked when it is bound at run time.
    if (shape[axis] >= 0 && shape[axis] % meshShape[meshDim] != 0)
      return fail("tensor axis " + llvm::Twine(axis) + " of size " + llvm::Twine(shape[axis]) +
                  " is not divisible by mesh axis " + llvm::Twine(meshDim) + " of size " +
                  llvm::Twine(meshShape[meshDim]) + " (uneven shards are not supported)");
  }
  for (auto [meshDim, type] : attr.partial) {
    if (meshDim < 0 || meshDim >= meshRank)
      return fail("partial mesh axis " + llvm::Twine(meshDim) + " is not one of the mesh's " +
                  llvm::Twine(meshRank) + " axes");
    if (axisOfMeshDim.count(meshDim))
      return fail("mesh axis " + llvm::Twine(meshDim) + " both splits tensor axis " +
                  llvm::Twine(axisOfMeshDim[meshDim]) + " and is partial");
  }
  return llvm::Error::success();
}

std::vector<int64_t> localShape(llvm::ArrayRef<int64_t> shape, const TensorDistAttr &attr,
                                llvm::ArrayRef<int64_t> meshShape) {
  std::vector<int64_t> local(shape.begin(), shape.end());
  for (size_t axis = 0; axis < local.size() && axis < attr.dimsMapping.size(); ++axis) {
    int64_t meshDim = attr.dimsMapping[axis];
    if (meshDim >= 0 && local[axis] >= 0 && meshDim < static_cast<int64_t>(meshShape.size()))
      local[axis] /= meshShape[meshDim];
  }
  return local;
}

} // namespace distc::sharding
