//===- DynamicTableTest.cpp - Dynamic embedding tables on a PS task -------===//
//
// A PS task holding a dynamic table, driven in-process with an update
// program written in C++ (no gRPC, no MLIR): rows created on first use or
// after min_count pushes, initial rows per id, growth, slots, sync
// aggregation, statistics, snapshot and restore, a checkpoint file.
//
//===----------------------------------------------------------------------===//

#include "runtime/ps/DynamicTable.h"
#include "runtime/ps/ParameterServer.h"

#include "runtime/checkpoint/Checkpoint.h"
#include "runtime/core/Error.h"
#include "runtime/core/Initializers.h"
#include "runtime/core/tests/TestUtil.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <unistd.h>

namespace dtf::ps {
namespace {

using dtf::testing::expectError;

constexpr uint64_t kSeed = 7;
constexpr float kAccumulatorInit = 0.1f;

/// A dynamic table "emb" f32[-1,2] (random_normal rows, seed kSeed) with an
/// accumulator slot "emb/acc" (constant kAccumulatorInit) and global_step.
/// An update adds each group's gradient row g to the slot as g*g and
/// subtracts it from the table, at the ids as they arrive (so translated
/// to the rows the task gathered), and adds one to the step.
class DynamicProgram final : public UpdateProgram {
public:
  DynamicProgram(int64_t groups, int64_t minCount) {
    signature_.taskName = "/job:ps/task:0";
    TensorType rows{DType::F32, {-1, 2}};
    signature_.variables = {
        {"emb", rows}, {"emb/acc", rows}, {"global_step", {DType::I64, {}}}};
    signature_.sparseGradientNames = {"emb"};
    for (int64_t r = 0; r < groups; ++r) {
      signature_.argumentTypes.push_back({DType::I64, {-1}});
      signature_.argumentTypes.push_back(rows);
    }
    signature_.dynamicTables = {{"emb", {"emb/acc"}, minCount, rows}};
  }

  const ProgramSignature &signature() const override { return signature_; }

  void initialize(VariableStore &values) override {
    values.try_emplace("global_step", Tensor::scalar<int64_t>(0));
  }

  void apply(VariableStore &values, std::vector<Tensor> arguments,
             const UpdateContext & /*context*/) override {
    Tensor &table = values.at("emb");
    Tensor &slot = values.at("emb/acc");
    for (size_t group = 0; group < arguments.size(); group += 2) {
      const int64_t *ids = arguments[group].data<int64_t>();
      const float *rows = arguments[group + 1].data<float>();
      for (int64_t i = 0; i < arguments[group].numElements(); ++i) {
        ASSERT_LT(ids[i], table.dim(0)) << "an id not translated to a row";
        for (int k = 0; k < 2; ++k) {
          float g = rows[i * 2 + k];
          table.data<float>()[ids[i] * 2 + k] -= g;
          slot.data<float>()[ids[i] * 2 + k] += g * g;
        }
      }
    }
    ++*values.at("global_step").data<int64_t>();
  }

