// A small AlexNet-style convnet for 28x28 grey images: two 5x5 convolutions
// with relu and 2x2 max pooling (32 and 64 feature maps), a dense layer of
// 256 relu units and a 10-way softmax, trained with Adam on the mean
// softmax cross-entropy. Batches of 100.
//
// Results: the batch cross-entropy and the batch accuracy.

module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2222"],
                                              worker = ["localhost:2223", "localhost:2224"]>} {
  func.func @main() -> (tensor<f32>, tensor<f32>) {
    %global_step = dtf.variable "global_step" init(#dtf.zeros) {trainable = false}
        : !dtf.resource<tensor<i64>>
    %conv1_w = dtf.variable "conv1_w" init(#dtf.truncated_normal<stddev = 0.1, seed = 11>)
        : !dtf.resource<tensor<5x5x1x32xf32>>
    %conv1_b = dtf.variable "conv1_b" init(#dtf.constant<0.1>) : !dtf.resource<tensor<32xf32>>
    %conv2_w = dtf.variable "conv2_w" init(#dtf.truncated_normal<stddev = 0.1, seed = 12>)
        : !dtf.resource<tensor<5x5x32x64xf32>>
    %conv2_b = dtf.variable "conv2_b" init(#dtf.constant<0.1>) : !dtf.resource<tensor<64xf32>>
    %fc1_w = dtf.variable "fc1_w" init(#dtf.truncated_normal<stddev = 0.1, seed = 13>)
        : !dtf.resource<tensor<3136x256xf32>>
    %fc1_b = dtf.variable "fc1_b" init(#dtf.constant<0.1>) : !dtf.resource<tensor<256xf32>>
    %fc2_w = dtf.variable "fc2_w" init(#dtf.truncated_normal<stddev = 0.1, seed = 14>)
        : !dtf.resource<tensor<256x10xf32>>
    %fc2_b = dtf.variable "fc2_b" init(#dtf.constant<0.1>) : !dtf.resource<tensor<10xf32>>

    %x = dtf.placeholder "x" : tensor<100x784xf32>
    %y_ = dtf.placeholder "y_" : tensor<100x10xf32>
    %image = dtf.reshape %x : tensor<100x784xf32> -> tensor<100x28x28x1xf32>

    // conv1: 28x28x1 -> 28x28x32 -> pooled 14x14x32
    %w1 = dtf.read %conv1_w : !dtf.resource<tensor<5x5x1x32xf32>>
    %b1 = dtf.read %conv1_b : !dtf.resource<tensor<32xf32>>
    %c1 = dtf.conv2d %image, %w1 strides [1, 1, 1, 1] padding SAME
        : tensor<100x28x28x1xf32>, tensor<5x5x1x32xf32>
    %c1b = dtf.bias_add %c1, %b1 : tensor<100x28x28x32xf32>, tensor<32xf32>
    %r1 = dtf.relu %c1b : tensor<100x28x28x32xf32>
    %p1 = dtf.max_pool %r1 ksize [1, 2, 2, 1] strides [1, 2, 2, 1] padding SAME
        : tensor<100x28x28x32xf32>

    // conv2: 14x14x32 -> 14x14x64 -> pooled 7x7x64
    %w2 = dtf.read %conv2_w : !dtf.resource<tensor<5x5x32x64xf32>>
    %b2 = dtf.read %conv2_b : !dtf.resource<tensor<64xf32>>
    %c2 = dtf.conv2d %p1, %w2 strides [1, 1, 1, 1] padding SAME
        : tensor<100x14x14x32xf32>, tensor<5x5x32x64xf32>
    %c2b = dtf.bias_add %c2, %b2 : tensor<100x14x14x64xf32>, tensor<64xf32>
    %r2 = dtf.relu %c2b : tensor<100x14x14x64xf32>
    %p2 = dtf.max_pool %r2 ksize [1, 2, 2, 1] strides [1, 2, 2, 1] padding SAME
        : tensor<100x14x14x64xf32>

    // Dense layers.
    %flat = dtf.reshape %p2 : tensor<100x7x7x64xf32> -> tensor<100x3136xf32>
    %w3 = dtf.read %fc1_w : !dtf.resource<tensor<3136x256xf32>>
    %b3 = dtf.read %fc1_b : !dtf.resource<tensor<256xf32>>
    %f1 = dtf.matmul %flat, %w3 : tensor<100x3136xf32>, tensor<3136x256xf32>
    %f1b = dtf.bias_add %f1, %b3 : tensor<100x256xf32>, tensor<256xf32>
    %h = dtf.relu %f1b : tensor<100x256xf32>
    %w4 = dtf.read %fc2_w : !dtf.resource<tensor<256x10xf32>>
    %b4 = dtf.read %fc2_b : !dtf.resource<tensor<10xf32>>
    %f2 = dtf.matmul %h, %w4 : tensor<100x256xf32>, tensor<256x10xf32>
    %logits = dtf.bias_add %f2, %b4 : tensor<100x10xf32>, tensor<10xf32>

    %xent = dtf.softmax_cross_entropy_with_logits %logits, %y_
        : tensor<100x10xf32>, tensor<100x10xf32>
    %cross_entropy = dtf.reduce_mean %xent : tensor<100xf32>

    dtf.minimize %cross_entropy : tensor<f32>, #dtf.adam<learning_rate = 0.001>
        global_step %global_step : !dtf.resource<tensor<i64>>

    %predicted = dtf.argmax %logits, 1 : tensor<100x10xf32>
    %expected = dtf.argmax %y_, 1 : tensor<100x10xf32>
    %correct = dtf.equal %predicted, %expected : tensor<100xi64>, tensor<100xi64>
    %correct_f = dtf.cast %correct : tensor<100xi1> to tensor<100xf32>
    %accuracy = dtf.reduce_mean %correct_f : tensor<100xf32>

    return %cross_entropy, %accuracy : tensor<f32>, tensor<f32>
  }
}
