//===- LocalWorkSource.cpp - Units handed out in one process --------------===//

#include "runtime/data/LocalWorkSource.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace dtf::data {

LocalWorkSource::LocalWorkSource(std::vector<WorkUnit> units, int64_t epochs,
                                 std::optional<uint64_t> seed)
    : units(std::move(units)), epochs(epochs), seed(seed) {
  if (epochs < 0)
    throw std::invalid_argument("epochs must be at least 0 (0: without end)");
  order.resize(this->units.size());
  position = order.size(); // the first next() draws epoch 0's order
  epoch = -1;
}

std::optional<WorkUnit> LocalWorkSource::next() {
  std::lock_guard<std::mutex> lock(mutex);
  if (units.empty() || cancelled)
    return std::nullopt;
  if (position == order.size()) {
    if (epochs > 0 && epoch + 1 >= epochs)
      return std::nullopt;
    ++epoch;
    std::iota(order.begin(), order.end(), size_t{0});
    if (seed) {
      std::mt19937_64 random(*seed + static_cast<uint64_t>(epoch));
      std::shuffle(order.begin(), order.end(), random);
    }
    position = 0;
  }
  WorkUnit unit = units[order[position++]];
  unit.epoch = epoch;
  ++counted.unitsHandedOut;
  return unit;
}

void LocalWorkSource::unitRead(const WorkUnit &, int64_t records) {
  std::lock_guard<std::mutex> lock(mutex);
  ++counted.unitsRead;
  counted.records += records;
}

void LocalWorkSource::pushing(const std::vector<ExampleOrigin> &examples) {
  std::lock_guard<std::mutex> lock(mutex);
  counted.pushing += static_cast<int64_t>(examples.size());
}

void LocalWorkSource::trained(const std::vector<ExampleOrigin> &examples,
                              int64_t globalStep) {
  std::lock_guard<std::mutex> lock(mutex);
  counted.trained += static_cast<int64_t>(examples.size());
  counted.lastStep = std::max(counted.lastStep, globalStep);
}

void LocalWorkSource::cancel() {
  std::lock_guard<std::mutex> lock(mutex);
  cancelled = true;
}

LocalWorkSource::Counts LocalWorkSource::counts() const {
  std::lock_guard<std::mutex> lock(mutex);
  return counted;
}

} // namespace dtf::data