  Tensor initializeRows(const std::string &variable,
                        const Tensor &ids) const override {
    Tensor rows(DType::F32, {ids.dim(0), 2});
    if (variable == "emb")
      initializers::random_normal_rows(rows, ids, 0.0, 1.0, kSeed);
    else
      initializers::constant(rows, kAccumulatorInit);
    return rows;
  }

private:
  ProgramSignature signature_;
};

std::unique_ptr<ParameterServer> makeTask(int64_t minCount = 1,
                                          Options options = {},
                                          Replication replication = {}) {
  int64_t groups = replication.mode == Replication::Mode::Sync
                       ? replication.replicasToAggregate
                       : 1;
  auto task = std::make_unique<ParameterServer>(
      std::make_unique<DynamicProgram>(groups, minCount), replication,
      std::move(options));
  task->initialize();
  return task;
}

/// One replica's push: `ids` with gradient rows {g, g} for each.
std::vector<Tensor> pushOf(const std::vector<int64_t> &ids,
                           const std::vector<float> &gradients) {
  std::vector<float> rows;
  for (float g : gradients) {
    rows.push_back(g);
    rows.push_back(g);
  }
  std::vector<Tensor> push;
  push.push_back(
      Tensor::fromVector<int64_t>({static_cast<int64_t>(ids.size())}, ids));
  push.push_back(
      Tensor::fromVector<float>({static_cast<int64_t>(ids.size()), 2}, rows));
  return push;
}

std::vector<float> rowsOf(const ParameterServer &task, const std::string &name,
                          const std::vector<int64_t> &ids) {
  std::vector<RowRequest> requests(1);
  requests[0].name = name;
  requests[0].ids =
      Tensor::fromVector<int64_t>({static_cast<int64_t>(ids.size())}, ids);
  return task.readRows(requests)[0].toVector<float>();
}

std::vector<float> initialRow(int64_t id) {
  Tensor row(DType::F32, {1, 2});
  initializers::random_normal_rows(row, Tensor::fromVector<int64_t>({1}, {id}),
                                   0.0, 1.0, kSeed);
  return row.toVector<float>();
}

std::vector<float> minus(std::vector<float> row, float g) {
  for (float &x : row)
    x -= g;
  return row;
}

DynamicTableStats statsOf(const ParameterServer &task) {
  UpdateStats stats = task.stats();
  EXPECT_EQ(stats.dynamicTables.size(), 1u);
  return stats.dynamicTables.at(0);
}

const int64_t kBigId = (int64_t(1) << 62) + 12345; // a 63-bit hash

TEST(DynamicTable, MinCountOneCreatesARowAtTheFirstPush) {
  auto task = makeTask();
  EXPECT_EQ(task->push(0, 0, pushOf({kBigId, 3}, {1, 2})).outcome,
            PushOutcome::Applied);
  EXPECT_EQ(rowsOf(*task, "emb", {3, kBigId}), [&] {
    std::vector<float> both = minus(initialRow(3), 2);
    std::vector<float> big = minus(initialRow(kBigId), 1);
    both.insert(both.end(), big.begin(), big.end());
    return both;
  }());
  // The slot follows the table's rows: 0.1 + g^2.
  EXPECT_EQ(rowsOf(*task, "emb/acc", {kBigId, 3}),
            (std::vector<float>{1.1f, 1.1f, 4.1f, 4.1f}));
  DynamicTableStats stats = statsOf(*task);
  EXPECT_EQ(stats.rows, 2);
  EXPECT_EQ(stats.createdRows, 2);
  EXPECT_EQ(stats.pendingIds, 0);
  EXPECT_EQ(stats.droppedIds, 0);
}

TEST(DynamicTable, MinCountNCreatesTheRowAtTheNthPushAndDropsTheOthers) {
  auto task = makeTask(/*minCount=*/3);
  task->push(0, 0, pushOf({9, 4}, {1, 1}));
  task->push(1, 0, pushOf({9}, {1}));
  // Not created: the gradients were dropped, the reads give initial rows.
  EXPECT_EQ(rowsOf(*task, "emb", {9}), initialRow(9));
  EXPECT_EQ(rowsOf(*task, "emb/acc", {9}),
            (std::vector<float>{kAccumulatorInit, kAccumulatorInit}));
  DynamicTableStats stats = statsOf(*task);
  EXPECT_EQ(stats.rows, 0);
  EXPECT_EQ(stats.pendingIds, 2);
  EXPECT_EQ(stats.droppedIds, 3);
  // The third push carrying 9 creates it and applies that push's gradient.
  task->push(2, 0, pushOf({9, 4}, {5, 1}));
  EXPECT_EQ(rowsOf(*task, "emb", {9}), minus(initialRow(9), 5));
  EXPECT_EQ(rowsOf(*task, "emb/acc", {9}), (std::vector<float>{25.1f, 25.1f}));
  stats = statsOf(*task);
  EXPECT_EQ(stats.rows, 1);
  EXPECT_EQ(stats.createdRows, 1);
  EXPECT_EQ(stats.pendingIds, 1); // id 4, seen twice
  EXPECT_EQ(stats.droppedIds, 4);
  EXPECT_EQ(task->stats().appliedUpdates, 3);
}

TEST(DynamicTable, ReadsOfIdsWithoutARowCreateNothing) {
  auto task = makeTask();
  std::vector<float> expected = initialRow(42);
  std::vector<float> zeros{0, 0};
  std::vector<float> rows = rowsOf(*task, "emb", {42, -1, 42});
  EXPECT_EQ(rows, [&] {
    std::vector<float> all = expected;
    all.insert(all.end(), zeros.begin(), zeros.end());
    all.insert(all.end(), expected.begin(), expected.end());
    return all;
  }());
  EXPECT_EQ(statsOf(*task).rows, 0);
  EXPECT_EQ(statsOf(*task).pendingIds, 0);
  // Once created by a push without a change, the row is the one read.
  task->push(0, 0, pushOf({42}, {0}));
  EXPECT_EQ(statsOf(*task).rows, 1);
  EXPECT_EQ(rowsOf(*task, "emb", {42}), expected);

  Error negative = expectError([&] { rowsOf(*task, "emb", {-5}); });
  EXPECT_EQ(negative.code(), ErrorCode::InvalidArgument);
  EXPECT_NE(std::string(negative.what()).find("id -5 at position 0"),
            std::string::npos)
      << negative.what();
  // A dynamic table is read by rows only.
  Error whole = expectError([&] {
    task->read({"emb"}, [](const std::vector<const Tensor *> &, int64_t) {});
  });
  EXPECT_EQ(whole.code(), ErrorCode::InvalidArgument);
  // A push with a negative id is refused whole, naming the table and the
  // id; the task serves on.
  Error badPush = expectError([&] {
    task->push(1, 0, pushOf({1, -7}, {1, 1}));
  });
  EXPECT_EQ(badPush.code(), ErrorCode::InvalidArgument);
  EXPECT_NE(std::string(badPush.what())
                .find("nothing applied: dynamic table 'emb': id -7 at "
                      "position 1 is negative"),
            std::string::npos)
      << badPush.what();
  EXPECT_EQ(statsOf(*task).rows, 1);
  task->push(1, 0, pushOf({1}, {0}));
  EXPECT_EQ(statsOf(*task).rows, 2);
}

TEST(DynamicTable, AnIdsInitialRowIsTheSameWhateverTheOrderOfCreation) {
  auto forward = makeTask();
  auto backward = makeTask();
  std::vector<int64_t> ids{11, kBigId, 0, 123456789};
  for (int64_t id : ids)
    forward->push(0, 0, pushOf({id}, {0}));
  backward->push(0, 0, pushOf({ids[3], ids[2]}, {0, 0}));
  backward->push(0, 0, pushOf({ids[1], ids[0]}, {0, 0}));
  EXPECT_EQ(rowsOf(*forward, "emb", ids), rowsOf(*backward, "emb", ids));
  EXPECT_EQ(rowsOf(*forward, "emb", {11}), initialRow(11));
  EXPECT_NE(initialRow(11), initialRow(12));
}

TEST(DynamicTable, UpdatesHitTheirRowsAfterGrowingPastSeveralChunks) {
  Options options;
  options.dynamicTableChunkRows = 4;
  auto task = makeTask(1, options);
  // 50 ids in pushes of 7, every id pushed twice, in scrambled order.
  std::vector<int64_t> ids;
  for (int64_t i = 0; i < 50; ++i)
    ids.push_back((i * 37) % 50 * 1000003);
  for (int round = 0; round < 2; ++round)
    for (size_t start = 0; start < ids.size(); start += 7) {
      std::vector<int64_t> batch;
      std::vector<float> gradients;
      for (size_t i = start; i < std::min(ids.size(), start + 7); ++i) {
        batch.push_back(ids[i]);
        gradients.push_back(static_cast<float>(ids[i] % 7));
      }
      task->push(0, 0, pushOf(batch, gradients));
    }
  EXPECT_EQ(statsOf(*task).rows, 50);
  for (int64_t id : ids) {
    float g = static_cast<float>(id % 7);
    EXPECT_EQ(rowsOf(*task, "emb", {id}), minus(minus(initialRow(id), g), g))
        << "id " << id;
    float acc = kAccumulatorInit + 2 * g * g;
    EXPECT_EQ(rowsOf(*task, "emb/acc", {id}), (std::vector<float>{acc, acc}))
        << "id " << id;
  }
}

TEST(DynamicTable, SyncCountsEachReplicasPushAndAppliesTheAggregateOnce) {
  auto task = makeTask(/*minCount=*/2, {}, Replication::sync(2, 2));
  // Both replicas carry 5: counted twice, created, both gradients applied.
  // 6 and 7 come once each: dropped.
  EXPECT_EQ(task->push(0, 0, pushOf({5, 6}, {1, 1})).outcome,
            PushOutcome::Accumulated);
  EXPECT_EQ(statsOf(*task).pendingIds, 0); // counted at the aggregate
  EXPECT_EQ(task->push(0, 0, pushOf({7, 5}, {1, 2})).outcome,
            PushOutcome::Applied);
  EXPECT_EQ(rowsOf(*task, "emb", {5}), minus(initialRow(5), 3));
  EXPECT_EQ(rowsOf(*task, "emb/acc", {5}), (std::vector<float>{5.1f, 5.1f}));
  DynamicTableStats stats = statsOf(*task);
  EXPECT_EQ(stats.rows, 1);
  EXPECT_EQ(stats.pendingIds, 2);
  EXPECT_EQ(stats.droppedIds, 2);
  EXPECT_EQ(task->currentStep(), 1);
  // The next aggregate creates 6 from the second push carrying it.
  task->push(1, 0, pushOf({6}, {4}));
  task->push(1, 0, pushOf({}, {}));
  EXPECT_EQ(rowsOf(*task, "emb", {6}), minus(initialRow(6), 4));
  EXPECT_EQ(statsOf(*task).rows, 2);
}

TEST(DynamicTable, StatsReachTheHookAfterEachUpdate) {
  std::vector<DynamicTableStats> seen;
  Options options;
  options.onUpdateStats = [&](int64_t step, const UpdateStats &stats) {
    EXPECT_EQ(step, static_cast<int64_t>(seen.size()) + 1);
    seen.push_back(stats.dynamicTables.at(0));
  };
  auto task = makeTask(2, options);
  task->push(0, 0, pushOf({1, 2}, {1, 1}));
  task->push(1, 0, pushOf({2, 3}, {1, 1}));
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].name, "emb");
  EXPECT_EQ(seen[0].minCount, 2);
  EXPECT_EQ(seen[0].rows, 0);
  EXPECT_EQ(seen[0].pendingIds, 2);
  EXPECT_EQ(seen[1].rows, 1);
  EXPECT_EQ(seen[1].createdRows, 1);
  EXPECT_EQ(seen[1].pendingIds, 2);
  EXPECT_EQ(seen[1].droppedIds, 3);
}

