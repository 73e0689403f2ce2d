//===- DataCoordinator.cpp - Which examples each epoch trained on ---------===//

#include "runtime/coord/DataCoordinator.h"

#include "runtime/core/Crc32c.h"
#include "runtime/core/Error.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <limits>
#include <numeric>
#include <random>

namespace dtf::coord {

namespace {

/// How often a waiting acquire re-evaluates: a worker gets lost by time
/// passing, and a caller may leave, without any call signalling it.
constexpr std::chrono::milliseconds kPollInterval{50};

/// A worker's rate of training: the records it reported trained over about
/// this long (the pacing of the last epoch's end). Short, because what it
/// measures is the rate at the end of an epoch, which may take seconds.
constexpr std::chrono::milliseconds kRateWindow{1000};
/// Reports spanning less than this give no rate.
constexpr std::chrono::milliseconds kMinRateSpan{250};

constexpr char kMagic[8] = {'D', 'T', 'F', 'D', 'A', 'T', 'A', '\0'};
constexpr uint32_t kStateVersion = 1;

std::string unitName(int64_t epoch, int64_t unit) {
  return "unit " + std::to_string(unit) + " of epoch " + std::to_string(epoch);
}

Error invalid(const std::string &message) {
  return Error(ErrorCode::InvalidArgument, "data coordinator: " + message);
}

int64_t sizeOf(const std::vector<RecordRange> &ranges) {
  int64_t size = 0;
  for (const RecordRange &range : ranges)
    size += range.second - range.first;
  return size;
}

/// Sorted `ranges` with overlapping or touching ones joined.
std::vector<RecordRange> joinSorted(const std::vector<RecordRange> &ranges) {
  std::vector<RecordRange> result;
  result.reserve(ranges.size());
  for (const RecordRange &range : ranges)
    if (!result.empty() && range.first <= result.back().second)
      result.back().second = std::max(result.back().second, range.second);
    else
      result.push_back(range);
  return result;
}

/// `ranges` sorted, overlapping or touching ones joined.
std::vector<RecordRange> joined(std::vector<RecordRange> ranges) {
  std::sort(ranges.begin(), ranges.end());
  return joinSorted(ranges);
}

/// Whether `ranges` are sorted and neither overlap nor touch: as joined()
/// leaves them, and as groupExamples groups a batch's records.
bool isJoined(const std::vector<RecordRange> &ranges) {
  for (size_t i = 1; i < ranges.size(); ++i)
    if (ranges[i].first <= ranges[i - 1].second)
      return false;
  return true;
}

/// `ranges` joined: themselves where they are (no copy), else a joined
/// copy kept in `copy`.
const std::vector<RecordRange> &
joinedView(const std::vector<RecordRange> &ranges,
           std::vector<RecordRange> &copy) {
  if (isJoined(ranges))
    return ranges;
  copy = joined(ranges);
  return copy;
}

// A step's report names its batch's records one by one (a shuffled batch
// is scattered over its units), and a unit may have a few batches in
// flight: adding or removing them one range at a time rewrote the unit's
// ranges once per record, a tenth of PS task 0's CPU. Both take a report's
// group in one pass.

/// Adds `added` to sorted disjoint `ranges`, merging.
void addRanges(std::vector<RecordRange> &ranges,
               const std::vector<RecordRange> &added) {
  if (added.empty())
    return;
  // Only the report's ranges may need sorting: a unit's are kept sorted.
  std::vector<RecordRange> copy;
  const std::vector<RecordRange> &adding = joinedView(added, copy);
  if (ranges.empty()) {
    ranges = adding;
    return;
  }
  std::vector<RecordRange> all;
  all.reserve(ranges.size() + adding.size());
  std::merge(ranges.begin(), ranges.end(), adding.begin(), adding.end(),
             std::back_inserter(all));
  ranges = joinSorted(all);
}

/// Removes `removed` from sorted disjoint `ranges`.
void subtractRanges(std::vector<RecordRange> &ranges,
                    const std::vector<RecordRange> &removed) {
  if (removed.empty() || ranges.empty())
    return;
  std::vector<RecordRange> copy;
  const std::vector<RecordRange> &cuts = joinedView(removed, copy);
  std::vector<RecordRange> result;
  result.reserve(ranges.size() + cuts.size());
  size_t next = 0;
  for (const RecordRange &range : ranges) {
    while (next < cuts.size() && cuts[next].second <= range.first)
      ++next;
    int64_t from = range.first;
    // A cut may reach into the following range too: `next` stays on it.
    for (size_t k = next; k < cuts.size() && cuts[k].first < range.second;
         ++k) {
      if (cuts[k].first > from)
        result.emplace_back(from, cuts[k].first);
      from = std::max(from, cuts[k].second);
    }
    if (from < range.second)
      result.emplace_back(from, range.second);
  }
  ranges = std::move(result);
}

/// 0..n-1 shuffled by Fisher-Yates with std::mt19937_64(seed + epoch),
/// written out rather than std::shuffle, whose algorithm the standard
/// leaves to each library.
std::vector<int64_t> shuffledOrder(int64_t n, uint64_t seed, int64_t epoch) {
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), int64_t(0));
  std::mt19937_64 generator(seed + static_cast<uint64_t>(epoch));
  for (int64_t i = n - 1; i > 0; --i) {
    uint64_t j = generator() % static_cast<uint64_t>(i + 1);
    std::swap(order[static_cast<size_t>(i)], order[static_cast<size_t>(j)]);
  }
  return order;
}

/// FNV-1a, 64 bits.
class Hash {
public:
  void add(const void *data, size_t size) {
    const auto *bytes = static_cast<const unsigned char *>(data);
    for (size_t i = 0; i < size; ++i) {
      value ^= bytes[i];
      value *= 0x100000001b3ull;
    }
  }
  void add(uint64_t number) {
    unsigned char bytes[8];
    for (int i = 0; i < 8; ++i)
      bytes[i] = static_cast<unsigned char>(number >> (8 * i));
    add(bytes, 8);
  }
  void add(const std::string &text) {
    add(static_cast<uint64_t>(text.size()));
    add(text.data(), text.size());
  }
  uint64_t value = 0xcbf29ce484222325ull;
};

