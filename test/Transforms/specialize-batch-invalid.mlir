// RUN: dtf-opt --split-input-file --verify-diagnostics \
// RUN:   --dtf-specialize-batch=batch-size=8 %s
// RUN: echo 'func.func @f() { return }' > %t.zero.mlir
// RUN: not dtf-opt --dtf-specialize-batch %t.zero.mlir 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ZERO
// ZERO: error: --dtf-specialize-batch needs batch-size > 0, got 0

func.func @dynamic_feature() -> tensor<f32> {
  // expected-error @+1 {{'dtf.placeholder' op 'x' has a dynamic dimension 1 ('tensor<8x?xf32>'); only the batch dimension, 0, may be dynamic}}
  %x = dtf.placeholder "x" : tensor<8x?xf32>
  %sum = dtf.reduce_sum %x : tensor<8x?xf32>
  return %sum : tensor<f32>
}

// -----

func.func @reshape_of_unknown_size() -> tensor<?x?xf32> {
  %x = dtf.placeholder "x" : tensor<?x3xf32>
  // expected-error @+1 {{'dtf.reshape' op keeps a dynamic result type with batch size 8: cannot infer its shape from operands 'tensor<8x3xf32>'}}
  %y = dtf.reshape %x : tensor<?x3xf32> -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}
