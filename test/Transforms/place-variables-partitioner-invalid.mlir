// RUN: dtf-opt %s -split-input-file --dtf-place-variables -verify-diagnostics

module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2222", "localhost:2225"], worker = ["localhost:2223"]>} {
  func.func @mod_table_read_whole() -> tensor<11x8xf32> {
    // expected-note @+1 {{variable defined here}}
    %table = dtf.variable "table" init(#dtf.zeros) {dtf.partitioner = #dtf.partitioner<shards = 2, strategy = mod>} : !dtf.resource<tensor<11x8xf32>>
    // expected-error @+1 {{uses variable 'table', whose rows are partitioned by id modulo 2, as a whole; only dtf.embedding_lookup and the sparse updates address such a table (partition it by div)}}
    %whole = dtf.read %table : !dtf.resource<tensor<11x8xf32>>
    return %whole : tensor<11x8xf32>
  }
}

// -----

module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2222", "localhost:2225"], worker = ["localhost:2223"]>} {
  func.func @pinned_table() {
    // expected-error @+1 {{variable 'table' is placed on '/job:ps/task:1', but its dtf.partitioner spreads it over PS tasks}}
    %table = dtf.variable "table" init(#dtf.zeros) {dtf.partitioner = #dtf.partitioner<shards = 2, strategy = mod>, dtf.device = #dtf.device<"/job:ps/task:1">} : !dtf.resource<tensor<11x8xf32>>
    return
  }
}
