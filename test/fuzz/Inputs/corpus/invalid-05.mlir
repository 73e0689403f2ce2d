func.func @bias_add_element_types(%x: tensor<2x3xf32>, %b: tensor<3xf64>) {
  // expected-error @+1 {{element types differ: 'tensor<2x3xf32>' and 'tensor<3xf64>'}}
  %0 = dtf.bias_add %x, %b : tensor<2x3xf32>, tensor<3xf64>
  return
}
