func.func @f() {
  %a = dtf.placeholder "x" : tensor<9999999999x9999999999xf32>
  %b = dtf.placeholder "y" : tensor<9999999999x9999999999xf32>
  %c = dtf.matmul %a, %b : tensor<9999999999x9999999999xf32>, tensor<9999999999x9999999999xf32>
  return
}