uint64_t fingerprintOf(const DataSetDefinition &definition) {
  Hash hash;
  hash.add(static_cast<uint64_t>(definition.units.size()));
  for (const WorkUnit &unit : definition.units) {
    hash.add(static_cast<uint64_t>(unit.id));
    hash.add(unit.path);
    hash.add(static_cast<uint64_t>(unit.compression));
    hash.add(unit.begin);
    hash.add(unit.end);
  }
  hash.add(static_cast<uint64_t>(definition.epochs));
  hash.add(definition.seed);
  return hash.value;
}

std::string describeUnit(const WorkUnit &unit) {
  return "'" + unit.path + "' " + compressionName(unit.compression) + " [" +
         std::to_string(unit.begin) + ", " + std::to_string(unit.end) + ")";
}

/// What differs between two definitions ("" when nothing that counts).
std::string difference(const DataSetDefinition &first,
                       const DataSetDefinition &other) {
  if (first.units.size() != other.units.size())
    return "it has " + std::to_string(other.units.size()) +
           " unit(s) where the data set has " +
           std::to_string(first.units.size());
  for (size_t i = 0; i < first.units.size(); ++i) {
    const WorkUnit &a = first.units[i];
    const WorkUnit &b = other.units[i];
    if (a.path != b.path || a.compression != b.compression ||
        a.begin != b.begin || a.end != b.end)
      return "its unit " + std::to_string(i) + " is " + describeUnit(b) +
             " where the data set's is " + describeUnit(a);
  }
  if (first.epochs != other.epochs)
    return "it has " + std::to_string(other.epochs) +
           " epoch(s) where the data set has " + std::to_string(first.epochs);
  if (first.seed != other.seed)
    return "its seed is " + std::to_string(other.seed) +
           " where the data set's is " + std::to_string(first.seed);
  return "";
}

std::string joinWorkers(const std::set<int> &workers) {
  std::string text;
  for (int worker : workers)
    text += (text.empty() ? "" : ", ") + std::to_string(worker);
  return text;
}

// The state bytes: little-endian integers.

class Writer {
public:
  void bytes(const void *data, size_t size) {
    out.append(static_cast<const char *>(data), size);
  }
  void u32(uint32_t value) {
    for (int i = 0; i < 4; ++i)
      out.push_back(static_cast<char>(value >> (8 * i)));
  }
  void u64(uint64_t value) {
    for (int i = 0; i < 8; ++i)
      out.push_back(static_cast<char>(value >> (8 * i)));
  }
  void i64(int64_t value) { u64(static_cast<uint64_t>(value)); }
  std::string out;
};

class Reader {
public:
  Reader(const std::string &data, size_t end) : data(data), end(end) {}
  uint32_t u32() {
    need(4);
    uint32_t value = 0;
    for (int i = 0; i < 4; ++i)
      value |= uint32_t(static_cast<unsigned char>(data[at + i])) << (8 * i);
    at += 4;
    return value;
  }
  uint64_t u64() {
    need(8);
    uint64_t value = 0;
    for (int i = 0; i < 8; ++i)
      value |= uint64_t(static_cast<unsigned char>(data[at + i])) << (8 * i);
    at += 8;
    return value;
  }
  int64_t i64() { return static_cast<int64_t>(u64()); }
  /// A count of items of at least `itemBytes` bytes each: no more than
  /// the bytes left can hold.
  uint64_t count(size_t itemBytes) {
    uint64_t value = u64();
    if (value > (end - at) / itemBytes)
      throw invalid("the saved data state is truncated or garbled: a count "
                    "of " +
                    std::to_string(value) + " at byte " +
                    std::to_string(at - 8) + " exceeds what is left");
    return value;
  }
  size_t position() const { return at; }
  bool atEnd() const { return at == end; }

private:
  void need(size_t size) {
    if (end - at < size)
      throw invalid("the saved data state is truncated (at byte " +
                    std::to_string(at) + " of " + std::to_string(end) + ")");
  }
  const std::string &data;
  size_t end;
  size_t at = 0;
};

/// Sorts `entries` by their first record, stably. A unit's pending records
/// are mostly single records of shuffled batches, thousands of them, dense
/// in the unit: a counting sort over their span is linear (the
/// stable_sort it replaces was a quarter of the data coordinator's time
/// at the end of each unit). Sparse ones take std::stable_sort.
template <typename Entry> void stableSortByFirst(std::vector<Entry> &entries) {
  if (entries.size() < 2)
    return;
  auto [lowest, highest] = std::minmax_element(
      entries.begin(), entries.end(),
      [](const Entry &a, const Entry &b) { return a.first < b.first; });
  int64_t low = lowest->first;
  uint64_t span = static_cast<uint64_t>(highest->first - low) + 1;
  if (span > 4 * entries.size() + 1024) {
    std::stable_sort(
        entries.begin(), entries.end(),
        [](const Entry &a, const Entry &b) { return a.first < b.first; });
    return;
  }
  std::vector<size_t> next(span + 1, 0);
  for (const Entry &entry : entries)
    ++next[static_cast<size_t>(entry.first - low) + 1];
  std::partial_sum(next.begin(), next.end(), next.begin());
  std::vector<Entry> sorted(entries.size());
  for (const Entry &entry : entries)
    sorted[next[static_cast<size_t>(entry.first - low)]++] = entry;
  entries = std::move(sorted);
}

} // namespace

std::vector<UnitRecords>
groupExamples(const std::vector<ExampleOrigin> &examples) {
  // StreamingInput hands a batch's origins over sorted (and the step
  // groups them twice): sorted, they need no copy.
  std::vector<ExampleOrigin> copy;
  const std::vector<ExampleOrigin> *in = &examples;
  if (!std::is_sorted(examples.begin(), examples.end())) {
    copy = examples;
    std::sort(copy.begin(), copy.end());
    in = &copy;
  }
  const std::vector<ExampleOrigin> &sorted = *in;
  std::vector<UnitRecords> groups;
  size_t i = 0;
  while (i < sorted.size()) {
    UnitRecords group;
    group.epoch = sorted[i].epoch;
    group.unit = sorted[i].unit;
    std::vector<RecordRange> repeats;
    for (; i < sorted.size() && sorted[i].epoch == group.epoch &&
           sorted[i].unit == group.unit;
         ++i) {
      int64_t record = sorted[i].record;
      if (!group.records.empty() && group.records.back().second == record)
        ++group.records.back().second;
      else if (!group.records.empty() && group.records.back().second > record)
        repeats.emplace_back(record, record + 1);
      else
        group.records.emplace_back(record, record + 1);
    }
    if (!repeats.empty()) {
      group.records.insert(group.records.end(), repeats.begin(), repeats.end());
      std::stable_sort(group.records.begin(), group.records.end(),
                       [](const RecordRange &a, const RecordRange &b) {
                         return a.first < b.first;
                       });
    }
    groups.push_back(std::move(group));
  }
  return groups;
}

