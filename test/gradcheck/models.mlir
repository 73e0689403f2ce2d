// Both example models, end to end, on the first 100 Fashion-MNIST test
// images and labels (realistic activations keep relu kinks away from the
// finite-difference steps).
// RUN: dtf-gradcheck --samples=20 --mnist=/usr/share/datasets/fashion-mnist %examples/mnist_mlp.mlir | FileCheck %s --check-prefix=MLP
// RUN: dtf-gradcheck --samples=4 --mnist=/usr/share/datasets/fashion-mnist %examples/mnist_cnn.mlir | FileCheck %s --check-prefix=CNN

// MLP-DAG: @main hid_w: 20 of 78400 elements
// MLP-DAG: @main hid_b: 20 of 100 elements
// MLP-DAG: @main sm_w: 20 of 1000 elements
// MLP-DAG: @main sm_b: 10 of 10 elements
// MLP: gradient check passed

// CNN-DAG: @main conv1_w: 4 of 800
// CNN-DAG: @main conv1_b: 4 of 32
// CNN-DAG: @main conv2_w: 4 of 51200
// CNN-DAG: @main conv2_b: 4 of 64
// CNN-DAG: @main fc1_w: 4 of 802816
// CNN-DAG: @main fc1_b: 4 of 256
// CNN-DAG: @main fc2_w: 4 of 2560
// CNN-DAG: @main fc2_b: 4 of 10
// CNN: gradient check passed
