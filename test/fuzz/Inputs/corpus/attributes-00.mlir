// Printing of the dtf attributes: device names in their canonical form,
// the cluster, initializers and optimizers with default parameters elided,
// and float hyper-parameters in the shortest form that reads back.

module attributes {dtf.cluster = #dtf.cluster<ps = ["ps0.example.com:2222", "10.0.0.2:2222"],
                                              worker = ["localhost:2223", "localhost:2224", "[::1]:2225"]>} {
  func.func @placement(%loss: tensor<f32>) attributes {dtf.device = #dtf.device<"/job:worker/task:0">} {
    %w = dtf.variable "w" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps/task:0">}
        : !dtf.resource<tensor<2xf32>>
    %b = dtf.variable "b" init(#dtf.zeros) {trainable = false, dtf.device = #dtf.device<"/job:ps/task:1/device:CPU:0">}
        : !dtf.resource<tensor<2xf32>>
    %r = dtf.read %w {dtf.device = #dtf.device<"/job:worker/task:1/device:GPU:0">} : !dtf.resource<tensor<2xf32>>
    %s = dtf.read %b {dtf.device = #dtf.device<"/job:worker/task:2/device:GPU:15">} : !dtf.resource<tensor<2xf32>>
    // Leading zeros of the indices are dropped.
    dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
        {dtf.device = #dtf.device<"/job:worker/task:00/device:CPU:007">}
    return
  }
}