const char *releaseReasonName(ReleaseReason reason) {
  switch (reason) {
  case ReleaseReason::Restarted:
    return "restarted";
  case ReleaseReason::Done:
    return "done";
  case ReleaseReason::Lost:
    return "lost";
  }
  return "released";
}

struct DataCoordinator::SavedState {
  struct Partial {
    int64_t unit = 0;
    int64_t total = -1;
    std::vector<RecordRange> trained;
  };
  struct SavedEpoch {
    int64_t epoch = 0;
    std::vector<int64_t> done;
    std::vector<Partial> partial;
  };
  uint64_t fingerprint = 0;
  int64_t numUnits = 0;
  int64_t epochs = 0;
  uint64_t seed = 0;
  int64_t step = 0;
  int64_t completeBelow = 0;
  int64_t recordsTrained = 0;
  int64_t recordsInDoubt = 0;
  int64_t duplicateRecords = 0;
  std::vector<SavedEpoch> kept;

  std::string describe() const {
    return std::to_string(numUnits) + " unit(s), " + std::to_string(epochs) +
           " epoch(s), seed " + std::to_string(seed);
  }

  static SavedState parse(const std::string &bytes);
};

DataCoordinator::SavedState
DataCoordinator::SavedState::parse(const std::string &bytes) {
  if (bytes.size() < sizeof(kMagic) ||
      std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0)
    throw invalid("the saved data state is not one (" +
                  std::to_string(bytes.size()) +
                  " bytes that do not start with DTFDATA)");
  if (bytes.size() < sizeof(kMagic) + 8)
    throw invalid("the saved data state is truncated (" +
                  std::to_string(bytes.size()) + " bytes)");
  Reader header(bytes, bytes.size());
  header.u64(); // the magic
  uint32_t version = header.u32();
  if (version != kStateVersion)
    throw invalid("the saved data state has version " +
                  std::to_string(version) + "; this build reads version " +
                  std::to_string(kStateVersion));
  size_t body = bytes.size() - 4;
  uint32_t stored = 0;
  for (int i = 0; i < 4; ++i)
    stored |= uint32_t(static_cast<unsigned char>(bytes[body + i])) << (8 * i);
  if (unmaskCrc(stored) != crc32c(bytes.data(), body))
    throw invalid("the saved data state is truncated or corrupted (its "
                  "checksum does not match its " +
                  std::to_string(bytes.size()) + " bytes)");

  Reader in(bytes, body);
  in.u64();
  in.u32();
  SavedState state;
  state.fingerprint = in.u64();
  state.numUnits = in.i64();
  state.epochs = in.i64();
  state.seed = in.u64();
  state.step = in.i64();
  state.completeBelow = in.i64();
  state.recordsTrained = in.i64();
  state.recordsInDoubt = in.i64();
  state.duplicateRecords = in.i64();
  auto garbled = [&](const std::string &what) {
    return invalid("the saved data state is garbled: " + what + " (at byte " +
                   std::to_string(in.position()) + ")");
  };
  if (state.numUnits <= 0 || state.epochs < 0 || state.completeBelow < 0)
    throw garbled("units " + std::to_string(state.numUnits) + ", epochs " +
                  std::to_string(state.epochs) + ", complete below " +
                  std::to_string(state.completeBelow));
  uint64_t keptEpochs = in.count(24);
  for (uint64_t k = 0; k < keptEpochs; ++k) {
    SavedEpoch epoch;
    epoch.epoch = in.i64();
    if (epoch.epoch != state.completeBelow + static_cast<int64_t>(k) ||
        (state.epochs > 0 && epoch.epoch >= state.epochs))
      throw garbled("epoch " + std::to_string(epoch.epoch) + " out of place");
    uint64_t done = in.count(8);
    int64_t previous = -1;
    for (uint64_t d = 0; d < done; ++d) {
      int64_t unit = in.i64();
      if (unit <= previous || unit >= state.numUnits)
        throw garbled("done unit " + std::to_string(unit));
      epoch.done.push_back(unit);
      previous = unit;
    }
    uint64_t partial = in.count(24);
    previous = -1;
    for (uint64_t p = 0; p < partial; ++p) {
      Partial unit;
      unit.unit = in.i64();
      unit.total = in.i64();
      if (unit.unit <= previous || unit.unit >= state.numUnits ||
          std::binary_search(epoch.done.begin(), epoch.done.end(), unit.unit) ||
          unit.total < -1)
        throw garbled("unit " + std::to_string(unit.unit));
      previous = unit.unit;
      uint64_t ranges = in.count(16);
      int64_t end = 0;
      for (uint64_t r = 0; r < ranges; ++r) {
        int64_t first = in.i64();
        int64_t last = in.i64();
        if (first < end || first >= last ||
            (unit.total >= 0 && last > unit.total))
          throw garbled("records [" + std::to_string(first) + ", " +
                        std::to_string(last) + ") of " +
                        unitName(epoch.epoch, unit.unit));
        unit.trained.emplace_back(first, last);
        end = last;
      }
      epoch.partial.push_back(std::move(unit));
    }
    state.kept.push_back(std::move(epoch));
  }
  if (!in.atEnd())
    throw garbled("bytes after the last epoch");
  return state;
}

