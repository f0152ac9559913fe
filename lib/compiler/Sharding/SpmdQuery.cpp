//===- SpmdQuery.cpp - SPMD rule queries as JSON --------------------------===//

#include "distc/Sharding/SpmdQuery.h"

#include "distc/Sharding/SpmdRule.h"

#include <stdexcept>

namespace distc::sharding {

namespace {

using nlohmann::json;

/// A malformed query: the message says which field and why.
struct QueryError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::vector<int64_t> intList(const json &value, const std::string &where) {
  if (!value.is_array())
    throw QueryError(where + " must be a list of integers");
  std::vector<int64_t> out;
  for (const json &element : value) {
    if (!element.is_number_integer())
      throw QueryError(where + " must be a list of integers, got " + element.dump());
    out.push_back(element.get<int64_t>());
  }
  return out;
}

DistTensorSpec parseTensor(const json &value, const std::string &where) {
  if (!value.is_object())
    throw QueryError(where + " must be an object with \"shape\"");
  DistTensorSpec spec;
  if (!value.contains("shape"))
    throw QueryError(where + " has no \"shape\"");
  spec.shape = intList(value["shape"], where + ".shape");
  if (value.contains("dims_mapping"))
    spec.dist.dimsMapping = intList(value["dims_mapping"], where + ".dims_mapping");
  else
    spec.dist.dimsMapping.assign(spec.shape.size(), kReplicated);
  std::vector<int64_t> partialDims;
  if (value.contains("partial_dims"))
    partialDims = intList(value["partial_dims"], where + ".partial_dims");
  std::vector<ReduceType> types(partialDims.size(), ReduceType::Sum);
  if (value.contains("partial_reduce_types")) {
    const json &list = value["partial_reduce_types"];
    if (!list.is_array() || list.size() != partialDims.size())
      throw QueryError(where + ".partial_reduce_types must list one reduction per partial dim");
    for (size_t i = 0; i < list.size(); ++i) {
      std::optional<ReduceType> type =
          list[i].is_string() ? parseReduceType(list[i].get<std::string>()) : std::nullopt;
      if (!type)
        throw QueryError(where + ".partial_reduce_types: unknown reduction " + list[i].dump());
      types[i] = *type;
    }
  }
  for (size_t i = 0; i < partialDims.size(); ++i)
    spec.dist.partial[partialDims[i]] = types[i];
  return spec;
}

std::vector<DistTensorSpec> parseTensors(const json &query, const char *field) {
  std::vector<DistTensorSpec> specs;
  if (!query.contains(field))
    return specs;
  const json &list = query[field];
  if (!list.is_array())
    throw QueryError(std::string("\"") + field + "\" must be a list of tensors");
  for (size_t i = 0; i < list.size(); ++i)
    specs.push_back(parseTensor(list[i], std::string(field) + "[" + std::to_string(i) + "]"));
  return specs;
}

SpmdAttrs::Value attrValue(const json &value, const std::string &name) {
  if (value.is_boolean())
    return value.get<bool>();
  if (value.is_number_integer())
    return value.get<int64_t>();
  if (value.is_number())
    return value.get<double>();
  if (value.is_string())
    return value.get<std::string>();
  if (value.is_array()) {
    bool allInts = true, allNumbers = true, allStrings = true;
    for (const json &e : value) {
      allInts &= e.is_number_integer() || e.is_boolean();
      allNumbers &= e.is_number();
      allStrings &= e.is_string();
    }
    if (value.empty())
      return std::vector<int64_t>{};
    if (allInts) {
      std::vector<int64_t> out;
      for (const json &e : value)
        out.push_back(e.is_boolean() ? int64_t(e.get<bool>()) : e.get<int64_t>());
      return out;
    }
    if (allNumbers)
      return value.get<std::vector<double>>();
    if (allStrings)
      return value.get<std::vector<std::string>>();
  }
  throw QueryError("attribute \"" + name + "\" has a value no rule reads: " + value.dump());
}

json distAttrJson(const TensorDistAttr &attr) {
  json out = {{"dims_mapping", attr.dimsMapping}, {"partial_dims", attr.partialDims()}};
  if (attr.isPartial()) {
    json types = json::array();
    for (const auto &[dim, type] : attr.partial)
      types.push_back(std::string(reduceTypeName(type)));
    out["partial_reduce_types"] = types;
  }
  return out;
}

json answer(const json &query) {
  if (!query.is_object())
    throw QueryError("a query must be an object, got " + query.dump());
  if (!query.contains("op") || !query["op"].is_string())
    throw QueryError("the query has no \"op\" string");
  SpmdCall call;
  call.opName = query["op"].get<std::string>();
  if (!query.contains("mesh_shape"))
    throw QueryError("the query has no \"mesh_shape\"");
  call.meshShape = intList(query["mesh_shape"], "mesh_shape");

  bool reverse = false;
  if (query.contains("direction")) {
    const json &direction = query["direction"];
    std::string text = direction.is_string() ? direction.get<std::string>() : "";
    if (text == "reverse" || text == "backward")
      reverse = true;
    else if (text != "forward")
      throw QueryError("\"direction\" must be \"forward\" or \"reverse\", got " + direction.dump());
  }
  call.inputs = parseTensors(query, "inputs");
  call.outputs = parseTensors(query, "outputs");

  SpmdAttrs given;
  if (query.contains("attrs")) {
    if (!query["attrs"].is_object())
      throw QueryError("\"attrs\" must be an object");
    for (const auto &[name, value] : query["attrs"].items())
      given.set(name, attrValue(value, name));
  }

  const SpmdRule *rule = lookupSpmdRule(call.opName);
  call.attrs = given;
  if (!rule) {
    const OpSpmdBinding *binding = lookupOpSpmdBinding(call.opName);
    if (!binding)
      throw QueryError("unknown op '" + call.opName +
                       "': neither a Paddle SPMD rule nor a program op with one");
    rule = lookupSpmdRule(binding->rule);
    if (!rule)
      throw QueryError("op '" + call.opName + "' names SPMD rule '" + std::string(binding->rule) +
                       "', which is not registered");
    call.attrs = ruleAttrsForOp(*binding, given);
  }

  llvm::Expected<SpmdInfo> info = runSpmdRule(*rule, reverse, call);
  if (!info)
    return {{"op", call.opName}, {"error", llvm::toString(info.takeError())}};
  json out = {{"op", call.opName}, {"rule", std::string(rule->name)}};
  out["inputs"] = json::array();
  for (const TensorDistAttr &attr : info->inputs)
    out["inputs"].push_back(distAttrJson(attr));
  out["outputs"] = json::array();
  for (const TensorDistAttr &attr : info->outputs)
    out["outputs"].push_back(distAttrJson(attr));
  return out;
}

} // namespace

json answerSpmdQuery(const json &query) {
  try {
    return answer(query);
  } catch (const std::exception &e) {
    json out = {{"error", e.what()}};
    if (query.is_object() && query.contains("op") && query["op"].is_string())
      out["op"] = query["op"];
    return out;
  }
}

} // namespace distc::sharding
