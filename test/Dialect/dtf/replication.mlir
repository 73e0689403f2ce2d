// RUN: dtf-opt -split-input-file %s | dtf-opt -split-input-file | FileCheck %s
// RUN: dtf-opt -split-input-file %s --mlir-print-op-generic | dtf-opt -split-input-file | FileCheck %s
// RUN: dtf-opt -split-input-file %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// Round trip of a replicated module (runtime/ABI.md): the dtf.replication
// module attribute, a PS function with dtf.gradients, and the dtf.pull and
// dtf.push_gradients ops of the worker function.

// CHECK:      module attributes {
// CHECK-SAME:   dtf.replication = #dtf.replication<mode = sync, replicas_to_aggregate = 2, total_replicas = 3>
module attributes {
    dtf.cluster = #dtf.cluster<ps = ["localhost:2222", "localhost:2225"],
                               worker = ["localhost:2223", "localhost:2224", "localhost:2226"]>,
    dtf.replication = #dtf.replication<mode = sync, replicas_to_aggregate = 2, total_replicas = 3>} {

  // Two replicas' gradients of one variable.
  // CHECK-LABEL: func.func @ps_0(
  // CHECK-SAME:    %{{.*}}: tensor<10xf32>, %{{.*}}: tensor<10xf32>)
  // CHECK-SAME:    attributes {dtf.device = #dtf.device<"/job:ps/task:0">, dtf.gradients = ["sm_b"]}
  func.func @ps_0(%sm_b_0: tensor<10xf32>, %sm_b_1: tensor<10xf32>)
      attributes {dtf.device = #dtf.device<"/job:ps/task:0">, dtf.gradients = ["sm_b"]} {
    %sm_b = dtf.variable "sm_b" init(#dtf.zeros) : !dtf.resource<tensor<10xf32>>
    %sum = dtf.add %sm_b_0, %sm_b_1 : tensor<10xf32>, tensor<10xf32>
    %half = dtf.constant dense<0.5> : tensor<f32>
    %mean = dtf.mul %sum, %half : tensor<10xf32>, tensor<f32>
    dtf.apply_gradient_descent %sm_b, %mean learning_rate 0.5 : !dtf.resource<tensor<10xf32>>
    return
  }

  // A task without gradients: no arguments.
  // CHECK-LABEL: func.func @ps_1()
  // CHECK-SAME:    attributes {dtf.device = #dtf.device<"/job:ps/task:1">, dtf.gradients = []}
  func.func @ps_1() attributes {dtf.device = #dtf.device<"/job:ps/task:1">, dtf.gradients = []} {
    %step = dtf.variable "global_step" init(#dtf.zeros) {trainable = false} : !dtf.resource<tensor<i64>>
    %one = dtf.constant dense<1> : tensor<i64>
    dtf.assign_add %step, %one : !dtf.resource<tensor<i64>>
    return
  }

  // CHECK-LABEL: func.func @worker()
  func.func @worker() -> tensor<10xf32> {
    // CHECK:      %[[STEP:.*]] = dtf.pull "global_step" from "/job:ps/task:1" : tensor<i64>
    // CHECK-NEXT: %[[SM_B:.*]] = dtf.pull "sm_b" from "/job:ps/task:0" : tensor<10xf32>
    // GENERIC:    "dtf.pull"() <{device = #dtf.device<"/job:ps/task:1">, name = "global_step"}> : () -> tensor<i64>
    %step = dtf.pull "global_step" from "/job:ps/task:1" : tensor<i64>
    %sm_b = dtf.pull "sm_b" from "/job:ps/task:0" : tensor<10xf32>
    // CHECK-NEXT: dtf.push_gradients to "/job:ps/task:0" step %[[STEP]] (%[[SM_B]]) {names = ["sm_b"]} : tensor<i64>, tensor<10xf32>
    // GENERIC:    "dtf.push_gradients"(%{{.*}}, %{{.*}}) <{device = #dtf.device<"/job:ps/task:0">, names = ["sm_b"], operandSegmentSizes = array<i32: 1, 1, 0, 0>, sparse_names = []}> : (tensor<i64>, tensor<10xf32>) -> ()
    dtf.push_gradients to "/job:ps/task:0" step %step (%sm_b) {names = ["sm_b"]} : tensor<i64>, tensor<10xf32>
    // An empty push: `names` defaults to [].
    // CHECK-NEXT: dtf.push_gradients to "/job:ps/task:1" step %[[STEP]] () : tensor<i64>
    // GENERIC:    "dtf.push_gradients"(%{{.*}}) <{device = #dtf.device<"/job:ps/task:1">, names = [], operandSegmentSizes = array<i32: 1, 0, 0, 0>, sparse_names = []}> : (tensor<i64>) -> ()
    dtf.push_gradients to "/job:ps/task:1" step %step () : tensor<i64>
    return %sm_b : tensor<10xf32>
  }
}

// -----

// The attribute in its other mode, and the smallest counts.
// CHECK: dtf.replication = #dtf.replication<mode = async, replicas_to_aggregate = 1, total_replicas = 1>
module attributes {dtf.replication = #dtf.replication<mode = async, replicas_to_aggregate = 1, total_replicas = 1>} {
}