DataCoordinator::DataCoordinator(DataCoordinatorOptions options)
    : options(std::move(options)),
      savedStep(std::numeric_limits<int64_t>::min()) {
  size_t workers = static_cast<size_t>(std::max(this->options.numWorkers, 0));
  unitsHandedOut.assign(workers, 0);
  recordsTrainedPerWorker.assign(workers, 0);
  held.resize(workers);
  acquiring.assign(workers, 0);
  trainedSamples.resize(workers);
  refused.assign(workers, false);
  acquiresRefused.assign(workers, 0);
}

DataCoordinator::~DataCoordinator() = default;

void DataCoordinator::checkWorkerLocked(int worker) const {
  if (worker < 0 || worker >= static_cast<int>(held.size()))
    throw invalid("no worker " + std::to_string(worker) + " in a cluster of " +
                  std::to_string(held.size()) + " worker task(s)");
}

void DataCoordinator::define(int worker, const DataSetDefinition &definition_) {
  std::lock_guard<std::mutex> lock(mutex);
  checkWorkerLocked(worker);
  std::string who = "worker " + std::to_string(worker) + "'s data set";
  if (definition_.units.empty())
    throw invalid(who + " has no units");
  if (definition_.epochs < 0)
    throw invalid(who + " has " + std::to_string(definition_.epochs) +
                  " epochs (0: without end)");
  for (size_t i = 0; i < definition_.units.size(); ++i) {
    const WorkUnit &unit = definition_.units[i];
    if (unit.id != static_cast<int64_t>(i))
      throw invalid(who + " has unit " + std::to_string(unit.id) +
                    " at position " + std::to_string(i) +
                    " (the units are numbered 0..n-1 in order)");
    if (unit.begin > unit.end)
      throw invalid(who + ": unit " + std::to_string(i) + " of '" + unit.path +
                    "' begins at " + std::to_string(unit.begin) +
                    " after its end " + std::to_string(unit.end));
  }
  if (definition) {
    std::string differs = difference(*definition, definition_);
    if (!differs.empty())
      throw invalid(who + " differs from the one defined first: " + differs);
    return;
  }
  uint64_t print = fingerprintOf(definition_);
  if (restored && restored->fingerprint != print)
    throw invalid(
        "the checkpoint's data set differs from " + who +
        ": the checkpoint's has " + restored->describe() + ", " + who + " " +
        std::to_string(definition_.units.size()) + " unit(s), " +
        std::to_string(definition_.epochs) + " epoch(s), seed " +
        std::to_string(definition_.seed) +
        (restored->numUnits == static_cast<int64_t>(definition_.units.size()) &&
                 restored->epochs == definition_.epochs &&
                 restored->seed == definition_.seed
             ? " (the units' files or byte ranges differ)"
             : ""));
  DataSetDefinition accepted = definition_;
  for (WorkUnit &unit : accepted.units) {
    unit.epoch = 0;
    unit.trained.clear();
  }
  definition = std::move(accepted);
  fingerprint = print;
  if (restored) {
    applyLocked(*restored);
    restored.reset();
  }
  changed.notify_all();
}

void DataCoordinator::releaseLostLocked() {
  if (!options.lostWorkers)
    return;
  for (int worker : options.lostWorkers())
    if (worker >= 0 && worker < static_cast<int>(held.size()) &&
        !held[worker].empty() && acquiring[worker] == 0)
      releaseWorkerLocked(worker);
}

void DataCoordinator::releaseWorkerLocked(int worker) {
  for (const auto &[epoch, id] : held[worker]) {
    auto found = epochs.find(epoch);
    if (found == epochs.end())
      continue;
    Epoch &state = found->second;
    Unit &unit = state.units[static_cast<size_t>(id)];
    if (unit.status != UnitStatus::Out || unit.worker != worker)
      continue;
    recordsInDoubt += sizeOf(unit.inFlight);
    unit.inFlight.clear();
    unit.inFlight.shrink_to_fit();
    unit.status = UnitStatus::Pending;
    unit.worker = -1;
    --state.out;
    state.released.push_back(id);
  }
  held[worker].clear();
  // Gone, or a new process: what it trained at which rate says nothing
  // of what it will.
  trainedSamples[worker].clear();
  refused[worker] = false;
  changed.notify_all();
}

void DataCoordinator::releaseWorker(int worker, ReleaseReason) {
  std::lock_guard<std::mutex> lock(mutex);
  checkWorkerLocked(worker);
  releaseWorkerLocked(worker);
  releaseLostLocked();
}

DataCoordinator::Epoch &DataCoordinator::openEpochLocked(int64_t epoch) {
  Epoch state;
  int64_t n = static_cast<int64_t>(definition->units.size());
  state.order = shuffledOrder(n, definition->seed, epoch);
  state.units.resize(static_cast<size_t>(n));
  return epochs.emplace(epoch, std::move(state)).first->second;
}

WorkUnit DataCoordinator::handOutLocked(int worker, int64_t epoch, Epoch &state,
                                        int64_t id) {
  Unit &unit = state.units[static_cast<size_t>(id)];
  unit.status = UnitStatus::Out;
  unit.worker = worker;
  ++state.out;
  held[worker].emplace(epoch, id);
  ++unitsHandedOut[worker];
  refused[worker] = false;
  settlePendingLocked(unit);
  WorkUnit result = definition->units[static_cast<size_t>(id)];
  result.epoch = epoch;
  for (const Interval &interval : unit.trained) {
    if (!result.trained.empty() &&
        result.trained.back().second == interval.first)
      result.trained.back().second = interval.last;
    else
      result.trained.emplace_back(interval.first, interval.last);
  }
  return result;
}

