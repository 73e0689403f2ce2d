// tf.device pins become dtf.device: the model-parallel MLP keeps each
// layer's ops on its worker and its variables on the PS task
// replica_device_setter chose; the module's cluster has the tasks those
// devices name. A device naming no task ("/job:worker", the worker of a
// between-graph replica) pins nothing.
// RUN: dtf-translate --import-graphdef %examples/tf/model_parallel_mlp.pbtxt \
// RUN:   --outputs=accuracy | FileCheck %s
// The imported graph runs in-graph: the in-graph pipeline partitions it
// over the two workers, as examples/model_parallel_mlp.mlir.
// RUN: dtf-translate --import-graphdef %examples/tf/model_parallel_mlp.pbtxt \
// RUN:   --outputs=accuracy | dtf-opt --dtf-in-graph-pipeline | FileCheck %s --check-prefix=PART
// RUN: dtf-translate --import-graphdef %examples/tf/mnist_mlp.pbtxt \
// RUN:   --outputs=accuracy | FileCheck %s --check-prefix=REPLICA

// CHECK: module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2222", "localhost:2223"], worker = ["localhost:2224", "localhost:2225"]>}
// CHECK: dtf.variable "hid_w" {{.*}}{dtf.device = #dtf.device<"/job:ps/task:1">}
// CHECK: dtf.variable "hid_b" {{.*}}{dtf.device = #dtf.device<"/job:ps/task:0">}
// CHECK: dtf.placeholder "x" {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<100x784xf32>
// CHECK: dtf.matmul {{.*}}{dtf.device = #dtf.device<"/job:worker/task:0">}
// CHECK: dtf.relu {{.*}}{dtf.device = #dtf.device<"/job:worker/task:0">}
// CHECK: dtf.softmax {{.*}}{dtf.device = #dtf.device<"/job:worker/task:1">}

// PART-DAG: func.func @main_worker_0()
// PART-DAG: func.func @main_worker_1()
// PART-DAG: func.func @main_ps_0()
// PART-DAG: func.func @main_ps_1()

// REPLICA: dtf.placeholder "x" : tensor<?x784xf32>
// REPLICA: dtf.matmul %{{.*}}, %{{.*}} : tensor<?x784xf32>
