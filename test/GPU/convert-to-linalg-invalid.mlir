// RUN: dtf-opt --dtf-convert-to-linalg --split-input-file --verify-diagnostics %s

func.func @library_op(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'dtf.matmul' op has no linalg lowering; run --dtf-convert-to-cuda-calls first}}
  %0 = dtf.matmul %a, %b : tensor<2x3xf32>, tensor<3x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @placeholder() -> tensor<3xf32> {
  // expected-error @+1 {{'dtf.placeholder' op has no linalg lowering; run --dtf-lift-graph-inputs first}}
  %0 = dtf.placeholder "x" : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @update(%v: !dtf.resource<tensor<3xf32>>, %g: tensor<3xf32>) {
  // expected-error @+1 {{'dtf.apply_gradient_descent' op has no linalg lowering (variable updates run on the parameter server)}}
  dtf.apply_gradient_descent %v, %g learning_rate 0.1 : !dtf.resource<tensor<3xf32>>
  return
}

// -----

func.func @dynamic(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  // expected-error @+1 {{'dtf.relu' op needs static shapes to run on a GPU, got 'tensor<?x3xf32>'}}
  %0 = dtf.relu %x : tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

func.func @mean_of_integers(%x: tensor<4xi32>) -> tensor<i32> {
  // expected-error @+1 {{'dtf.reduce_mean' op has no GPU lowering for elements of type 'i32'}}
  %0 = dtf.reduce_mean %x : tensor<4xi32>
  return %0 : tensor<i32>
}

// -----

func.func @rows_of_ids(%ids: tensor<4xi64>, %keys: tensor<3xi64>) -> tensor<4xi64> {
  // expected-error @+1 {{'dtf.rows_of_ids' op has no linalg lowering}}
  %0 = dtf.rows_of_ids %ids, %keys : tensor<4xi64>, tensor<3xi64> -> tensor<4xi64>
  return %0 : tensor<4xi64>
}
