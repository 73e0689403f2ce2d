// The attributes --dtf-lift-ps-transfers leaves for a worker's runtime are
// checked like every dtf attribute.
// RUN: dtf-opt --split-input-file --verify-diagnostics %s

module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2222"], worker = ["localhost:2223"]>} {
  func.func @worker() -> tensor<2xf32> {
    // expected-error @+1 {{'dtf.pulled_from' must be the PS task of a placeholder}}
    %v = dtf.constant {dtf.pulled_from = #dtf.device<"/job:ps/task:0">} dense<1.0> : tensor<2xf32>
    return %v : tensor<2xf32>
  }
}

// -----

module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2222"], worker = ["localhost:2223"]>} {
  func.func @worker() -> tensor<2xf32> {
    // expected-error @+1 {{'dtf.pulled_from' must be the PS task of a placeholder}}
    %v = dtf.placeholder "^pull/v" {dtf.pulled_from = #dtf.device<"/job:worker/task:0">} : tensor<2xf32>
    return %v : tensor<2xf32>
  }
}

// -----

module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2222"], worker = ["localhost:2223"]>} {
  func.func @worker() -> tensor<2xf32> {
    // expected-error @+1 {{device '/job:ps/task:3' is not in the cluster}}
    %v = dtf.placeholder "^pull/v" {dtf.pulled_from = #dtf.device<"/job:ps/task:3">} : tensor<2xf32>
    return %v : tensor<2xf32>
  }
}

// -----

// expected-error @+1 {{'dtf.model_results' must count results of the function it is on}}
func.func @worker() -> tensor<2xf32> attributes {dtf.model_results = 2 : i64} {
  %v = dtf.constant dense<1.0> : tensor<2xf32>
  return %v : tensor<2xf32>
}

// -----

// expected-error @+1 {{'dtf.pushes' and 'dtf.model_results' account for 3 results, but the function has 2}}
func.func @worker() -> (tensor<f32>, tensor<i64>) attributes {
    dtf.model_results = 1 : i64,
    dtf.pushes = [{device = #dtf.device<"/job:ps/task:0">, names = ["w"]}]} {
  %loss = dtf.constant dense<1.0> : tensor<f32>
  %step = dtf.constant dense<0> : tensor<i64>
  return %loss, %step : tensor<f32>, tensor<i64>
}

// -----

// expected-error @+1 {{'dtf.pushes' must list {device = #dtf.device<...>, names = [...], sparse_names = [...]?} dictionaries}}
func.func @worker() -> tensor<f32> attributes {
    dtf.model_results = 1 : i64, dtf.pushes = [{names = ["w"]}]} {
  %loss = dtf.constant dense<1.0> : tensor<f32>
  return %loss : tensor<f32>
}

// -----

// expected-error @+1 {{'dtf.pushes' must be an array on a function with 'dtf.model_results'}}
func.func @worker() -> tensor<f32> attributes {dtf.pushes = []} {
  %loss = dtf.constant dense<1.0> : tensor<f32>
  return %loss : tensor<f32>
}
