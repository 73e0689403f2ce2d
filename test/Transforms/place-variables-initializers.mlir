// RUN: dtf-opt %s -split-input-file --dtf-place-variables | FileCheck %s
// The initializers of a variable split into shards: a random one gets a
// seed per shard ((seed + 1) * 2^20 + shard), a dense one gives each shard
// its rows of the values (a range by div, every num_shards-th row by mod).

module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2222", "localhost:2225"], worker = ["localhost:2223"]>} {
  // CHECK-LABEL: func.func @div_tables
  func.func @div_tables(%ids: tensor<4xi64>) -> (tensor<4x2xf32>, tensor<4x2xf32>) {
    %dense = dtf.variable "dense" init(#dtf.dense_init<dense<[[0.0, 1.0], [2.0, 3.0], [4.0, 5.0], [6.0, 7.0], [8.0, 9.0]]> : tensor<5x2xf32>>) {dtf.partitioner = #dtf.partitioner<shards = 2, strategy = div>} : !dtf.resource<tensor<5x2xf32>>
    %uniform = dtf.variable "uniform" init(#dtf.random_uniform<minval = -0.5, maxval = 0.5, seed = 3>) {dtf.partitioner = #dtf.partitioner<shards = 2, strategy = div>} : !dtf.resource<tensor<5x2xf32>>
    %a = dtf.embedding_lookup %dense[%ids] : !dtf.resource<tensor<5x2xf32>>, tensor<4xi64>
    %b = dtf.embedding_lookup %uniform[%ids] : !dtf.resource<tensor<5x2xf32>>, tensor<4xi64>
    return %a, %b : tensor<4x2xf32>, tensor<4x2xf32>
  }
}
// CHECK: dtf.variable "dense/part_0" init(#dtf.dense_init<dense<{{\[}}[0.000000e+00, 1.000000e+00], [2.000000e+00, 3.000000e+00], [4.000000e+00, 5.000000e+00]]> : tensor<3x2xf32>>) {{.*}} : !dtf.resource<tensor<3x2xf32>>
// CHECK-NEXT: dtf.variable "dense/part_1" init(#dtf.dense_init<dense<{{\[}}[6.000000e+00, 7.000000e+00], [8.000000e+00, 9.000000e+00]]> : tensor<2x2xf32>>) {{.*}} : !dtf.resource<tensor<2x2xf32>>
// CHECK-NEXT: dtf.variable "uniform/part_0" init(#dtf.random_uniform<minval = -0.5, maxval = 0.5, seed = 4194304>) {{.*}} : !dtf.resource<tensor<3x2xf32>>
// CHECK-NEXT: dtf.variable "uniform/part_1" init(#dtf.random_uniform<minval = -0.5, maxval = 0.5, seed = 4194305>) {{.*}} : !dtf.resource<tensor<2x2xf32>>

// -----

module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2222", "localhost:2225"], worker = ["localhost:2223"]>} {
  // CHECK-LABEL: func.func @mod_tables
  func.func @mod_tables(%ids: tensor<4xi64>) -> (tensor<4x1xf32>, tensor<4x2xf32>) {
    %dense = dtf.variable "dense" init(#dtf.dense_init<dense<[[10.0], [11.0], [12.0], [13.0], [14.0]]> : tensor<5x1xf32>>) {dtf.partitioner = #dtf.partitioner<shards = 2, strategy = mod>} : !dtf.resource<tensor<5x1xf32>>
    %splat = dtf.variable "splat" init(#dtf.dense_init<dense<1.5> : tensor<5x2xf32>>) {dtf.partitioner = #dtf.partitioner<shards = 2, strategy = mod>} : !dtf.resource<tensor<5x2xf32>>
    %a = dtf.embedding_lookup %dense[%ids] : !dtf.resource<tensor<5x1xf32>>, tensor<4xi64>
    %b = dtf.embedding_lookup %splat[%ids] : !dtf.resource<tensor<5x2xf32>>, tensor<4xi64>
    return %a, %b : tensor<4x1xf32>, tensor<4x2xf32>
  }
}
// CHECK: dtf.variable "dense/part_0" init(#dtf.dense_init<dense<{{\[}}[1.000000e+01], [1.200000e+01], [1.400000e+01]]> : tensor<3x1xf32>>) {{.*}} : !dtf.resource<tensor<3x1xf32>>
// CHECK-NEXT: dtf.variable "dense/part_1" init(#dtf.dense_init<dense<{{\[}}[1.100000e+01], [1.300000e+01]]> : tensor<2x1xf32>>) {{.*}} : !dtf.resource<tensor<2x1xf32>>
// CHECK-NEXT: dtf.variable "splat/part_0" init(#dtf.dense_init<dense<1.500000e+00> : tensor<3x2xf32>>) {{.*}} : !dtf.resource<tensor<3x2xf32>>
// CHECK-NEXT: dtf.variable "splat/part_1" init(#dtf.dense_init<dense<1.500000e+00> : tensor<2x2xf32>>) {{.*}} : !dtf.resource<tensor<2x2xf32>>
