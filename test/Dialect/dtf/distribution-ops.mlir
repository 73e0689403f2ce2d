// RUN: dtf-opt %s | dtf-opt | FileCheck %s
// RUN: dtf-opt %s --mlir-print-op-generic | dtf-opt | FileCheck %s
// RUN: dtf-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// RUN: dtf-opt %s --canonicalize | FileCheck %s --check-prefix=FOLD

// Round trip of the ops and attributes distribution adds: colocation of
// variables, cross-device transfers, and the concat/slice of sharded
// variables, whose result types are inferred (checked in generic form).

module attributes {dtf.cluster = #dtf.cluster<ps = ["ps0:2222", "ps1:2222"],
                                              worker = ["w0:2222", "w1:2222"]>} {

// Colocation names another variable of the block, also later ones and
// through chains; the attribute prints in its own keyword group.
// CHECK-LABEL: func.func @colocation
// CHECK: dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<4x2xf32>>
// CHECK: dtf.variable "w/Adam" init(#dtf.zeros) colocate_with("w") {trainable = false} : !dtf.resource<tensor<4x2xf32>>
// CHECK: dtf.variable "w/Adam/part_0" init(#dtf.zeros) colocate_with("w/Adam") {dtf.device = #dtf.device<"/job:ps/task:1">} : !dtf.resource<tensor<4x2xf32>>
// CHECK: dtf.variable "early" init(#dtf.constant<0.9>) colocate_with("late") : !dtf.resource<tensor<f32>>
// GENERIC-LABEL: sym_name = "colocation"
// GENERIC: "dtf.variable"() <{colocate_with = "w", initializer = #dtf.zeros, name = "w/Adam", trainable = false}>
func.func @colocation() {
  %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<4x2xf32>>
  %m = dtf.variable "w/Adam" init(#dtf.zeros) colocate_with("w") {trainable = false} : !dtf.resource<tensor<4x2xf32>>
  %p = dtf.variable "w/Adam/part_0" init(#dtf.zeros) colocate_with("w/Adam") {dtf.device = #dtf.device<"/job:ps/task:1">} : !dtf.resource<tensor<4x2xf32>>
  %e = dtf.variable "early" init(#dtf.constant<0.9>) colocate_with("late") : !dtf.resource<tensor<f32>>
  %l = dtf.variable "late" init(#dtf.zeros) : !dtf.resource<tensor<3xf32>>
  return
}

// A transfer names both devices by their TensorFlow names and the tensor.
// CHECK-LABEL: func.func @transfers
// CHECK-SAME: (%[[X:.*]]: tensor<100x10xf32>)
// CHECK: dtf.send %[[X]], "edge_0_dtf.relu" from "/job:worker/task:0" to "/job:ps/task:1" : tensor<100x10xf32>
// CHECK: %[[R:.*]] = dtf.recv "edge_1_dtf.matmul" from "/job:worker/task:1/device:GPU:0" to "/job:worker/task:0" : tensor<?x10xf32>
// CHECK: dtf.send %[[R]], "t" from "/job:worker/task:0" to "/job:worker/task:1" {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<?x10xf32>
// GENERIC-LABEL: sym_name = "transfers"
// GENERIC: "dtf.send"(%{{.*}}) <{recv_device = #dtf.device<"/job:ps/task:1">, send_device = #dtf.device<"/job:worker/task:0">, tensor_name = "edge_0_dtf.relu"}> : (tensor<100x10xf32>) -> ()
// GENERIC: "dtf.recv"() <{recv_device = #dtf.device<"/job:worker/task:0">, send_device = #dtf.device<"/job:worker/task:1/device:GPU:0">, tensor_name = "edge_1_dtf.matmul"}> : () -> tensor<?x10xf32>
func.func @transfers(%x: tensor<100x10xf32>) -> tensor<?x10xf32> {
  dtf.send %x, "edge_0_dtf.relu" from "/job:worker/task:0" to "/job:ps/task:1" : tensor<100x10xf32>
  %r = dtf.recv "edge_1_dtf.matmul" from "/job:worker/task:1/device:GPU:0" to "/job:worker/task:0" : tensor<?x10xf32>
  dtf.send %r, "t" from "/job:worker/task:0" to "/job:worker/task:1" {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<?x10xf32>
  return %r : tensor<?x10xf32>
}

// Transfers are side effects on the rendezvous: canonicalization keeps an
// unused recv and a send.
// FOLD-LABEL: func.func @transfers_stay
// FOLD-NEXT: dtf.recv
// FOLD-NEXT: dtf.send
// FOLD-NEXT: return
func.func @transfers_stay(%x: tensor<f32>) {
  %r = dtf.recv "a" from "/job:ps/task:0" to "/job:worker/task:0" : tensor<f32>
  dtf.send %x, "b" from "/job:worker/task:0" to "/job:ps/task:0" : tensor<f32>
  return
}

// concat adds up the sizes along the axis (negative axes count from the
// end) and keeps the others, refining dynamic ones.
// CHECK-LABEL: func.func @concat
// CHECK: dtf.concat %{{.*}}, %{{.*}}, %{{.*}} axis 0 : tensor<4x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>
// CHECK: dtf.concat %{{.*}}, %{{.*}} axis -1 : tensor<4x2xf32>, tensor<?x5xf32>
// CHECK: dtf.concat %{{.*}}, %{{.*}} axis 0 : tensor<?x2xf32>, tensor<3x2xf32>
// GENERIC-LABEL: sym_name = "concat"
// GENERIC: "dtf.concat"(%{{.*}}, %{{.*}}, %{{.*}}) <{axis = 0 : i64}> : (tensor<4x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<10x2xf32>
// GENERIC: "dtf.concat"(%{{.*}}, %{{.*}}) <{axis = -1 : i64}> : (tensor<4x2xf32>, tensor<?x5xf32>) -> tensor<4x7xf32>
// GENERIC: "dtf.concat"(%{{.*}}, %{{.*}}) <{axis = 0 : i64}> : (tensor<?x2xf32>, tensor<3x2xf32>) -> tensor<?x2xf32>
func.func @concat(%a: tensor<4x2xf32>, %b: tensor<3x2xf32>, %c: tensor<?x5xf32>, %d: tensor<?x2xf32>)
    -> (tensor<10x2xf32>, tensor<4x7xf32>, tensor<?x2xf32>) {
  %0 = dtf.concat %a, %b, %b axis 0 : tensor<4x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>
  %1 = dtf.concat %a, %c axis -1 : tensor<4x2xf32>, tensor<?x5xf32>
  %2 = dtf.concat %d, %b axis 0 : tensor<?x2xf32>, tensor<3x2xf32>
  return %0, %1, %2 : tensor<10x2xf32>, tensor<4x7xf32>, tensor<?x2xf32>
}

// slice takes static offsets and sizes; -1 runs to the end of the dimension.
// CHECK-LABEL: func.func @slice
// CHECK: dtf.slice %{{.*}} offsets [4, 0] sizes [3, 2] : tensor<10x2xf32>
// CHECK: dtf.slice %{{.*}} offsets [7, 1] sizes [-1, -1] : tensor<10x2xf32>
// CHECK: dtf.slice %{{.*}} offsets [1, 0] sizes [-1, 2] : tensor<?x2xf32>
// GENERIC-LABEL: sym_name = "slice"
// GENERIC: "dtf.slice"(%{{.*}}) <{offsets = array<i64: 4, 0>, sizes = array<i64: 3, 2>}> : (tensor<10x2xf32>) -> tensor<3x2xf32>
// GENERIC: "dtf.slice"(%{{.*}}) <{offsets = array<i64: 7, 1>, sizes = array<i64: -1, -1>}> : (tensor<10x2xf32>) -> tensor<3x1xf32>
// GENERIC: "dtf.slice"(%{{.*}}) <{offsets = array<i64: 1, 0>, sizes = array<i64: -1, 2>}> : (tensor<?x2xf32>) -> tensor<?x2xf32>
func.func @slice(%x: tensor<10x2xf32>, %y: tensor<?x2xf32>) -> (tensor<3x2xf32>, tensor<3x1xf32>, tensor<?x2xf32>) {
  %0 = dtf.slice %x offsets [4, 0] sizes [3, 2] : tensor<10x2xf32>
  %1 = dtf.slice %x offsets [7, 1] sizes [-1, -1] : tensor<10x2xf32>
  %2 = dtf.slice %y offsets [1, 0] sizes [-1, 2] : tensor<?x2xf32>
  return %0, %1, %2 : tensor<3x2xf32>, tensor<3x1xf32>, tensor<?x2xf32>
}

// A concat of one tensor and a slice of a whole tensor fold away.
// FOLD-LABEL: func.func @folds
// FOLD-SAME: (%[[X:.*]]: tensor<4x2xf32>)
// FOLD-NEXT: return %[[X]], %[[X]]
func.func @folds(%x: tensor<4x2xf32>) -> (tensor<4x2xf32>, tensor<4x2xf32>) {
  %0 = dtf.concat %x axis 1 : tensor<4x2xf32>
  %1 = dtf.slice %x offsets [0, 0] sizes [4, -1] : tensor<4x2xf32>
  return %0, %1 : tensor<4x2xf32>, tensor<4x2xf32>
}

}
