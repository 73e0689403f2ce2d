// What --export-saved-model refuses: one error line each, at the op or the
// function at fault, and no SavedModel.
// RUN: split-file %s %t

// An op without a TensorFlow counterpart in the exporter, here the loss of
// the labels behind result:0.
// RUN: not dtf-translate --export-saved-model %t/trained.mlir --outputs=result:0 2> %t/err
// RUN: FileCheck %s --check-prefix=NOTF < %t/err && count 1 < %t/err
// NOTF: trained.mlir:7:13: error: 'dtf.sparse_softmax_cross_entropy_with_logits' op cannot be exported to a TensorFlow graph for serving: the SavedModel exporter has no TensorFlow op for it

// A variable of random initial values: an untrained model.
// RUN: not dtf-translate --export-saved-model %t/model.mlir 2> %t/err
// RUN: FileCheck %s --check-prefix=RANDOM < %t/err && count 1 < %t/err
// RANDOM: model.mlir:6:11: error: 'dtf.read' op reads variable 'w', whose value is random (#dtf.truncated_normal<stddev = 0.1, seed = 1>): export a trained model, whose variables hold a checkpoint's values (dtf-run --export_saved_model=DIR --logdir=LOGDIR)

// Outputs that name nothing.
// RUN: not dtf-translate --export-saved-model %t/model.mlir --outputs=result:2 2> %t/err
// RUN: FileCheck %s --check-prefix=RESULT < %t/err
// RESULT: model.mlir:2:3: error: output 'result:2': the function has 1 results (result:0 to result:0)
// RUN: not dtf-translate --export-saved-model %t/model.mlir --outputs=hidden 2> %t/err
// RUN: FileCheck %s --check-prefix=NAME < %t/err
// NAME: model.mlir:2:3: error: output 'hidden' is neither 'logits', 'result:K' nor the location name of an op of the model
// RUN: not dtf-translate --export-saved-model %t/nologits.mlir 2> %t/err
// RUN: FileCheck %s --check-prefix=NOLOGITS < %t/err
// NOLOGITS: nologits.mlir:2:3: error: the model has no cross entropy with logits and no softmax to take 'logits' from; name the outputs with --outputs (result:K, or an op's location name)

// A random op the learning phase does not switch off (dropout without a
// training flag) would make serving random.
// RUN: not dtf-translate --export-saved-model %t/nologits.mlir --outputs=result:0 2> %t/err
// RUN: FileCheck %s --check-prefix=RANDOMOP < %t/err
// RANDOMOP: nologits.mlir:4:13: error: 'dtf.random_uniform' op cannot be exported to a TensorFlow graph for serving

// A dynamic table of an untrained model: it has rows only once a
// checkpoint gives them (dtf-run --export_saved_model freezes them,
// translate/graphdef/DynamicTableServing.h).
// RUN: not dtf-translate --export-saved-model %t/dynamic.mlir --outputs=result:0 2> %t/err
// RUN: FileCheck %s --check-prefix=DYNAMIC < %t/err && count 1 < %t/err
// DYNAMIC: dynamic.mlir:5:13: error: 'dtf.embedding_lookup' op reads the dynamic table 'wide', which has no rows before training: export a trained model, whose dynamic tables a checkpoint gives their rows (dtf-run --export_saved_model=DIR --logdir=LOGDIR)

// Keys of unknown size: the SavedModel needs their count.
// RUN: not dtf-translate --export-saved-model %t/keys.mlir --outputs=result:0 2> %t/err
// RUN: FileCheck %s --check-prefix=KEYS < %t/err && count 1 < %t/err
// KEYS: keys.mlir:5:10: error: 'dtf.rows_of_ids' op has keys of unknown size 'tensor<?xi64>'; the SavedModel needs their count

//--- model.mlir
module {
  func.func @main() -> tensor<f32> {
    %w = dtf.variable "w" init(#dtf.truncated_normal<stddev = 0.1, seed = 1>) : !dtf.resource<tensor<3x2xf32>>
    %x = dtf.placeholder "x" : tensor<4x3xf32>
    %y = dtf.placeholder "y" : tensor<4xi64>
    %wv = dtf.read %w : !dtf.resource<tensor<3x2xf32>>
    %logits = dtf.matmul %x, %wv : tensor<4x3xf32>, tensor<3x2xf32>
    %c = dtf.constant dense<1.0> : tensor<3x2xf32>
    %other = dtf.matmul %x, %c : tensor<4x3xf32>, tensor<3x2xf32>
    %sum = dtf.add %logits, %other : tensor<4x2xf32>, tensor<4x2xf32>
    %loss = dtf.sparse_softmax_cross_entropy_with_logits %sum, %y : tensor<4x2xf32>, tensor<4xi64>
    %l = dtf.reduce_mean %loss : tensor<4xf32>
    dtf.minimize %l : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
    return %l : tensor<f32>
  }
}

//--- trained.mlir
module {
  func.func @main() -> tensor<f32> {
    %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<4x2xf32>>
    %x = dtf.placeholder "x" : tensor<4x3xf32>
    %y = dtf.placeholder "y" : tensor<4xi64>
    %wv = dtf.read %w : !dtf.resource<tensor<4x2xf32>>
    %loss = dtf.sparse_softmax_cross_entropy_with_logits %wv, %y : tensor<4x2xf32>, tensor<4xi64>
    %l = dtf.reduce_mean %loss : tensor<4xf32>
    return %l : tensor<f32>
  }
}

//--- nologits.mlir
module {
  func.func @main() -> tensor<4x2xf32> {
    %x = dtf.placeholder "x" : tensor<4x2xf32>
    %mask = dtf.random_uniform seed 1 : tensor<4x2xf32>
    %y = dtf.mul %x, %mask : tensor<4x2xf32>, tensor<4x2xf32>
    return %y : tensor<4x2xf32>
  }
}

//--- dynamic.mlir
module {
  func.func @main() -> tensor<4x1xf32> {
    %w = dtf.variable "wide" init(#dtf.zeros) {dtf.dynamic_table = #dtf.dynamic_table<min_count = 1>} : !dtf.resource<tensor<?x1xf32>>
    %ids = dtf.placeholder "ids" : tensor<4x2xi64>
    %rows = dtf.embedding_lookup %w[%ids] : !dtf.resource<tensor<?x1xf32>>, tensor<4x2xi64>
    %sum = dtf.embedding_combine sum %rows, %ids : tensor<4x2x1xf32>, tensor<4x2xi64>
    return %sum : tensor<4x1xf32>
  }
}

//--- keys.mlir
module {
  func.func @main() -> tensor<4xi64> {
    %ids = dtf.placeholder "ids" : tensor<4xi64>
    %keys = dtf.placeholder "keys" : tensor<?xi64>
    %r = dtf.rows_of_ids %ids, %keys : tensor<4xi64>, tensor<?xi64> -> tensor<4xi64>
    return %r : tensor<4xi64>
  }
}