/// A task that has created rows 0..n-1 (ids i * 1000 + 1) and updated them.
std::unique_ptr<ParameterServer> trainedTask(int64_t n, Options options = {}) {
  options.dynamicTableChunkRows = 3;
  auto task = makeTask(1, options);
  for (int64_t i = 0; i < n; ++i)
    task->push(i, 0, pushOf({i * 1000 + 1}, {static_cast<float>(i)}));
  return task;
}

ModelState stateOf(const Snapshot &snapshot) {
  ModelState state;
  state.step = snapshot.step;
  for (const NamedTensor &tensor : snapshot.tensors)
    state.values.emplace(tensor.name, tensor.tensor.clone());
  return state;
}

void expectSameRows(const ParameterServer &a, const ParameterServer &b,
                    int64_t n) {
  std::vector<int64_t> ids;
  for (int64_t i = 0; i < n; ++i)
    ids.push_back(i * 1000 + 1);
  EXPECT_EQ(rowsOf(a, "emb", ids), rowsOf(b, "emb", ids));
  EXPECT_EQ(rowsOf(a, "emb/acc", ids), rowsOf(b, "emb/acc", ids));
}

TEST(DynamicTable, ARestartRestoresEveryCreatedRowAndItsSlots) {
  const int64_t n = 10;
  auto before = trainedTask(n);
  Snapshot snapshot = before->snapshot();
  std::map<std::string, Shape> shapes;
  for (const NamedTensor &tensor : snapshot.tensors)
    shapes[tensor.name] = tensor.tensor.shape();
  EXPECT_EQ(shapes, (std::map<std::string, Shape>{{"emb", {n, 2}},
                                                  {"emb/acc", {n, 2}},
                                                  {"emb/ids", {n}},
                                                  {"global_step", {}}}));

  // A new task restores the checkpoint when the chief asks...
  Options options;
  options.loadCheckpoint = [&](int64_t) { return stateOf(snapshot); };
  auto restored = std::make_unique<ParameterServer>(
      std::make_unique<DynamicProgram>(1, 1), Replication::async(), options);
  EXPECT_EQ(restored->restore(RestoreSource::Checkpoint, n, 1), n);
  expectSameRows(*before, *restored, n);
  EXPECT_EQ(statsOf(*restored).rows, n);
  EXPECT_EQ(statsOf(*restored).createdRows, 0);
  // A task preloading the same state at start-up serves it too.
  auto preloaded = std::make_unique<ParameterServer>(
      std::make_unique<DynamicProgram>(1, 1), Replication::async());
  preloaded->preload(stateOf(snapshot), n);
  EXPECT_FALSE(preloaded->initialize());
  EXPECT_EQ(rowsOf(*preloaded, "emb", {1}), rowsOf(*before, "emb", {1}));
  EXPECT_EQ(statsOf(*preloaded).rows, n);

  // The restored task updates the same rows as the task it replaces, and
  // creates new ones after them.
  for (ParameterServer *task : {before.get(), restored.get()}) {
    task->push(n, 0, pushOf({1, 99}, {1, 1}));
  }
  expectSameRows(*before, *restored, n);
  EXPECT_EQ(rowsOf(*before, "emb", {99}), rowsOf(*restored, "emb", {99}));

  // Restoring the initial values empties the table.
  restored->restore(RestoreSource::InitialValues, 0, 2);
  EXPECT_EQ(statsOf(*restored).rows, 0);
  EXPECT_EQ(rowsOf(*restored, "emb", {1}), initialRow(1));
}

