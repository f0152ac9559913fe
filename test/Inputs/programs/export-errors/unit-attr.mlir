module {
  pd.program @main {
    %x = pd.feed {col = 0 : i32} : tensor<?x4xf32>
    %y = pd.relu %x {marker} : (tensor<?x4xf32>) -> tensor<?x4xf32>
    pd.fetch %y {col = 0 : i32} : tensor<?x4xf32>
  }
}
