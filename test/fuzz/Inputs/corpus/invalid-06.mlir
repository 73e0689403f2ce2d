func.func @reshape_element_type(%x: tensor<100x784xf32>) {
  // expected-error @+1 {{'dtf.reshape' op element types differ: 'tensor<100x784xf32>' and 'tensor<78400xf16>'}}
  %0 = dtf.reshape %x : tensor<100x784xf32> -> tensor<78400xf16>
  return
}
