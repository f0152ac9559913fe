//===- SpmdQuery.h - SPMD rule queries as JSON ------------------*- C++ -*-===//
//
// The JSON form of one rule query, shared by `distc-spmd` and the rule
// tests. A query:
//
//   {"op": "matmul", "mesh_shape": [2, 3], "direction": "forward",
//    "inputs": [{"name": "x", "shape": [64, 32], "dims_mapping": [1, 0],
//                "partial_dims": []}, ...],
//    "outputs": [...],                       (reverse only)
//    "attrs": {"trans_x": false, "trans_y": false}}
//
// `op` is a Paddle SPMD rule name (`matmul`, `add`, `max`) or a program op
// type whose declaration names a rule (`matmul_v2`, `elementwise_add`,
// `reduce_max`); a rule name wins where both exist. Attributes are by the
// rule's names for a rule name and by the op's Paddle names (catalog
// defaults for the rest) for an op type. A left-out `dims_mapping` is
// replicated, a left-out `partial_dims` none; `partial_reduce_types` (one
// per partial dim, default "sum") says how partial values combine.
// `direction` defaults to "forward"; "backward" is a synonym of "reverse".
//
// The answer:
//
//   {"op": "matmul", "rule": "matmul",
//    "inputs": [{"dims_mapping": [1, 0], "partial_dims": []}, ...],
//    "outputs": [{"dims_mapping": [1, -1], "partial_dims": [0],
//                 "partial_reduce_types": ["sum"]}]}
//
// or, for a query that cannot be answered, {"op": ..., "error": "..."}.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_SHARDING_SPMDQUERY_H
#define DISTC_SHARDING_SPMDQUERY_H

#include <nlohmann/json.hpp>

namespace distc::sharding {

/// Answers one query; never throws (a malformed query gets an error object).
nlohmann::json answerSpmdQuery(const nlohmann::json &query);

} // namespace distc::sharding

#endif // DISTC_SHARDING_SPMDQUERY_H
