// RUN: distc-opt %s --distc-memory-optimize | FileCheck %s --check-prefix=REUSE
// RUN: distc-opt %s '--distc-memory-optimize=skip-grads=true' | FileCheck %s --check-prefix=KEEP

// skip_grads: the gradients optimizer ops (op_role 2) read are neither
// renamed nor pooled. The scale takes the feed's name (x dies at the
// tanh); w@GRAD dies at the optimize-role scale, and without skip_grads
// the relu takes its name; with it the relu keeps its own.
// REUSE: pd.scale {{.*}}pd.out_names = ["x"]
// KEEP: pd.scale {{.*}}pd.out_names = ["x"]
// REUSE: pd.relu {{.*}}pd.out_names = ["w@GRAD"]
// KEEP: pd.relu {{.*}}pd.out_names = ["r"]
module {
  pd.program @main attributes {pd.kind = "main", pd.mode = "train"} {
    %x = pd.feed {pd.out_names = ["x"]} : tensor<?x3xf32>
    %g = pd.tanh %x {pd.out_names = ["w@GRAD"]} : (tensor<?x3xf32>) -> tensor<?x3xf32>
    %u = pd.scale %g {op_role = 2 : i32, pd.out_names = ["u"]} : (tensor<?x3xf32>) -> tensor<?x3xf32>
    %r = pd.relu %u {pd.out_names = ["r"]} : (tensor<?x3xf32>) -> tensor<?x3xf32>
    %y = pd.sigmoid %r {pd.out_names = ["y"]} : (tensor<?x3xf32>) -> tensor<?x3xf32>
    pd.fetch %y : tensor<?x3xf32>
  }
}
