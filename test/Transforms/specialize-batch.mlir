// --dtf-specialize-batch on a model with a dynamic batch: the placeholders
// get the batch size and every type downstream follows, down to the
// function's results.
// RUN: dtf-opt --dtf-specialize-batch=batch-size=32 \
// RUN:   %examples/image_label_mlp.mlir | FileCheck %s
// The training pipeline runs it first when given batch-size, so the model
// passes through autodiff, the optimizer and replication.
// RUN: dtf-opt --dtf-training-pipeline=batch-size=128 \
// RUN:   %examples/image_label_mlp.mlir | FileCheck %s --check-prefix=PIPE
// So does the in-graph pipeline, towers included.
// RUN: dtf-opt --dtf-in-graph-pipeline="batch-size=128 towers=/job:worker/task:0,/job:worker/task:1" \
// RUN:   %examples/image_label_mlp.mlir | FileCheck %s --check-prefix=TOWERS
// A static model is left as it is.
// RUN: dtf-opt --dtf-specialize-batch=batch-size=32 %examples/mnist_mlp.mlir \
// RUN:   | FileCheck %s --check-prefix=STATIC

// CHECK-LABEL: func.func @main() -> (tensor<f32>, tensor<f32>)
// CHECK:         dtf.placeholder "image" : tensor<32x784xf32>
// CHECK:         dtf.placeholder "label" : tensor<32xi64>
// CHECK:         dtf.matmul %{{.*}}, %{{.*}} : tensor<32x784xf32>, tensor<784x100xf32>
// CHECK:         dtf.relu %{{.*}} : tensor<32x100xf32>
// CHECK:         dtf.sparse_softmax_cross_entropy_with_logits %{{.*}}, %{{.*}} : tensor<32x10xf32>, tensor<32xi64>
// CHECK:         dtf.reduce_mean %{{.*}} : tensor<32xf32>
// CHECK:         dtf.equal %{{.*}}, %{{.*}} : tensor<32xi64>, tensor<32xi64>
// CHECK:         dtf.cast %{{.*}} : tensor<32xi1> to tensor<32xf32>
// CHECK-NOT:     ?x

// PIPE-LABEL: func.func @worker()
// PIPE:         dtf.placeholder "image" : tensor<128x784xf32>
// PIPE:         dtf.sparse_softmax_cross_entropy_with_logits_grad %{{.*}}, %{{.*}}, %{{.*}} : tensor<128xf32>, tensor<128x10xf32>, tensor<128xi64>
// PIPE:         dtf.push_gradients

// TOWERS:       dtf.placeholder "image" {{.*}} : tensor<128x784xf32>
// TOWERS-NEXT:  dtf.slice %{{.*}} offsets [0, 0] sizes [64, 784] {{.*}} : tensor<128x784xf32>
// TOWERS-NEXT:  dtf.slice %{{.*}} offsets [64, 0] sizes [64, 784] {{.*}} : tensor<128x784xf32>

// STATIC:       dtf.placeholder "x" : tensor<100x784xf32>
