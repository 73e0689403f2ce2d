// RUN: dtf-opt %s -split-input-file --dtf-add-eval-function -verify-diagnostics

// expected-error @+1 {{the module has 2 functions; name the training function with function=<name>}}
module {
  func.func @train() {
    return
  }
  func.func @other() {
    return
  }
}

// -----

// expected-error @+1 {{the module has 0 functions; name the training function with function=<name>}}
module {
}

// -----

// Updates are only recognizable once the optimizer is expanded.
module {
  func.func @main() {
    %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<3xf32>>
    %v = dtf.read %w : !dtf.resource<tensor<3xf32>>
    %loss = dtf.reduce_sum %v : tensor<3xf32>
    // expected-error @+1 {{'dtf.minimize' op must be expanded before the evaluation function is made; run --dtf-autodiff and --dtf-expand-optimizer first}}
    dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
    return
  }
}
