// distc-opt runs distc's phases as pass pipelines: the same passes, the
// same result (the artifacts differ only in the source file they record).
// --timing reports each phase and its passes.
//
// RUN: distc %s --loss loss --optimizer sgd --compile-to=modes > %t.distc.mlir
// RUN: distc-opt %s --distc-pipeline-modes="loss=loss optimizer=sgd" > %t.opt.mlir
// RUN: diff %t.distc.mlir %t.opt.mlir
// RUN: distc %s --loss loss --compile-to=artifact \
// RUN:   | grep -v -e source: -e size: -e checksum: > %t.distc.txt
// RUN: distc-opt %s --distc-pipeline-artifact="loss=loss" -o /dev/null \
// RUN:   | grep -v -e source: -e size: -e checksum: > %t.opt.txt
// RUN: diff %t.distc.txt %t.opt.txt
// RUN: distc %s --loss loss --optimizer sgd --compile-to=artifact --timing 2>&1 >/dev/null \
// RUN:   | FileCheck %s --check-prefix=TIMING
// RUN: not distc-opt %s --distc-pipeline-modes="optimizer=lamb" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BADOPT
// RUN: distc-opt --help | FileCheck %s --check-prefix=HELP

// TIMING: Execution time report
// TIMING: import
// TIMING-NEXT: modes
// TIMING-NEXT: DeriveModes
// TIMING-NEXT: AppendBackward
// TIMING-NEXT: ApplyOptimizer
// TIMING: artifact
// TIMING-NEXT: LowerToArtifact
// TIMING: Total

// BADOPT: unknown optimizer 'lamb' (expected sgd, momentum, adam, adamw, adagrad, decayed_adagrad, rmsprop, ftrl)

// HELP: --distc-lower-to-artifact
// HELP: --distc-pipeline-artifact
// HELP: --distc-pipeline-modes

module {
  pd.var @w persistable is_parameter : tensor<4x3xf32>
  pd.program @main {
    %x = pd.feed {pd.out_names = ["x"]} : tensor<?x4xf32>
    %w = pd.read_var @w : tensor<4x3xf32>
    %h = pd.mul %x, %w {pd.out_names = ["h"]} : (tensor<?x4xf32>, tensor<4x3xf32>) -> tensor<?x3xf32>
    %y = pd.relu %h {pd.out_names = ["y"]} : (tensor<?x3xf32>) -> tensor<?x3xf32>
    %loss = pd.mean %y {pd.out_names = ["loss"]} : (tensor<?x3xf32>) -> tensor<f32>
    pd.fetch %y : tensor<?x3xf32>
  }
  pd.program @startup {
    %0 = pd.uniform_random {shape = array<i64: 4, 3>, min = -0.5 : f32, max = 0.5 : f32, pd.out_names = ["w"]} : () -> tensor<4x3xf32>
    pd.write_var @w, %0 : tensor<4x3xf32>
  }
}
