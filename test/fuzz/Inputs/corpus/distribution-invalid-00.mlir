// Diagnostics of the ops and attributes distribution adds: colocation,
// transfers, concat and slice. Shape errors of concat and slice come from
// their shape functions while parsing, hence without the "'dtf.op' op"
// prefix.

//===----------------------------------------------------------------------===//
// colocate_with
//===----------------------------------------------------------------------===//

func.func @colocate_missing() {
  %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<2xf32>>
  // expected-error @+1 {{'dtf.variable' op colocate_with names 'v', but there is no such variable in this block}}
  %m = dtf.variable "w/Adam" init(#dtf.zeros) colocate_with("v") : !dtf.resource<tensor<2xf32>>
  return
}
