//===- WriteTestBundle.cpp - A DTF-written V2 checkpoint for TensorFlow ---===//
//
// dtf-write-test-bundle DIR: writes into DIR the checkpoint that
// testdata/tf_reads_dtf_bundle.py has TensorFlow read, as a cluster of 2
// PS tasks would save it: each task writes its shard of `model.ckpt-300`
// (a dense layer with Adam's slots, global_step, a variable of each dtype
// with the values at the edges of its type, and one slice each of a
// variable partitioned over both), the chief merges them and writes the
// `checkpoint` file. DIR/expected.txt holds every tensor's value in the
// format of testdata/write_tf_bundle.py's, for the comparison.
//
//===----------------------------------------------------------------------===//

#include "runtime/checkpoint/TensorBundle.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <limits>

using namespace dtf;
using namespace dtf::checkpoint;

namespace {

/// A [rows, 3] float tensor of distinct values.
Tensor floats(Shape shape, float first) {
  std::vector<float> values(size_t(numElementsOf(shape)));
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = first + 0.25f * float(i);
  return Tensor::fromVector<float>(shape, values);
}

Tensor floatEdges() {
  float nanWithPayload;
  uint32_t bits = 0x7fc01234;
  std::memcpy(&nanWithPayload, &bits, sizeof(bits));
  return Tensor::fromVector<float>(
      {6}, {-0.0f, std::numeric_limits<float>::denorm_min(),
            std::numeric_limits<float>::infinity(),
            -std::numeric_limits<float>::infinity(),
            std::numeric_limits<float>::max(), nanWithPayload});
}

/// One line of expected.txt.
std::string expectedLine(const std::string &name, const Tensor &tensor) {
  static const char *const names[] = {"float", "double", "int32", "int64",
                                      "bool"};
  std::string line = name + " " + names[int(tensor.dtype())] + " ";
  std::string dims;
  for (int64_t size : tensor.shape())
    dims += (dims.empty() ? "" : ",") + std::to_string(size);
  line += tensor.rank() ? dims : "-";
  for (int64_t i = 0; i < tensor.numElements(); ++i) {
    char text[32];
    switch (tensor.dtype()) {
    case DType::F32: {
      uint32_t bits;
      std::memcpy(&bits, tensor.data<float>() + i, sizeof(bits));
      std::snprintf(text, sizeof(text), "%08x", bits);
      break;
    }
    case DType::F64: {
      uint64_t bits;
      std::memcpy(&bits, tensor.data<double>() + i, sizeof(bits));
      std::snprintf(text, sizeof(text), "%016llx", (unsigned long long)bits);
      break;
    }
    case DType::I32:
      std::snprintf(text, sizeof(text), "%d", tensor.data<int32_t>()[i]);
      break;
    case DType::I64:
      std::snprintf(text, sizeof(text), "%lld",
                    (long long)tensor.data<int64_t>()[i]);
      break;
    case DType::Bool:
      std::snprintf(text, sizeof(text), "%d", int(tensor.data<bool>()[i]));
      break;
    }
    line += std::string(" ") + text;
  }
  return line;
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::cerr << "usage: dtf-write-test-bundle DIR\n";
    return 2;
  }
  std::string directory = argv[1];
  std::string prefix = directory + "/model.ckpt-300";

  std::map<std::string, Tensor> task0, task1;
  task0.emplace("dense/kernel", floats({3, 2}, -1.0f));
  task0.emplace("dense/kernel/Adam", floats({3, 2}, 0.125f));
  task0.emplace("dense/kernel/Adam_1", floats({3, 2}, 1e-3f));
  task0.emplace("global_step", Tensor::scalar<int64_t>(300));
  task0.emplace("values/float_edges", floatEdges());
  task0.emplace("values/empty", Tensor(DType::F32, {0, 4}));
  task1.emplace("dense/bias", floats({2}, 0.5f));
  task1.emplace("dense/bias/Adam", floats({2}, -0.5f));
  task1.emplace("dense/bias/Adam_1", floats({2}, 2e-3f));
  task1.emplace("beta1_power", Tensor::scalar<float>(0.9f));
  task1.emplace("beta2_power", Tensor::scalar<float>(0.999f));
  task1.emplace("values/double",
                Tensor::fromVector<double>(
                    {4}, {-0.0, std::numeric_limits<double>::denorm_min(),
                          std::numeric_limits<double>::infinity(), 1e300}));
  task1.emplace("values/int32",
                Tensor::fromVector<int32_t>(
                    {2, 2}, {std::numeric_limits<int32_t>::min(),
                             std::numeric_limits<int32_t>::max(), 0, -7}));
  task1.emplace("values/int64",
                Tensor::fromVector<int64_t>(
                    {3}, {std::numeric_limits<int64_t>::min(),
                          std::numeric_limits<int64_t>::max(), 1LL << 40}));
  task1.emplace("values/bool",
                Tensor::fromVector<bool>({3}, {true, false, true}));
  // Partitioned over both tasks: rows 0-2 on task 0, rows 3-4 on task 1.
  Tensor embedding = floats({5, 3}, -2.0f);
  auto rows = [&](int64_t begin, int64_t end) {
    Tensor part(DType::F32, {end - begin, 3});
    std::memcpy(part.rawData(), embedding.data<float>() + begin * 3,
                part.byteSize());
    return part;
  };

  try {
    BundleWriter writer0(shardedSavePrefix(prefix, 0, 2));
    for (const auto &[name, tensor] : task0)
      writer0.add(name, tensor);
    writer0.addSlice("partitioned/embedding", {5, 3},
                     TensorSlice::fromStartsAndLengths({{0, 3}, {0, 3}}),
                     rows(0, 3));
    writer0.finish();
    BundleWriter writer1(shardedSavePrefix(prefix, 1, 2));
    for (const auto &[name, tensor] : task1)
      writer1.add(name, tensor);
    TensorSlice lastRows;
    lastRows.extents = {{3, 2}, {}};
    writer1.addSlice("partitioned/embedding", {5, 3}, lastRows, rows(3, 5));
    writer1.finish();
    mergeBundles({writer0.prefix(), writer1.prefix()}, prefix);
    writeCheckpointState(directory, {"model.ckpt-300", {"model.ckpt-300"}});
  } catch (const CheckpointError &error) {
    std::cerr << "dtf-write-test-bundle: " << error.what() << "\n";
    return 1;
  }

  std::map<std::string, const Tensor *> all;
  for (const auto &[name, tensor] : task0)
    all[name] = &tensor;
  for (const auto &[name, tensor] : task1)
    all[name] = &tensor;
  all["partitioned/embedding"] = &embedding;
  std::ofstream expected(directory + "/expected.txt");
  for (const auto &[name, tensor] : all)
    expected << expectedLine(name, *tensor) << "\n";
  return expected ? 0 : 1;
}
