// RUN: dtf-opt %s -split-input-file -verify-diagnostics

// One case per diagnostic of the dtf dialect, roughly in the order of the
// sources (DTFAttrs.cpp, DTFDialect.cpp, DTFOps.cpp), then constraints
// generated from the ODS definitions for a few representative ops.
// Attribute and type errors are reported while parsing; the shape errors of
// ops whose result types are inferred while parsing their custom form (so
// without the "'dtf.op' op" prefix), the others while verifying.
//
// Not reachable from textual IR, hence not tested here: the checks of
// DeviceAttr::verify (the device-name parser rejects such names first), and
// the shape functions' "expects ranked tensors", "expects a ranked tensor",
// "expects strides and padding" and "expects ksize, strides and padding"
// (the ODS constraints and the custom parsers reject such ops first).

//===----------------------------------------------------------------------===//
// Attribute parameters
//===----------------------------------------------------------------------===//

func.func @bool_parameter(%loss: tensor<f32>) {
  // expected-error @+2 {{expected 'true' or 'false'}}
  // expected-error @+1 {{failed to parse DTF_MomentumAttr parameter 'use_nesterov' which is to be a `bool`}}
  dtf.minimize %loss : tensor<f32>, #dtf.momentum<learning_rate = 0.1, momentum = 0.9, use_nesterov = 1>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Device names
//===----------------------------------------------------------------------===//

func.func @device_no_leading_slash() {
  // expected-error @+1 {{invalid device 'job:ps/task:0': expected a leading '/'}}
  %v = dtf.variable "v" init(#dtf.zeros) {dtf.device = #dtf.device<"job:ps/task:0">} : !dtf.resource<tensor<f32>>
  return
}

// -----

func.func @device_no_job() {
  // expected-error @+1 {{invalid device '/task:0': expected 'job:NAME' first, got 'task:0'}}
  %v = dtf.variable "v" init(#dtf.zeros) {dtf.device = #dtf.device<"/task:0">} : !dtf.resource<tensor<f32>>
  return
}

// -----

func.func @device_unknown_job() {
  // expected-error @+1 {{invalid device '/job:foo/task:0': unknown job 'foo'; expected 'ps' or 'worker'}}
  %v = dtf.variable "v" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:foo/task:0">} : !dtf.resource<tensor<f32>>
  return
}

// -----

func.func @device_missing_task() {
  // expected-error @+1 {{invalid device '/job:ps': expected 'task:N' after the job, got ''}}
  %v = dtf.variable "v" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps">} : !dtf.resource<tensor<f32>>
  return
}

// -----

func.func @device_task_not_a_number() {
  // expected-error @+1 {{invalid device '/job:worker/task:one': task index 'one' is not a non-negative integer}}
  %v = dtf.variable "v" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:worker/task:one">} : !dtf.resource<tensor<f32>>
  return
}

// -----

func.func @device_negative_task() {
  // expected-error @+1 {{invalid device '/job:worker/task:-1': task index '-1' is not a non-negative integer}}
  %v = dtf.variable "v" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:worker/task:-1">} : !dtf.resource<tensor<f32>>
  return
}

// -----

func.func @device_bad_device_part() {
  // expected-error @+1 {{invalid device '/job:worker/task:0/gpu:0': expected 'device:TYPE:K' after the task, got 'gpu:0'}}
  %v = dtf.variable "v" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:worker/task:0/gpu:0">} : !dtf.resource<tensor<f32>>
  return
}

// -----

func.func @device_unknown_device_type() {
  // expected-error @+1 {{invalid device '/job:worker/task:0/device:TPU:0': unknown device type 'TPU'; expected 'CPU' or 'GPU'}}
  %v = dtf.variable "v" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:worker/task:0/device:TPU:0">} : !dtf.resource<tensor<f32>>
  return
}

// -----

func.func @device_missing_device_index() {
  // expected-error @+1 {{invalid device '/job:worker/task:0/device:GPU': device index '' is not a non-negative integer}}
  %v = dtf.variable "v" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:worker/task:0/device:GPU">} : !dtf.resource<tensor<f32>>
  return
}

// -----

func.func @device_trailing_component() {
  // expected-error @+1 {{invalid device '/job:worker/task:0/device:GPU:0/replica:0': unexpected component 'replica:0' after the device}}
  %v = dtf.variable "v" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:worker/task:0/device:GPU:0/replica:0">} : !dtf.resource<tensor<f32>>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Cluster
//===----------------------------------------------------------------------===//

// expected-error @+1 {{job 'ps' task 0: expected a "host:port" string, got 2222 : i64}}
module attributes {dtf.cluster = #dtf.cluster<ps = [2222], worker = ["localhost:2223"]>} {
}

// -----

// expected-error @+1 {{job 'worker' task 1: 'localhost' is not host:port with a port in 1..65535}}
module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2222"], worker = ["localhost:2223", "localhost"]>} {
}

// -----

// expected-error @+1 {{job 'ps' task 0: ':2222' is not host:port with a port in 1..65535}}
module attributes {dtf.cluster = #dtf.cluster<ps = [":2222"], worker = ["localhost:2223"]>} {
}

// -----

// expected-error @+1 {{job 'ps' task 0: 'localhost:0' is not host:port with a port in 1..65535}}
module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:0"], worker = ["localhost:2223"]>} {
}

// -----

// expected-error @+1 {{job 'ps' task 0: 'localhost:65536' is not host:port with a port in 1..65535}}
module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:65536"], worker = ["localhost:2223"]>} {
}

// -----

// expected-error @+1 {{the cluster has no worker task}}
module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2222"], worker = []>} {
}

// -----

//===----------------------------------------------------------------------===//
// Initializers and optimizers
//===----------------------------------------------------------------------===//

