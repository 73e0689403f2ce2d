// RUN: dtf-opt --dtf-expand-optimizer --split-input-file --verify-diagnostics %s

func.func @momentum_by_rows(%ids: tensor<12xi64>, %rows: tensor<12x8xf32>) {
  %table = dtf.variable "table" init(#dtf.zeros) : !dtf.resource<tensor<100x8xf32>>
  // expected-error @+1 {{updates 'table' by rows, which momentum cannot do yet; use #dtf.adagrad, #dtf.adam (lazy on rows) or #dtf.sgd for embedding tables}}
  dtf.apply_gradients #dtf.momentum<learning_rate = 0.1, momentum = 0.9>
      sparse(%table : !dtf.resource<tensor<100x8xf32>>) ids(%ids : tensor<12xi64>) rows(%rows : tensor<12x8xf32>)
  return
}

// -----

func.func @slot_of_argument(%table: !dtf.resource<tensor<100x8xf32>>, %ids: tensor<12xi64>, %rows: tensor<12x8xf32>) {
  // expected-error @+1 {{sparse variable #0 is not defined by a dtf.variable, so #dtf.adagrad<learning_rate = 0.1> cannot create its slots}}
  dtf.apply_gradients #dtf.adagrad<learning_rate = 0.1>
      sparse(%table : !dtf.resource<tensor<100x8xf32>>) ids(%ids : tensor<12xi64>) rows(%rows : tensor<12x8xf32>)
  return
}
