// The distributed-MNIST MLP (784-100-10, Adam) as a model of one's own data
// is usually written: inputs named `image` (pixels in [0, 1]) and `label`
// (int64 class ids, not one-hot), a dynamic batch dimension, and the mean
// of tf.nn.sparse_softmax_cross_entropy_with_logits as the loss. dtf-run
// compiles it for the batch that --batch_size gives and feeds it from any
// input, e.g. the TFRecord files of examples/fashion_mnist_to_tfrecord.py:
//
//   dtf-run --local --batch_size=100 \
//     --input=image=tfrecord:data/train-*.tfrecord.gz,scale=1/255 \
//     --input=label=tfrecord:data/train-*.tfrecord.gz \
//     --eval_input=image=tfrecord:data/test-*.tfrecord.gz,scale=1/255 \
//     --eval_input=label=tfrecord:data/test-*.tfrecord.gz \
//     examples/image_label_mlp.mlir
//
// Results: the batch's mean cross-entropy and accuracy.

module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2222"],
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

    %image = dtf.placeholder "image" : tensor<?x784xf32>
    %label = dtf.placeholder "label" : tensor<?xi64>

    %hid_w_value = dtf.read %hid_w : !dtf.resource<tensor<784x100xf32>>
    %hid_b_value = dtf.read %hid_b : !dtf.resource<tensor<100xf32>>
    %hid_mm = dtf.matmul %image, %hid_w_value : tensor<?x784xf32>, tensor<784x100xf32>
    %hid_lin = dtf.bias_add %hid_mm, %hid_b_value : tensor<?x100xf32>, tensor<100xf32>
    %hid = dtf.relu %hid_lin : tensor<?x100xf32>

    %sm_w_value = dtf.read %sm_w : !dtf.resource<tensor<100x10xf32>>
    %sm_b_value = dtf.read %sm_b : !dtf.resource<tensor<10xf32>>
    %sm_mm = dtf.matmul %hid, %sm_w_value : tensor<?x100xf32>, tensor<100x10xf32>
    %logits = dtf.bias_add %sm_mm, %sm_b_value : tensor<?x10xf32>, tensor<10xf32>

    %losses = dtf.sparse_softmax_cross_entropy_with_logits %logits, %label
        : tensor<?x10xf32>, tensor<?xi64>
    %cross_entropy = dtf.reduce_mean %losses : tensor<?xf32>

    dtf.minimize %cross_entropy : tensor<f32>, #dtf.adam<learning_rate = 0.005>
        global_step %global_step : !dtf.resource<tensor<i64>>

    %predicted = dtf.argmax %logits, 1 : tensor<?x10xf32>
    %correct = dtf.equal %predicted, %label : tensor<?xi64>, tensor<?xi64>
    %correct_f = dtf.cast %correct : tensor<?xi1> to tensor<?xf32>
    %accuracy = dtf.reduce_mean %correct_f : tensor<?xf32>

    return %cross_entropy, %accuracy : tensor<f32>, tensor<f32>
  }
}
