func.func @send_bad_device(%x: tensor<f32>) {
  // expected-error @+1 {{invalid device '/job:ps/task:x': task index 'x' is not a non-negative integer}}
  dtf.send %x, "t" from "/job:worker/task:0" to "/job:ps/task:x" : tensor<f32>
  return
}
