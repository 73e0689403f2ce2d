// RUN: dtf-opt %s -split-input-file -verify-diagnostics
// One case per diagnostic of the embedding ops, the sparse updates and
// their attributes.

func.func @adagrad_zero_accumulator(%loss: tensor<f32>) {
  // expected-error @+1 {{initial_accumulator_value must be positive and finite, got 0}}
  dtf.minimize %loss : tensor<f32>, #dtf.adagrad<learning_rate = 0.1, initial_accumulator_value = 0.0>
  return
}

// -----

func.func @bad_combiner(%rows: tensor<4x3x8xf32>, %ids: tensor<4x3xi64>) {
  // expected-error @+1 {{expected combiner sum, mean or sqrtn, got 'max'}}
  %e = dtf.embedding_combine max %rows, %ids : tensor<4x3x8xf32>, tensor<4x3xi64>
  return
}

// -----

func.func @lookup_of_scalar(%ids: tensor<4xi64>) {
  %table = dtf.variable "table" init(#dtf.zeros) : !dtf.resource<tensor<f32>>
  // expected-error @+1 {{looks up rows of a scalar}}
  %rows = dtf.embedding_lookup %table[%ids] : !dtf.resource<tensor<f32>>, tensor<4xi64>
  return
}

// -----

func.func @combine_rows_not_of_ids(%rows: tensor<4x2x8xf32>, %ids: tensor<4x3xi64>) {
  // expected-error @+1 {{rows 'tensor<4x2x8xf32>' are not the rows looked up at ids 'tensor<4x3xi64>'}}
  %e = dtf.embedding_combine sum %rows, %ids : tensor<4x2x8xf32>, tensor<4x3xi64>
  return
}

// -----

func.func @combine_weights_shape(%rows: tensor<4x3x8xf32>, %ids: tensor<4x3xi64>, %w: tensor<4x2xf32>) {
  // expected-error @+1 {{weights 'tensor<4x2xf32>' do not match ids}}
  %e = dtf.embedding_combine sum %rows, %ids weights %w : tensor<4x3x8xf32>, tensor<4x3xi64>, tensor<4x2xf32>
  return
}

// -----

func.func @combine_grad_dy(%dy: tensor<4x7xf32>, %ids: tensor<4x3xi64>) {
  // expected-error @+1 {{'dtf.embedding_combine_grad' op dy 'tensor<4x7xf32>' is not the gradient of combining 'tensor<4x3x8xf32>'}}
  %g = dtf.embedding_combine_grad sum %dy, %ids : tensor<4x7xf32>, tensor<4x3xi64> -> tensor<4x3x8xf32>
  return
}

// -----

func.func @divide_by_id_count_rows(%rows: tensor<5x2xf32>, %ids: tensor<4xi64>) {
  // expected-error @+1 {{'dtf.divide_by_id_count' op has 5 rows but 4 ids}}
  %m = dtf.divide_by_id_count %rows, %ids : tensor<5x2xf32>, tensor<4xi64>
  return
}

// -----

func.func @segment_sum_rows(%data: tensor<5x2xf32>, %ids: tensor<4xi64>) {
  // expected-error @+1 {{data 'tensor<5x2xf32>' needs one row per segment id of 'tensor<4xi64>'}}
  %s = dtf.unsorted_segment_sum %data, %ids num_segments 3 : tensor<5x2xf32>, tensor<4xi64>
  return
}

// -----

func.func @sparse_rows_shape(%ids: tensor<?xi64>, %rows: tensor<?x4xf32>) {
  %table = dtf.variable "table" init(#dtf.zeros) : !dtf.resource<tensor<100x8xf32>>
  // expected-error @+1 {{'dtf.sparse_apply_gradient_descent' op update has rows 'tensor<?x4xf32>' for 'tensor<?xi64>' of a variable holding 'tensor<100x8xf32>'; expected one row of the variable's shape after its first dimension per id}}
  dtf.sparse_apply_gradient_descent %table[%ids], %rows learning_rate 0.1 : !dtf.resource<tensor<100x8xf32>>, tensor<?xi64>, tensor<?x4xf32>
  return
}

// -----

func.func @sparse_rows_count(%ids: tensor<3xi64>, %rows: tensor<4x8xf32>) {
  %table = dtf.variable "table" init(#dtf.zeros) : !dtf.resource<tensor<100x8xf32>>
  %accum = dtf.variable "accum" init(#dtf.zeros) : !dtf.resource<tensor<100x8xf32>>
  // expected-error @+1 {{'dtf.sparse_apply_adagrad' op update has rows 'tensor<4x8xf32>' for 'tensor<3xi64>'}}
  dtf.sparse_apply_adagrad %table, %accum[%ids], %rows learning_rate 0.1 : !dtf.resource<tensor<100x8xf32>>, tensor<3xi64>, tensor<4x8xf32>
  return
}

// -----

func.func @sparse_and_dense_gradient(%ids: tensor<3xi64>, %rows: tensor<3x8xf32>, %grad: tensor<100x8xf32>) {
  %table = dtf.variable "table" init(#dtf.zeros) : !dtf.resource<tensor<100x8xf32>>
  // expected-error @+1 {{'dtf.apply_gradients' op sparse variable #0 also has a dense gradient}}
  dtf.apply_gradients #dtf.sgd<learning_rate = 0.1> (%table : !dtf.resource<tensor<100x8xf32>>) grads(%grad : tensor<100x8xf32>)
      sparse(%table : !dtf.resource<tensor<100x8xf32>>) ids(%ids : tensor<3xi64>) rows(%rows : tensor<3x8xf32>)
  return
}

// -----

func.func @sparse_ids_2d(%ids: tensor<3x1xi64>, %rows: tensor<3x8xf32>) {
  %table = dtf.variable "table" init(#dtf.zeros) : !dtf.resource<tensor<100x8xf32>>
  // expected-error @+1 {{'dtf.apply_gradients' op sparse gradient #0 has ids 'tensor<3x1xi64>'; sparse ids are 1-D}}
  dtf.apply_gradients #dtf.sgd<learning_rate = 0.1>
      sparse(%table : !dtf.resource<tensor<100x8xf32>>) ids(%ids : tensor<3x1xi64>) rows(%rows : tensor<3x8xf32>)
  return
}

// -----

module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2222"], worker = ["localhost:2223"]>} {
  func.func @pull_rows_shape(%ids: tensor<4x3xi64>) {
    // expected-error @+1 {{'dtf.pull_rows' op rows 'tensor<4x8xf32>' do not start with the shape of ids 'tensor<4x3xi64>'}}
    %rows = dtf.pull_rows "table" from "/job:ps/task:0" [%ids] : tensor<4x3xi64> -> tensor<4x8xf32>
    return
  }
}

// -----

module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2222"], worker = ["localhost:2223"]>} {
  func.func @push_sparse_names(%step: tensor<i64>, %ids: tensor<3xi64>, %rows: tensor<3x8xf32>) {
    // expected-error @+1 {{'dtf.push_gradients' op has 1 sparse ids and 1 sparse rows but 0 sparse names}}
    dtf.push_gradients to "/job:ps/task:0" step %step () sparse(%ids : tensor<3xi64>) rows(%rows : tensor<3x8xf32>) : tensor<i64>
    return
  }
}

// -----

// expected-error @+1 {{'dtf.auc' names result #2, but the function has 2 results}}
func.func @auc_result(%p: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) attributes {dtf.auc = array<i64: 0, 2>} {
  return %p, %p : tensor<4xf32>, tensor<4xf32>
}

// -----

// expected-error @+1 {{'dtf.auc' needs predictions and labels of one f32 tensor type, got 'tensor<4xf32>' and 'tensor<4x1xf32>'}}
func.func @auc_types(%p: tensor<4xf32>, %y: tensor<4x1xf32>) -> (tensor<4xf32>, tensor<4x1xf32>) attributes {dtf.auc = array<i64: 0, 1>} {
  return %p, %y : tensor<4xf32>, tensor<4x1xf32>
}

// -----

module attributes {dtf.replication = #dtf.replication<mode = async, replicas_to_aggregate = 1, total_replicas = 1>} {
  // expected-error @+1 {{takes 2 arguments, but 'dtf.gradients' lists 0 variables, 'dtf.sparse_gradients' 2 (two arguments each) and the module aggregates 1 replica per update}}
  func.func @ps_0(%ids: tensor<?xi64>, %rows: tensor<?x8xf32>) attributes {dtf.gradients = [], dtf.sparse_gradients = ["a", "b"]} {
    return
  }
}

// -----

// expected-error @+1 {{'dtf.sparse_gradients' needs 'dtf.gradients' beside it}}
func.func @ps_0(%ids: tensor<?xi64>, %rows: tensor<?x8xf32>) attributes {dtf.sparse_gradients = ["a"]} {
  return
}

// -----

func.func @partitioner_too_many_shards() {
  // expected-error @+1 {{'dtf.partitioner' splits variable 'table' of type 'tensor<2x8xf32>' into 3 shards, but it has fewer rows along dimension 0}}
  %table = dtf.variable "table" init(#dtf.zeros) {dtf.partitioner = #dtf.partitioner<shards = 3, strategy = mod>} : !dtf.resource<tensor<2x8xf32>>
  return
}

// -----

func.func @row_shard_of_no_shard(%ids: tensor<4xi64>) {
  %table = dtf.variable "table" init(#dtf.zeros) : !dtf.resource<tensor<6x8xf32>>
  // expected-error @+1 {{shard 2 of 2 shards is not a shard}}
  %rows = dtf.embedding_lookup %table[%ids] {shard = #dtf.row_shard<strategy = mod, shard = 2, num_shards = 2, rows = 11>} : !dtf.resource<tensor<6x8xf32>>, tensor<4xi64>
  return
}

// -----

func.func @row_shard_rows(%ids: tensor<4xi64>) {
  %table = dtf.variable "table" init(#dtf.zeros) : !dtf.resource<tensor<6x8xf32>>
  // expected-error @+1 {{'dtf.embedding_lookup' op variable of 6 rows is not shard 1 of 2 of 11 rows, which holds 5}}
  %rows = dtf.embedding_lookup %table[%ids] {shard = #dtf.row_shard<strategy = mod, shard = 1, num_shards = 2, rows = 11>} : !dtf.resource<tensor<6x8xf32>>, tensor<4xi64>
  return
}

// -----

func.func @ftrl_positive_power(%loss: tensor<f32>) {
  // expected-error @+1 {{learning_rate_power must be at most 0, got 5.000000e-01}}
  dtf.minimize %loss : tensor<f32>, #dtf.ftrl<learning_rate = 0.1, learning_rate_power = 0.5>
  return
}

// -----

func.func @ftrl_negative_l1(%loss: tensor<f32>) {
  // expected-error @+1 {{l1 must be non-negative and finite, got -1}}
  dtf.minimize %loss : tensor<f32>, #dtf.ftrl<learning_rate = 0.1, l1 = -1.0>
  return
}

// -----

func.func @rows_of_ids_of_i32(%ids: tensor<4xi32>, %keys: tensor<3xi64>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 64-bit signless integer values, but got 'tensor<4xi32>'}}
  %r = dtf.rows_of_ids %ids, %keys : tensor<4xi32>, tensor<3xi64> -> tensor<4xi64>
  return
}

// -----

func.func @rows_of_ids_keys_not_1d(%ids: tensor<4xi64>, %keys: tensor<3x1xi64>) {
  // expected-error @+1 {{operand #1 must be 1D tensor of 64-bit signless integer values, but got 'tensor<3x1xi64>'}}
  %r = dtf.rows_of_ids %ids, %keys : tensor<4xi64>, tensor<3x1xi64> -> tensor<4xi64>
  return
}

// -----

func.func @rows_of_ids_result_of_i32(%ids: tensor<4xi64>, %keys: tensor<3xi64>) {
  // expected-error @+1 {{result #0 must be ranked tensor of 64-bit signless integer values, but got 'tensor<4xi32>'}}
  %r = dtf.rows_of_ids %ids, %keys : tensor<4xi64>, tensor<3xi64> -> tensor<4xi32>
  return
}

// -----

func.func @rows_of_ids_result_shape(%ids: tensor<4x2xi64>, %keys: tensor<3xi64>) {
  // expected-error @+1 {{result 'tensor<8xi64>' does not have the shape of ids 'tensor<4x2xi64>'}}
  %r = dtf.rows_of_ids %ids, %keys : tensor<4x2xi64>, tensor<3xi64> -> tensor<8xi64>
  return
}

// -----

func.func @rows_of_ids_unsorted_keys(%ids: tensor<4xi64>) {
  %keys = dtf.constant dense<[3, 17, 9]> : tensor<3xi64>
  // expected-error @+1 {{keys are not sorted ascending and distinct: key 9 at position 2 follows 17}}
  %r = dtf.rows_of_ids %ids, %keys : tensor<4xi64>, tensor<3xi64> -> tensor<4xi64>
  return
}

// -----

func.func @rows_of_ids_repeated_key(%ids: tensor<4xi64>) {
  %keys = dtf.constant dense<[3, 3]> : tensor<2xi64>
  // expected-error @+1 {{keys are not sorted ascending and distinct: key 3 at position 1 follows 3}}
  %r = dtf.rows_of_ids %ids, %keys : tensor<4xi64>, tensor<2xi64> -> tensor<4xi64>
  return
}
