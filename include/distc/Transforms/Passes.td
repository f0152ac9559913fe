//===- Passes.td - distc program transforms ----------------*- tablegen -*-===//

#ifndef DISTC_TRANSFORMS_PASSES
#define DISTC_TRANSFORMS_PASSES

include "mlir/Pass/PassBase.td"

def DeriveModes : Pass<"distc-derive-modes", "mlir::ModuleOp"> {
  let summary = "Split the serial program into per-mode main and startup programs";
  let description = [{
    DistModel's modes: `predict` fetches the program's outputs (its fetches
    less the loss and anything computed from a label feed, i.e. a feed that
    reaches some op's `Label` input slot), `eval` fetches everything the
    program fetches plus the loss. `train` (with `train=true`, or when the
    program already holds optimizer ops, recognised by `op_role`) fetches
    the loss and the program's scalar fetches; backward and optimizer ops
    are appended by later passes unless Paddle already wrote them. Each mode
    gets its own main program, pruned to what its fetches and variable
    writes need, and its own startup program, pruned to the persistable
    variables that main program reads (only train's keeps a communicator
    setup, `c_comm_init`: eval and predict run in one process). The eval and predict programs of a
    differentiated program keep only its forward ops; without `loss`, its
    loss is the variable the backward pass is seeded from. A program that
    fetches only losses and metrics has no predict mode.

    Before:
    ```mlir
    pd.program @main {
      %x = pd.feed ... %y = pd.relu %x ... %l = pd.mean %y ...
      pd.fetch %y {col = 0 : i32}
    }
    pd.program @startup { ... }
    ```
    After (`loss=l`):
    ```mlir
    pd.program @predict.main { ... pd.fetch %y }             // mean pruned
    pd.program @predict.startup { ... }
    pd.program @eval.main { ... pd.fetch %y ... pd.fetch %l }
    pd.program @eval.startup { ... }
    ```
  }];
  let options = [
    Option<"loss", "loss", "std::string", /*default=*/"\"\"",
           "Name of the loss variable; enables the eval mode">,
    Option<"train", "train", "bool", /*default=*/"false",
           "Also derive the train mode (an optimizer is applied afterwards)">,
  ];
}

def PruneDeadOps : Pass<"distc-prune-dead-ops", "mlir::ModuleOp"> {
  let summary = "Remove ops whose results no fetch or variable write needs";
  let description = [{
    Backward liveness over each `pd.program`: `pd.fetch` and `pd.write_var`
    are the roots; every op none of them transitively uses is erased.

    Before:
    ```mlir
    %a = pd.relu %x ...
    %b = pd.tanh %x ...        // unused
    pd.fetch %a {col = 0 : i32}
    ```
    After: the `pd.tanh` is gone.
  }];
}

def AppendBackward : Pass<"distc-append-backward", "mlir::ModuleOp"> {
  let summary = "Append Paddle backward ops from the loss to every trainable parameter";
  let description = [{
    Reverse-mode autodiff in Paddle's form. Trainable parameters are
    `pd.var`s marked `is_parameter` and not `stop_gradient` (nor named in
    `no-grad`); only values computed from them get gradients. The loss
    gradient is a `fill_constant` 1; each forward op on a path from a
    parameter to the loss gets its `<op>_grad` op; a value used several
    times gets the `sum` of its gradients. Gradients are named
    `<var>@GRAD`, so `<param>@GRAD` is what an optimizer applies.

    Before (`loss=l`):
    ```mlir
    %w = pd.read_var @w : tensor<4x2xf32>
    %y = pd.mul %x, %w {pd.out_names = ["y"]} : ...
    %l = pd.mean %y {pd.out_names = ["l"]} : ...
    ```
    After, appended:
    ```mlir
    %dl = pd.fill_constant {pd.out_names = ["l@GRAD"], value = 1.0 ...}
    %dy = pd.mean_grad %y, %dl {pd.out_names = ["y@GRAD"]} : ...
    %dx, %dw = pd.mul_grad %x, %w, %dy {pd.out_names = ["", "w@GRAD"]} : ...
    ```
  }];
  let options = [
    Option<"program", "program", "std::string", /*default=*/"\"train.main\"",
           "Symbol of the pd.program to differentiate">,
    Option<"loss", "loss", "std::string", /*default=*/"\"\"", "Name of the loss variable">,
    ListOption<"noGrad", "no-grad", "std::string",
               "Variables that get no gradient (stop_gradient)">,
    Option<"fetchGrads", "fetch-grads", "bool", /*default=*/"false",
           "Also fetch every parameter gradient (for gradient checks)">,
  ];
}

def ApplyOptimizer : Pass<"distc-apply-optimizer", "mlir::ModuleOp"> {
  let summary = "Append gradient clipping, weight decay and optimizer ops (apply_gradients)";
  let description = [{
    Paddle's `apply_gradients` after `append_backward`: for every trainable
    parameter `p` with a gradient `p@GRAD`, optional global-norm clipping,
    optional L2 decay, then the optimizer op, whose outputs are written back
    to `p` and its state variables. State variables (`learning_rate_0`,
    `p_velocity_0`, `p_moment1_0`, `p_moment2_0`, `p_beta1_pow_acc_0`,
    `p_beta2_pow_acc_0`; `p_moment_0` of adagrad and decayed_adagrad;
    `p_momentum_0`, `p_mean_square_0`, `p_mean_grad_0` of rmsprop;
    `p_squared_0`, `p_linear_0` of ftrl) are declared and initialized in the
    startup program. All added ops have op_role optimize. `epsilon` and
    `momentum` not given take the optimizer's default in Paddle's Python
    API (optimizerDefaultEpsilon, optimizerDefaultMomentum).

    After (`optimizer=sgd`), appended to the train program:
    ```mlir
    %lr = pd.read_var @learning_rate_0 : tensor<1xf32>
    %w2 = pd.sgd %w, %lr, %dw {op_role = 2 : i32, pd.out_names = ["w"]} : ...
    pd.write_var @w, %w2 : tensor<4x2xf32>
    ```
    and to the startup program a `fill_constant` of `learning_rate_0`.
  }];
  let options = [
    Option<"program", "program", "std::string", /*default=*/"\"train.main\"",
           "Symbol of the train program">,
    Option<"startup", "startup", "std::string", /*default=*/"\"train.startup\"",
           "Symbol of its startup program (gets the state initializers)">,
    Option<"optimizer", "optimizer", "std::string", /*default=*/"\"sgd\"",
           "sgd, momentum, adam, adamw, adagrad, decayed_adagrad, rmsprop or ftrl">,
    Option<"lr", "lr", "double", /*default=*/"0.01", "Initial learning rate">,
    Option<"momentum", "momentum", "double", /*default=*/"0.9",
           "Momentum's mu (0.9), RMSProp's momentum (0) when not given">,
    Option<"nesterov", "nesterov", "bool", /*default=*/"false", "Nesterov momentum">,
    Option<"beta1", "beta1", "double", /*default=*/"0.9", "Adam's beta1">,
    Option<"beta2", "beta2", "double", /*default=*/"0.999", "Adam's beta2">,
    Option<"epsilon", "epsilon", "double", /*default=*/"1e-8",
           "Adam's (1e-8), Adagrad's, DecayedAdagrad's and RMSProp's (1e-6) when not given">,
    Option<"initialAccumulatorValue", "initial-accumulator-value", "double", /*default=*/"0",
           "Adagrad's initial moment">,
    Option<"decay", "decay", "double", /*default=*/"0.95", "DecayedAdagrad's decay">,
    Option<"rho", "rho", "double", /*default=*/"0.95", "RMSProp's rho (its op's decay)">,
    Option<"centered", "centered", "bool", /*default=*/"false", "Centered RMSProp">,
    Option<"l1", "l1", "double", /*default=*/"0", "FTRL's L1 strength">,
    Option<"l2", "l2", "double", /*default=*/"0", "FTRL's L2 strength">,
    Option<"lrPower", "lr-power", "double", /*default=*/"-0.5", "FTRL's learning rate power">,
    Option<"weightDecay", "weight-decay", "double", /*default=*/"0",
           "L2 decay coefficient (decoupled for adamw)">,
    Option<"clipNorm", "clip-norm", "double", /*default=*/"0",
           "Clip gradients to this global norm (0: off)">,
  ];
}

def DataParallel : Pass<"distc-data-parallel", "mlir::ModuleOp"> {
  let summary = "Collective data parallelism: all-reduce gradients, broadcast parameters";
  let description = [{
    Paddle's collective (nccl2) transpile with the AllReduce strategy, as one
    program for every rank. In the train program each parameter gradient
    `p@GRAD` is, right where the backward pass finishes it, scaled by
    1/nranks (`coeff-num-device`; `one` and `customized` leave the sum) and
    summed over the ranks by `c_allreduce_sum`. `coeff-num-device` and `one`
    also reset the backward pass's seed (the backward|loss `fill_constant`
    of `<loss>@GRAD`) to 1, as Paddle replaces it by its own; `customized`
    keeps the program's seed, the loss gradient its author chose; a `c_sync_calc_stream`
    precedes the first and a `c_sync_comm_stream` per gradient precedes the
    first optimizer op, which reads the reduced gradients. The startup
    program first sets up the communicator as Paddle's `_init_communicator`
    does (unless it does already; a setup for another number of ranks is an
    error), with rank -1 and no endpoints, which the runtime binds:
    ```mlir
    %id = pd.c_gen_nccl_id {endpoint = "", rank = -1 : i32} : () -> tensor<0xui8>
    pd.c_comm_init %id {nranks = 2 : i32, rank = -1 : i32} : (tensor<0xui8>) -> ()
    ```
    then each trainable parameter is `c_broadcast` from rank 0 before it is
    written.

    After, in the train program:
    ```mlir
    %dw = pd.mul_grad ...                      // w@GRAD
    %s = pd.c_sync_calc_stream %dw
    %a = pd.scale %s {scale = 5.000000e-01 : f32}
    %r = pd.c_allreduce_sum %a {ring_id = 0 : i32}
    ...
    %g = pd.c_sync_comm_stream %r
    %w2 = pd.sgd %w, %lr, %g
    ```

    With `reduce-strategy=reduce` (BuildStrategy.ReduceStrategy.Reduce) each
    parameter has an owner rank (parameters are dealt out greedily by size
    in the order the backward pass finishes their gradients): its gradient
    is `c_reduce_sum`-ed to the owner only (`root_id`), the optimizer ops
    that update the parameter and its state carry `owner_rank` and run on
    the owner only, and the updated parameter is `c_broadcast` from the
    owner before it is written. Optimizer ops that combine several
    parameters' gradients (clipping by global norm) cannot be owned by one
    rank and are an error under this strategy.
  }];
  let options = [
    Option<"program", "program", "std::string", /*default=*/"\"train.main\"",
           "Symbol of the train program">,
    Option<"startup", "startup", "std::string", /*default=*/"\"train.startup\"",
           "Symbol of its startup program (parameters are broadcast there)">,
    Option<"nranks", "nranks", "int", /*default=*/"1", "Number of trainer ranks">,
    Option<"gradientScale", "gradient-scale", "std::string",
           /*default=*/"\"coeff-num-device\"",
           "coeff-num-device (average), one or customized (sum)">,
    Option<"reduceStrategy", "reduce-strategy", "std::string", /*default=*/"\"all-reduce\"",
           "all-reduce (every rank updates every parameter) or reduce (each "
           "parameter's owner updates it, then broadcasts it)">,
  ];
}

