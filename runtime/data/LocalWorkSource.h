//===- LocalWorkSource.h - Units of a data set, handed out in one process -===//
//
// Streaming input (Streaming.h) reads a data set in units (WorkUnits.h): a
// compressed TFRecord file whole, a plain one in byte ranges, as
// splitIntoUnits (Streaming.h) cuts them. LocalWorkSource hands them out,
// epoch after epoch, to the readers of one process: the in-graph master's, a
// benchmark's, a test's. (A worker of a between-graph cluster asks the data
// coordinator instead, through its own WorkSource.)
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/core/WorkUnits.h"

#include <cstdint>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace dtf::data {

/// Hands out `units` for `epochs` passes (0: without end), the units of
/// each epoch in a random order drawn from `seed` + epoch (std::mt19937_64),
/// or in their order without a seed; each unit handed out carries its
/// epoch. One process, no coordinator: every unit is read once per epoch by
/// whichever reader asks first, and what readers report is only counted.
/// Thread-safe; next() never blocks.
class LocalWorkSource final : public WorkSource {
public:
  LocalWorkSource(std::vector<WorkUnit> units, int64_t epochs,
                  std::optional<uint64_t> seed = std::nullopt);

  /// The next unit; nullopt once the last epoch's units are all handed out
  /// (at once when there are no units).
  std::optional<WorkUnit> next() override;
  void unitRead(const WorkUnit &unit, int64_t records) override;
  void pushing(const std::vector<ExampleOrigin> &examples) override;
  void trained(const std::vector<ExampleOrigin> &examples,
               int64_t globalStep) override;
  /// Every next() from now on returns nullopt.
  void cancel() override;

  /// What was handed out and reported so far.
  struct Counts {
    int64_t unitsHandedOut = 0;
    int64_t unitsRead = 0;
    /// Records in the units read (WorkSource::unitRead's).
    int64_t records = 0;
    /// Examples reported by pushing() and trained().
    int64_t pushing = 0;
    int64_t trained = 0;
    /// The largest global step trained() reported; -1 before any.
    int64_t lastStep = -1;
  };
  Counts counts() const;

private:
  const std::vector<WorkUnit> units;
  const int64_t epochs;
  const std::optional<uint64_t> seed;
  mutable std::mutex mutex;
  int64_t epoch = 0;
  /// The order of this epoch's units, and the next to hand out.
  std::vector<size_t> order;
  size_t position = 0;
  bool cancelled = false;
  Counts counted;
};

} // namespace dtf::data
