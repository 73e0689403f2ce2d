// expected-error @+1 {{replicas_to_aggregate must be at least 1, got 0}}
module attributes {dtf.replication = #dtf.replication<mode = sync, replicas_to_aggregate = 0, total_replicas = 2>} {
}
