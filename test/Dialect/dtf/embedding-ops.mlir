// RUN: dtf-opt %s | dtf-opt | FileCheck %s
// The ops of embeddings and sparse gradients print as they parse.

// CHECK-LABEL: func.func @lookups
func.func @lookups(%ids: tensor<4x3xi64>, %w: tensor<4x3xf32>, %ids32: tensor<6xi32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<6x8xf32>) {
  %table = dtf.variable "table" init(#dtf.zeros) : !dtf.resource<tensor<100x8xf32>>
  // CHECK: %[[ROWS:.*]] = dtf.embedding_lookup %{{.*}}[%arg0] : !dtf.resource<tensor<100x8xf32>>, tensor<4x3xi64>
  %rows = dtf.embedding_lookup %table[%ids] : !dtf.resource<tensor<100x8xf32>>, tensor<4x3xi64>
  // CHECK: dtf.embedding_combine mean %[[ROWS]], %arg0 : tensor<4x3x8xf32>, tensor<4x3xi64>
  %mean = dtf.embedding_combine mean %rows, %ids : tensor<4x3x8xf32>, tensor<4x3xi64>
  // CHECK: dtf.embedding_combine sqrtn %[[ROWS]], %arg0 weights %arg1 : tensor<4x3x8xf32>, tensor<4x3xi64>, tensor<4x3xf32>
  %weighted = dtf.embedding_combine sqrtn %rows, %ids weights %w : tensor<4x3x8xf32>, tensor<4x3xi64>, tensor<4x3xf32>
  // CHECK: dtf.embedding_combine_grad sum %{{.*}}, %arg0 : tensor<4x8xf32>, tensor<4x3xi64> -> tensor<4x3x8xf32>
  %grad = dtf.embedding_combine_grad sum %mean, %ids : tensor<4x8xf32>, tensor<4x3xi64> -> tensor<4x3x8xf32>
  %value = dtf.read %table : !dtf.resource<tensor<100x8xf32>>
  // CHECK: dtf.gather %{{.*}}[%arg2] : tensor<100x8xf32>, tensor<6xi32>
  %gathered = dtf.gather %value[%ids32] : tensor<100x8xf32>, tensor<6xi32>
  // CHECK: dtf.unsorted_segment_sum %{{.*}}, %arg2 num_segments 6 : tensor<6x8xf32>, tensor<6xi32>
  %sums = dtf.unsorted_segment_sum %gathered, %ids32 num_segments 6 : tensor<6x8xf32>, tensor<6xi32>
  return %mean, %weighted, %sums : tensor<4x8xf32>, tensor<4x8xf32>, tensor<6x8xf32>
}

// CHECK-LABEL: func.func @sync_sparse_mean
func.func @sync_sparse_mean(%rows: tensor<?x8xf32>, %ids: tensor<?xi64>) -> tensor<?x8xf32> {
  // CHECK: dtf.divide_by_id_count %arg0, %arg1 : tensor<?x8xf32>, tensor<?xi64>
  %mean = dtf.divide_by_id_count %rows, %ids : tensor<?x8xf32>, tensor<?xi64>
  return %mean : tensor<?x8xf32>
}

// CHECK-LABEL: func.func @rows_of_ids
func.func @rows_of_ids(%ids: tensor<?x5xi64>, %keys: tensor<?xi64>) -> (tensor<?x5xi64>, tensor<?x5xi64>) {
  // CHECK: %[[KEYS:.*]] = dtf.constant dense<[3, 17, 40]> : tensor<3xi64>
  %sorted = dtf.constant dense<[3, 17, 40]> : tensor<3xi64>
  // CHECK: dtf.rows_of_ids %arg0, %[[KEYS]] : tensor<?x5xi64>, tensor<3xi64> -> tensor<?x5xi64>
  %rows = dtf.rows_of_ids %ids, %sorted : tensor<?x5xi64>, tensor<3xi64> -> tensor<?x5xi64>
  // Keys of a table that created no row, and keys that are no constant.
  // CHECK: dtf.rows_of_ids %arg0, %{{.*}} : tensor<?x5xi64>, tensor<0xi64> -> tensor<?x5xi64>
  %none = dtf.constant dense<> : tensor<0xi64>
  %default = dtf.rows_of_ids %ids, %none : tensor<?x5xi64>, tensor<0xi64> -> tensor<?x5xi64>
  // CHECK: dtf.rows_of_ids %arg0, %arg1 : tensor<?x5xi64>, tensor<?xi64> -> tensor<?x5xi64>
  %fed = dtf.rows_of_ids %ids, %keys : tensor<?x5xi64>, tensor<?xi64> -> tensor<?x5xi64>
  return %rows, %fed : tensor<?x5xi64>, tensor<?x5xi64>
}

// CHECK-LABEL: func.func @logistic
func.func @logistic(%logits: tensor<4x1xf32>, %labels: tensor<4x1xf32>) -> (tensor<4x1xf32>, tensor<4x1xf32>) {
  // CHECK: dtf.sigmoid %arg0 : tensor<4x1xf32>
  %p = dtf.sigmoid %logits : tensor<4x1xf32>
  // CHECK: dtf.sigmoid_grad %{{.*}}, %arg1 : tensor<4x1xf32>
  %dp = dtf.sigmoid_grad %p, %labels : tensor<4x1xf32>
  // CHECK: dtf.sigmoid_cross_entropy_with_logits %arg0, %arg1 : tensor<4x1xf32>
  %loss = dtf.sigmoid_cross_entropy_with_logits %logits, %labels : tensor<4x1xf32>
  // CHECK: dtf.sigmoid_cross_entropy_with_logits_grad %{{.*}}, %arg0, %arg1 : tensor<4x1xf32>
  %dlogits = dtf.sigmoid_cross_entropy_with_logits_grad %loss, %logits, %labels : tensor<4x1xf32>
  return %dp, %dlogits : tensor<4x1xf32>, tensor<4x1xf32>
}

// CHECK-LABEL: func.func @sparse_updates
func.func @sparse_updates(%ids: tensor<?xi64>, %rows: tensor<?x8xf32>, %grad: tensor<100x8xf32>, %power: tensor<f32>) {
  %table = dtf.variable "table" init(#dtf.zeros) : !dtf.resource<tensor<100x8xf32>>
  %accum = dtf.variable "table/Adagrad" init(#dtf.constant<0.1>) : !dtf.resource<tensor<100x8xf32>>
  %m = dtf.variable "table/Adam" init(#dtf.zeros) : !dtf.resource<tensor<100x8xf32>>
  %v = dtf.variable "table/Adam_1" init(#dtf.zeros) : !dtf.resource<tensor<100x8xf32>>
  // CHECK: dtf.sparse_apply_gradient_descent %{{.*}}[%arg0], %arg1 learning_rate 1.000000e-01 : !dtf.resource<tensor<100x8xf32>>, tensor<?xi64>, tensor<?x8xf32>
  dtf.sparse_apply_gradient_descent %table[%ids], %rows learning_rate 0.1 : !dtf.resource<tensor<100x8xf32>>, tensor<?xi64>, tensor<?x8xf32>
  // CHECK: dtf.apply_adagrad %{{.*}}, %{{.*}}, %arg2 learning_rate 1.000000e-01 : !dtf.resource<tensor<100x8xf32>>
  dtf.apply_adagrad %table, %accum, %grad learning_rate 0.1 : !dtf.resource<tensor<100x8xf32>>
  // CHECK: dtf.sparse_apply_adagrad %{{.*}}, %{{.*}}[%arg0], %arg1 learning_rate 1.000000e-01 : !dtf.resource<tensor<100x8xf32>>, tensor<?xi64>, tensor<?x8xf32>
  dtf.sparse_apply_adagrad %table, %accum[%ids], %rows learning_rate 0.1 : !dtf.resource<tensor<100x8xf32>>, tensor<?xi64>, tensor<?x8xf32>
  // CHECK: dtf.sparse_apply_adam %{{.*}}, %{{.*}}, %{{.*}}, %arg3, %arg3[%arg0], %arg1 learning_rate 1.000000e-03 beta1 {{.*}} beta2 {{.*}} epsilon {{.*}} : !dtf.resource<tensor<100x8xf32>>, tensor<f32>, tensor<?xi64>, tensor<?x8xf32>
  dtf.sparse_apply_adam %table, %m, %v, %power, %power[%ids], %rows learning_rate 0.001 beta1 0.9 beta2 0.999 epsilon 1.0e-8 : !dtf.resource<tensor<100x8xf32>>, tensor<f32>, tensor<?xi64>, tensor<?x8xf32>
  return
}

// CHECK-LABEL: func.func @apply_sparse_gradients
func.func @apply_sparse_gradients(%ids: tensor<12xi64>, %rows: tensor<12x8xf32>, %dw: tensor<8x1xf32>) {
  %table = dtf.variable "table" init(#dtf.zeros) : !dtf.resource<tensor<100x8xf32>>
  %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<8x1xf32>>
  // CHECK: dtf.apply_gradients #dtf.adagrad<learning_rate = 0.1>(%{{.*}} : !dtf.resource<tensor<8x1xf32>>) grads(%arg2 : tensor<8x1xf32>) sparse(%{{.*}} : !dtf.resource<tensor<100x8xf32>>) ids(%arg0 : tensor<12xi64>) rows(%arg1 : tensor<12x8xf32>)
  dtf.apply_gradients #dtf.adagrad<learning_rate = 0.1> (%w : !dtf.resource<tensor<8x1xf32>>) grads(%dw : tensor<8x1xf32>)
      sparse(%table : !dtf.resource<tensor<100x8xf32>>) ids(%ids : tensor<12xi64>) rows(%rows : tensor<12x8xf32>)
  return
}

// CHECK-LABEL: func.func @replica
module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2222"], worker = ["localhost:2223"]>} {
  func.func @replica(%ids: tensor<4x3xi64>, %step: tensor<i64>, %flat: tensor<12xi64>, %rows: tensor<12x8xf32>) -> tensor<4x3x8xf32> {
    // CHECK: dtf.pull_rows "table" from "/job:ps/task:0" [%arg0] : tensor<4x3xi64> -> tensor<4x3x8xf32>
    %pulled = dtf.pull_rows "table" from "/job:ps/task:0" [%ids] : tensor<4x3xi64> -> tensor<4x3x8xf32>
    // CHECK: dtf.push_gradients to "/job:ps/task:0" step %arg1 () sparse(%arg2 : tensor<12xi64>) rows(%arg3 : tensor<12x8xf32>) {sparse_names = ["table"]} : tensor<i64>
    dtf.push_gradients to "/job:ps/task:0" step %step () sparse(%flat : tensor<12xi64>) rows(%rows : tensor<12x8xf32>) {sparse_names = ["table"]} : tensor<i64>
    return %pulled : tensor<4x3x8xf32>
  }
}
