//===- Passes.td - parameter-server transpile --------------*- tablegen -*-===//

#ifndef DISTC_PARAMETERSERVER_PASSES
#define DISTC_PARAMETERSERVER_PASSES

include "mlir/Pass/PassBase.td"

def TranspilePserver : Pass<"distc-transpile-pserver", "mlir::ModuleOp"> {
  let summary = "DistributeTranspiler's pserver mode: trainer and server programs";
  let description = [{
    Paddle's `DistributeTranspiler.transpile` in pserver mode, on the train
    program distc-apply-optimizer (or Paddle) produced. Each parameter and
    its gradient are cut into blocks of whole rows (`slice_variable`), and
    each parameter block is placed on one of `pservers` (`split-method`).

    The train program becomes `get_trainer_program()`: right after the op
    that finishes a gradient, `split_byref` cuts it into blocks (several
    blocks only) and `send` sends them; at the end `send_barrier`, one
    `recv` per parameter, `fetch_barrier` and a `concat` per sliced
    parameter, which is then written. The optimizer ops leave the trainer.
    In synchronous training with several trainers a gradient block is sent
    as `<block>.trainer_<id>`. The train startup program receives the
    servers' initial parameters after its own initializers.

    Each server gets a nested module `@pserver<i>` (its variables, with the
    block shapes, in a namespace of its own) holding `@train.main`, one
    `pd.listen_and_serv` whose regions are the optimize blocks, and
    `@train.startup`, the initializers of its blocks and state with the
    block shapes.

    Before (`pservers=a:1,b:2 trainers=2`), in train.main:
    ```mlir
    %dw = pd.mul_grad ... {pd.out_names = ["", "fc_w@GRAD"]}
    %w2 = pd.sgd %w, %lr, %dw {op_role = 2 : i32}
    pd.write_var @fc_w, %w2
    ```
    After:
    ```mlir
    %dw = pd.mul_grad ...
    %b:2 = pd.split_byref %dw {sections = array<i32: 500, 500>} ...
    %c = pd.send %b#0, %b#1 {epmap = ["b:2", "a:1"]} ...
    %s = pd.send_barrier %c ...
    %w:2 = pd.recv %s {epmap = ["b:2", "a:1"]} ...
    %f:2 = pd.fetch_barrier %w#0, %w#1 ...
    %w3 = pd.concat %f#0, %f#1 {axis = 0 : i32} ...
    pd.write_var @fc_w, %w3
    ```
  }];
  let options = [
    Option<"program", "program", "std::string", /*default=*/"\"train.main\"",
           "Symbol of the train program">,
    Option<"startup", "startup", "std::string", /*default=*/"\"train.startup\"",
           "Symbol of its startup program">,
    ListOption<"pservers", "pservers", "std::string",
               "The servers' endpoints (host:port), in Paddle's order">,
    Option<"trainers", "trainers", "int", /*default=*/"1", "Number of trainers">,
    Option<"trainerId", "trainer-id", "int", /*default=*/"0",
           "The trainer whose program is written (names and trainer_id attributes)">,
    Option<"syncMode", "sync-mode", "bool", /*default=*/"true",
           "Synchronous training: barriers, and each server sums every trainer's gradient">,
    Option<"sliceVarUp", "slice-var-up", "bool", /*default=*/"true",
           "Cut variables into blocks over the servers (false: whole variables, shuffled)">,
    Option<"splitMethod", "split-method", "std::string", /*default=*/"\"RoundRobin\"",
           "RoundRobin or HashName">,
    Option<"minBlockSize", "min-block-size", "int64_t", /*default=*/"8192",
           "Smallest block, in elements (at least 8192)">,
    Option<"runtimeSplitSendRecv", "runtime-split-send-recv", "bool", /*default=*/"false",
           "Send and receive whole variables, cut at run time (asynchronous only)">,
    Option<"halfAsync", "half-async", "bool", /*default=*/"false",
           "Asynchronous with runtime split: still a send_barrier per batch">,
    Option<"seed", "seed", "uint64_t", /*default=*/"0",
           "The program's random_seed (orders whole variables without slice-var-up)">,
  ];
}

#endif // DISTC_PARAMETERSERVER_PASSES
