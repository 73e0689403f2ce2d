module attributes {dtf.cluster = #dtf.cluster<ps = [], worker = ["localhost:2223"]>} {
  // expected-error @+1 {{device '/job:ps/task:0' is not in the cluster: job 'ps' has 0 tasks}}
  func.func @device_no_ps_task() attributes {dtf.device = #dtf.device<"/job:ps/task:0">} {
    return
  }
}
