// A stateful random op draws new samples at every run: it round-trips, and
// neither CSE merges two of them nor canonicalization erases one whose
// samples nothing reads (the generator advances all the same).
// RUN: dtf-opt %s | dtf-opt | FileCheck %s
// RUN: dtf-opt --cse --canonicalize %s | FileCheck %s --check-prefix=CSE

// CHECK-LABEL: func.func @masks
// CHECK:       dtf.random_uniform seed 7 : tensor<4x3xf32>
// CHECK:       dtf.random_uniform seed 7 : tensor<4x3xf32>
// CHECK:       dtf.random_uniform seed 0 : tensor<?x3xf64>
// CSE-LABEL: func.func @masks
// CSE-COUNT-3: dtf.random_uniform
func.func @masks() -> (tensor<4x3xf32>, tensor<4x3xf32>) {
  %a = dtf.random_uniform seed 7 : tensor<4x3xf32>
  %b = dtf.random_uniform seed 7 : tensor<4x3xf32>
  %unused = dtf.random_uniform seed 0 : tensor<?x3xf64>
  return %a, %b : tensor<4x3xf32>, tensor<4x3xf32>
}
