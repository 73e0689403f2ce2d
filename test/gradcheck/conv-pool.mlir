// RUN: dtf-gradcheck --samples=32 %s | FileCheck %s
// conv2d wrt input and filter (SAME and VALID, strided or dilated), the
// dilated conv2d_backprop_input of tf.nn.conv2d_transpose, max_pool and
// avg_pool (SAME, whose edge windows average fewer cells, and VALID).

// CHECK-DAG: @conv_same input: 32 of 50
// CHECK-DAG: @conv_same filter: 32 of 54
// CHECK-DAG: @conv_valid_strided input: 32 of 98
// CHECK-DAG: @conv_valid_strided filter: 32 of 36
// CHECK-DAG: @conv_dilated_same input: 32 of 98
// CHECK-DAG: @conv_dilated_same filter: 32 of 36
// CHECK-DAG: @conv_dilated_valid input: 32 of 98
// CHECK-DAG: @conv_dilated_valid filter: 32 of 36
// CHECK-DAG: @conv_transpose_dilated value: 32 of 75
// CHECK-DAG: @conv_transpose_dilated filter: 32 of 36
// CHECK-DAG: @max_pool_same input: 32 of 50
// CHECK-DAG: @max_pool_valid_overlapping input: 32 of 98
// CHECK-DAG: @avg_pool_same input: 32 of 50
// CHECK-DAG: @avg_pool_valid_overlapping input: 32 of 98
// CHECK: gradient check passed

