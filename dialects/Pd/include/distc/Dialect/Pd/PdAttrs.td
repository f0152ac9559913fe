//===- PdAttrs.td - pd dialect attributes -------------------*- tablegen -*-===//
//
// How a value lies on a process mesh (docs/sharding.md), and how a
// gradient is stored when only some of its rows are (Paddle's SelectedRows).
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_DIALECT_PD_PDATTRS_TD
#define DISTC_DIALECT_PD_PDATTRS_TD

include "distc/Dialect/Pd/PdDialect.td"
include "mlir/IR/AttrTypeBase.td"

def Pd_ShardingAttr : AttrDef<Pd_Dialect, "Sharding"> {
  let mnemonic = "sharding";
  let summary = "The placement of a tensor on each axis of a `pd.mesh`";
  let description = [{
    One placement per mesh axis, as Paddle's `shard_tensor` takes them:
    `Shard(d)` splits tensor axis d over the mesh axis, `Replicate()` keeps
    the whole tensor on every rank of it, `Partial(sum|avg|max|min)` holds
    per-rank partial values that the reduction completes. `annotated`
    marks a placement the user gave (propagation never changes it).

    ```mlir
    #pd.sharding<@mesh, [Shard(0), Replicate()]>
    #pd.sharding<@mesh, [Replicate(), Shard(1)], annotated>
    ```

    Values carry it in the discardable attribute `pd.shardings` of their
    defining op (one per result), persistable variables in `pd.sharding`
    of their `pd.var`. The dialect verifies that the placements fit the
    tensor and the mesh (docs/sharding.md).
  }];
  let parameters = (ins "::mlir::FlatSymbolRefAttr":$mesh,
                        ArrayRefParameter<"::distc::sharding::Placement">:$placements,
                        DefaultValuedParameter<"bool", "false">:$annotated);
  let hasCustomAssemblyFormat = 1;
  let extraClassDeclaration = [{
    /// The placements as Paddle's dims_mapping and partial status, for a
    /// tensor of `rank` axes; fails (with the reason) when they do not fit.
    ::llvm::Expected<::distc::sharding::TensorDistAttr> toDistAttr(int64_t rank) const;
    /// Checks the placements on a mesh of `meshShape` for a value of `type`:
    /// they fit the tensor and every split axis of static size is divided
    /// by its mesh axis (distc::sharding::verifyDistAttr). The caller checks
    /// that there is one placement per mesh axis and names the value.
    ::llvm::Error verifyOnMesh(::mlir::RankedTensorType type,
                               ::llvm::ArrayRef<int64_t> meshShape) const;
    /// The placement list as written: `[Shard(0), Replicate()]`.
    std::string placementsString() const;
  }];
}

def Pd_SelectedRowsAttr : AttrDef<Pd_Dialect, "SelectedRows"> {
  let mnemonic = "selected_rows";
  let summary = "A tensor encoding: only some rows of the tensor are stored";
  let description = [{
    Paddle's SelectedRows, as the encoding of a ranked tensor type whose
    shape is the whole variable's (Paddle's VarDesc keeps the height and
    width of the table): `tensor<1000x64xf32, #pd.selected_rows>` is the
    gradient of a 1000 x 64 embedding table that holds only the rows a
    batch looked up. Rows it does not hold are zero. The sparse lookup
    gradient of a parameter-server trainer has this type, as do the
    `split_selected_rows` blocks it sends and the servers' sums of them
    (docs/parameter-server.md). The runtime keeps such a value as a list
    of row indices beside their values, duplicates allowed.
  }];
}

#endif // DISTC_DIALECT_PD_PDATTRS_TD
