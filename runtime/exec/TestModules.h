//===- TestModules.h - Modules shared by the executor tests -----*- C++ -*-===//

#pragma once

namespace dtf::exec::testing {

/// @main and its partition over three worker tasks, written as
/// --dtf-partition would: a chain (task 0 -> 1 -> 2 -> 0) and a diamond
/// (a on task 0 feeds task 1 and task 2, whose results meet on task 0), with
/// a variable on task 1. Task 0 is the client device: it takes the feed and
/// returns the results.
///
///   a = x * x (0);  b = a * w (1);  d = relu(b) (1);  c = -a (2)
///   e = d + c (0);  s = sum(d) (2)
inline constexpr const char *kPartitionedModule = R"mlir(
module attributes {dtf.cluster = #dtf.cluster<ps = [], worker = ["w0:1", "w1:1", "w2:1"]>} {
  func.func @main() -> (tensor<2x2xf32>, tensor<f32>) {
    %x = dtf.placeholder "x" : tensor<2x2xf32>
    %a = dtf.matmul %x, %x : tensor<2x2xf32>, tensor<2x2xf32>
    %w = dtf.variable "w" init(#dtf.constant<0.5>) : !dtf.resource<tensor<2x2xf32>>
    %wv = dtf.read %w : !dtf.resource<tensor<2x2xf32>>
    %b = dtf.matmul %a, %wv : tensor<2x2xf32>, tensor<2x2xf32>
    %d = dtf.relu %b : tensor<2x2xf32>
    %c = dtf.neg %a : tensor<2x2xf32>
    %e = dtf.add %d, %c : tensor<2x2xf32>, tensor<2x2xf32>
    %s = dtf.reduce_sum %d : tensor<2x2xf32>
    %one = dtf.constant dense<1.0> : tensor<2x2xf32>
    dtf.assign_add %w, %one : !dtf.resource<tensor<2x2xf32>>
    return %e, %s : tensor<2x2xf32>, tensor<f32>
  }

  func.func @main_worker_0() -> (tensor<2x2xf32>, tensor<f32>)
      attributes {dtf.device = #dtf.device<"/job:worker/task:0">} {
    %x = dtf.placeholder "x" : tensor<2x2xf32>
    %a = dtf.matmul %x, %x : tensor<2x2xf32>, tensor<2x2xf32>
    dtf.send %a, "edge_0_dtf.matmul" from "/job:worker/task:0" to "/job:worker/task:1" : tensor<2x2xf32>
    dtf.send %a, "edge_0_dtf.matmul" from "/job:worker/task:0" to "/job:worker/task:2" : tensor<2x2xf32>
    %d = dtf.recv "edge_1_dtf.relu" from "/job:worker/task:1" to "/job:worker/task:0" : tensor<2x2xf32>
    %c = dtf.recv "edge_2_dtf.neg" from "/job:worker/task:2" to "/job:worker/task:0" : tensor<2x2xf32>
    %e = dtf.add %d, %c : tensor<2x2xf32>, tensor<2x2xf32>
    %s = dtf.recv "edge_3_dtf.reduce_sum" from "/job:worker/task:2" to "/job:worker/task:0" : tensor<f32>
    return %e, %s : tensor<2x2xf32>, tensor<f32>
  }

  func.func @main_worker_1() attributes {dtf.device = #dtf.device<"/job:worker/task:1">} {
    %a = dtf.recv "edge_0_dtf.matmul" from "/job:worker/task:0" to "/job:worker/task:1" : tensor<2x2xf32>
    %w = dtf.variable "w" init(#dtf.constant<0.5>) : !dtf.resource<tensor<2x2xf32>>
    %wv = dtf.read %w : !dtf.resource<tensor<2x2xf32>>
    %b = dtf.matmul %a, %wv : tensor<2x2xf32>, tensor<2x2xf32>
    %d = dtf.relu %b : tensor<2x2xf32>
    dtf.send %d, "edge_1_dtf.relu" from "/job:worker/task:1" to "/job:worker/task:0" : tensor<2x2xf32>
    dtf.send %d, "edge_1_dtf.relu" from "/job:worker/task:1" to "/job:worker/task:2" : tensor<2x2xf32>
    %one = dtf.constant dense<1.0> : tensor<2x2xf32>
    dtf.assign_add %w, %one : !dtf.resource<tensor<2x2xf32>>
    return
  }

  func.func @main_worker_2() attributes {dtf.device = #dtf.device<"/job:worker/task:2">} {
    %a = dtf.recv "edge_0_dtf.matmul" from "/job:worker/task:0" to "/job:worker/task:2" : tensor<2x2xf32>
    %c = dtf.neg %a : tensor<2x2xf32>
    dtf.send %c, "edge_2_dtf.neg" from "/job:worker/task:2" to "/job:worker/task:0" : tensor<2x2xf32>
    %d = dtf.recv "edge_1_dtf.relu" from "/job:worker/task:1" to "/job:worker/task:2" : tensor<2x2xf32>
    %s = dtf.reduce_sum %d : tensor<2x2xf32>
    dtf.send %s, "edge_3_dtf.reduce_sum" from "/job:worker/task:2" to "/job:worker/task:0" : tensor<f32>
    return
  }
}
)mlir";

} // namespace dtf::exec::testing