TEST(DynamicTable, ACheckpointWithoutIdsOrWithDuplicatesIsRefused) {
  Snapshot snapshot = trainedTask(4)->snapshot();
  auto refusal = [&](const std::function<void(ModelState &)> &damage) {
    ModelState state = stateOf(snapshot);
    damage(state);
    auto task = std::make_unique<ParameterServer>(
        std::make_unique<DynamicProgram>(1, 1), Replication::async());
    try {
      task->preload(std::move(state), 4);
    } catch (const std::invalid_argument &error) {
      return std::string(error.what());
    }
    ADD_FAILURE() << "the damaged state was preloaded";
    return std::string();
  };
  EXPECT_NE(refusal([](ModelState &state) {
              state.values.erase("emb/ids");
            }).find("no ids of dynamic table 'emb' ('emb/ids'"),
            std::string::npos);
  EXPECT_NE(refusal([](ModelState &state) {
              state.values.at("emb/ids").data<int64_t>()[3] = 1;
            }).find("dynamic table 'emb': id 1 occurs twice"),
            std::string::npos);
  EXPECT_NE(refusal([](ModelState &state) {
              state.values.at("emb/acc") = Tensor(DType::F32, {3, 2});
            }).find("a slot's rows are f32[3,2] but 4 ids need f32[4,2]"),
            std::string::npos);
}