func.func @conv_same() -> tensor<f32> {
  %input = dtf.variable "input" init(#dtf.random_normal<stddev = 1.0, seed = 1>) : !dtf.resource<tensor<2x5x5x1xf32>>
  %filter = dtf.variable "filter" init(#dtf.random_normal<stddev = 1.0, seed = 2>) : !dtf.resource<tensor<3x3x1x6xf32>>
  %r = dtf.placeholder "r" : tensor<2x5x5x6xf32>
  %iv = dtf.read %input : !dtf.resource<tensor<2x5x5x1xf32>>
  %fv = dtf.read %filter : !dtf.resource<tensor<3x3x1x6xf32>>
  %y = dtf.conv2d %iv, %fv strides [1, 1, 1, 1] padding SAME : tensor<2x5x5x1xf32>, tensor<3x3x1x6xf32>
  %p = dtf.mul %y, %r : tensor<2x5x5x6xf32>, tensor<2x5x5x6xf32>
  %loss = dtf.reduce_sum %p : tensor<2x5x5x6xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
  return %loss : tensor<f32>
}

func.func @conv_valid_strided() -> tensor<f32> {
  %input = dtf.variable "input" init(#dtf.random_normal<stddev = 1.0, seed = 3>) : !dtf.resource<tensor<1x7x7x2xf32>>
  %filter = dtf.variable "filter" init(#dtf.random_normal<stddev = 1.0, seed = 4>) : !dtf.resource<tensor<3x2x2x3xf32>>
  %r = dtf.placeholder "r" : tensor<1x3x3x3xf32>
  %iv = dtf.read %input : !dtf.resource<tensor<1x7x7x2xf32>>
  %fv = dtf.read %filter : !dtf.resource<tensor<3x2x2x3xf32>>
  %y = dtf.conv2d %iv, %fv strides [1, 2, 2, 1] padding VALID : tensor<1x7x7x2xf32>, tensor<3x2x2x3xf32>
  %p = dtf.mul %y, %r : tensor<1x3x3x3xf32>, tensor<1x3x3x3xf32>
  %loss = dtf.reduce_sum %p : tensor<1x3x3x3xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
  return %loss : tensor<f32>
}

func.func @conv_dilated_same() -> tensor<f32> {
  %input = dtf.variable "input" init(#dtf.random_normal<stddev = 1.0, seed = 11>) : !dtf.resource<tensor<1x7x7x2xf32>>
  %filter = dtf.variable "filter" init(#dtf.random_normal<stddev = 1.0, seed = 12>) : !dtf.resource<tensor<3x2x2x3xf32>>
  %r = dtf.placeholder "r" : tensor<1x7x7x3xf32>
  %iv = dtf.read %input : !dtf.resource<tensor<1x7x7x2xf32>>
  %fv = dtf.read %filter : !dtf.resource<tensor<3x2x2x3xf32>>
  %y = dtf.conv2d %iv, %fv strides [1, 1, 1, 1] dilations [1, 2, 3, 1] padding SAME : tensor<1x7x7x2xf32>, tensor<3x2x2x3xf32>
  %p = dtf.mul %y, %r : tensor<1x7x7x3xf32>, tensor<1x7x7x3xf32>
  %loss = dtf.reduce_sum %p : tensor<1x7x7x3xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
  return %loss : tensor<f32>
}

func.func @conv_dilated_valid() -> tensor<f32> {
  %input = dtf.variable "input" init(#dtf.random_normal<stddev = 1.0, seed = 13>) : !dtf.resource<tensor<1x7x7x2xf32>>
  %filter = dtf.variable "filter" init(#dtf.random_normal<stddev = 1.0, seed = 14>) : !dtf.resource<tensor<3x2x2x3xf32>>
  %r = dtf.placeholder "r" : tensor<1x3x4x3xf32>
  %iv = dtf.read %input : !dtf.resource<tensor<1x7x7x2xf32>>
  %fv = dtf.read %filter : !dtf.resource<tensor<3x2x2x3xf32>>
  %y = dtf.conv2d %iv, %fv strides [1, 1, 1, 1] dilations [1, 2, 3, 1] padding VALID : tensor<1x7x7x2xf32>, tensor<3x2x2x3xf32>
  %p = dtf.mul %y, %r : tensor<1x3x4x3xf32>, tensor<1x3x4x3xf32>
  %loss = dtf.reduce_sum %p : tensor<1x3x4x3xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
  return %loss : tensor<f32>
}

func.func @conv_transpose_dilated() -> tensor<f32> {
  %value = dtf.variable "value" init(#dtf.random_normal<stddev = 1.0, seed = 15>) : !dtf.resource<tensor<1x5x5x3xf32>>
  %filter = dtf.variable "filter" init(#dtf.random_normal<stddev = 1.0, seed = 16>) : !dtf.resource<tensor<3x2x2x3xf32>>
  %r = dtf.placeholder "r" : tensor<1x9x8x2xf32>
  %vv = dtf.read %value : !dtf.resource<tensor<1x5x5x3xf32>>
  %fv = dtf.read %filter : !dtf.resource<tensor<3x2x2x3xf32>>
  %y = dtf.conv2d_backprop_input %fv, %vv strides [1, 1, 1, 1] dilations [1, 2, 3, 1] padding VALID : tensor<3x2x2x3xf32>, tensor<1x5x5x3xf32> -> tensor<1x9x8x2xf32>
  %p = dtf.mul %y, %r : tensor<1x9x8x2xf32>, tensor<1x9x8x2xf32>
  %loss = dtf.reduce_sum %p : tensor<1x9x8x2xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
  return %loss : tensor<f32>
}

func.func @max_pool_same() -> tensor<f32> {
  %input = dtf.variable "input" init(#dtf.random_normal<stddev = 1.0, seed = 5>) : !dtf.resource<tensor<2x5x5x1xf32>>
  %r = dtf.placeholder "r" : tensor<2x3x3x1xf32>
  %iv = dtf.read %input : !dtf.resource<tensor<2x5x5x1xf32>>
  %y = dtf.max_pool %iv ksize [1, 2, 2, 1] strides [1, 2, 2, 1] padding SAME : tensor<2x5x5x1xf32>
  %p = dtf.mul %y, %r : tensor<2x3x3x1xf32>, tensor<2x3x3x1xf32>
  %loss = dtf.reduce_sum %p : tensor<2x3x3x1xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
  return %loss : tensor<f32>
}

func.func @max_pool_valid_overlapping() -> tensor<f32> {
  %input = dtf.variable "input" init(#dtf.random_normal<stddev = 1.0, seed = 6>) : !dtf.resource<tensor<1x7x7x2xf32>>
  %r = dtf.placeholder "r" : tensor<1x3x3x2xf32>
  %iv = dtf.read %input : !dtf.resource<tensor<1x7x7x2xf32>>
  %y = dtf.max_pool %iv ksize [1, 3, 3, 1] strides [1, 2, 2, 1] padding VALID : tensor<1x7x7x2xf32>
  %p = dtf.mul %y, %r : tensor<1x3x3x2xf32>, tensor<1x3x3x2xf32>
  %loss = dtf.reduce_sum %p : tensor<1x3x3x2xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
  return %loss : tensor<f32>
}

func.func @avg_pool_same() -> tensor<f32> {
  %input = dtf.variable "input" init(#dtf.random_normal<stddev = 1.0, seed = 7>) : !dtf.resource<tensor<2x5x5x1xf32>>
  %r = dtf.placeholder "r" : tensor<2x2x2x1xf32>
  %iv = dtf.read %input : !dtf.resource<tensor<2x5x5x1xf32>>
  %y = dtf.avg_pool %iv ksize [1, 3, 3, 1] strides [1, 3, 3, 1] padding SAME : tensor<2x5x5x1xf32>
  %p = dtf.mul %y, %r : tensor<2x2x2x1xf32>, tensor<2x2x2x1xf32>
  %loss = dtf.reduce_sum %p : tensor<2x2x2x1xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
  return %loss : tensor<f32>
}

func.func @avg_pool_valid_overlapping() -> tensor<f32> {
  %input = dtf.variable "input" init(#dtf.random_normal<stddev = 1.0, seed = 8>) : !dtf.resource<tensor<1x7x7x2xf32>>
  %r = dtf.placeholder "r" : tensor<1x3x3x2xf32>
  %iv = dtf.read %input : !dtf.resource<tensor<1x7x7x2xf32>>
  %y = dtf.avg_pool %iv ksize [1, 3, 3, 1] strides [1, 2, 2, 1] padding VALID : tensor<1x7x7x2xf32>
  %p = dtf.mul %y, %r : tensor<1x3x3x2xf32>, tensor<1x3x3x2xf32>
  %loss = dtf.reduce_sum %p : tensor<1x3x3x2xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
  return %loss : tensor<f32>
}