std::optional<WorkUnit> DataCoordinator::tryAcquireLocked(int worker,
                                                          bool &finished) {
  finished = false;
  if (!definition)
    return std::nullopt;
  size_t n = definition->units.size();
  // Pacing the end (see the top of DataCoordinator.h): asked before each
  // hand-out of a unit of the last epoch.
  auto refuse = [&](int64_t epoch) {
    if (!definition->waitForReleasedUnits || definition->epochs == 0 ||
        epoch != definition->epochs - 1 || !outlastsTheRestLocked(worker))
      return false;
    refused[worker] = true;
    ++acquiresRefused[worker];
    finished = true;
    return true;
  };
  for (auto &[epoch, state] : epochs) {
    while (!state.released.empty()) {
      int64_t id = state.released.front();
      if (state.units[static_cast<size_t>(id)].status != UnitStatus::Pending) {
        state.released.pop_front();
        continue;
      }
      if (refuse(epoch))
        return std::nullopt;
      state.released.pop_front();
      return handOutLocked(worker, epoch, state, id);
    }
    while (
        state.nextFresh < n &&
        state.units[static_cast<size_t>(state.order[state.nextFresh])].status !=
            UnitStatus::Fresh)
      ++state.nextFresh;
    if (state.nextFresh < n) {
      if (refuse(epoch))
        return std::nullopt;
      return handOutLocked(worker, epoch, state,
                           state.order[state.nextFresh++]);
    }
  }
  int64_t next = completeBelow + static_cast<int64_t>(epochs.size());
  if (definition->epochs == 0 || next < definition->epochs) {
    Epoch &state = openEpochLocked(next);
    if (refuse(next))
      return std::nullopt;
    return handOutLocked(worker, next, state, state.order[state.nextFresh++]);
  }
  if (finishedLocked() || !definition->waitForReleasedUnits || drainedLocked())
    finished = true;
  return std::nullopt;
}

DataCoordinator::Clock::time_point DataCoordinator::nowLocked() const {
  return options.clock ? options.clock() : Clock::now();
}

double DataCoordinator::rateLocked(int worker) const {
  const RateSamples &samples = trainedSamples[static_cast<size_t>(worker)];
  if (samples.size() < 2)
    return 0;
  std::chrono::duration<double> span =
      samples.back().first - samples.front().first;
  if (span < kMinRateSpan)
    return 0;
  return static_cast<double>(samples.back().second - samples.front().second) /
         span.count();
}

bool DataCoordinator::outlastsTheRestLocked(int worker) const {
  double rate = rateLocked(worker);
  if (rate <= 0)
    return false;
  // A unit not read to its end yet holds about its bytes times the
  // records per byte of those read.
  double records = 0, bytes = 0;
  for (const auto &[epoch, state] : epochs)
    for (size_t id = 0; id < state.units.size(); ++id)
      if (state.units[id].total >= 0) {
        records += static_cast<double>(state.units[id].total);
        bytes += static_cast<double>(definition->units[id].end -
                                     definition->units[id].begin);
      }
  if (bytes <= 0)
    return false;
  double perByte = records / bytes;
  // Records not trained yet: in the hands of each worker, and not handed
  // out.
  std::vector<double> inHand(held.size(), 0);
  double notHandedOut = 0;
  for (const auto &[epoch, state] : epochs)
    for (size_t id = 0; id < state.units.size(); ++id) {
      const Unit &unit = state.units[id];
      if (unit.status == UnitStatus::Done)
        continue;
      double total =
          unit.total >= 0
              ? static_cast<double>(unit.total)
              : perByte * static_cast<double>(definition->units[id].end -
                                              definition->units[id].begin);
      double left =
          std::max(0.0, total - static_cast<double>(unit.trainedCount +
                                                    unit.pendingCount));
      if (unit.status == UnitStatus::Out)
        inHand[static_cast<size_t>(unit.worker)] += left;
      else
        notHandedOut += left;
    }
  // Those who would take the rest: the other workers training and not
  // refused themselves.
  double othersRate = 0, othersInHand = 0;
  for (int other = 0; other < static_cast<int>(held.size()); ++other) {
    double otherRate = other == worker || refused[static_cast<size_t>(other)]
                           ? 0
                           : rateLocked(other);
    if (otherRate <= 0)
      continue;
    othersRate += otherRate;
    othersInHand += inHand[static_cast<size_t>(other)];
  }
  if (othersRate <= 0)
    return false;
  return inHand[static_cast<size_t>(worker)] / rate >=
         (notHandedOut + othersInHand) / othersRate;
}

bool DataCoordinator::drainedLocked() const {
  for (const auto &[epoch, state] : epochs)
    for (const Unit &unit : state.units)
      if (unit.status == UnitStatus::Out && unit.total < 0)
        return false;
  return true;
}

int64_t DataCoordinator::epochsCompletedLocked() const {
  int64_t complete = completeBelow;
  if (definition)
    for (const auto &[epoch, state] : epochs)
      if (state.done == static_cast<int64_t>(definition->units.size()))
        ++complete;
  return complete;
}

bool DataCoordinator::finishedLocked() const {
  return definition && definition->epochs > 0 &&
         epochsCompletedLocked() >= definition->epochs;
}

std::string DataCoordinator::waitMessageLocked() const {
  if (!definition)
    return "no worker has defined the data set yet";
  std::set<int> workers;
  int64_t out = 0;
  for (const auto &[epoch, state] : epochs) {
    out += state.out;
    for (const Unit &unit : state.units)
      if (unit.status == UnitStatus::Out)
        workers.insert(unit.worker);
  }
  return "no unit is pending: " + std::to_string(out) +
         " unit(s) are out with worker(s) " + joinWorkers(workers) +
         ", who may yet give them back";
}

std::optional<WorkUnit>
DataCoordinator::acquire(int worker, std::chrono::milliseconds timeout,
                         const ClientLeft &clientLeft) {
  using Clock = std::chrono::steady_clock;
  std::unique_lock<std::mutex> lock(mutex);
  checkWorkerLocked(worker);
  ++acquiring[worker];
  struct Done {
    int &count;
    ~Done() { --count; }
  } done{acquiring[worker]};
  auto deadline =
      Clock::now() + std::min(std::max(timeout, std::chrono::milliseconds(0)),
                              options.maxWait);
  while (true) {
    if (shuttingDown)
      throw Error(ErrorCode::Unavailable, "data coordinator: shutting down");
    // Before handing anything out: a unit given to a caller that left
    // would stay with its worker until the worker is released.
    if (clientLeft && clientLeft())
      throw Error(ErrorCode::Cancelled,
                  "data coordinator: the caller of the wait left");
    releaseLostLocked();
    bool finished = false;
    std::optional<WorkUnit> unit = tryAcquireLocked(worker, finished);
    if (unit || finished) {
      if (finished)
        changed.notify_all();
      return unit;
    }
    if (stopped)
      throw Error(ErrorCode::Aborted,
                  "data coordinator: training was stopped: " + stopReason);
    auto now = Clock::now();
    if (now >= deadline)
      throw Error(ErrorCode::DeadlineExceeded,
                  "data coordinator: " + waitMessageLocked());
    changed.wait_until(lock, std::min(deadline, now + kPollInterval));
  }
}