TEST(DynamicTable, ACheckpointFileHoldsTheRowsAndTheirIds) {
  const int64_t n = 8;
  auto before = trainedTask(n);
  Snapshot snapshot = before->snapshot();
  checkpoint::Checkpoint written;
  written.step = snapshot.step;
  for (NamedTensor &tensor : snapshot.tensors)
    written.tensors.emplace(tensor.name, std::move(tensor.tensor));
  std::string path = ::testing::TempDir() + "dynamic_table_" +
                     std::to_string(::getpid()) + ".dtf";
  checkpoint::writeCheckpointFile(path, written);
  checkpoint::Checkpoint read = checkpoint::readCheckpointFile(path);
  std::remove(path.c_str());
  ModelState state;
  state.step = read.step;
  state.values = std::move(read.tensors);
  auto restarted = std::make_unique<ParameterServer>(
      std::make_unique<DynamicProgram>(1, 1), Replication::async());
  restarted->preload(std::move(state), n);
  restarted->initialize();
  expectSameRows(*before, *restarted, n);
  EXPECT_EQ(restarted->currentStep(), n);
}

TEST(DynamicTableStore, FindsEveryIdAfterRehashingAndRefusesBadInput) {
  DynamicTable table({{DType::I64, {1}}}, /*minCount=*/1, /*chunkRows=*/5);
  std::vector<int64_t> ids;
  for (int64_t i = 0; i < 1000; ++i)
    ids.push_back(i * i * 7919 + i);
  for (size_t start = 0; start < ids.size(); start += 100) {
    std::vector<int64_t> batch(ids.begin() + start, ids.begin() + start + 100);
    Tensor batchIds = Tensor::fromVector<int64_t>({100}, batch);
    EXPECT_EQ(table.count(batchIds), batch);
    std::vector<Tensor> rows;
    rows.push_back(Tensor::fromVector<int64_t>({100, 1}, batch));
    table.create(batch, rows);
  }
  for (size_t i = 0; i < ids.size(); ++i) {
    ASSERT_EQ(table.find(ids[i]), static_cast<int64_t>(i));
    EXPECT_EQ(table.gather(0, {static_cast<int64_t>(i)}).toVector<int64_t>(),
              std::vector<int64_t>{ids[i]});
  }
  EXPECT_EQ(table.find(3), -1);
  EXPECT_EQ(table.ids().toVector<int64_t>(), ids);
  EXPECT_EQ(table.rows(0).toVector<int64_t>(), ids);
  EXPECT_THROW(DynamicTable({}, 0, 1), std::invalid_argument);
  EXPECT_THROW(DynamicTable({}, 1, 0), std::invalid_argument);
}

} // namespace
} // namespace dtf::ps
