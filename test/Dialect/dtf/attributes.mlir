// RUN: dtf-opt %s -split-input-file | dtf-opt -split-input-file | FileCheck %s

// Printing of the dtf attributes: device names in their canonical form,
// the cluster, initializers and optimizers with default parameters elided,
// and float hyper-parameters in the shortest form that reads back.

// CHECK: module attributes {dtf.cluster = #dtf.cluster<ps = ["ps0.example.com:2222", "10.0.0.2:2222"], worker = ["localhost:2223", "localhost:2224", "[::1]:2225"]>}
module attributes {dtf.cluster = #dtf.cluster<ps = ["ps0.example.com:2222", "10.0.0.2:2222"],
                                              worker = ["localhost:2223", "localhost:2224", "[::1]:2225"]>} {
  // CHECK-LABEL: func.func @placement(
  // CHECK-SAME: attributes {dtf.device = #dtf.device<"/job:worker/task:0">}
  func.func @placement(%loss: tensor<f32>) attributes {dtf.device = #dtf.device<"/job:worker/task:0">} {
    // CHECK: %[[W:.*]] = dtf.variable "w" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps/task:0">}
    %w = dtf.variable "w" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps/task:0">}
        : !dtf.resource<tensor<2xf32>>
    // CHECK: %[[B:.*]] = dtf.variable "b" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps/task:1/device:CPU:0">, trainable = false}
    %b = dtf.variable "b" init(#dtf.zeros) {trainable = false, dtf.device = #dtf.device<"/job:ps/task:1/device:CPU:0">}
        : !dtf.resource<tensor<2xf32>>
    // CHECK: dtf.read %[[W]] {dtf.device = #dtf.device<"/job:worker/task:1/device:GPU:0">}
    %r = dtf.read %w {dtf.device = #dtf.device<"/job:worker/task:1/device:GPU:0">} : !dtf.resource<tensor<2xf32>>
    // CHECK: dtf.read %[[B]] {dtf.device = #dtf.device<"/job:worker/task:2/device:GPU:15">}
    %s = dtf.read %b {dtf.device = #dtf.device<"/job:worker/task:2/device:GPU:15">} : !dtf.resource<tensor<2xf32>>
    // Leading zeros of the indices are dropped.
    // CHECK: dtf.minimize %{{.*}} : tensor<f32>, #dtf.sgd<learning_rate = 0.1> {dtf.device = #dtf.device<"/job:worker/task:0/device:CPU:7">}
    dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
        {dtf.device = #dtf.device<"/job:worker/task:00/device:CPU:007">}
    return
  }
}

// -----

// Without a cluster, any task index is accepted.
// CHECK-LABEL: func.func @no_cluster(
func.func @no_cluster() {
  // CHECK: dtf.variable "v" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps/task:41">}
  %v = dtf.variable "v" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps/task:41">}
      : !dtf.resource<tensor<f32>>
  // CHECK: dtf.read %{{.*}} {dtf.device = #dtf.device<"/job:worker/task:99/device:GPU:3">}
  %r = dtf.read %v {dtf.device = #dtf.device<"/job:worker/task:99/device:GPU:3">} : !dtf.resource<tensor<f32>>
  return
}

// -----

// A cluster without PS tasks (all variables on the workers) is valid.
// CHECK: module attributes {dtf.cluster = #dtf.cluster<ps = [], worker = ["worker0:2222"]>}
module attributes {dtf.cluster = #dtf.cluster<ps = [], worker = ["worker0:2222"]>} {
  // CHECK-LABEL: func.func @single_worker(
  func.func @single_worker() {
    // CHECK: dtf.variable "v" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:worker/task:0/device:GPU:0">}
    %v = dtf.variable "v" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:worker/task:0/device:GPU:0">}
        : !dtf.resource<tensor<f32>>
    return
  }
}

// -----

// Optimizers as dtf.minimize prints them: parameters equal to their
// defaults are elided, the others kept in declaration order.
// CHECK-LABEL: func.func @optimizers(
func.func @optimizers(%loss: tensor<f32>) {
  // CHECK: dtf.minimize %{{.*}} : tensor<f32>, #dtf.adam<>{{$}}
  dtf.minimize %loss : tensor<f32>, #dtf.adam<>
  // CHECK: dtf.minimize %{{.*}} : tensor<f32>, #dtf.adam<>{{$}}
  dtf.minimize %loss : tensor<f32>, #dtf.adam<learning_rate = 0.001, beta1 = 0.9, beta2 = 0.999, epsilon = 1.0e-08>
  // CHECK: dtf.minimize %{{.*}} : tensor<f32>, #dtf.adam<learning_rate = 0.01, epsilon = 1.0e-07>{{$}}
  dtf.minimize %loss : tensor<f32>, #dtf.adam<epsilon = 1.0e-07, learning_rate = 0.01>
  // CHECK: dtf.minimize %{{.*}} : tensor<f32>, #dtf.adam<beta1 = 0.5, beta2 = 0.98>{{$}}
  dtf.minimize %loss : tensor<f32>, #dtf.adam<beta2 = 0.98, beta1 = 0.5>
  // CHECK: dtf.minimize %{{.*}} : tensor<f32>, #dtf.momentum<learning_rate = 0.05, momentum = 0.0>{{$}}
  dtf.minimize %loss : tensor<f32>, #dtf.momentum<learning_rate = 0.05, momentum = 0.0, use_nesterov = false>
  // CHECK: dtf.minimize %{{.*}} : tensor<f32>, #dtf.momentum<learning_rate = 0.05, momentum = 0.9, use_nesterov = true>{{$}}
  dtf.minimize %loss : tensor<f32>, #dtf.momentum<use_nesterov = true, momentum = 0.9, learning_rate = 0.05>
  // CHECK: dtf.minimize %{{.*}} : tensor<f32>, #dtf.sgd<learning_rate = 0.5>{{$}}
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 5.0e-1>
  return
}

// -----

// Initializers: a mean of 0.0 is elided (but not -0.0: parameters compare
// bitwise).
// CHECK-LABEL: func.func @initializers(
func.func @initializers() {
  // CHECK: init(#dtf.zeros) :
  %0 = dtf.variable "a" init(#dtf.zeros) : !dtf.resource<tensor<2xf32>>
  // CHECK: init(#dtf.constant<-7.0>) :
  %1 = dtf.variable "b" init(#dtf.constant<-7.0>) : !dtf.resource<tensor<2xf32>>
  // CHECK: init(#dtf.truncated_normal<stddev = 1.0, seed = 0>) :
  %2 = dtf.variable "c" init(#dtf.truncated_normal<mean = 0.0, stddev = 1.0, seed = 0>) : !dtf.resource<tensor<2xf32>>
  // CHECK: init(#dtf.truncated_normal<mean = -0.0, stddev = 1.0, seed = -5>) :
  %3 = dtf.variable "d" init(#dtf.truncated_normal<mean = -0.0, stddev = 1.0, seed = -5>) : !dtf.resource<tensor<2xf32>>
  // CHECK: init(#dtf.truncated_normal<stddev = 0.03571428571428571, seed = 42>) :
  %4 = dtf.variable "e" init(#dtf.truncated_normal<seed = 42, stddev = 0.03571428571428571>) : !dtf.resource<tensor<2xf32>>
  // CHECK: init(#dtf.random_normal<mean = 1.5, stddev = 2.0, seed = 1>) :
  %5 = dtf.variable "f" init(#dtf.random_normal<mean = 1.5, stddev = 2.0, seed = 1>) : !dtf.resource<tensor<2xf32>>
  // CHECK: init(#dtf.random_normal<stddev = 0.01, seed = 9>) :
  %6 = dtf.variable "g" init(#dtf.random_normal<stddev = 1.0e-2, seed = 9>) : !dtf.resource<tensor<2xf32>>
  // CHECK: init(#dtf.random_uniform<minval = -0.05, maxval = 0.05, seed = 3>) :
  %7 = dtf.variable "h" init(#dtf.random_uniform<minval = -5.0e-2, maxval = 0.05, seed = 3>) : !dtf.resource<tensor<2xf32>>
  // CHECK: init(#dtf.random_uniform<minval = 0.0, maxval = 1.0, seed = -1>) :
  %8 = dtf.variable "i" init(#dtf.random_uniform<seed = -1, maxval = 1.0, minval = 0.0>) : !dtf.resource<tensor<2xf64>>
  // CHECK: init(#dtf.dense_init<dense<{{\[}}[1.000000e+00, 2.000000e+00], [3.000000e+00, 4.500000e+00]]> : tensor<2x2xf32>>) :
  %9 = dtf.variable "j" init(#dtf.dense_init<dense<[[1.0, 2.0], [3.0, 4.5]]> : tensor<2x2xf32>>) : !dtf.resource<tensor<2x2xf32>>
  // CHECK: init(#dtf.dense_init<dense<[7, -1]> : tensor<2xi64>>) :
  %10 = dtf.variable "k" init(#dtf.dense_init<dense<[7, -1]> : tensor<2xi64>>) : !dtf.resource<tensor<2xi64>>
  // A gain of 1.0 is elided.
  // CHECK: init(#dtf.orthogonal<seed = 4>) :
  %11 = dtf.variable "l" init(#dtf.orthogonal<gain = 1.0, seed = 4>) : !dtf.resource<tensor<3x2xf32>>
  // CHECK: init(#dtf.orthogonal<gain = 2.0, seed = 0>) :
  %12 = dtf.variable "m" init(#dtf.orthogonal<gain = 2.0, seed = 0>) : !dtf.resource<tensor<2x3x4xf32>>
  return
}

// -----

// Float parameters print with the fewest significant digits that read back
// as the same double, without an exponent when it is in [-4, 16), and
// non-finite values as their bits in hex.
// CHECK-LABEL: func.func private @float_printing()
// CHECK-SAME: a00 = #dtf.sgd<learning_rate = 0.01>
// CHECK-SAME: a01 = #dtf.sgd<learning_rate = 0.001>
// CHECK-SAME: a02 = #dtf.sgd<learning_rate = 0.0001>
// CHECK-SAME: a03 = #dtf.sgd<learning_rate = 1.0e-05>
// CHECK-SAME: a04 = #dtf.constant<0.3>
// CHECK-SAME: a05 = #dtf.constant<0.30000000000000004>
// CHECK-SAME: a06 = #dtf.constant<0.1>
// CHECK-SAME: a07 = #dtf.constant<5.0>
// CHECK-SAME: a08 = #dtf.constant<100.0>
// CHECK-SAME: a09 = #dtf.constant<123456.0>
// CHECK-SAME: a10 = #dtf.constant<9999999999999998.0>
// CHECK-SAME: a11 = #dtf.constant<1.0e+16>
// CHECK-SAME: a12 = #dtf.constant<1.0e+300>
// CHECK-SAME: a13 = #dtf.constant<2.5e-10>
// CHECK-SAME: a14 = #dtf.constant<-0.0>
// CHECK-SAME: a15 = #dtf.constant<5.0e-324>
// CHECK-SAME: a16 = #dtf.constant<0x7FF0000000000000>
// CHECK-SAME: a17 = #dtf.constant<0xFFF0000000000000>
// CHECK-SAME: a18 = #dtf.constant<0x7FF8000000000000>
// CHECK-SAME: a19 = #dtf<padding SAME>
// CHECK-SAME: a20 = #dtf<padding VALID>
func.func private @float_printing() attributes {
  a00 = #dtf.sgd<learning_rate = 0.01>,
  a01 = #dtf.sgd<learning_rate = 1.0e-3>,
  a02 = #dtf.sgd<learning_rate = 1.0e-4>,
  a03 = #dtf.sgd<learning_rate = 0.00001>,
  a04 = #dtf.constant<0.3>,
  a05 = #dtf.constant<0.30000000000000004>,
  // 0x3FB999999999999A is the double nearest to 0.1.
  a06 = #dtf.constant<0x3FB999999999999A>,
  a07 = #dtf.constant<5.>,
  a08 = #dtf.constant<100.0>,
  a09 = #dtf.constant<1.23456e5>,
  a10 = #dtf.constant<9999999999999998.0>,
  a11 = #dtf.constant<10000000000000000.0>,
  a12 = #dtf.constant<1.0e300>,
  a13 = #dtf.constant<0.00000000025>,
  a14 = #dtf.constant<-0.0>,
  a15 = #dtf.constant<4.9406564584124654e-324>,
  a16 = #dtf.constant<0x7FF0000000000000>,
  a17 = #dtf.constant<0xFFF0000000000000>,
  a18 = #dtf.constant<0x7FF8000000000000>,
  a19 = #dtf<padding SAME>,
  a20 = #dtf<padding VALID>
}
