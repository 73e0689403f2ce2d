// The MLP written by TensorFlow with replica_device_setter over 2 PS tasks
// is placed as DTF places the hand-written examples/mnist_mlp.mlir over 2
// PS tasks (round-robin in creation order): global_step, hid_b and sm_b on
// ps0, hid_w and sm_w on ps1.
// RUN: dtf-translate --import-graphdef %examples/tf/mnist_mlp_2ps.pbtxt \
// RUN:   | dtf-opt --dtf-place-variables --dtf-print-placement -o /dev/null \
// RUN:   | FileCheck %s
// RUN: sed 's/worker = \["localhost:2223", /ps = ["localhost:2222", "localhost:2225"], worker = [/; s/ps = \["localhost:2222"\],//' \
// RUN:   %examples/mnist_mlp.mlir | dtf-opt --dtf-place-variables --dtf-print-placement -o /dev/null \
// RUN:   | FileCheck %s

// CHECK:      PS placement: 2 PS tasks, 5 variables, 318048 bytes
// CHECK-NEXT: /job:ps/task:0: 3 variables, 448 bytes
// CHECK-NEXT:   global_step
// CHECK-NEXT:   hid_b
// CHECK-NEXT:   sm_b
// CHECK-NEXT: /job:ps/task:1: 2 variables, 317600 bytes
// CHECK-NEXT:   hid_w
// CHECK-NEXT:   sm_w