void DataCoordinator::unitRead(int worker, int64_t epoch, int64_t unit,
                               int64_t records) {
  DataReport read;
  read.unitsRead.push_back({epoch, unit, records});
  report(worker, read);
}

bool DataCoordinator::mergeable(const Interval &a, const Interval &b) const {
  return a.last == b.first &&
         (a.step == b.step || (a.step <= savedStep && b.step <= savedStep));
}

void DataCoordinator::mergeIntervals(std::vector<Interval> &intervals) const {
  size_t kept = 0;
  for (size_t i = 0; i < intervals.size(); ++i) {
    if (kept > 0 && mergeable(intervals[kept - 1], intervals[i])) {
      intervals[kept - 1].last = intervals[i].last;
      intervals[kept - 1].step =
          std::max(intervals[kept - 1].step, intervals[i].step);
    } else {
      intervals[kept++] = intervals[i];
    }
  }
  intervals.resize(kept);
}

void DataCoordinator::settlePendingLocked(Unit &unit) {
  if (unit.pending.empty())
    return;
  std::vector<PendingRecords> pending = std::move(unit.pending);
  unit.pending.clear();
  unit.pendingCount = 0;
  stableSortByFirst(pending);
  const std::vector<Interval> &trained = unit.trained;
  std::vector<Interval> merged;
  merged.reserve(trained.size() + pending.size());
  size_t next = 0; // the first interval of `trained` not in `merged`
  // The end of what `merged` covers: no interval of `trained` from `next`
  // on starts before it (a new one ends where one of those begins).
  int64_t covered = std::numeric_limits<int64_t>::min();
  for (const PendingRecords &records : pending) {
    while (next < trained.size() && trained[next].first < records.first) {
      covered = std::max(covered, trained[next].last);
      merged.push_back(trained[next++]);
    }
    int64_t at = std::max(records.first, covered);
    int64_t added = 0;
    while (at < records.last) {
      if (next < trained.size() && trained[next].first <= at) {
        at = std::max(at, trained[next].last);
        covered = std::max(covered, trained[next].last);
        merged.push_back(trained[next++]);
        continue;
      }
      int64_t end = next < trained.size()
                        ? std::min(records.last, trained[next].first)
                        : records.last;
      merged.push_back({at, end, records.step});
      added += end - at;
      covered = std::max(covered, end);
      at = end;
    }
    int64_t again = (records.last - records.first) - added;
    unit.trainedCount += added;
    recordsTrained -= again;
    recordsTrainedPerWorker[static_cast<size_t>(records.worker)] -= again;
    duplicateRecords += again;
  }
  merged.insert(merged.end(),
                trained.begin() + static_cast<std::ptrdiff_t>(next),
                trained.end());
  mergeIntervals(merged);
  unit.trained = std::move(merged);
}

void DataCoordinator::settleAllLocked() {
  for (auto &[epoch, state] : epochs)
    for (Unit &unit : state.units)
      settlePendingLocked(unit);
}

void DataCoordinator::markDoneIfCompleteLocked(int64_t epoch, Epoch &state,
                                               int64_t id) {
  Unit &unit = state.units[static_cast<size_t>(id)];
  if (unit.status == UnitStatus::Done || unit.total < 0 ||
      unit.trainedCount + unit.pendingCount < unit.total)
    return;
  settlePendingLocked(unit);
  if (unit.trainedCount < unit.total)
    return;
  if (unit.status == UnitStatus::Out) {
    held[unit.worker].erase({epoch, id});
    --state.out;
  }
  unit.status = UnitStatus::Done;
  unit.worker = -1;
  unit.inFlight.clear();
  unit.inFlight.shrink_to_fit();
  ++state.done;
  if (std::all_of(unit.trained.begin(), unit.trained.end(),
                  [&](const Interval &i) { return i.step <= savedStep; })) {
    unit.trained.clear();
    unit.trained.shrink_to_fit();
  }
  changed.notify_all();
}