def SyncBatchNorm : Pass<"distc-sync-batch-norm", "mlir::ModuleOp"> {
  let summary = "Normalize with the statistics of every rank's batch (sync_batch_norm)";
  let description = [{
    BuildStrategy's `sync_batch_norm`, run on the train program before
    distc-append-backward: every `batch_norm` in training form (batch
    statistics: not `use_global_stats`, and not `is_test` unless
    `trainable_statistics`) becomes `sync_batch_norm`, with the same
    operands, attributes and results, so the backward pass appends
    `sync_batch_norm_grad`. A `batch_norm_grad` the program already holds
    (Paddle's backward ops) in training form becomes `sync_batch_norm_grad`.
    Their kernels all-reduce the per-channel sums over the ranks, so every
    rank normalizes with the global batch's mean and variance and keeps the
    same running statistics. Ops with the running statistics stay (they
    communicate nothing either way).

    Before:
    ```mlir
    %y, %mo, %vo, %sm, %sv, %rs = pd.batch_norm %x, %s, %b, %m, %v {momentum = 9.000000e-01 : f32}
    ```
    After:
    ```mlir
    %y, %mo, %vo, %sm, %sv, %rs = pd.sync_batch_norm %x, %s, %b, %m, %v {momentum = 9.000000e-01 : f32}
    ```
  }];
  let options = [
    Option<"program", "program", "std::string", /*default=*/"\"train.main\"",
           "Symbol of the train program">,
  ];
}

def FuseAllReduce : Pass<"distc-fuse-all-reduce", "mlir::ModuleOp"> {
  let summary = "Fuse the gradient all-reduces into buckets (fuse_all_reduce_ops)";
  let description = [{
    BuildStrategy's `fuse_all_reduce_ops` with `fuse_grad_size_in_MB`, run
    after distc-data-parallel. The train program's `c_allreduce_sum` ops
    (each with the `scale` before it) are grouped, in the order the backward
    pass finishes the gradients, into buckets of at most `bucket-mb` MiB of
    one dtype (a gradient larger than that is a bucket of its own), and each
    bucket of several gradients is rewritten as Paddle's
    fuse_all_reduce_op_pass does: `coalesce_tensor` of the gradients into one
    fused buffer, one `scale` and one `c_allreduce_sum` of that buffer, and
    before the optimizer one `c_sync_comm_stream` of it, whose slices
    (`pd.fused_slices`) the optimizer reads. The Reduce strategy's
    `c_reduce_sum` ops are fused alike, one owner (`root_id`) per bucket.
    Reductions of already fused buffers or of dynamic shapes are left
    alone.

    Before (two gradients):
    ```mlir
    %a = pd.scale %dw {scale = 5.000000e-01 : f32}
    %ra = pd.c_allreduce_sum %a
    %b = pd.scale %db {scale = 5.000000e-01 : f32}
    %rb = pd.c_allreduce_sum %b
    ...
    %ga = pd.c_sync_comm_stream %ra
    %gb = pd.c_sync_comm_stream %rb
    ```
    After:
    ```mlir
    %o:2, %f = pd.coalesce_tensor %dw, %db {copy_data = true, use_align = false}
    %s = pd.scale %f {scale = 5.000000e-01 : f32}
    %c = pd.c_sync_calc_stream %s
    %r = pd.c_allreduce_sum %c
    ...
    %w = pd.c_sync_comm_stream %r
    %g:2 = pd.fused_slices %w {offsets = array<i64: 0, 8>}
    ```
  }];
  let options = [
    Option<"program", "program", "std::string", /*default=*/"\"train.main\"",
           "Symbol of the train program">,
    Option<"bucketMb", "bucket-mb", "double", /*default=*/"32",
           "Largest bucket in MiB (Paddle's fuse_grad_size_in_MB)">,
  ];
}

def ReleaseMemory : Pass<"distc-release-memory", "mlir::ModuleOp"> {
  let summary = "Insert delete_var after each variable's last use (release_memory)";
  let description = [{
    Paddle's `release_memory(program, skip_opt_set)`: in every main program,
    right after the op that reads a variable for the last time, one
    `delete_var` of the variables that op was the last to read, in the
    order the op reads them. Uses inside an op's regions count as uses by
    the op. Never freed: persistable variables (`pd.read_var` values),
    variables of no shape (rank 0), fetched ones, the new values of
    persistable variables (`pd.write_var`), and the variables named in
    `skip` (Paddle's `skip_opt_set`), each of which must be a variable of
    some program. Startup programs are left alone.

    Before:
    ```mlir
    %h = pd.relu %x {pd.out_names = ["h"]} ...
    %y = pd.scale %h {pd.out_names = ["y"]} ...
    pd.fetch %y
    ```
    After:
    ```mlir
    %h = pd.relu %x ...
    %y = pd.scale %h ...
    pd.delete_var %h : (tensor<?x4xf32>) -> ()
    pd.fetch %y
    ```
  }];
  let options = [
    ListOption<"skip", "skip", "std::string",
               "Variables never freed (Paddle's skip_opt_set)">,
  ];
  let dependentDialects = ["distc::pd::PdDialect"];
}

def MemoryOptimize : Pass<"distc-memory-optimize", "mlir::ModuleOp"> {
  let summary = "Rename variables to reuse dead ones' memory (memory_optimize)";
  let description = [{
    Paddle's `memory_optimize(program, skip_opt_set, print_log, level,
    skip_grads)` in every main program. In op order, after op i the
    variables it read for the last time join a pool (oldest first); a
    variable an op defines takes the name (and in Paddle the memory) of the
    first pooled one of its dtype whose shape fits: at `level` 0 the same
    shape, at 1 both or neither batch-sized and no more elements. The
    rename is the `pd.out_names` entry of its defining op; the planned
    arena holds the storage. Persistable, rank-0, fetched and
    persistable-writing variables and `skip` (with `skip-grads`, the
    optimizer's gradients too) are never renamed nor pooled. `print-log`
    writes each reuse to stderr:
    `memory_optimize: fc_0.tmp_2 reuses fc_0.tmp_0 (pool entry 0, shape [-1, 4])`.

    Before:
    ```mlir
    %h = pd.relu %x {pd.out_names = ["h"]} : ...
    %y = pd.tanh %h {pd.out_names = ["y"]} : ...   // h dies here
    %z = pd.scale %y {pd.out_names = ["z"]} : ...
    ```
    After: `%z` is named `h`.
  }];
  let options = [
    Option<"level", "level", "int", /*default=*/"0",
           "0: reuse only a variable of the same shape; 1: of at least as many elements">,
    ListOption<"skip", "skip", "std::string",
               "Variables never renamed nor reused (Paddle's skip_opt_set)">,
    Option<"skipGrads", "skip-grads", "bool", /*default=*/"false",
           "Also keep the gradients the optimizer ops read">,
    Option<"printLog", "print-log", "bool", /*default=*/"false",
           "Write each reuse to stderr">,
  ];
}

#endif // DISTC_TRANSFORMS_PASSES
