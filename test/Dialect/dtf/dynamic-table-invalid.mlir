// RUN: dtf-opt %s -split-input-file -verify-diagnostics
// One case per diagnostic of dynamic tables (#dtf.dynamic_table).

func.func @min_count_zero() {
  // expected-error @+1 {{min_count must be at least 1, got 0}}
  %t = dtf.variable "t" init(#dtf.zeros) {dtf.dynamic_table = #dtf.dynamic_table<min_count = 0>} : !dtf.resource<tensor<?x4xf32>>
  return
}

// -----

func.func @static_rows() {
  // expected-error @+1 {{'dtf.dynamic_table' on variable 't' of type 'tensor<10x4xf32>', but a dynamic table's type is tensor<?xDx...>}}
  %t = dtf.variable "t" init(#dtf.zeros) {dtf.dynamic_table = #dtf.dynamic_table} : !dtf.resource<tensor<10x4xf32>>
  return
}

// -----

func.func @integer_rows() {
  // expected-error @+1 {{'dtf.dynamic_table' on variable 't' of type 'tensor<?x4xi64>', but a dynamic table holds floats}}
  %t = dtf.variable "t" init(#dtf.zeros) {dtf.dynamic_table = #dtf.dynamic_table} : !dtf.resource<tensor<?x4xi64>>
  return
}

// -----

func.func @not_on_a_variable() {
  // expected-error @+1 {{'dtf.dynamic_table' must be a #dtf.dynamic_table on a dtf.variable}}
  %x = dtf.placeholder "x" {dtf.dynamic_table = #dtf.dynamic_table} : tensor<4xi64>
  return
}

// -----

func.func @div_partitioned() {
  // expected-error @+1 {{'dtf.dynamic_table' on variable 't' split with strategy div, but the ids of a dynamic table are hashes: split it with strategy mod}}
  %t = dtf.variable "t" init(#dtf.zeros) {dtf.dynamic_table = #dtf.dynamic_table, dtf.partitioner = #dtf.partitioner<shards = 2, strategy = div>} : !dtf.resource<tensor<?x4xf32>>
  return
}

// -----

func.func @dynamic_without_table() {
  // expected-error @+1 {{variable 't' of type 'tensor<?x4xf32>' has a dynamic number of rows, but is neither a #dtf.dynamic_table nor colocated with one}}
  %t = dtf.variable "t" init(#dtf.zeros) : !dtf.resource<tensor<?x4xf32>>
  return
}

// -----

func.func @read_whole() {
  %t = dtf.variable "t" init(#dtf.zeros) {dtf.dynamic_table = #dtf.dynamic_table} : !dtf.resource<tensor<?x4xf32>>
  // expected-error @+1 {{'dtf.read' op uses dynamic table 't' whole, but a dynamic table is only looked up and updated by rows}}
  %v = dtf.read %t : !dtf.resource<tensor<?x4xf32>>
  return
}

// -----

func.func @slot_read_whole() {
  %t = dtf.variable "t" init(#dtf.zeros) {dtf.dynamic_table = #dtf.dynamic_table} : !dtf.resource<tensor<?x4xf32>>
  %s = dtf.variable "t/Adagrad" init(#dtf.constant<0.1>) colocate_with("t") {trainable = false} : !dtf.resource<tensor<?x4xf32>>
  // expected-error @+1 {{'dtf.read' op uses dynamic table 't/Adagrad' whole, but a dynamic table is only looked up and updated by rows}}
  %v = dtf.read %s : !dtf.resource<tensor<?x4xf32>>
  return
}
