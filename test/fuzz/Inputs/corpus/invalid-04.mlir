func.func @duplicate_variable_name() {
  // expected-note @+1 {{previous definition here}}
  %a = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<2xf32>>
  %b = dtf.variable "b" init(#dtf.zeros) : !dtf.resource<tensor<2xf32>>
  // expected-error @+1 {{'dtf.variable' op variable name 'w' is already used in this block}}
  %c = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<3xf32>>
  return
}
