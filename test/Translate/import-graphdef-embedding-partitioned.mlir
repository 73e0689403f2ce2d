// A table split by tf.compat.v1.fixed_size_partitioner(2) (VariableV2s
// table/part_0 of 11 rows and table/part_1 of 10), looked up by
// tf.nn.embedding_lookup and embedding_lookup_sparse with
// partition_strategy "mod" (DynamicPartition by FloorMod) and "div" (by
// the Maximum of FloorDivs), each shard's Gather joined by
// ParallelDynamicStitch and updated by its own SparseApplyAdagrad: one
// dtf.variable of 21 rows with the dtf.partitioner of the strategy, looked
// up whole.
// RUN: dtf-translate --import-graphdef %S/Inputs/embedding_partitioned_mod.pbtxt --max-ids-per-example=3 | FileCheck %s --check-prefixes=CHECK,MOD
// RUN: dtf-translate --import-graphdef %S/Inputs/embedding_partitioned_div.pbtxt --max-ids-per-example=3 | FileCheck %s --check-prefixes=CHECK,DIV

// MOD:        %[[TABLE:.*]] = dtf.variable "table" init(#dtf.truncated_normal<stddev = 0.1, seed = 1>) {dtf.partitioner = #dtf.partitioner<shards = 2, strategy = mod>} : !dtf.resource<tensor<21x4xf32>>
// DIV:        %[[TABLE:.*]] = dtf.variable "table" init(#dtf.truncated_normal<stddev = 0.1, seed = 1>) {dtf.partitioner = #dtf.partitioner<shards = 2, strategy = div>} : !dtf.resource<tensor<21x4xf32>>
// CHECK-NOT:  dtf.variable
// CHECK:      %[[IDS:.*]] = dtf.placeholder "ids" : tensor<?x2xi64>
// CHECK-NEXT: %[[ROWS:.*]] = dtf.embedding_lookup %[[TABLE]][%[[IDS]]] : !dtf.resource<tensor<21x4xf32>>, tensor<?x2xi64>
// CHECK-NEXT: dtf.reduce_sum %[[ROWS]] {axes = array<i64: 1, 2>}
// CHECK-NEXT: %[[TAGS:.*]] = dtf.placeholder "tags" : tensor<?x3xi64>
// CHECK-NEXT: %[[TAGGED:.*]] = dtf.embedding_lookup %[[TABLE]][%[[TAGS]]] : !dtf.resource<tensor<21x4xf32>>, tensor<?x3xi64>
// CHECK-NEXT: dtf.embedding_combine sqrtn %[[TAGGED]], %[[TAGS]]
// CHECK:      dtf.minimize {{.*}} #dtf.adagrad<learning_rate = 0.1> global_step
