//===- Passes.td - distc pipeline passes -------------------*- tablegen -*-===//

#ifndef DISTC_PIPELINE_PASSES
#define DISTC_PIPELINE_PASSES

include "mlir/Pass/PassBase.td"

def LowerToArtifact : Pass<"distc-lower-to-artifact", "mlir::ModuleOp"> {
  let summary = "Lower the mode programs to an artifact and print or write it";
  let description = [{
    distc's last phase. Every `pd.program` of a module in mode form (see
    distc-derive-modes) becomes a flat list of kernel calls over typed
    buffers (docs/artifact.md). With a train mode the artifact also gets its
    Training table (loss, optimizer, parameters and optimizer state, the
    learning-rate schedule and the settings from `config`), and with a
    predict mode its inference model (the predict program as Paddle's binary
    ProgramDesc). The artifact is checked with the runtime's own loader, then
    written to `output` or, with `print`, printed to stdout as `distc-dump`
    prints it. The module is left unchanged.

    Before:
    ```mlir
    pd.var @w persistable is_parameter : tensor<4x3xf32>
    pd.program @predict.main attributes {pd.kind = "main", pd.mode = "predict"} {
      %x = pd.feed {pd.out_names = ["x"]} : tensor<?x4xf32>
      %w = pd.read_var @w : tensor<4x3xf32>
      %y = pd.mul %x, %w {pd.out_names = ["y"]} : ...
      pd.fetch %y : tensor<?x3xf32>
    }
    ```
    After (`print`), on stdout:
    ```
    artifact: <artifact>
      ...
    symbols:
      $0 = x.dim0
    buffers:
      %0 w: f32[4,3] persistent
      %1 x: f32[x.dim0,4] feed
      %2 y: f32[x.dim0,3] temp
    programs:
    predict/trainer/main
      feeds: x = %1
      %2 = matmul(%1, %0) {trans_a = 0, trans_b = 0}   // mul -> y
      fetches: y = %2
    inference:
      program: 285 bytes
      parameters: w
    ```
    A program that is not in mode form is an error:
    `program has no pd.mode/pd.kind: run the distc-derive-modes pass first`.
  }];
  let options = [
    Option<"output", "output", "std::string", /*default=*/"\"\"",
           "Artifact file to write">,
    Option<"print", "print", "bool", /*default=*/"false",
           "Print the artifact as distc-dump does instead of writing it">,
    Option<"seed", "seed", "uint64_t", /*default=*/"0",
           "Program random seed for initializers whose seed attribute is 0">,
    Option<"source", "source", "std::string", /*default=*/"\"\"",
           "Input file name recorded in the artifact">,
    Option<"worldSize", "world-size", "int", /*default=*/"1",
           "Ranks the artifact runs on">,
    Option<"memoryReport", "memory-report", "bool", /*default=*/"false",
           "Print what each program holds in memory (docs/artifact.md, "
           "\"Memory report\") to stdout">,
    Option<"inplace", "inplace", "bool", /*default=*/"true",
           "Element-wise ops write their result over their input when nothing "
           "reads that input's storage afterwards (BuildStrategy enable_inplace)">,
    Option<"arena", "arena", "bool", /*default=*/"true",
           "Plan one arena per program for its temporaries (docs/artifact.md, "
           "\"Arena\"); false: each temporary has storage of its own">,
    Option<"loss", "loss", "std::string", /*default=*/"\"\"",
           "Loss variable of the train mode (default: the one its backward pass is "
           "seeded from)">,
    Option<"config", "config", "std::string", /*default=*/"\"\"",
           "JSON training config (distc --config): the schedule and settings "
           "recorded in the Training table">,
  ];
}

#endif // DISTC_PIPELINE_PASSES
