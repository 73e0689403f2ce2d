func.func @f() {
  %a = dtf.placeholder "x" : tensor<-1x3xf32>
  return
}
