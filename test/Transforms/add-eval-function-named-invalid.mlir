// RUN: dtf-opt %s -split-input-file --dtf-add-eval-function=function=main \
// RUN:   -verify-diagnostics

// expected-error @+1 {{no function @main to make an evaluation function of}}
module {
  func.func @train() {
    return
  }
}

// -----

module {
  func.func @main() {
    return
  }
  // expected-error @+1 {{'func.func' op is named @main_eval, the evaluation function of @main; remove or rename it}}
  func.func @main_eval() {
    return
  }
}

