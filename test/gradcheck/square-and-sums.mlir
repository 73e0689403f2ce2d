// RUN: dtf-gradcheck %s | FileCheck %s
// A value used twice by one op and by several: the gradients of its uses
// add up. The importer's Square (x * x) and AddN (a chain of adds) are such
// programs.

// CHECK-DAG: @square_and_sums x: 6 of 6
// CHECK: gradient check passed

func.func @square_and_sums() -> tensor<f32> {
  %x = dtf.variable "x" init(#dtf.random_normal<stddev = 1.0, seed = 1>) : !dtf.resource<tensor<2x3xf32>>
  %r = dtf.placeholder "r" : tensor<2x3xf32>
  %xv = dtf.read %x : !dtf.resource<tensor<2x3xf32>>
  %square = dtf.mul %xv, %xv : tensor<2x3xf32>, tensor<2x3xf32>
  %sum1 = dtf.add %xv, %square : tensor<2x3xf32>, tensor<2x3xf32>
  %sum2 = dtf.add %sum1, %square : tensor<2x3xf32>, tensor<2x3xf32>
  %p = dtf.mul %sum2, %r : tensor<2x3xf32>, tensor<2x3xf32>
  %loss = dtf.reduce_sum %p : tensor<2x3xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
  return %loss : tensor<f32>
}
