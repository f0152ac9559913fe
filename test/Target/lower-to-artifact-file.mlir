// RUN: distc-opt %s --distc-lower-to-artifact="output=%t.distc source=model.json" \
// RUN:   | FileCheck %s --check-prefix=MODULE
// RUN: distc-dump %t.distc | FileCheck %s
// RUN: not distc-opt %s --distc-lower-to-artifact="output=%t.missing/a.distc" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=UNWRITABLE

// With `output` the artifact is written, not printed; the module comes out
// as it went in.
// MODULE-NOT: artifact:
// MODULE-LABEL: module {
// MODULE: pd.program @predict.main attributes {pd.kind = "main", pd.mode = "predict"}

// CHECK-LABEL: artifact: {{.*}}.distc
// CHECK: source: model.json
// CHECK: predict/trainer/main
// CHECK: = unary({{.*}}) {op = "relu"}

// UNWRITABLE: error: {{.*}}missing/a.distc
module {
  pd.program @predict.main attributes {pd.kind = "main", pd.mode = "predict"} {
    %x = pd.feed {pd.out_names = ["x"]} : tensor<?x3xf32>
    %y = pd.relu %x {pd.out_names = ["y"]} : (tensor<?x3xf32>) -> tensor<?x3xf32>
    pd.fetch %y : tensor<?x3xf32>
  }
}
