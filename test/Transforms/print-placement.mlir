// RUN: sed -e 's/ps = \["localhost:2222"\]/ps = ["localhost:2222", "localhost:2225"]/' %examples/mnist_mlp.mlir \
// RUN:   | dtf-opt --dtf-autodiff --dtf-expand-optimizer --dtf-place-variables --dtf-print-placement -o /dev/null \
// RUN:   | FileCheck %s --check-prefix=MLP --match-full-lines --strict-whitespace
// RUN: dtf-opt %s --dtf-print-placement -o /dev/null | FileCheck %s --match-full-lines --strict-whitespace

// The table of the trained MLP placed round-robin over two PS tasks: each
// task with its variables in creation order, their types and bytes.
//      MLP:PS placement: 2 PS tasks, 15 variables, 954136 bytes
// MLP-NEXT:/job:ps/task:0: 9 variables, 1336 bytes
// MLP-NEXT:  global_step   tensor<i64>                   8
// MLP-NEXT:  hid_b         tensor<100xf32>             400
// MLP-NEXT:  hid_b/Adam    tensor<100xf32>             400
// MLP-NEXT:  hid_b/Adam_1  tensor<100xf32>             400
// MLP-NEXT:  beta1_power   tensor<f32>                   4
// MLP-NEXT:  beta2_power   tensor<f32>                   4
// MLP-NEXT:  sm_b          tensor<10xf32>               40
// MLP-NEXT:  sm_b/Adam     tensor<10xf32>               40
// MLP-NEXT:  sm_b/Adam_1   tensor<10xf32>               40
// MLP-NEXT:/job:ps/task:1: 6 variables, 952800 bytes
// MLP-NEXT:  hid_w         tensor<784x100xf32>      313600
// MLP-NEXT:  hid_w/Adam    tensor<784x100xf32>      313600
// MLP-NEXT:  hid_w/Adam_1  tensor<784x100xf32>      313600
// MLP-NEXT:  sm_w          tensor<100x10xf32>         4000
// MLP-NEXT:  sm_w/Adam     tensor<100x10xf32>         4000
// MLP-NEXT:  sm_w/Adam_1   tensor<100x10xf32>         4000
// MLP-NOT:{{.}}

// Every PS task of the cluster shows, also an empty one; then other
// devices holding variables, then the unplaced variables. Sub-byte
// elements take a byte each.
//      CHECK:PS placement: 3 PS tasks, 5 variables, 1078 bytes
// CHECK-NEXT:/job:ps/task:0: 1 variable, 1024 bytes
// CHECK-NEXT:  embedding  tensor<16x16xf32>        1024
// CHECK-NEXT:/job:ps/task:1: 0 variables, 0 bytes
// CHECK-NEXT:/job:ps/task:2: 1 variable, 4 bytes
// CHECK-NEXT:  b          tensor<i32>                 4
// CHECK-NEXT:/job:worker/task:0: 1 variable, 8 bytes
// CHECK-NEXT:  local      tensor<8xi1>                8
// CHECK-NEXT:(unplaced): 2 variables, 42 bytes
// CHECK-NEXT:  c          tensor<10xf32>             40
// CHECK-NEXT:  d          tensor<f16>                 2
// CHECK-NOT:{{.}}
module attributes {dtf.cluster = #dtf.cluster<ps = ["p:1", "p:2", "p:3"], worker = ["w:1"]>} {
  func.func @main() {
    %a = dtf.variable "embedding" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<16x16xf32>>
    %c = dtf.variable "c" init(#dtf.zeros) : !dtf.resource<tensor<10xf32>>
    %l = dtf.variable "local" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:worker/task:0">} : !dtf.resource<tensor<8xi1>>
    %b = dtf.variable "b" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps/task:2">} : !dtf.resource<tensor<i32>>
    %d = dtf.variable "d" init(#dtf.zeros) : !dtf.resource<tensor<f16>>
    return
  }
}
