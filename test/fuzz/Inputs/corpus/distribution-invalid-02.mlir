func.func @concat_scalar(%a: tensor<f32>) {
  // expected-error @+1 {{expects tensors of rank >= 1, got 'tensor<f32>'}}
  %0 = dtf.concat %a axis 0 : tensor<f32>
  return
}
