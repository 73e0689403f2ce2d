module attributes {dtf.cluster = #dtf.cluster<ps = [1, 2], worker = ["a"]>, dtf.replication = #dtf.replication<mode = sync, replicas_to_aggregate = -3, total_replicas = 0>} {
  func.func @f() attributes {dtf.device = #dtf.device<"/job:ps/task:99999999999999999999">} { return }
}
