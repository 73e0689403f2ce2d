// The classic distributed-MNIST MLP (TensorFlow's dist_mnist/mnist_replica):
// 784 inputs, one hidden layer of 100 relu units, 10 softmax outputs, the
// summed cross-entropy on clipped probabilities, Adam with learning rate
// 0.01, batches of 100 and a global step.
//
// The variables are created in TensorFlow's order (global_step first), so
// round-robin placement over two PS tasks gives global_step, hid_b and sm_b
// to ps0 and hid_w and sm_w to ps1, as tf.train.replica_device_setter does.
//
// Results: the batch cross-entropy and the batch accuracy.

module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2222"],
                                              worker = ["localhost:2223", "localhost:2224"]>} {
  func.func @main() -> (tensor<f32>, tensor<f32>) {
    %global_step = dtf.variable "global_step" init(#dtf.zeros) {trainable = false}
        : !dtf.resource<tensor<i64>>

    // Hidden layer. stddev = 1 / sqrt(784).
    %hid_w = dtf.variable "hid_w" init(#dtf.truncated_normal<stddev = 0.03571428571428571, seed = 1>)
        : !dtf.resource<tensor<784x100xf32>>
    %hid_b = dtf.variable "hid_b" init(#dtf.zeros) : !dtf.resource<tensor<100xf32>>

    // Softmax layer. stddev = 1 / sqrt(100).
    %sm_w = dtf.variable "sm_w" init(#dtf.truncated_normal<stddev = 0.1, seed = 2>)
        : !dtf.resource<tensor<100x10xf32>>
    %sm_b = dtf.variable "sm_b" init(#dtf.zeros) : !dtf.resource<tensor<10xf32>>

    %x = dtf.placeholder "x" : tensor<100x784xf32>
    %y_ = dtf.placeholder "y_" : tensor<100x10xf32>

    // hid = relu(x * hid_w + hid_b)
    %hid_w_value = dtf.read %hid_w : !dtf.resource<tensor<784x100xf32>>
    %hid_b_