func.func @truncated_normal_zero_stddev() {
  // expected-error @+1 {{stddev must be positive and finite, got 0.000000e+00}}
  %w = dtf.variable "w" init(#dtf.truncated_normal<stddev = 0.0, seed = 1>) : !dtf.resource<tensor<2xf32>>
  return
}

// -----

func.func @random_normal_negative_stddev() {
  // expected-error @+1 {{stddev must be positive and finite, got -1.500000e+00}}
  %w = dtf.variable "w" init(#dtf.random_normal<stddev = -1.5, seed = 1>) : !dtf.resource<tensor<2xf32>>
  return
}

// -----

func.func @random_normal_infinite_mean() {
  // expected-error @+1 {{mean must be finite}}
  %w = dtf.variable "w" init(#dtf.random_normal<mean = 0x7FF0000000000000, stddev = 1.0, seed = 1>) : !dtf.resource<tensor<2xf32>>
  return
}

// -----

func.func @random_uniform_empty_range() {
  // expected-error @+1 {{minval must be less than maxval, got [5.000000e-01, 5.000000e-01)}}
  %w = dtf.variable "w" init(#dtf.random_uniform<minval = 0.5, maxval = 0.5, seed = 1>) : !dtf.resource<tensor<2xf32>>
  return
}

// -----

func.func @random_uniform_reversed_range() {
  // expected-error @+1 {{minval must be less than maxval, got [1.000000e+00, -1.000000e+00)}}
  %w = dtf.variable "w" init(#dtf.random_uniform<minval = 1.0, maxval = -1.0, seed = 1>) : !dtf.resource<tensor<2xf32>>
  return
}

// -----

func.func @random_uniform_infinite_bound() {
  // expected-error @+1 {{minval and maxval must be finite, got [0.000000e+00, INF)}}
  %w = dtf.variable "w" init(#dtf.random_uniform<minval = 0.0, maxval = 0x7FF0000000000000, seed = 1>) : !dtf.resource<tensor<2xf32>>
  return
}

// -----

func.func @random_uniform_nan_bound() {
  // expected-error @+1 {{minval and maxval must be finite, got [nan, 1.000000e+00)}}
  %w = dtf.variable "w" init(#dtf.random_uniform<minval = 0x7FF8000000000000, maxval = 1.0, seed = 1>) : !dtf.resource<tensor<2xf32>>
  return
}

// -----

func.func @random_uniform_range_overflows() {
  // expected-error @+1 {{maxval - minval must be finite, got [-1.000000e+308, 1.000000e+308)}}
  %w = dtf.variable "w" init(#dtf.random_uniform<minval = -1.0e+308, maxval = 1.0e+308, seed = 1>) : !dtf.resource<tensor<2xf32>>
  return
}

// -----

func.func @dense_init_vector() {
  // expected-error @+1 {{dense_init values must be a tensor, got 'vector<2xf32>'}}
  %w = dtf.variable "w" init(#dtf.dense_init<dense<[1.0, 2.0]> : vector<2xf32>>) : !dtf.resource<tensor<2xf32>>
  return
}

// -----

func.func @sgd_zero_learning_rate(%loss: tensor<f32>) {
  // expected-error @+1 {{learning_rate must be positive and finite, got 0.000000e+00}}
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.0>
  return
}

// -----

func.func @adam_infinite_learning_rate(%loss: tensor<f32>) {
  // expected-error @+1 {{learning_rate must be positive and finite, got INF}}
  dtf.minimize %loss : tensor<f32>, #dtf.adam<learning_rate = 0x7FF0000000000000>
  return
}

// -----

func.func @momentum_negative_learning_rate(%loss: tensor<f32>) {
  // expected-error @+1 {{learning_rate must be positive and finite, got -1.000000e-01}}
  dtf.minimize %loss : tensor<f32>, #dtf.momentum<learning_rate = -0.1, momentum = 0.9>
  return
}

// -----

func.func @momentum_negative(%loss: tensor<f32>) {
  // expected-error @+1 {{momentum must be non-negative and finite, got -5.000000e-01}}
  dtf.minimize %loss : tensor<f32>, #dtf.momentum<learning_rate = 0.1, momentum = -0.5>
  return
}

// -----

func.func @adam_beta1(%loss: tensor<f32>) {
  // expected-error @+1 {{beta1 must be in [0, 1), got 1.000000e+00}}
  dtf.minimize %loss : tensor<f32>, #dtf.adam<beta1 = 1.0>
  return
}

// -----

func.func @adam_beta2(%loss: tensor<f32>) {
  // expected-error @+1 {{beta2 must be in [0, 1), got -1.000000e-01}}
  dtf.minimize %loss : tensor<f32>, #dtf.adam<beta2 = -0.1>
  return
}

// -----

func.func @adam_epsilon(%loss: tensor<f32>) {
  // expected-error @+1 {{epsilon must be positive and finite, got 0.000000e+00}}
  dtf.minimize %loss : tensor<f32>, #dtf.adam<epsilon = 0.0>
  return
}

// -----

func.func @rmsprop_decay(%loss: tensor<f32>) {
  // expected-error @+1 {{decay must be in [0, 1], got 1.500000e+00}}
  dtf.minimize %loss : tensor<f32>, #dtf.rmsprop<learning_rate = 0.1, decay = 1.5>
  return
}

// -----

func.func @rmsprop_momentum(%loss: tensor<f32>) {
  // expected-error @+1 {{momentum must be non-negative and finite, got -1.000000e+00}}
  dtf.minimize %loss : tensor<f32>, #dtf.rmsprop<learning_rate = 0.1, momentum = -1.0>
  return
}

// -----

func.func @rmsprop_epsilon(%loss: tensor<f32>) {
  // expected-error @+1 {{epsilon must be positive and finite, got 0.000000e+00}}
  dtf.minimize %loss : tensor<f32>, #dtf.rmsprop<learning_rate = 0.1, epsilon = 0.0>
  return
}

// -----

func.func @adadelta_rho(%loss: tensor<f32>) {
  // expected-error @+1 {{rho must be in [0, 1], got 1.100000e+00}}
  dtf.minimize %loss : tensor<f32>, #dtf.adadelta<learning_rate = 1.0, rho = 1.1>
  return
}

// -----

func.func @adadelta_epsilon(%loss: tensor<f32>) {
  // expected-error @+1 {{epsilon must be positive and finite, got 0.000000e+00}}
  dtf.minimize %loss : tensor<f32>, #dtf.adadelta<learning_rate = 1.0, epsilon = 0.0>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

// Only the rows of a dynamic table are dynamic (dynamic-table-invalid.mlir).
func.func @resource_dynamic_shape() {
  // expected-error @+1 {{variable type 'tensor<10x?xf32>' must have a static shape, but for the first dimension of a dynamic table}}
  %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<10x?xf32>>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Discardable attributes (DTFDialect.cpp)
//===----------------------------------------------------------------------===//

module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2222"], worker = ["localhost:2223", "localhost:2224"]>} {
  func.func @device_task_out_of_range() {
    // expected-error @+1 {{device '/job:worker/task:2/device:GPU:0' is not in the cluster: job 'worker' has 2 tasks}}
    %v = dtf.variable "v" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:worker/task:2/device:GPU:0">} : !dtf.resource<tensor<f32>>
    return
  }
}

// -----

module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2222"], worker = ["localhost:2223"]>} {
  func.func @device_ps_task_out_of_range() {
    // expected-error @+1 {{device '/job:ps/task:1' is not in the cluster: job 'ps' has 1 task}}
    %v = dtf.variable "v" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps/task:1">} : !dtf.resource<tensor<f32>>
    return
  }
}

// -----

module attributes {dtf.cluster = #dtf.cluster<ps = [], worker = ["localhost:2223"]>} {
  // expected-error @+1 {{device '/job:ps/task:0' is not in the cluster: job 'ps' has 0 tasks}}
  func.func @device_no_ps_task() attributes {dtf.device = #dtf.device<"/job:ps/task:0">} {
    return
  }
}

// -----

// expected-error @+1 {{device '/job:worker/task:1' is not in the cluster: job 'worker' has 1 task}}
module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2222"], worker = ["localhost:2223"]>, dtf.device = #dtf.device<"/job:worker/task:1">} {
}

// -----

// expected-error @+1 {{'dtf.cluster' is only valid on a module}}
func.func @cluster_not_on_module() attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2222"], worker = ["localhost:2223"]>} {
  return
}

// -----

// expected-error @+1 {{'dtf.cluster' must be a #dtf.cluster attribute}}
module attributes {dtf.cluster = ["localhost:2222"]} {
}

// -----

func.func @device_not_a_device() {
  // expected-error @+1 {{'dtf.device' must be a #dtf.device attribute}}
  %v = dtf.variable "v" init(#dtf.zeros) {dtf.device = "/job:ps/task:0"} : !dtf.resource<tensor<f32>>
  return
}

// -----

func.func @unknown_dtf_attribute() {
  // expected-error @+1 {{unknown dtf attribute 'dtf.devices'}}
  %v = dtf.variable "v" init(#dtf.zeros) {dtf.devices = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<f32>>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Padding
//===----------------------------------------------------------------------===//

func.func @padding_keyword(%x: tensor<1x4x4x1xf32>, %f: tensor<2x2x1x1xf32>) {
  // expected-error @+1 {{custom op 'dtf.conv2d' expected padding SAME or VALID, got 'same'}}
  %0 = dtf.conv2d %x, %f strides [1, 1, 1, 1] padding same : tensor<1x4x4x1xf32>, tensor<2x2x1x1xf32>
  return
}

// -----

func.func @padding_keyword_full(%x: tensor<1x4x4x1xf32>) {
  // expected-error @+1 {{custom op 'dtf.max_pool' expected padding SAME or VALID, got 'FULL'}}
  %0 = dtf.max_pool %x ksize [1, 2, 2, 1] strides [1, 2, 2, 1] padding FULL : tensor<1x4x4x1xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Variables
//===----------------------------------------------------------------------===//

func.func @orthogonal_vector() {
  // expected-error @+1 {{'dtf.variable' op orthogonal initializer needs a variable of rank 2 or more (a matrix of rows and columns), got 'tensor<4xf32>'}}
  %v = dtf.variable "v" init(#dtf.orthogonal<seed = 1>) : !dtf.resource<tensor<4xf32>>
  return
}

// -----

func.func @orthogonal_integer_variable() {
  // expected-error @+1 {{'dtf.variable' op random initializer needs a float variable, got 'tensor<2x2xi32>'}}
  %w = dtf.variable "w" init(#dtf.orthogonal<seed = 1>) : !dtf.resource<tensor<2x2xi32>>
  return
}

// -----

func.func @truncated_normal_integer_variable() {
  // expected-error @+1 {{'dtf.variable' op random initializer needs a float variable, got 'tensor<2x2xi32>'}}
  %w = dtf.variable "w" init(#dtf.truncated_normal<stddev = 0.1, seed = 1>) : !dtf.resource<tensor<2x2xi32>>
  return
}

// -----

func.func @random_normal_integer_variable() {
  // expected-error @+1 {{'dtf.variable' op random initializer needs a float variable, got 'tensor<i64>'}}
  %w = dtf.variable "w" init(#dtf.random_normal<stddev = 0.1, seed = 1>) : !dtf.resource<tensor<i64>>
  return
}

// -----

func.func @random_uniform_integer_variable() {
  // expected-error @+1 {{'dtf.variable' op random initializer needs a float variable, got 'tensor<3xi32>'}}
  %w = dtf.variable "w" init(#dtf.random_uniform<minval = 0.0, maxval = 1.0, seed = 1>) : !dtf.resource<tensor<3xi32>>
  return
}

// -----

func.func @dense_init_shape_mismatch() {
  // expected-error @+1 {{'dtf.variable' op dense_init values of type 'tensor<2x2xf32>' do not match the variable's 'tensor<4xf32>'}}
  %w = dtf.variable "w" init(#dtf.dense_init<dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>>) : !dtf.resource<tensor<4xf32>>
  return
}

// -----

func.func @dense_init_element_type_mismatch() {
  // expected-error @+1 {{'dtf.variable' op dense_init values of type 'tensor<2xf64>' do not match the variable's 'tensor<2xf32>'}}
  %w = dtf.variable "w" init(#dtf.dense_init<dense<[1.0, 2.0]> : tensor<2xf64>>) : !dtf.resource<tensor<2xf32>>
  return
}

// -----

func.func @duplicate_variable_name() {
  // expected-note @+1 {{previous definition here}}
  %a = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<2xf32>>
  %b = dtf.variable "b" init(#dtf.zeros) : !dtf.resource<tensor<2xf32>>
  // expected-error @+1 {{'dtf.variable' op variable name 'w' is already used in this block}}
  %c = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<3xf32>>
  return
}

// -----

//===----------------------------------------------------------------------===//
// matmul
//===----------------------------------------------------------------------===//

func.func @matmul_not_a_matrix(%a: tensor<3xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+1 {{expects two 2-D tensors, got 'tensor<3xf32>' and 'tensor<3x4xf32>'}}
  %0 = dtf.matmul %a, %b : tensor<3xf32>, tensor<3x4xf32>
  return
}

// -----

func.func @matmul_element_types(%a: tensor<2x3xf32>, %b: tensor<3x4xf16>) {
  // expected-error @+1 {{element types differ: 'tensor<2x3xf32>' and 'tensor<3x4xf16>'}}
  %0 = dtf.matmul %a, %b : tensor<2x3xf32>, tensor<3x4xf16>
  return
}

// -----

func.func @matmul_inner_dims(%a: tensor<100x784xf32>, %b: tensor<100x10xf32>) {
  // expected-error @+1 {{inner dimensions differ: 'tensor<100x784xf32>' and 'tensor<100x10xf32>' multiply 784 by 100}}
  %0 = dtf.matmul %a, %b : tensor<100x784xf32>, tensor<100x10xf32>
  return
}

// -----

func.func @matmul_inner_dims_transposed(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+1 {{inner dimensions differ: 'tensor<2x3xf32>' (transposed) and 'tensor<3x4xf32>' (transposed) multiply 2 by 4}}
  %0 = dtf.matmul %a, %b {transpose_a = true, transpose_b = true} : tensor<2x3xf32>, tensor<3x4xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Broadcasting ops and bias_add
//===----------------------------------------------------------------------===//

func.func @broadcast_element_types(%a: tensor<2x3xf32>, %b: tensor<3xi32>) {
  // expected-error @+1 {{element types differ: 'tensor<2x3xf32>' and 'tensor<3xi32>'}}
  %0 = dtf.add %a, %b : tensor<2x3xf32>, tensor<3xi32>
  return
}

// -----

func.func @broadcast_incompatible(%a: tensor<2x3xf32>, %b: tensor<2xf32>) {
  // expected-error @+1 {{shapes are not broadcast-compatible: 'tensor<2x3xf32>' and 'tensor<2xf32>'}}
  %0 = dtf.sub %a, %b : tensor<2x3xf32>, tensor<2xf32>
  return
}

// -----

func.func @broadcast_incompatible_mul(%a: tensor<4x2x3xf32>, %b: tensor<3x1xf32>) {
  // expected-error @+1 {{shapes are not broadcast-compatible: 'tensor<4x2x3xf32>' and 'tensor<3x1xf32>'}}
  %0 = dtf.mul %a, %b : tensor<4x2x3xf32>, tensor<3x1xf32>
  return
}

// -----

func.func @broadcast_incompatible_equal(%a: tensor<100xi64>, %b: tensor<10xi64>) {
  // expected-error @+1 {{shapes are not broadcast-compatible: 'tensor<100xi64>' and 'tensor<10xi64>'}}
  %0 = dtf.equal %a, %b : tensor<100xi64>, tensor<10xi64>
  return
}

// -----

func.func @bias_add_rank(%x: tensor<f32>, %b: tensor<1xf32>) {
  // expected-error @+1 {{expects an input of rank >= 1 and a 1-D bias, got 'tensor<f32>' and 'tensor<1xf32>'}}
  %0 = dtf.bias_add %x, %b : tensor<f32>, tensor<1xf32>
  return
}

// -----

func.func @bias_add_element_types(%x: tensor<2x3xf32>, %b: tensor<3xf64>) {
  // expected-error @+1 {{element types differ: 'tensor<2x3xf32>' and 'tensor<3xf64>'}}
  %0 = dtf.bias_add %x, %b : tensor<2x3xf32>, tensor<3xf64>
  return
}

// -----

func.func @bias_add_mismatch(%x: tensor<100x28x28x32xf32>, %b: tensor<64xf32>) {
  // expected-error @+1 {{bias 'tensor<64xf32>' does not match the last dimension of 'tensor<100x28x28x32xf32>'}}
  %0 = dtf.bias_add %x, %b : tensor<100x28x28x32xf32>, tensor<64xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Unary ops, softmax cross-entropy
//===----------------------------------------------------------------------===//

func.func @softmax_scalar(%x: tensor<f32>) {
  // expected-error @+1 {{'dtf.softmax' op expects a tensor of rank >= 1, got 'tensor<f32>'}}
  %0 = dtf.softmax %x : tensor<f32>
  return
}

// -----

func.func @clip_min_above_max(%x: tensor<10xf32>) {
  // expected-error @+1 {{'dtf.clip_by_value' op min 1.000000e+00 is greater than max 1.000000e-10}}
  %0 = dtf.clip_by_value %x, 1.0, 1.0e-10 : tensor<10xf32>
  return
}

// -----

func.func @xent_rank(%logits: tensor<100x10x1xf32>, %labels: tensor<100x10xf32>) {
  // expected-error @+1 {{expects 2-D logits and labels, got 'tensor<100x10x1xf32>' and 'tensor<100x10xf32>'}}
  %0 = dtf.softmax_cross_entropy_with_logits %logits, %labels : tensor<100x10x1xf32>, tensor<100x10xf32>
  return
}

// -----

func.func @xent_mismatch(%logits: tensor<100x10xf32>, %labels: tensor<100x9xf32>) {
  // expected-error @+1 {{logits 'tensor<100x10xf32>' and labels 'tensor<100x9xf32>' differ}}
  %0 = dtf.softmax_cross_entropy_with_logits %logits, %labels : tensor<100x10xf32>, tensor<100x9xf32>
  return
}

// -----

func.func @sparse_xent_rank(%logits: tensor<100x10xf32>, %ids: tensor<100x1xi64>) {
  // expected-error @+1 {{expects 2-D logits and 1-D class ids, got 'tensor<100x10xf32>' and 'tensor<100x1xi64>'}}
  %0 = dtf.sparse_softmax_cross_entropy_with_logits %logits, %ids : tensor<100x10xf32>, tensor<100x1xi64>
  return
}

// -----

func.func @sparse_xent_examples(%logits: tensor<100x10xf32>, %ids: tensor<99xi64>) {
  // expected-error @+1 {{logits 'tensor<100x10xf32>' and class ids 'tensor<99xi64>' hold different numbers of examples}}
  %0 = dtf.sparse_softmax_cross_entropy_with_logits %logits, %ids : tensor<100x10xf32>, tensor<99xi64>
  return
}

// -----

func.func @sparse_xent_float_ids(%logits: tensor<100x10xf32>, %ids: tensor<100xf32>) {
  // expected-error @+1 {{operand #1 must be 1D tensor of 32-bit signless integer or 64-bit signless integer values}}
  %0 = dtf.sparse_softmax_cross_entropy_with_logits %logits, %ids : tensor<100x10xf32>, tensor<100xf32>
  return
}

// -----

func.func @sparse_xent_grad_dloss(%dloss: tensor<10xf32>, %logits: tensor<100x10xf32>, %ids: tensor<100xi64>) {
  // expected-error @+1 {{dloss 'tensor<10xf32>' does not match the loss 'tensor<100xf32>' of logits 'tensor<100x10xf32>'}}
  %0 = dtf.sparse_softmax_cross_entropy_with_logits_grad %dloss, %logits, %ids : tensor<10xf32>, tensor<100x10xf32>, tensor<100xi64>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Reductions, reshape, argmax, cast
//===----------------------------------------------------------------------===//

func.func @reduce_axis_out_of_range(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{axis 2 is out of range for 'tensor<2x3xf32>'}}
  %0 = dtf.reduce_sum %x {axes = array<i64: 2>} : tensor<2x3xf32>
  return
}

// -----

func.func @reduce_negative_axis_out_of_range(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{axis -3 is out of range for 'tensor<2x3xf32>'}}
  %0 = dtf.reduce_mean %x {axes = array<i64: -3>, keep_dims = true} : tensor<2x3xf32>
  return
}

// -----

func.func @reduce_axis_twice(%x: tensor<2x3x4xf32>) {
  // expected-error @+1 {{axis -2 is reduced twice in 'tensor<2x3x4xf32>'}}
  %0 = dtf.reduce_sum %x {axes = array<i64: 1, -2>} : tensor<2x3x4xf32>
  return
}

// -----

func.func @reshape_element_count(%x: tensor<100x784xf32>) {
  // expected-error @+1 {{'dtf.reshape' op cannot reshape 'tensor<100x784xf32>' (78400 elements) to 'tensor<100x28x28x3xf32>' (235200 elements)}}
  %0 = dtf.reshape %x : tensor<100x784xf32> -> tensor<100x28x28x3xf32>
  return
}

// -----

func.func @reshape_element_type(%x: tensor<100x784xf32>) {
  // expected-error @+1 {{'dtf.reshape' op element types differ: 'tensor<100x784xf32>' and 'tensor<78400xf16>'}}
  %0 = dtf.reshape %x : tensor<100x784xf32> -> tensor<78400xf16>
  return
}

// -----

func.func @argmax_scalar(%x: tensor<f32>) {
  // expected-error @+1 {{expects a tensor of rank >= 1, got 'tensor<f32>'}}
  %0 = dtf.argmax %x, 0 : tensor<f32>
  return
}

// -----

func.func @argmax_axis_out_of_range(%x: tensor<100x10xf32>) {
  // expected-error @+1 {{axis 2 is out of range for 'tensor<100x10xf32>'}}
  %0 = dtf.argmax %x, 2 : tensor<100x10xf32>
  return
}

// -----

func.func @cast_shape(%x: tensor<100xi1>) {
  // expected-error @+1 {{'dtf.cast' op cannot change the shape: 'tensor<100xi1>' to 'tensor<10xf32>'}}
  %0 = dtf.cast %x : tensor<100xi1> to tensor<10xf32>
  return
}

// -----

func.func @cast_rank(%x: tensor<100xi1>) {
  // expected-error @+1 {{'dtf.cast' op cannot change the shape: 'tensor<100xi1>' to 'tensor<100x1xf32>'}}
  %0 = dtf.cast %x : tensor<100xi1> to tensor<100x1xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// conv2d and max_pool
//===----------------------------------------------------------------------===//

func.func @conv2d_rank(%x: tensor<28x28x1xf32>, %f: tensor<5x5x1x32xf32>) {
  // expected-error @+1 {{expects a 4-D NHWC input and a 4-D HWIO filter, got 'tensor<28x28x1xf32>' and 'tensor<5x5x1x32xf32>'}}
  %0 = dtf.conv2d %x, %f strides [1, 1, 1, 1] padding SAME : tensor<28x28x1xf32>, tensor<5x5x1x32xf32>
  return
}

// -----

func.func @conv2d_element_types(%x: tensor<1x28x28x1xf32>, %f: tensor<5x5x1x32xbf16>) {
  // expected-error @+1 {{element types differ: 'tensor<1x28x28x1xf32>' and 'tensor<5x5x1x32xbf16>'}}
  %0 = dtf.conv2d %x, %f strides [1, 1, 1, 1] padding SAME : tensor<1x28x28x1xf32>, tensor<5x5x1x32xbf16>
  return
}

// -----

func.func @conv2d_channels(%x: tensor<100x14x14x32xf32>, %f: tensor<5x5x1x64xf32>) {
  // expected-error @+1 {{input 'tensor<100x14x14x32xf32>' has 32 channels but filter 'tensor<5x5x1x64xf32>' expects 1}}
  %0 = dtf.conv2d %x, %f strides [1, 1, 1, 1] padding SAME : tensor<100x14x14x32xf32>, tensor<5x5x1x64xf32>
  return
}

// -----

func.func @conv2d_strides_batch(%x: tensor<1x28x28x1xf32>, %f: tensor<5x5x1x32xf32>) {
  // expected-error @+1 {{strides must be [1, h, w, 1] with h, w >= 1 (NHWC), got [2, 1, 1, 1]}}
  %0 = dtf.conv2d %x, %f strides [2, 1, 1, 1] padding SAME : tensor<1x28x28x1xf32>, tensor<5x5x1x32xf32>
  return
}

// -----

func.func @conv2d_strides_zero(%x: tensor<1x28x28x1xf32>, %f: tensor<5x5x1x32xf32>) {
  // expected-error @+1 {{strides must be [1, h, w, 1] with h, w >= 1 (NHWC), got [1, 0, 1, 1]}}
  %0 = dtf.conv2d %x, %f strides [1, 0, 1, 1] padding SAME : tensor<1x28x28x1xf32>, tensor<5x5x1x32xf32>
  return
}

// -----

func.func @conv2d_strides_count(%x: tensor<1x28x28x1xf32>, %f: tensor<5x5x1x32xf32>) {
  // expected-error @+1 {{strides must be [1, h, w, 1] with h, w >= 1 (NHWC), got [1, 2, 2]}}
  %0 = dtf.conv2d %x, %f strides [1, 2, 2] padding SAME : tensor<1x28x28x1xf32>, tensor<5x5x1x32xf32>
  return
}

// -----

func.func @conv2d_valid_window_too_big(%x: tensor<1x4x4x1xf32>, %f: tensor<5x5x1x32xf32>) {
  // expected-error @+1 {{window 5x5 does not fit in 'tensor<1x4x4x1xf32>' with VALID padding}}
  %0 = dtf.conv2d %x, %f strides [1, 1, 1, 1] padding VALID : tensor<1x4x4x1xf32>, tensor<5x5x1x32xf32>
  return
}

// -----

func.func @conv2d_dilations_count(%x: tensor<1x28x28x1xf32>, %f: tensor<5x5x1x32xf32>) {
  // expected-error @+1 {{dilations must have 4 elements [1, h, w, 1] (NHWC), got [1, 2, 2]}}
  %0 = dtf.conv2d %x, %f strides [1, 1, 1, 1] dilations [1, 2, 2] padding SAME : tensor<1x28x28x1xf32>, tensor<5x5x1x32xf32>
  return
}

// -----

func.func @conv2d_dilations_batch(%x: tensor<1x28x28x1xf32>, %f: tensor<5x5x1x32xf32>) {
  // expected-error @+1 {{dilations of the batch and channel dimensions must be 1, got [2, 1, 1, 1]}}
  %0 = dtf.conv2d %x, %f strides [1, 1, 1, 1] dilations [2, 1, 1, 1] padding SAME : tensor<1x28x28x1xf32>, tensor<5x5x1x32xf32>
  return
}

// -----

func.func @conv2d_dilations_channel(%x: tensor<1x28x28x1xf32>, %f: tensor<5x5x1x32xf32>) {
  // expected-error @+1 {{dilations of the batch and channel dimensions must be 1, got [1, 2, 2, 2]}}
  %0 = dtf.conv2d %x, %f strides [1, 1, 1, 1] dilations [1, 2, 2, 2] padding SAME : tensor<1x28x28x1xf32>, tensor<5x5x1x32xf32>
  return
}

// -----

func.func @conv2d_dilations_zero(%x: tensor<1x28x28x1xf32>, %f: tensor<5x5x1x32xf32>) {
  // expected-error @+1 {{dilations must be >= 1, got [1, 2, 0, 1]}}
  %0 = dtf.conv2d %x, %f strides [1, 1, 1, 1] dilations [1, 2, 0, 1] padding SAME : tensor<1x28x28x1xf32>, tensor<5x5x1x32xf32>
  return
}

// -----

func.func @conv2d_dilations_with_strides(%x: tensor<1x28x28x1xf32>, %f: tensor<5x5x1x32xf32>) {
  // expected-error @+1 {{strides [1, 1, 2, 1] and dilations [1, 2, 1, 1]: a convolution is strided or dilated, not both (as tf.nn.convolution and Keras require)}}
  %0 = dtf.conv2d %x, %f strides [1, 1, 2, 1] dilations [1, 2, 1, 1] padding SAME : tensor<1x28x28x1xf32>, tensor<5x5x1x32xf32>
  return
}

// -----

func.func @conv2d_dilated_window_too_big(%x: tensor<1x8x8x1xf32>, %f: tensor<3x3x1x32xf32>) {
  // A 3x3 filter dilated by 4 spans 9x9 cells.
  // expected-error @+1 {{window 9x9 does not fit in 'tensor<1x8x8x1xf32>' with VALID padding}}
  %0 = dtf.conv2d %x, %f strides [1, 1, 1, 1] dilations [1, 4, 4, 1] padding VALID : tensor<1x8x8x1xf32>, tensor<3x3x1x32xf32>
  return
}

// -----

func.func @max_pool_rank(%x: tensor<28x28x1xf32>) {
  // expected-error @+1 {{expects a 4-D NHWC input, got 'tensor<28x28x1xf32>'}}
  %0 = dtf.max_pool %x ksize [1, 2, 2, 1] strides [1, 2, 2, 1] padding SAME : tensor<28x28x1xf32>
  return
}

// -----

func.func @max_pool_ksize(%x: tensor<1x28x28x32xf32>) {
  // expected-error @+1 {{ksize must be [1, h, w, 1] with h, w >= 1 (NHWC), got [1, 2, 2, 2]}}
  %0 = dtf.max_pool %x ksize [1, 2, 2, 2] strides [1, 2, 2, 1] padding SAME : tensor<1x28x28x32xf32>
  return
}

// -----

func.func @max_pool_strides(%x: tensor<1x28x28x32xf32>) {
  // expected-error @+1 {{strides must be [1, h, w, 1] with h, w >= 1 (NHWC), got [1, -2, 2, 1]}}
  %0 = dtf.max_pool %x ksize [1, 2, 2, 1] strides [1, -2, 2, 1] padding SAME : tensor<1x28x28x32xf32>
  return
}

// -----

func.func @max_pool_valid_window_too_big(%x: tensor<1x7x1x32xf32>) {
  // expected-error @+1 {{window 2x2 does not fit in 'tensor<1x7x1x32xf32>' with VALID padding}}
  %0 = dtf.max_pool %x ksize [1, 2, 2, 1] strides [1, 2, 2, 1] padding VALID : tensor<1x7x1x32xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// minimize and apply_gradients
//===----------------------------------------------------------------------===//

func.func @minimize_float_global_step(%loss: tensor<f32>) {
  %step = dtf.variable "global_step" init(#dtf.zeros) {trainable = false} : !dtf.resource<tensor<f32>>
  // expected-error @+1 {{'dtf.minimize' op global step must hold a scalar integer, got 'tensor<f32>'}}
  dtf.minimize %loss : tensor<f32>, #dtf.adam<> global_step %step : !dtf.resource<tensor<f32>>
  return
}

// -----

func.func @minimize_vector_global_step(%loss: tensor<f32>) {
  %step = dtf.variable "global_step" init(#dtf.zeros) {trainable = false} : !dtf.resource<tensor<1xi64>>
  // expected-error @+1 {{'dtf.minimize' op global step must hold a scalar integer, got 'tensor<1xi64>'}}
  dtf.minimize %loss : tensor<f32>, #dtf.adam<> global_step %step : !dtf.resource<tensor<1xi64>>
  return
}

// -----

func.func @apply_gradients_count(%dw: tensor<4x2xf32>) {
  %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<4x2xf32>>
  %b = dtf.variable "b" init(#dtf.zeros) : !dtf.resource<tensor<2xf32>>
  // expected-error @+1 {{'dtf.apply_gradients' op has 2 variables but 1 gradients}}
  dtf.apply_gradients #dtf.sgd<learning_rate = 0.5> (%w, %b : !dtf.resource<tensor<4x2xf32>>, !dtf.resource<tensor<2xf32>>) grads(%dw : tensor<4x2xf32>)
  return
}

// -----

func.func @apply_gradients_type(%dw: tensor<4x2xf32>, %db: tensor<3xf32>) {
  %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<4x2xf32>>
  %b = dtf.variable "b" init(#dtf.zeros) : !dtf.resource<tensor<2xf32>>
  // expected-error @+1 {{'dtf.apply_gradients' op gradient #1 has type 'tensor<3xf32>' but its variable holds 'tensor<2xf32>'}}
  dtf.apply_gradients #dtf.sgd<learning_rate = 0.5> (%w, %b : !dtf.resource<tensor<4x2xf32>>, !dtf.resource<tensor<2xf32>>) grads(%dw, %db : tensor<4x2xf32>, tensor<3xf32>)
  return
}

// -----

func.func @apply_gradients_global_step(%dw: tensor<4x2xf32>) {
  %step = dtf.variable "global_step" init(#dtf.zeros) {trainable = false} : !dtf.resource<tensor<2xi32>>
  %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<4x2xf32>>
  // expected-error @+1 {{'dtf.apply_gradients' op global step must hold a scalar integer, got 'tensor<2xi32>'}}
  dtf.apply_gradients #dtf.sgd<learning_rate = 0.5> (%w : !dtf.resource<tensor<4x2xf32>>) grads(%dw : tensor<4x2xf32>) global_step %step : !dtf.resource<tensor<2xi32>>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Gradient ops
//===----------------------------------------------------------------------===//

func.func @xent_grad_dloss(%dloss: tensor<10xf32>, %logits: tensor<100x10xf32>, %labels: tensor<100x10xf32>) {
  // expected-error @+1 {{dloss 'tensor<10xf32>' does not match the loss 'tensor<100xf32>' of logits 'tensor<100x10xf32>'}}
  %0 = dtf.softmax_cross_entropy_with_logits_grad %dloss, %logits, %labels : tensor<10xf32>, tensor<100x10xf32>, tensor<100x10xf32>
  return
}

// -----

func.func @xent_grad_logits(%dloss: tensor<100xf32>, %logits: tensor<100x10xf32>, %labels: tensor<100x1xf32>) {
  // expected-error @+1 {{logits 'tensor<100x10xf32>' and labels 'tensor<100x1xf32>' differ}}
  %0 = dtf.softmax_cross_entropy_with_logits_grad %dloss, %logits, %labels : tensor<100xf32>, tensor<100x10xf32>, tensor<100x1xf32>
  return
}

// -----

func.func @bias_add_grad_scalar(%dy: tensor<f32>) {
  // expected-error @+1 {{expects a tensor of rank >= 1, got 'tensor<f32>'}}
  %0 = dtf.bias_add_grad %dy : tensor<f32>
  return
}

// -----

func.func @broadcast_to_incompatible(%x: tensor<3xf32>) {
  // expected-error @+1 {{'dtf.broadcast_to' op cannot broadcast 'tensor<3xf32>' to 'tensor<2x4xf32>'}}
  %0 = dtf.broadcast_to %x : tensor<3xf32> -> tensor<2x4xf32>
  return
}

// -----

func.func @broadcast_to_smaller_rank(%x: tensor<1x3xf32>) {
  // expected-error @+1 {{'dtf.broadcast_to' op cannot broadcast 'tensor<1x3xf32>' to 'tensor<3xf32>'}}
  %0 = dtf.broadcast_to %x : tensor<1x3xf32> -> tensor<3xf32>
  return
}

// -----

func.func @broadcast_to_shrinks(%x: tensor<4x3xf32>) {
  // expected-error @+1 {{'dtf.broadcast_to' op cannot broadcast 'tensor<4x3xf32>' to 'tensor<1x3xf32>'}}
  %0 = dtf.broadcast_to %x : tensor<4x3xf32> -> tensor<1x3xf32>
  return
}

// -----

func.func @conv2d_backprop_input_dy(%f: tensor<5x5x1x32xf32>, %dy: tensor<100x28x28x32xf32>) {
  // expected-error @+1 {{'dtf.conv2d_backprop_input' op conv2d of 'tensor<100x28x28x1xf32>' with filter 'tensor<5x5x1x32xf32>' gives 'tensor<100x14x14x32xf32>', but dy is 'tensor<100x28x28x32xf32>'}}
  %0 = dtf.conv2d_backprop_input %f, %dy strides [1, 2, 2, 1] padding SAME : tensor<5x5x1x32xf32>, tensor<100x28x28x32xf32> -> tensor<100x28x28x1xf32>
  return
}

// -----

func.func @conv2d_backprop_input_channels(%f: tensor<5x5x1x32xf32>, %dy: tensor<100x28x28x32xf32>) {
  // expected-error @+1 {{input 'tensor<100x28x28x3xf32>' has 3 channels but filter 'tensor<5x5x1x32xf32>' expects 1}}
  %0 = dtf.conv2d_backprop_input %f, %dy strides [1, 1, 1, 1] padding SAME : tensor<5x5x1x32xf32>, tensor<100x28x28x32xf32> -> tensor<100x28x28x3xf32>
  return
}

// -----

func.func @conv2d_backprop_filter_dy(%x: tensor<100x28x28x1xf32>, %dy: tensor<100x24x24x32xf32>) {
  // expected-error @+1 {{'dtf.conv2d_backprop_filter' op conv2d of 'tensor<100x28x28x1xf32>' with filter 'tensor<5x5x1x32xf32>' gives 'tensor<100x28x28x32xf32>', but dy is 'tensor<100x24x24x32xf32>'}}
  %0 = dtf.conv2d_backprop_filter %x, %dy strides [1, 1, 1, 1] padding SAME : tensor<100x28x28x1xf32>, tensor<100x24x24x32xf32> -> tensor<5x5x1x32xf32>
  return
}

// -----

func.func @conv2d_backprop_filter_strides(%x: tensor<100x28x28x1xf32>, %dy: tensor<100x28x28x32xf32>) {
  // expected-error @+1 {{strides must be [1, h, w, 1] with h, w >= 1 (NHWC), got [1, 1, 1, 2]}}
  %0 = dtf.conv2d_backprop_filter %x, %dy strides [1, 1, 1, 2] padding SAME : tensor<100x28x28x1xf32>, tensor<100x28x28x32xf32> -> tensor<5x5x1x32xf32>
  return
}

// -----

func.func @conv2d_backprop_input_dilated_dy(%f: tensor<5x5x1x32xf32>, %dy: tensor<100x24x24x32xf32>) {
  // expected-error @+1 {{'dtf.conv2d_backprop_input' op conv2d of 'tensor<100x28x28x1xf32>' with filter 'tensor<5x5x1x32xf32>' gives 'tensor<100x20x20x32xf32>', but dy is 'tensor<100x24x24x32xf32>'}}
  %0 = dtf.conv2d_backprop_input %f, %dy strides [1, 1, 1, 1] dilations [1, 2, 2, 1] padding VALID : tensor<5x5x1x32xf32>, tensor<100x24x24x32xf32> -> tensor<100x28x28x1xf32>
  return
}

// -----

func.func @conv2d_backprop_input_dilations_with_strides(%f: tensor<5x5x1x32xf32>, %dy: tensor<100x14x14x32xf32>) {
  // expected-error @+1 {{strides [1, 2, 2, 1] and dilations [1, 2, 2, 1]: a convolution is strided or dilated, not both (as tf.nn.convolution and Keras require)}}
  %0 = dtf.conv2d_backprop_input %f, %dy strides [1, 2, 2, 1] dilations [1, 2, 2, 1] padding SAME : tensor<5x5x1x32xf32>, tensor<100x14x14x32xf32> -> tensor<100x28x28x1xf32>
  return
}

// -----

func.func @conv2d_backprop_filter_dilations_zero(%x: tensor<100x28x28x1xf32>, %dy: tensor<100x28x28x32xf32>) {
  // expected-error @+1 {{dilations must be >= 1, got [1, 0, 1, 1]}}
  %0 = dtf.conv2d_backprop_filter %x, %dy strides [1, 1, 1, 1] dilations [1, 0, 1, 1] padding SAME : tensor<100x28x28x1xf32>, tensor<100x28x28x32xf32> -> tensor<5x5x1x32xf32>
  return
}

// -----

func.func @max_pool_grad_dy(%x: tensor<100x28x28x32xf32>, %y: tensor<100x13x13x32xf32>) {
  // expected-error @+1 {{'dtf.max_pool_grad' op max_pool of 'tensor<100x28x28x32xf32>' gives 'tensor<100x14x14x32xf32>', but dy is 'tensor<100x13x13x32xf32>'}}
  %0 = dtf.max_pool_grad %x, %y, %y ksize [1, 2, 2, 1] strides [1, 2, 2, 1] padding SAME : tensor<100x28x28x32xf32>, tensor<100x13x13x32xf32>
  return
}

// -----

func.func @max_pool_grad_ksize(%x: tensor<100x28x28x32xf32>, %y: tensor<100x14x14x32xf32>) {
  // expected-error @+1 {{strides must be [1, h, w, 1] with h, w >= 1 (NHWC), got [1, 2, 0, 1]}}
  %0 = dtf.max_pool_grad %x, %y, %y ksize [1, 2, 2, 1] strides [1, 2, 0, 1] padding SAME : tensor<100x28x28x32xf32>, tensor<100x14x14x32xf32>
  return
}

// -----

func.func @max_pool_grad_valid_window_too_big(%x: tensor<1x1x1x3xf32>, %y: tensor<1x1x1x3xf32>) {
  // expected-error @+1 {{window 2x2 does not fit in 'tensor<1x1x1x3xf32>' with VALID padding}}
  %0 = dtf.max_pool_grad %x, %y, %y ksize [1, 2, 2, 1] strides [1, 1, 1, 1] padding VALID : tensor<1x1x1x3xf32>, tensor<1x1x1x3xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Constraints generated from the ODS definitions
//===----------------------------------------------------------------------===//

func.func @ods_minimize_loss_not_scalar(%loss: tensor<2xf32>) {
  // expected-error @+1 {{'dtf.minimize' op operand #0 must be 0D tensor of floating-point values, but got 'tensor<2xf32>'}}
  dtf.minimize %loss : tensor<2xf32>, #dtf.sgd<learning_rate = 0.5>
  return
}

// -----

func.func @ods_matmul_rank(%a: tensor<2x3x4xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+1 {{'dtf.matmul' op operand #0 must be 2D tensor of floating-point values, but got 'tensor<2x3x4xf32>'}}
  %0 = "dtf.matmul"(%a, %b) : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return
}

// -----

func.func @ods_relu_integer(%x: tensor<10xi32>) {
  // expected-error @+1 {{'dtf.relu' op operand #0 must be ranked tensor of floating-point values, but got 'tensor<10xi32>'}}
  %0 = dtf.relu %x : tensor<10xi32>
  return
}

// -----

func.func @ods_relu_grad_types(%dy: tensor<10xf32>, %x: tensor<10xf16>) {
  // expected-error @+1 {{'dtf.relu_grad' op requires the same type for all operands and results}}
  %0 = "dtf.relu_grad"(%dy, %x) : (tensor<10xf32>, tensor<10xf16>) -> tensor<10xf32>
  return
}

// -----

func.func @ods_assign_type(%v: tensor<3xf32>) {
  %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<2xf32>>
  // expected-error @+1 {{'dtf.assign' op failed to verify that value has the variable's type}}
  "dtf.assign"(%w, %v) : (!dtf.resource<tensor<2xf32>>, tensor<3xf32>) -> ()
  return
}

// -----

func.func @ods_read_result_type() {
  %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<2xf32>>
  // expected-error @+2 {{'dtf.read' op inferred type(s) 'tensor<2xf32>' are incompatible with return type(s) of operation 'tensor<3xf32>'}}
  // expected-error @+1 {{'dtf.read' op failed to infer returned types}}
  %0 = "dtf.read"(%w) : (!dtf.resource<tensor<2xf32>>) -> tensor<3xf32>
  return
}

// -----

func.func @ods_variable_initializer() {
  // expected-error @+1 {{'dtf.variable' op attribute 'initializer' failed to satisfy constraint: initializes a variable with zeros or initializes every element of a variable with one value or normal samples, redrawn beyond two standard deviations or normal samples}}
  %w = dtf.variable "w" init(0.0 : f32) : !dtf.resource<tensor<2xf32>>
  return
}

// -----

func.func @ods_apply_gradient_descent_grad(%g: tensor<4x2xf64>) {
  %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<4x2xf32>>
  // expected-error @+1 {{'dtf.apply_gradient_descent' op failed to verify that gradient has the variable's type}}
  "dtf.apply_gradient_descent"(%w, %g) <{learning_rate = 0.1 : f64}> : (!dtf.resource<tensor<4x2xf32>>, tensor<4x2xf64>) -> ()
  return
}

// -----

func.func @ods_apply_momentum_slot(%g: tensor<4x2xf32>) {
  %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<4x2xf32>>
  %accum = dtf.variable "w/Momentum" init(#dtf.zeros) {trainable = false} : !dtf.resource<tensor<2xf32>>
  // expected-error @+1 {{'dtf.apply_momentum' op failed to verify that slot has the variable's type}}
  "dtf.apply_momentum"(%w, %accum, %g) <{learning_rate = 0.1 : f64, momentum = 0.9 : f64}> : (!dtf.resource<tensor<4x2xf32>>, !dtf.resource<tensor<2xf32>>, tensor<4x2xf32>) -> ()
  return
}

// -----

func.func @ods_apply_adam_beta_powers(%g: tensor<4x2xf32>, %b1p: tensor<f32>, %b2p: tensor<f64>) {
  %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<4x2xf32>>
  // expected-error @+1 {{'dtf.apply_adam' op failed to verify that all of {beta1_power, beta2_power} have same type}}
  "dtf.apply_adam"(%w, %w, %w, %b1p, %b2p, %g) <{beta1 = 0.9 : f64, beta2 = 0.999 : f64, epsilon = 1.0e-08 : f64, learning_rate = 0.001 : f64}> : (!dtf.resource<tensor<4x2xf32>>, !dtf.resource<tensor<4x2xf32>>, !dtf.resource<tensor<4x2xf32>>, tensor<f32>, tensor<f64>, tensor<4x2xf32>) -> ()
  return
}

// -----

func.func @ods_max_pool_grad_types(%x: tensor<1x4x4x1xf32>, %y: tensor<1x2x2x1xf32>, %dy: tensor<1x2x2x2xf32>) {
  // expected-error @+1 {{'dtf.max_pool_grad' op failed to verify that all of {output_value, dy} have same type}}
  %0 = "dtf.max_pool_grad"(%x, %y, %dy) <{ksize = array<i64: 1, 2, 2, 1>, padding = #dtf<padding SAME>, strides = array<i64: 1, 2, 2, 1>}> : (tensor<1x4x4x1xf32>, tensor<1x2x2x1xf32>, tensor<1x2x2x2xf32>) -> tensor<1x4x4x1xf32>
  return
}

// -----

func.func @ods_max_pool_grad_window_count(%x: tensor<1x4x4x1xf32>, %y: tensor<1x2x2x1xf32>) {
  // expected-error @+1 {{'dtf.max_pool_grad' op attribute 'ksize' failed to satisfy constraint: i64 dense array attribute with exactly 4 elements}}
  %0 = dtf.max_pool_grad %x, %y, %y ksize [1, 2, 2] strides [1, 2, 2, 1] padding SAME : tensor<1x4x4x1xf32>, tensor<1x2x2x1xf32>
  return
}

// -----

func.func @ods_inferred_type_mismatch(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+2 {{'dtf.add' op inferred type(s) 'tensor<2x3xf32>' are incompatible with return type(s) of operation 'tensor<3xf32>'}}
  // expected-error @+1 {{'dtf.add' op failed to infer returned types}}
  %0 = "dtf.add"(%a, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @clip_norm(%loss: tensor<f32>) {
  // expected-error @+1 {{clip_by_global_norm must be positive and finite, got 0}}
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1> clip_by_global_norm 0.0
  return
}
