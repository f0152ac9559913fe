// RUN: distc-opt %s --verify-diagnostics '--distc-release-memory=skip=x,nope'

// A skip set must name variables of the programs: a misspelt name would
// silently protect nothing.
// expected-error @+1 {{skip_opt_set names 'nope', which is no variable of any program}}
module {
  pd.program @main attributes {pd.kind = "main", pd.mode = "predict"} {
    %x = pd.feed {pd.out_names = ["x"]} : tensor<?x4xf32>
    %y = pd.relu %x {pd.out_names = ["y"]} : (tensor<?x4xf32>) -> tensor<?x4xf32>
    pd.fetch %y : tensor<?x4xf32>
  }
}
