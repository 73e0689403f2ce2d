// RUN: dtf-gradcheck --samples=6 %examples/mnist_mlp.mlir | FileCheck %s --check-prefix=MLP
// RUN: dtf-gradcheck --samples=3 %examples/mnist_cnn.mlir | FileCheck %s --check-prefix=CNN
// Both example models, end to end.

// MLP-DAG: @main hid_w: 6 of 78400 elements
// MLP-DAG: @main hid_b: 6 of 100 elements
// MLP-DAG: @main sm_w: 6 of 1000 elements
// MLP-DAG: @main sm_b: 6 of 10 elements
// MLP: gradient check passed

// CNN-DAG: @main conv1_w: 3 of 800
// CNN-DAG: @main conv2_w: 3 of 51200
// CNN-DAG: @main fc1_w: 3 of 802816
// CNN-DAG: @main fc2_b: 3 of 10
// CNN: gradient check passed
