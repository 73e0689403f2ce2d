func.func @pull_unnamed() -> tensor<2xf32> {
  // expected-error @+1 {{'dtf.pull' op expects a variable name}}
  %w = dtf.pull "" from "/job:ps/task:0" : tensor<2xf32>
  return %w : tensor<2xf32>
}
