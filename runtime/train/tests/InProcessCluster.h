//===- InProcessCluster.h - PS tasks and a coordinator in one process -----===//
//
// What the training loop's unit tests run on instead of gRPC servers and
// compiled modules: PS tasks whose update is SGD written in C++, reached
// through ps::InProcessPsConnection, a coord::Coordinator reached through
// coord::InProcessCoordinatorConnection, and a replica step (a WorkerStep
// written in C++) that computes the gradient of (w - target)^2 / 2.
//
// PS task i holds "w<i>" (f32[2]); task 0 also holds "global_step". A
// restart replaces a task by a fresh one, as a restarted process is.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/core/tests/TestUtil.h"
#include "runtime/train/ReplicaStep.h"
#include "runtime/train/Telemetry.h"

#include "runtime/cluster/ClusterSpec.h"
#include "runtime/coord/Coordinator.h"
#include "runtime/coord/InProcessCoordinator.h"
#include "runtime/data/TensorSlices.h"
#include "runtime/ps/InProcessPsConnection.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace dtf::train::testing {

/// PS task `index`'s update: w<index> -= learningRate * mean of the
/// replicas' gradients; task 0 adds one to global_step.
class SgdProgram final : public ps::UpdateProgram {
public:
  SgdProgram(int index, int64_t replicasToAggregate, float learningRate)
      : variable("w" + std::to_string(index)), learningRate(learningRate),
        holdsStep(index == 0) {
    signature_.taskName = "/job:ps/task:" + std::to_string(index);
    signature_.variables = {{variable, {DType::F32, {2}}}};
    if (holdsStep)
      signature_.variables["global_step"] = {DType::I64, {}};
    signature_.gradientNames = {variable};
    signature_.argumentTypes.assign(replicasToAggregate,
                                    ps::TensorType{DType::F32, {2}});
  }

  const ps::ProgramSignature &signature() const override { return signature_; }

  void initialize(VariableStore &values) override {
    values.try_emplace(variable, Tensor::fromVector<float>({2}, {0.0f, 0.0f}));
    if (holdsStep)
      values.try_emplace("global_step", Tensor::scalar<int64_t>(0));
  }

  void apply(VariableStore &values, std::vector<Tensor> arguments,
             const ps::UpdateContext & /*context*/) override {
    float *w = values.at(variable).data<float>();
    for (const Tensor &gradient : arguments)
      for (int i = 0; i < 2; ++i)
        w[i] -= learningRate * gradient.data<float>()[i] / arguments.size();
    if (holdsStep)
      ++*values.at("global_step").data<int64_t>();
  }

private:
  std::string variable;
  float learningRate;
  bool holdsStep;
  ps::ProgramSignature signature_;
};

/// The replica step of the model: pulls w<i> of every task and the global
/// step; its results are the loss and the batch's first example; it
/// pushes the gradient of sum_i |w<i> - x|^2 / 2 (x: the batch's mean) to
/// each task, tagged with the global step it pulled.
class SgdStep final : public WorkerStep {
public:
  explicit SgdStep(int numPs) : numPs(numPs) {}

  std::vector<Tensor> train(const FeedMap &feeds) override {
    ++steps;
    std::vector<float> x = batchMean(feeds);
    std::vector<Tensor> fetched = evaluate(feeds);
    int64_t tag =
        static_cast<int64_t>(feeds.at("^pull/global_step").scalarAsDouble());
    for (int i = 0; i < numPs; ++i) {
      std::vector<float> w = weights(feeds, i);
      fetched.push_back(Tensor::scalar<int64_t>(tag));
      fetched.push_back(
          Tensor::fromVector<float>({2}, {w[0] - x[0], w[1] - x[1]}));
    }
    return fetched;
  }

  std::vector<Tensor> evaluate(const FeedMap &feeds) override {
    std::vector<float> x = batchMean(feeds);
    float loss = 0;
    for (int i = 0; i < numPs; ++i) {
      std::vector<float> w = weights(feeds, i);
      for (int k = 0; k < 2; ++k)
        loss += (w[k] - x[k]) * (w[k] - x[k]) / 2;
    }
    std::vector<Tensor> results;
    results.push_back(Tensor::scalar<float>(loss));
    results.push_back(Tensor::scalar<float>(x[0]));
    return results;
  }

