// Model parallelism: the distributed-MNIST MLP of mnist_mlp.mlir split by
// layer over two workers, as TensorFlow users write it with
// `with tf.device("/job:worker/task:N"):` around each layer. The hidden
// layer (784 -> 100, relu) runs on worker 0, which reads the images; the
// softmax layer (100 -> 10), the loss, the labels and the accuracy live on
// worker 1, so the hidden activations cross from worker 0 to worker 1 once
// per step.
//
// The variables are left unplaced: --dtf-place-variables puts them on the
// two PS tasks (round-robin: global_step, hid_b, sm_b on ps0; hid_w, sm_w on
// ps1), their reads and updates beside them, and the remaining ops (the
// optimizer's constants and, without colocation, the backward pass) on its
// worker-device. --dtf-partition then makes one function per device with a
// send/recv pair per crossing edge:
//
//   dtf-opt --dtf-autodiff --dtf-expand-optimizer --dtf-place-variables \
//       --dtf-partition examples/model_parallel_mlp.mlir
//
// With --dtf-autodiff=colocate-gradients-with-ops (TensorFlow's
// colocate_gradients_with_ops=True) each layer's backward ops stay on the
// layer's worker too. --dtf-in-graph-pipeline sets it, adds the forward-only
// @main_eval and partitions both; then all that crosses between the workers
// in a training step is the hidden activations (100x100 f32, worker 0 to 1),
// their gradient (100x100 f32, worker 1 to 0) and the two results, which
// worker 0's partition returns:
//
//   dtf-opt --dtf-in-graph-pipeline examples/model_parallel_mlp.mlir
//
// dtf-run trains it that way, in-graph, on a local cluster:
//
//   dtf-run --local --ps=2 --workers=2 examples/model_parallel_mlp.mlir
//
// Results: the batch cross-entropy and the batch accuracy.

module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2222", "localhost:2225"],
                                              worker = ["localhost:2223", "localhost:2224"]>} {
  func.func @main() -> (tensor<f32>, tensor<f32>) {
    %global_step = dtf.variable "global_step" init(#dtf.zeros) {trainable = false}
        : !dtf.resource<tensor<i64>>
    %hid_w = dtf.variable "hid_w" init(#dtf.truncated_normal<stddev = 0.03571428571428571, seed = 1>)
        : !dtf.resource<tensor<784x100xf32>>
    %hid_b = dtf.variable "hid_b" init(#dtf.zeros) : !dtf.resource<tensor<100xf32>>
    %sm_w = dtf.variable "sm_w" init(#dtf.truncated_normal<stddev = 0.1, seed = 2>)
        : !dtf.resource<tensor<100x10xf32>>
    %sm_b = dtf.variable "sm_b" init(#dtf.zeros) : !dtf.resource<tensor<10xf32>>

    // Worker 0: the images and the hidden layer.
    %x = dtf.placeholder "x" {dtf.device = #dtf.device<"/job:worker/task:0">}
        : tensor<100x784xf32>
    %hid_w_value = dtf.read %hid_w : !dtf.resource<tensor<784x100xf32>>
    %hid_b_value = dtf.read %hid_b : !dtf.resource<tensor<100xf32>>
    %hid_mm = dtf.matmul %x, %hid_w_value {dtf.device = #dtf.device<"/job:worker/task:0">}
        : tensor<100x784xf32>, tensor<784x100xf32>
    %hid_lin = dtf.bias_add %hid_mm, %hid_b_value {dtf.device = #dtf.device<"/job:worker/task:0">}
        : tensor<100x100xf32>, tensor<100xf32>
    %hid = dtf.relu %hid_lin {dtf.device = #dtf.device<"/job:worker/task:0">}
        : tensor<100x100xf32>

    // Worker 1: the labels, the softmax layer and the loss.
    %y_ = dtf.placeholder "y_" {dtf.device = #dtf.device<"/job:worker/task:1">}
        : tensor<100x10xf32>
    %sm_w_value = dtf.read %sm_w : !dtf.resource<tensor<100x10xf32>>
    %sm_b_value = dtf.read %sm_b : !dtf.resource<tensor<10xf32>>
    %sm_mm = dtf.matmul %hid, %sm_w_value {dtf.device = #dtf.device<"/job:worker/task:1">}
        : tensor<100x100xf32>, tensor<100x10xf32>
    %logits = dtf.bias_add %sm_mm, %sm_b_value {dtf.device = #dtf.device<"/job:worker/task:1">}
        : tensor<100x10xf32>, tensor<10xf32>
    %y = dtf.softmax %logits {dtf.device = #dtf.device<"/job:worker/task:1">}
        : tensor<100x10xf32>
    %clipped = dtf.clip_by_value %y, 1.0e-10, 1.0 {dtf.device = #dtf.device<"/job:worker/task:1">}
        : tensor<100x10xf32>
    %log_y = dtf.log %clipped {dtf.device = #dtf.device<"/job:worker/task:1">}
        : tensor<100x10xf32>
    %weighted = dtf.mul %y_, %log_y {dtf.device = #dtf.device<"/job:worker/task:1">}
        : tensor<100x10xf32>, tensor<100x10xf32>
    %sum = dtf.reduce_sum %weighted {dtf.device = #dtf.device<"/job:worker/task:1">}
        : tensor<100x10xf32>
    %cross_entropy = dtf.neg %sum {dtf.device = #dtf.device<"/job:worker/task:1">}
        : tensor<f32>

    dtf.minimize %cross_entropy : tensor<f32>, #dtf.adam<learning_rate = 0.01>
        global_step %global_step : !dtf.resource<tensor<i64>>

    // Worker 1, beside the predictions and the labels:
    // accuracy = reduce_mean(cast(equal(argmax(y, 1), argmax(y_, 1))))
    %predicted = dtf.argmax %y, 1 {dtf.device = #dtf.device<"/job:worker/task:1">}
        : tensor<100x10xf32>
    %expected = dtf.argmax %y_, 1 {dtf.device = #dtf.device<"/job:worker/task:1">}
        : tensor<100x10xf32>
    %correct = dtf.equal %predicted, %expected {dtf.device = #dtf.device<"/job:worker/task:1">}
        : tensor<100xi64>, tensor<100xi64>
    %correct_f = dtf.cast %correct {dtf.device = #dtf.device<"/job:worker/task:1">}
        : tensor<100xi1> to tensor<100xf32>
    %accuracy = dtf.reduce_mean %correct_f {dtf.device = #dtf.device<"/job:worker/task:1">}
        : tensor<100xf32>

    return %cross_entropy, %accuracy : tensor<f32>, tensor<f32>
  }
}