void DataCoordinator::report(int worker, const DataReport &report) {
  std::lock_guard<std::mutex> lock(mutex);
  checkWorkerLocked(worker);
  releaseLostLocked();
  if (!definition)
    throw Error(ErrorCode::FailedPrecondition,
                "data coordinator: a report of worker " +
                    std::to_string(worker) +
                    " before any worker defined the data set");
  int64_t n = static_cast<int64_t>(definition->units.size());
  int64_t limit = definition->epochs;
  int64_t opened = completeBelow + static_cast<int64_t>(epochs.size());
  auto findUnit = [&](int64_t epoch, int64_t id) -> Unit * {
    auto found = epochs.find(epoch);
    return found == epochs.end()
               ? nullptr
               : &found->second.units[static_cast<size_t>(id)];
  };

  // Check all of it before applying any.
  auto checkUnit = [&](int64_t epoch, int64_t id) {
    if (epoch < 0 || (limit > 0 && epoch >= limit))
      throw invalid("worker " + std::to_string(worker) + " reported epoch " +
                    std::to_string(epoch) + " of a data set of " +
                    std::to_string(limit) + " epoch(s)");
    if (id < 0 || id >= n)
      throw invalid("worker " + std::to_string(worker) + " reported unit " +
                    std::to_string(id) + " of a data set of " +
                    std::to_string(n) + " unit(s)");
  };
  std::map<std::pair<int64_t, int64_t>, int64_t> totals;
  for (const UnitRead &read : report.unitsRead) {
    checkUnit(read.epoch, read.unit);
    std::string unit = unitName(read.epoch, read.unit);
    if (read.records < 0)
      throw invalid("worker " + std::to_string(worker) + " read " +
                    std::to_string(read.records) + " records of " + unit);
    int64_t known = -1;
    if (Unit *state = findUnit(read.epoch, read.unit)) {
      settlePendingLocked(*state);
      known = state->total;
      if (!state->trained.empty() && state->trained.back().last > read.records)
        throw invalid("worker " + std::to_string(worker) + " read " +
                      std::to_string(read.records) + " records of " + unit +
                      ", but record " +
                      std::to_string(state->trained.back().last - 1) +
                      " of it was trained on");
    }
    auto [entry, added] =
        totals.emplace(std::make_pair(read.epoch, read.unit), read.records);
    if (!added)
      known = entry->second;
    if (known >= 0 && known != read.records)
      throw invalid("worker " + std::to_string(worker) + " read " +
                    std::to_string(read.records) + " records of " + unit +
                    ", which holds " + std::to_string(known) +
                    " (did its file change?)");
  }
  auto checkRecords = [&](const std::vector<UnitRecords> &groups,
                          const char *what) {
    for (const UnitRecords &group : groups) {
      checkUnit(group.epoch, group.unit);
      int64_t total = -1;
      if (auto found = totals.find({group.epoch, group.unit});
          found != totals.end())
        total = found->second;
      else if (const Unit *state = findUnit(group.epoch, group.unit))
        total = state->total;
      for (const RecordRange &range : group.records)
        if (range.first < 0 || range.first >= range.second ||
            (total >= 0 && range.second > total))
          throw invalid("worker " + std::to_string(worker) + " reported " +
                        what + " records [" + std::to_string(range.first) +
                        ", " + std::to_string(range.second) + ") of " +
                        unitName(group.epoch, group.unit) +
                        (total >= 0 ? ", which holds " + std::to_string(total) +
                                          " records"
                                    : std::string()));
    }
  };
  checkRecords(report.pushing, "pushing");
  checkRecords(report.trained, "trained");
  checkRecords(report.withdrawn, "withdrawn");
  checkRecords(report.inDoubt, "in doubt");

  // Apply it.
  bool touchedEpochs = false;
  for (const UnitRead &read : report.unitsRead) {
    auto found = epochs.find(read.epoch);
    if (found == epochs.end())
      continue;
    found->second.units[static_cast<size_t>(read.unit)].total = read.records;
    markDoneIfCompleteLocked(read.epoch, found->second, read.unit);
    touchedEpochs = true;
  }
  for (const UnitRecords &group : report.pushing) {
    Unit *unit = findUnit(group.epoch, group.unit);
    if (!unit || unit->status != UnitStatus::Out || unit->worker != worker)
      continue;
    addRanges(unit->inFlight, group.records);
  }
  // Not in flight any more: the worker reads them again.
  for (const auto *groups : {&report.withdrawn, &report.inDoubt}) {
    for (const UnitRecords &group : *groups) {
      if (groups == &report.inDoubt)
        recordsInDoubt += sizeOf(group.records);
      Unit *unit = findUnit(group.epoch, group.unit);
      if (!unit || unit->status != UnitStatus::Out || unit->worker != worker)
        continue;
      subtractRanges(unit->inFlight, group.records);
    }
  }
  bool trainedNow = false;
  for (const UnitRecords &group : report.trained) {
    int64_t size = sizeOf(group.records);
    if (group.epoch < completeBelow) {
      // Its epoch is complete: every record of it was trained on.
      duplicateRecords += size;
      continue;
    }
    if (group.epoch >= opened) {
      staleRecords += size;
      continue;
    }
    Epoch &state = epochs.at(group.epoch);
    Unit &unit = state.units[static_cast<size_t>(group.unit)];
    for (const RecordRange &range : group.records) {
      int64_t count = range.second - range.first;
      if (unit.status == UnitStatus::Done && unit.trained.empty()) {
        // Done and forgotten: all of it was trained.
        duplicateRecords += count;
      } else {
        // Counted as trained now; settlePendingLocked takes back what
        // turns out to be a duplicate.
        unit.pending.push_back(
            {range.first, range.second, report.globalStep, worker});
        unit.pendingCount += count;
        recordsTrained += count;
        recordsTrainedPerWorker[static_cast<size_t>(worker)] += count;
      }
    }
    subtractRanges(unit.inFlight, group.records);
    trainedNow = true;
    // A done unit's late records are duplicates: count them now.
    if (unit.status == UnitStatus::Done)
      settlePendingLocked(unit);
    markDoneIfCompleteLocked(group.epoch, state, group.unit);
    touchedEpochs = true;
  }
  if (trainedNow) {
    RateSamples &samples = trainedSamples[static_cast<size_t>(worker)];
    Clock::time_point now = nowLocked();
    samples.emplace_back(now,
                         recordsTrainedPerWorker[static_cast<size_t>(worker)]);
    while (samples.size() > 2 && now - samples[1].first >= kRateWindow)
      samples.pop_front();
  }
  if (touchedEpochs)
    dropEpochsLocked();
  // A unit read to its end may have drained the data (drainedLocked): a
  // waiting acquire looks again.
  if (!report.unitsRead.empty())
    changed.notify_all();
}

void DataCoordinator::dropEpochsLocked() {
  if (!definition)
    return;
  int64_t n = static_cast<int64_t>(definition->units.size());
  while (!epochs.empty()) {
    auto first = epochs.begin();
    if (first->second.done != n)
      break;
    bool forgotten =
        std::all_of(first->second.units.begin(), first->second.units.end(),
                    [](const Unit &unit) { return unit.trained.empty(); });
    auto second = std::next(first);
    bool nextComplete = second != epochs.end() && second->second.done == n;
    if (!forgotten && !nextComplete)
      break;
    epochs.erase(first);
    ++completeBelow;
  }
}

void DataCoordinator::compactLocked() {
  settleAllLocked();
  for (auto &[epoch, state] : epochs)
    for (Unit &unit : state.units) {
      mergeIntervals(unit.trained);
      if (unit.status == UnitStatus::Done &&
          std::all_of(unit.trained.begin(), unit.trained.end(),
                      [&](const Interval &i) { return i.step <= savedStep; }))
        unit.trained.clear();
      unit.trained.shrink_to_fit();
    }
  dropEpochsLocked();
}