  std::string describe() const override { return "C++ test step"; }

  int steps = 0;

private:
  static std::vector<float> weights(const FeedMap &feeds, int task) {
    return feeds.at("^pull/w" + std::to_string(task)).toVector<float>();
  }
  static std::vector<float> batchMean(const FeedMap &feeds) {
    std::vector<float> x = feeds.at("x").toVector<float>();
    std::vector<float> mean(2, 0.0f);
    for (size_t i = 0; i < x.size(); ++i)
      mean[i % 2] += x[i] / (x.size() / 2);
    return mean;
  }

  int numPs;
};

/// The layout of SgdStep over `numPs` tasks.
inline ReplicaLayout sgdLayout(int numPs) {
  ReplicaLayout layout;
  layout.numResults = 2;
  for (int i = 0; i < numPs; ++i) {
    ReplicaLayout::PullGroup pull;
    pull.psTask = i;
    pull.variables = {"w" + std::to_string(i)};
    pull.feedNames = {"^pull/w" + std::to_string(i)};
    if (i == 0) {
      pull.variables.push_back("global_step");
      pull.feedNames.push_back("^pull/global_step");
    }
    layout.pulls.push_back(pull);
    ReplicaLayout::PushGroup push;
    push.psTask = i;
    push.names = {"w" + std::to_string(i)};
    layout.pushes.push_back(push);
  }
  return layout;
}

/// Examples (a, b), all equal to `value`: the optimum of every w<i>.
inline std::unique_ptr<data::InputSource> constantExamples(float value,
                                                           int64_t count = 8) {
  std::vector<float> values(2 * count, value);
  std::vector<std::pair<std::string, Tensor>> columns;
  columns.emplace_back("x", Tensor::fromVector<float>({count, 2}, values));
  return std::make_unique<data::TensorSlices>(std::move(columns));
}

/// PS tasks, a coordinator and the connections of each.
class InProcessCluster {
public:
  InProcessCluster(int numPs, int numWorkers, ps::Replication replication,
                   float learningRate = 0.5f)
      : numPs(numPs), replication(replication), learningRate(learningRate),
        coordinator([&] {
          coord::CoordinatorOptions options;
          options.numPsTasks = numPs;
          options.numWorkers = numWorkers;
          return options;
        }()),
        spec(hosts(numPs), hosts(numWorkers)) {
    tasks.resize(numPs);
    connections.resize(numPs);
    for (int i = 0; i < numPs; ++i)
      restartPs(i);
  }

  /// PS task `index` (again): a fresh task, which knows no epoch or value.
  void restartPs(int index) {
    connections[index].reset();
    tasks[index] = std::make_unique<ps::ParameterServer>(
        std::make_unique<SgdProgram>(index, replication.replicasToAggregate,
                                     learningRate),
        replication);
    connections[index] = std::make_unique<ps::InProcessPsConnection>(
        *tasks[index], "/job:ps/task:" + std::to_string(index));
  }

  /// The connections, PS task i at i (they change at a restart).
  std::vector<ps::PsConnection *> ps() {
    std::vector<ps::PsConnection *> result;
    for (auto &connection : connections)
      result.push_back(connection.get());
    return result;
  }

  /// A connection to the coordinator, as each worker has its own.
  std::unique_ptr<coord::CoordinatorConnection> coordinatorConnection() {
    return std::make_unique<coord::InProcessCoordinatorConnection>(coordinator);
  }

  std::vector<float> value(const std::string &name, int task = 0) {
    return connections[task]->pull({name})[0].toVector<float>();
  }

  const cluster::ClusterSpec &clusterSpec() const { return spec; }

  int numPs;
  ps::Replication replication;
  float learningRate;
  coord::Coordinator coordinator;
  std::vector<std::unique_ptr<ps::ParameterServer>> tasks;
  std::vector<std::unique_ptr<ps::PsConnection>> connections;

private:
  static std::vector<cluster::HostPort> hosts(int count) {
    std::vector<cluster::HostPort> result;
    for (int i = 0; i < count; ++i)
      result.push_back(
          cluster::HostPort{"localhost", static_cast<uint16_t>(2222 + i)});
    return result;
  }

  cluster::ClusterSpec spec;
};

using dtf::testing::expectError;

} // namespace dtf::train::testing
