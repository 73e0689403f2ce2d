func.func @f() {
  %a = dtf.constant dense<1.0> : tensor<100000000000xf32>
  %v = dtf.variable "w" init(#dtf.truncated_normal<stddev = 0.1, seed = 1>) : !dtf.resource<tensor<4000000000x4000000000xf32>>
  return
}
