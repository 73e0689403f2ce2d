// RUN: dtf-gradcheck --samples=100 %s | FileCheck %s
// The sparse gradient of embedding_lookup (rows summed into their ids'
// rows, padding left out), through embedding_combine's three combiners,
// gather, unsorted_segment_sum, sigmoid and the logistic loss.

// CHECK-DAG: @lookup table: 12 of 12
// CHECK-DAG: @combine_sum table: 15 of 15
// CHECK-DAG: @combine_mean table: 15 of 15
// CHECK-DAG: @combine_sqrtn_weighted table: 15 of 15
// CHECK-DAG: @gather_segments x: 8 of 8
// CHECK-DAG: @logistic w: 6 of 6
// CHECK-DAG: @concat table: 8 of 8
// CHECK-DAG: @concat x: 6 of 6
// CHECK: gradient check passed

// A table looked up twice, with a repeated id and a padding slot: the
// repeated row gets both gradients, the row of no id none.
func.func @lookup() -> tensor<f32> {
  %table = dtf.variable "table" init(#dtf.random_normal<stddev = 1.0, seed = 1>) : !dtf.resource<tensor<4x3xf32>>
  %ids = dtf.constant dense<[[0, 2], [2, -1]]> : tensor<2x2xi64>
  %more = dtf.constant dense<[3, 0]> : tensor<2xi32>
  %r = dtf.placeholder "r" : tensor<2x2x3xf32>
  %s = dtf.placeholder "s" : tensor<2x3xf32>
  %rows = dtf.embedding_lookup %table[%ids] : !dtf.resource<tensor<4x3xf32>>, tensor<2x2xi64>
  %other = dtf.embedding_lookup %table[%more] : !dtf.resource<tensor<4x3xf32>>, tensor<2xi32>
  %sq = dtf.mul %rows, %rows : tensor<2x2x3xf32>, tensor<2x2x3xf32>
  %p = dtf.mul %sq, %r : tensor<2x2x3xf32>, tensor<2x2x3xf32>
  %q = dtf.mul %other, %s : tensor<2x3xf32>, tensor<2x3xf32>
  %a = dtf.reduce_sum %p : tensor<2x2x3xf32>
  %b = dtf.reduce_sum %q : tensor<2x3xf32>
  %loss = dtf.add %a, %b : tensor<f32>, tensor<f32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
  return %loss : tensor<f32>
}

func.func @combine_sum() -> tensor<f32> {
  %table = dtf.variable "table" init(#dtf.random_normal<stddev = 1.0, seed = 2>) : !dtf.resource<tensor<5x3xf32>>
  %ids = dtf.constant dense<[[0, 4, 4], [1, -1, -1], [-1, -1, -1]]> : tensor<3x3xi64>
  %r = dtf.placeholder "r" : tensor<3x3xf32>
  %rows = dtf.embedding_lookup %table[%ids] : !dtf.resource<tensor<5x3xf32>>, tensor<3x3xi64>
  %e = dtf.embedding_combine sum %rows, %ids : tensor<3x3x3xf32>, tensor<3x3xi64>
  %sq = dtf.mul %e, %e : tensor<3x3xf32>, tensor<3x3xf32>
  %p = dtf.mul %sq, %r : tensor<3x3xf32>, tensor<3x3xf32>
  %loss = dtf.reduce_sum %p : tensor<3x3xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
  return %loss : tensor<f32>
}

func.func @combine_mean() -> tensor<f32> {
  %table = dtf.variable "table" init(#dtf.random_normal<stddev = 1.0, seed = 3>) : !dtf.resource<tensor<5x3xf32>>
  %ids = dtf.constant dense<[[0, 4, 3], [1, 2, -1], [2, -1, -1]]> : tensor<3x3xi64>
  %r = dtf.placeholder "r" : tensor<3x3xf32>
  %rows = dtf.embedding_lookup %table[%ids] : !dtf.resource<tensor<5x3xf32>>, tensor<3x3xi64>
  %e = dtf.embedding_combine mean %rows, %ids : tensor<3x3x3xf32>, tensor<3x3xi64>
  %sq = dtf.mul %e, %e : tensor<3x3xf32>, tensor<3x3xf32>
  %p = dtf.mul %sq, %r : tensor<3x3xf32>, tensor<3x3xf32>
  %loss = dtf.reduce_sum %p : tensor<3x3xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
  return %loss : tensor<f32>
}

func.func @combine_sqrtn_weighted() -> tensor<f32> {
  %table = dtf.variable "table" init(#dtf.random_normal<stddev = 1.0, seed = 4>) : !dtf.resource<tensor<5x3xf32>>
  %ids = dtf.constant dense<[[0, 4, 3], [1, 2, -1], [2, 0, 1]]> : tensor<3x3xi64>
  %w = dtf.placeholder "w" : tensor<3x3xf32>
  %r = dtf.placeholder "r" : tensor<3x3xf32>
  %rows = dtf.embedding_lookup %table[%ids] : !dtf.resource<tensor<5x3xf32>>, tensor<3x3xi64>
  %e = dtf.embedding_combine sqrtn %rows, %ids weights %w : tensor<3x3x3xf32>, tensor<3x3xi64>, tensor<3x3xf32>
  %sq = dtf.mul %e, %e : tensor<3x3xf32>, tensor<3x3xf32>
  %p = dtf.mul %sq, %r : tensor<3x3xf32>, tensor<3x3xf32>
  %loss = dtf.reduce_sum %p : tensor<3x3xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
  return %loss : tensor<f32>
}

// Dense gradients through a gather of a value and a segment sum.
func.func @gather_segments() -> tensor<f32> {
  %x = dtf.variable "x" init(#dtf.random_normal<stddev = 1.0, seed = 5>) : !dtf.resource<tensor<4x2xf32>>
  %ids = dtf.constant dense<[1, 3, 1, -1, 0]> : tensor<5xi64>
  %segments = dtf.constant dense<[2, 0, 0, 1, -1]> : tensor<5xi64>
  %r = dtf.placeholder "r" : tensor<3x2xf32>
  %xv = dtf.read %x : !dtf.resource<tensor<4x2xf32>>
  %g = dtf.gather %xv[%ids] : tensor<4x2xf32>, tensor<5xi64>
  %sq = dtf.mul %g, %g : tensor<5x2xf32>, tensor<5x2xf32>
  %s = dtf.unsorted_segment_sum %sq, %segments num_segments 3 : tensor<5x2xf32>, tensor<5xi64>
  %p = dtf.mul %s, %r : tensor<3x2xf32>, tensor<3x2xf32>
  %loss = dtf.reduce_sum %p : tensor<3x2xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
  return %loss : tensor<f32>
}

func.func @logistic() -> tensor<f32> {
  %w = dtf.variable "w" init(#dtf.random_normal<stddev = 1.0, seed = 6>) : !dtf.resource<tensor<3x2xf32>>
  %x = dtf.placeholder "x" : tensor<4x3xf32>
  %labels = dtf.placeholder "labels" : tensor<4x2xf32>
  %wv = dtf.read %w : !dtf.resource<tensor<3x2xf32>>
  %logits = dtf.matmul %x, %wv : tensor<4x3xf32>, tensor<3x2xf32>
  %xent = dtf.sigmoid_cross_entropy_with_logits %logits, %labels : tensor<4x2xf32>
  %p = dtf.sigmoid %logits : tensor<4x2xf32>
  %both = dtf.add %xent, %p : tensor<4x2xf32>, tensor<4x2xf32>
  %loss = dtf.reduce_sum %both : tensor<4x2xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
  return %loss : tensor<f32>
}

// concat's gradient: each input gets its slice (the deep tower's input).
func.func @concat() -> tensor<f32> {
  %table = dtf.variable "table" init(#dtf.random_normal<stddev = 1.0, seed = 7>) : !dtf.resource<tensor<4x2xf32>>
  %x = dtf.variable "x" init(#dtf.random_normal<stddev = 1.0, seed = 8>) : !dtf.resource<tensor<2x3xf32>>
  %ids = dtf.constant dense<[[1, 3], [0, -1]]> : tensor<2x2xi64>
  %r = dtf.placeholder "r" : tensor<2x5xf32>
  %rows = dtf.embedding_lookup %table[%ids] : !dtf.resource<tensor<4x2xf32>>, tensor<2x2xi64>
  %e = dtf.embedding_combine sqrtn %rows, %ids : tensor<2x2x2xf32>, tensor<2x2xi64>
  %xv = dtf.read %x : !dtf.resource<tensor<2x3xf32>>
  %c = dtf.concat %e, %xv axis -1 : tensor<2x2xf32>, tensor<2x3xf32>
  %sq = dtf.mul %c, %c : tensor<2x5xf32>, tensor<2x5xf32>
  %p = dtf.mul %sq, %r : tensor<2x5xf32>, tensor<2x5xf32>
  %loss = dtf.reduce_sum %p : tensor<2x5xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
  return %loss : tensor<f32>
}
