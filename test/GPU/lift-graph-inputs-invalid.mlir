// RUN: dtf-opt --dtf-lift-graph-inputs --split-input-file --verify-diagnostics %s

// A device function computes; variable updates are the parameter server's.
func.func @assign() {
  %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<3xf32>>
  %x = dtf.placeholder "x" : tensor<3xf32>
  // expected-error @+1 {{'dtf.assign' op updates variable "w", which a device function cannot do}}
  dtf.assign %w, %x : !dtf.resource<tensor<3xf32>>
  return
}

// -----

func.func @minimize() {
  %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<3xf32>>
  %wv = dtf.read %w : !dtf.resource<tensor<3xf32>>
  %loss = dtf.reduce_sum %wv : tensor<3xf32>
  // expected-error @+1 {{'dtf.minimize' op must be differentiated (--dtf-autodiff) before its function is lowered for a device}}
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.5>
  return
}

// -----

// The variable must be the function's: a resource argument has no name to
// bind a value to.
func.func @resource_argument(%w: !dtf.resource<tensor<3xf32>>) -> tensor<3xf32> {
  // expected-error @+1 {{'dtf.read' op reads a resource that is not a dtf.variable of the function}}
  %v = dtf.read %w : !dtf.resource<tensor<3xf32>>
  return %v : tensor<3xf32>
}

// -----

func.func @two_types() -> tensor<3xf32> {
  %a = dtf.placeholder "x" : tensor<3xf32>
  // expected-error @+1 {{'dtf.placeholder' op uses "x" as 'tensor<2xf32>', but an earlier op as 'tensor<3xf32>'}}
  %b = dtf.placeholder "x" : tensor<2xf32>
  return %a : tensor<3xf32>
}
