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
    %hid_b_value = dtf.read %hid_b : !dtf.resource<tensor<100xf32>>
    %hid_mm = dtf.matmul %x, %hid_w_value : tensor<100x784xf32>, tensor<784x100xf32>
    %hid_lin = dtf.bias_add %hid_mm, %hid_b_value : tensor<100x100xf32>, tensor<100xf32>
    %hid = dtf.relu %hid_lin : tensor<100x100xf32>

    // y = softmax(hid * sm_w + sm_b)
    %sm_w_value = dtf.read %sm_w : !dtf.resource<tensor<100x10xf32>>
    %sm_b_value = dtf.read %sm_b : !dtf.resource<tensor<10xf32>>
    %sm_mm = dtf.matmul %hid, %sm_w_value : tensor<100x100xf32>, tensor<100x10xf32>
    %logits = dtf.bias_add %sm_mm, %sm_b_value : tensor<100x10xf32>, tensor<10xf32>
    %y = dtf.softmax %logits : tensor<100x10xf32>

    // cross_entropy = -reduce_sum(y_ * log(clip_by_value(y, 1e-10, 1.0)))
    %clipped = dtf.clip_by_value %y, 1.0e-10, 1.0 : tensor<100x10xf32>
    %log_y = dtf.log %clipped : tensor<100x10xf32>
    %weighted = dtf.mul %y_, %log_y : tensor<100x10xf32>, tensor<100x10xf32>
    %sum = dtf.reduce_sum %weighted : tensor<100x10xf32>
    %cross_entropy = dtf.neg %sum : tensor<f32>

    dtf.minimize %cross_entropy : tensor<f32>, #dtf.adam<learning_rate = 0.01>
        global_step %global_step : !dtf.resource<tensor<i64>>

    // accuracy = reduce_mean(cast(equal(argmax(y, 1), argmax(y_, 1))))
    %predicted = dtf.argmax %y, 1 : tensor<100x10xf32>
    %expected = dtf.argmax %y_, 1 : tensor<100x10xf32>
    %correct = dtf.equal %predicted, %expected : tensor<100xi64>, tensor<100xi64>
    %correct_f = dtf.cast %correct : tensor<100xi1> to tensor<100xf32>
    %accuracy = dtf.reduce_mean %correct_f : tensor<100xf32>

    return %cross_entropy, %accuracy : tensor<f32>, tensor<f32>
  }
}
