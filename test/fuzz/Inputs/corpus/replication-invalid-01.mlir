// expected-error @+1 {{'dtf.gradients' lists 'w' twice}}
func.func @ps_0(%g: tensor<2xf32>, %h: tensor<2xf32>) attributes {dtf.gradients = ["w", "w"]} {
  return
}
