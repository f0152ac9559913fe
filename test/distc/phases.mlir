// The distc driver: phases, program emission and its error messages.
//
// RUN: distc %s --loss loss --compile-to=import | FileCheck %s --check-prefix=IMPORT
// RUN: distc %s --loss loss --compile-to=modes | FileCheck %s --check-prefix=MODES
// RUN: distc %s --loss loss --compile-to=artifact | FileCheck %s --check-prefix=ART
// RUN: distc %s --loss loss --emit=program-json --mode eval | FileCheck %s --check-prefix=JSON
// RUN: distc %s --loss loss --emit=program-json --mode predict --program startup | FileCheck %s --check-prefix=STARTUP
// RUN: not distc %s --loss nope -o %t.distc 2>&1 | FileCheck %s --check-prefix=NOLOSS
// RUN: not distc %s --loss y -o %t.distc 2>&1 | FileCheck %s --check-prefix=NOTSCALAR
// RUN: not distc %s 2>&1 | FileCheck %s --check-prefix=NOTHING
// RUN: not distc %s --compile-to=artifact --emit=program-json 2>&1 | FileCheck %s --check-prefix=ARTJSON
// RUN: not distc %t.missing.json -o %t.distc 2>&1 | FileCheck %s --check-prefix=MISSING

// IMPORT-LABEL: pd.program @main
// IMPORT: pd.program @startup

// MODES-LABEL: pd.program @predict.main
// MODES-NOT: pd.mean
// MODES: pd.fetch
// MODES-LABEL: pd.program @eval.main
// MODES: pd.mean
// MODES: pd.program @predict.startup
// MODES: pd.uniform_random
// MODES: pd.program @eval.startup

// ART: symbols:
// ART-NEXT: $0 = x.dim0
// ART: predict/trainer/main
// ART-NEXT: feeds: x = %[[X:[0-9]+]]
// ART: = matmul(%[[X]], {{.*}}   // mul -> h
// ART: = binary({{.*}}) {op = "add"}
// ART: = unary({{.*}}) {op = "relu"}
// ART: fetches: y = %
// ART: eval/trainer/main
// ART: = reduce({{.*}}) {axes = [0, 1], op = "mean"}
// ART: predict/trainer/startup
// ART: = uniform_random() {max = 0.5, min = -0.5, seed = {{[1-9][0-9]*}}}

// ARTJSON: distc: error: --emit=program-json prints a program; the artifact phase has none

// JSON: "type": "mean"
// JSON: "type": "fetch"

// STARTUP: "type": "uniform_random"

// NOLOSS: phases.mlir:{{[0-9]+}}:{{[0-9]+}}: error: loss variable 'nope' is not defined by the main program
// NOTSCALAR: phases.mlir:{{[0-9]+}}:{{[0-9]+}}: error: loss variable 'y' must be a scalar
// NOTHING: distc: error: nothing to do: give -o FILE, --compile-to PHASE or --emit FORM
// MISSING: missing.json: error: cannot open: No such file or directory

module {
  pd.var @w persistable is_parameter : tensor<4x3xf32>
  pd.program @main {
    %x = pd.feed {pd.out_names = ["x"]} : tensor<?x4xf32>
    %w = pd.read_var @w : tensor<4x3xf32>
    %h = pd.mul %x, %w {pd.out_names = ["h"]} : (tensor<?x4xf32>, tensor<4x3xf32>) -> tensor<?x3xf32>
    %b = pd.elementwise_add %h, %h {pd.out_names = ["b"]} : (tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
    %y = pd.relu %b {pd.out_names = ["y"]} : (tensor<?x3xf32>) -> tensor<?x3xf32>
    %loss = pd.mean %y {pd.out_names = ["loss"]} : (tensor<?x3xf32>) -> tensor<f32>
    pd.fetch %y : tensor<?x3xf32>
  }
  pd.program @startup {
    %0 = pd.uniform_random {shape = array<i64: 4, 3>, min = -0.5 : f32, max = 0.5 : f32, pd.out_names = ["w"]} : () -> tensor<4x3xf32>
    pd.write_var @w, %0 : tensor<4x3xf32>
  }
}
