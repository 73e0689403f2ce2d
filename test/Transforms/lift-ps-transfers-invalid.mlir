// RUN: dtf-opt --dtf-lift-ps-transfers --split-input-file --verify-diagnostics %s

// expected-error @+1 {{--dtf-lift-ps-transfers: no function @worker}}
module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2222"], worker = ["localhost:2223"]>} {
  func.func @main() {
    return
  }
}

// -----

module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2222"], worker = ["localhost:2223"]>} {
  // expected-error @+1 {{'func.func' op must have one block for --dtf-lift-ps-transfers}}
  func.func @worker() {
    cf.br ^next
  ^next:
    return
  }
}