std::string DataCoordinator::saveState(int64_t globalStep) {
  std::lock_guard<std::mutex> lock(mutex);
  releaseLostLocked();
  if (!definition)
    throw Error(ErrorCode::FailedPrecondition,
                "data coordinator: no data set was defined yet: no state to "
                "save");
  settleAllLocked();
  Writer body;
  int64_t after = 0; // records trained at a step > globalStep
  for (const auto &[epoch, state] : epochs) {
    body.i64(epoch);
    std::vector<int64_t> done;
    Writer partial;
    uint64_t partialCount = 0;
    for (size_t id = 0; id < state.units.size(); ++id) {
      const Unit &unit = state.units[id];
      std::vector<RecordRange> kept;
      bool complete = unit.status == UnitStatus::Done;
      for (const Interval &interval : unit.trained) {
        if (interval.step > globalStep) {
          after += interval.last - interval.first;
          complete = false;
          continue;
        }
        if (!kept.empty() && kept.back().second == interval.first)
          kept.back().second = interval.last;
        else
          kept.emplace_back(interval.first, interval.last);
      }
      if (complete) {
        done.push_back(static_cast<int64_t>(id));
        continue;
      }
      if (kept.empty() && unit.total < 0)
        continue;
      ++partialCount;
      partial.i64(static_cast<int64_t>(id));
      partial.i64(unit.total);
      partial.u64(kept.size());
      for (const RecordRange &range : kept) {
        partial.i64(range.first);
        partial.i64(range.second);
      }
    }
    body.u64(done.size());
    for (int64_t id : done)
      body.i64(id);
    body.u64(partialCount);
    body.out += partial.out;
  }

  Writer out;
  out.bytes(kMagic, sizeof(kMagic));
  out.u32(kStateVersion);
  out.u64(fingerprint);
  out.i64(static_cast<int64_t>(definition->units.size()));
  out.i64(definition->epochs);
  out.u64(definition->seed);
  out.i64(globalStep);
  out.i64(completeBelow);
  out.i64(recordsTrained - after);
  out.i64(recordsInDoubt);
  out.i64(duplicateRecords);
  out.u64(epochs.size());
  out.out += body.out;
  out.u32(maskCrc(crc32c(out.out.data(), out.out.size())));

  savedStep = std::max(savedStep, globalStep);
  compactLocked();
  return std::move(out.out);
}

void DataCoordinator::applyLocked(const SavedState &saved) {
  for (auto &worker : held)
    worker.clear();
  epochs.clear();
  completeBelow = saved.completeBelow;
  savedStep = saved.step;
  recordsTrained = saved.recordsTrained;
  recordsInDoubt = saved.recordsInDoubt;
  duplicateRecords = saved.duplicateRecords;
  for (const SavedState::SavedEpoch &kept : saved.kept) {
    Epoch &state = openEpochLocked(kept.epoch);
    for (int64_t id : kept.done) {
      state.units[static_cast<size_t>(id)].status = UnitStatus::Done;
      ++state.done;
    }
    for (const SavedState::Partial &partial : kept.partial) {
      Unit &unit = state.units[static_cast<size_t>(partial.unit)];
      unit.status = UnitStatus::Pending;
      unit.total = partial.total;
      for (const RecordRange &range : partial.trained) {
        unit.trained.push_back({range.first, range.second, saved.step});
        unit.trainedCount += range.second - range.first;
      }
      state.released.push_back(partial.unit);
      markDoneIfCompleteLocked(kept.epoch, state, partial.unit);
    }
  }
  dropEpochsLocked();
  changed.notify_all();
}

void DataCoordinator::restoreState(const std::string &state) {
  SavedState saved = SavedState::parse(state);
  std::lock_guard<std::mutex> lock(mutex);
  if (!definition) {
    restored = std::make_unique<SavedState>(std::move(saved));
    return;
  }
  if (saved.fingerprint != fingerprint)
    throw invalid(
        "the checkpoint's data set differs from the one defined: the "
        "checkpoint's has " +
        saved.describe() + ", the one defined " +
        std::to_string(definition->units.size()) + " unit(s), " +
        std::to_string(definition->epochs) + " epoch(s), seed " +
        std::to_string(definition->seed) +
        (saved.numUnits == static_cast<int64_t>(definition->units.size()) &&
                 saved.epochs == definition->epochs &&
                 saved.seed == definition->seed
             ? " (the units' files or byte ranges differ)"
             : ""));
  applyLocked(saved);
}

DataStats DataCoordinator::stats() {
  std::lock_guard<std::mutex> lock(mutex);
  releaseLostLocked();
  settleAllLocked(); // the duplicates among what was reported
  DataStats stats;
  stats.defined = definition.has_value();
  stats.recordsTrained = recordsTrained;
  stats.recordsInDoubt = recordsInDoubt;
  stats.duplicateRecords = duplicateRecords;
  stats.staleRecords = staleRecords;
  stats.unitsHandedOut = unitsHandedOut;
  stats.recordsTrainedPerWorker = recordsTrainedPerWorker;
  stats.acquiresRefused = acquiresRefused;
  if (!definition)
    return stats;
  int64_t n = static_cast<int64_t>(definition->units.size());
  stats.unitsPerEpoch = n;
  stats.epochsCompleted = epochsCompletedLocked();
  stats.finished = finishedLocked();
  for (const auto &[epoch, state] : epochs)
    if (state.done < n) {
      stats.currentEpoch = epoch;
      stats.unitsDone = state.done;
      stats.unitsOut = state.out;
      stats.unitsPending = n - state.done - state.out;
      return stats;
    }
  stats.currentEpoch = completeBelow + static_cast<int64_t>(epochs.size());
  if (!stats.finished)
    stats.unitsPending = n;
  return stats;
}

int64_t DataCoordinator::ledgerIntervals() {
  std::lock_guard<std::mutex> lock(mutex);
  settleAllLocked();
  int64_t count = 0;
  for (const auto &[epoch, state] : epochs)
    for (const Unit &unit : state.units)
      count += static_cast<int64_t>(unit.trained.size());
  return count;
}

void DataCoordinator::stop(const std::string &reason) {
  std::lock_guard<std::mutex> lock(mutex);
  if (!stopped) {
    stopped = true;
    stopReason = reason.empty() ? "no reason given" : reason;
  }
  changed.notify_all();
}

void DataCoordinator::beginShutdown() {
  std::lock_guard<std::mutex> lock(mutex);
  shuttingDown = true;
  changed.notify_all();
}

} // namespace dtf::coord
