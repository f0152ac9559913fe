//===- Passes.td - the sharding component's passes -----------*- tablegen -*-===//
//
// Auto parallel as two passes (docs/sharding.md): propagation decides how
// every value lies on the mesh; partitioning makes the one program every
// rank runs, with local shapes and the communication the layouts need.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_SHARDING_PASSES
#define DISTC_SHARDING_PASSES

include "mlir/Pass/PassBase.td"

def PropagateSharding : Pass<"distc-propagate-sharding", "mlir::ModuleOp"> {
  let summary = "Give every value and variable a sharding on the module's mesh";
  let description = [{
    Runs on a module with a `pd.mesh` (from `--placements` or written in the
    IR); without one it does nothing. Every value of every program and
    every persistable variable gets a `#pd.sharding`, and every op the
    layout each of its operands must have (`pd.operand_shardings`).

    Two steps. First the layouts of the sources (feeds, variables,
    constants) are found: the ops' SPMD rules run forward over the main
    programs in order and then in reverse, again and again until nothing
    changes, and each answer may only split more tensor axes of a value
    whose layout is not annotated; an axis, once split, stays split (the
    first op in this order that splits it wins; a user annotation is never
    changed). Unannotated parameters start replicated; the startup programs
    keep every value whole. Then each op's forward rule, run on the layouts
    its operands actually have, gives the layouts it needs and those of its
    results, partial ones included. An operand whose layout differs from
    the one its op needs is resharded by distc-partition. A result the
    user annotated must come out as annotated: the rule's reverse decides
    the operands it needs then; if none gives the annotation the program is
    refused, naming the tensor, the op and the placements. Fetched values
    are whole (Replicate() on every axis).

    Before (mesh [2], x annotated Shard(0)):
    ```mlir
    %x = pd.feed {pd.shardings = [#pd.sharding<@mesh, [Shard(0)], annotated>]} ...
    %w = pd.read_var @w : tensor<4x2xf32>
    %y = pd.mul %x, %w ...
    ```
    After:
    ```mlir
    pd.var @w : tensor<4x2xf32> {pd.sharding = #pd.sharding<@mesh, [Replicate()]>}
    %y = pd.mul %x, %w {pd.operand_shardings = [#pd.sharding<@mesh, [Shard(0)]>,
                                                 #pd.sharding<@mesh, [Replicate()]>],
                        pd.shardings = [#pd.sharding<@mesh, [Shard(0)]>]} ...
    ```
  }];
}

def Partition : Pass<"distc-partition", "mlir::ModuleOp"> {
  let summary = "Make the one program every rank of the mesh runs (local shapes, reshards)";
  let description = [{
    Runs after distc-propagate-sharding on a module with a `pd.mesh`;
    without one it does nothing. Every value and variable takes its local
    type (each split axis divided by its mesh axis; distc does not pad, so
    propagation only splits axes the mesh divides), and attributes that
    spell a result's shape (`shape` of reshape2, fill_constant, the random
    initializers, expand_v2) are divided alike. Wherever an operand's
    sharding differs from the one its op needs (`pd.operand_shardings`),
    the reshard steps of ReshardPlan.h are inserted before the op, once per
    value and target:

    | transition   | op                                       |
    |--------------|------------------------------------------|
    | P -> R       | `c_allreduce_sum` (`_max`, `_min`, `_prod`; avg: sum then `scale` 1/n) |
    | P -> S(d)    | `c_reducescatter` along d               |
    | S(d) -> R    | `c_allgather` along d                   |
    | S(i) -> S(j) | `alltoall` (split j, concatenate i)     |
    | R -> S(d)    | `c_split` along d (local, no communication) |
    | R -> P(sum)  | `c_root_only` (zeros but on the first rank) |

    each over the ring of its mesh axis: ring 0 is every rank, ring `1 + a`
    the groups of ranks that differ only in their coordinate on mesh axis
    `a` (the artifact lists them). The program stays one for every rank:
    a rank's coordinates (which slice `c_split` keeps, which rank
    `c_root_only` keeps) are bound when it runs. A `reduce_mean_grad` whose
    reduced axes are split is scaled by the share of each rank, as the
    mean it differentiates is over the whole axis. The train startup
    program sets up the communicator of the mesh's ranks (`c_gen_nccl_id`,
    `c_comm_init`, as data parallelism does). The module is marked
    `pd.partitioned`: its shardings now describe local values.

    Before (mesh [2]; `%g` is Partial(sum), sgd needs it whole):
    ```mlir
    %r = pd.sgd %w, %lr, %g {pd.operand_shardings = [R, R, R]} ...
    ```
    After:
    ```mlir
    %a = pd.c_allreduce_sum %g {ring_id = 1 : i32, use_calc_stream = true} ...
    %r = pd.sgd %w, %lr, %a ...
    ```

    With `explain`, prints each reshard (program, op, tensor, from and to
    placements, the steps, and what asked for it) and the parameter and
    optimizer-state bytes of a rank against the serial program's.
  }];
  let options = [
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Print every reshard and the per-rank parameter bytes">,
  ];
}

#endif // DISTC_SHARDING_PASSES
