func.func @device_trailing_component() {
  // expected-error @+1 {{invalid device '/job:worker/task:0/device:GPU:0/replica:0': unexpected component 'replica:0' after the device}}
  %v = dtf.variable "v" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:worker/task:0/device:GPU:0/replica:0">} : !dtf.resource<tensor<f32>>
  return
}
