//===- Streaming.cpp - Batches streamed from TFRecord files ---------------===//

#include "runtime/data/Streaming.h"

#include "runtime/core/Denormals.h"
#include "runtime/core/Error.h"
#include "runtime/data/Records.h"

#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <iostream>
#include <optional>
#include <random>
#include <stdexcept>

namespace dtf::data {

namespace {

/// A chunk also ends past these bytes of records.
constexpr size_t kChunkBytes = 4 << 20;
/// A reader keeps the buffers of the records of a chunk for the next one
/// (no allocation a record), but not those of records larger than this.
constexpr size_t kReusedRecordBytes = 64 << 10;
/// Warnings of single bad records printed before they are only counted.
constexpr int kWarnings = 20;

/// Row `row` of `array` alone, from `source`.
Array rowOf(const Array &array, int64_t row, std::string source) {
  Array one;
  one.type = array.type;
  one.shape = array.shape;
  one.shape[0] = 1;
  size_t bytes = elementTypeSize(array.type);
  for (size_t d = 1; d < array.shape.size(); ++d)
    bytes *= static_cast<size_t>(array.shape[d]);
  one.bytes.assign(array.bytes.begin() + row * bytes,
                   array.bytes.begin() + (row + 1) * bytes);
  one.source = std::move(source);
  return one;
}

/// The rows `rows` of `array`, in order.
Array selectRows(const Array &array, const std::vector<int64_t> &rows) {
  Array out;
  out.type = array.type;
  out.shape = array.shape;
  out.shape[0] = static_cast<int64_t>(rows.size());
  out.source = array.source;
  size_t bytes = elementTypeSize(array.type);
  for (size_t d = 1; d < array.shape.size(); ++d)
    bytes *= static_cast<size_t>(array.shape[d]);
  out.bytes.reserve(rows.size() * bytes);
  for (int64_t row : rows)
    out.bytes.insert(out.bytes.end(), array.bytes.begin() + row * bytes,
                     array.bytes.begin() + (row + 1) * bytes);
  return out;
}

} // namespace

std::vector<WorkUnit> splitIntoUnits(const std::vector<std::string> &files,
                                     uint64_t unitBytes) {
  if (unitBytes == 0)
    throw std::invalid_argument("units of work must hold at least 1 byte");
  std::vector<WorkUnit> units;
  for (const std::string &file : files) {
    Compression compression = detectCompression(file);
    struct stat info;
    if (::stat(file.c_str(), &info) != 0)
      throw RecordError("cannot open " + file + ": " + std::strerror(errno));
    const uint64_t size = static_cast<uint64_t>(info.st_size);
    WorkUnit unit;
    unit.path = file;
    unit.compression = compression;
    if (compression != Compression::None || size == 0) {
      unit.id = static_cast<int64_t>(units.size());
      unit.begin = 0;
      unit.end = size;
      units.push_back(unit);
      continue;
    }
    for (uint64_t begin = 0; begin < size; begin += unitBytes) {
      unit.id = static_cast<int64_t>(units.size());
      unit.begin = begin;
      unit.end = size - begin > unitBytes ? begin + unitBytes : size;
      units.push_back(unit);
    }
  }
  return units;
}

//===----------------------------------------------------------------------===//
// Reader threads: units to chunks of converted examples.
//===----------------------------------------------------------------------===//

struct StreamingInput::Reader {
  /// A unit of the cycle.
  struct Open {
    WorkUnit unit;
    std::unique_ptr<RecordReader> reader;
    /// How errors name it: the file, and the range past 0.
    std::shared_ptr<const std::string> label;
    /// The first of unit.trained that may still hold a record to come.
    size_t trainedAt = 0;
    /// Records numbered in the unit when it ended.
    int64_t records = 0;
  };
  /// A record read, not yet parsed.
  struct Pending {
    std::string data;
    ExampleOrigin origin;
    std::shared_ptr<const std::string> label;
  };

  StreamingInput &input;
  const size_t cycleSize;
  const bool skip;
  ExampleParser parser;
  std::vector<Open> cycle;
  /// The records read for the next chunk: [0, pendingCount); those after
  /// are buffers kept for reuse.
  std::vector<Pending> pending;
  size_t pendingCount = 0;
  size_t pendingBytes = 0;
  /// Units read to their end, reported once their records are queued.
  std::vector<std::pair<WorkUnit, int64_t>> done;

  Reader(StreamingInput &input, int cycleSize)
      : input(input), cycleSize(static_cast<size_t>(cycleSize)),
        skip(input.options.badRecords == BadRecordPolicy::Skip),
        parser(input.requests) {}

  void run() {
    bool workEnded = false;
    // Whether to ask for more units while some are open: after a unit
    // ended, not after each record (a coordinator's poll is a call).
    bool askAgain = true;
    size_t turn = 0;
    while (true) {
      if (input.stopping())
        throw Stopped();
      while (!workEnded && cycle.size() < cycleSize &&
             (cycle.empty() || askAgain)) {
        std::optional<WorkUnit> unit;
        // With units open, only what is to be had now (WorkSource::poll).
        bool waited = cycle.empty();
        try {
          unit = waited ? input.work->next() : input.work->poll();
        } catch (...) {
          if (input.stopping())
            throw Stopped();
          throw;
        }
        if (input.stopping())
          throw Stopped();
        if (!unit) {
          if (waited)
            workEnded = true;
          else
            askAgain = false;
          break;
        }
        open(std::move(*unit));
      }
      if (cycle.empty())
        break;
      if (turn >= cycle.size())
        turn = 0;
      if (readOne(cycle[turn])) {
        Open &finished = cycle[turn];
        done.emplace_back(std::move(finished.unit), finished.records);
        cycle.erase(cycle.begin() + static_cast<std::ptrdiff_t>(turn));
        askAgain = true;
        flush();
      } else {
        ++turn;
        if (static_cast<int64_t>(pendingCount) >= input.options.chunkRecords ||
            pendingBytes >= kChunkBytes)
          flush();
      }
    }
    flush();
  }

  void open(WorkUnit unit) {
    Open open;
    try {
      open.reader = std::make_unique<RecordReader>(
          unit.path, unit.compression, unit.begin,
          unit.compression == Compression::None
              ? std::optional<uint64_t>(unit.end)
              : std::nullopt);
    } catch (const RecordError &error) {
      if (!skip)
        throw;
      input.countSkipped("streaming input: skipping unit " +
                             std::to_string(unit.id) + " of epoch " +
                             std::to_string(unit.epoch) + " (" + unit.path +
                             " from offset " + std::to_string(unit.begin) +
                             "): " + error.what(),
                         true);
      done.emplace_back(std::move(unit), 0);
      flush();
      return;
    }
    open.label = std::make_shared<const std::string>(open.reader->where());
    open.unit = std::move(unit);
    cycle.push_back(std::move(open));
  }

  /// Whether record `index` of `open` was trained on.
  static bool trained(Open &open, int64_t index) {
    const std::vector<RecordRange> &ranges = open.unit.trained;
    while (open.trainedAt < ranges.size() &&
           ranges[open.trainedAt].second <= index)
      ++open.trainedAt;
    return open.trainedAt < ranges.size() &&
           ranges[open.trainedAt].first <= index;
  }

  /// Reads the next record of `open` not trained on into `pending`; true
  /// when the unit ended instead.
  bool readOne(Open &open) {
    RecordReader &reader = *open.reader;
    if (pendingCount == pending.size())
      pending.emplace_back();
    Pending &record = pending[pendingCount];
    while (true) {
      const int64_t index = reader.index();
      const uint64_t before = reader.offset();
      bool read;
      try {
        read = reader.next(record.data);
      } catch (const RecordError &error) {
        input.bytes += static_cast<int64_t>(reader.offset() - before);
        if (!skip)
          throw;
        if (reader.canContinue()) {
          input.countSkipped(
              std::string("streaming input: skipping a bad record: ") +
                  error.what(),
              false);
          continue;
        }
        input.countSkipped(
            std::string("streaming input: skipping the rest of ") +
                *open.label + " from offset " +
                std::to_string(reader.offset()) + ": " + error.what(),
            true);
        open.records = reader.index();
        return true;
      }
      input.bytes += static_cast<int64_t>(reader.offset() - before);
      if (!read) {
        open.records = reader.index();
        return true;
      }
      if (trained(open, index))
        continue;
      pendingBytes += record.data.size();
      record.origin = {open.unit.epoch, open.unit.id, index};
      record.label = open.label;
      ++pendingCount;
      return false;
    }
  }

  /// Called in the handler of `error`, a record's: rethrows it under
  /// BadRecordPolicy::Fail, else counts the record skipped.
  void skipRecordOrRethrow(const std::exception &error) {
    if (!skip)
      throw;
    input.countSkipped(std::string("streaming input: skipping a record: ") +
                           error.what(),
                       false);
  }

  /// The columns of `arrays`, converted for the placeholders; rows that do
  /// not convert are found one at a time, and (Skip) dropped from `kept`.
  std::vector<Column> convert(std::vector<Array> &arrays,
                              std::vector<const Pending *> &kept) {
    const size_t n = arrays.size();
    std::vector<Column> columns(n);
    // Pixels convert row by row without a failure: the parser checked
    // that each row holds the placeholder's number of values.
    for (size_t i = 0; i < n; ++i)
      columns[i].isPixels = arrays[i].type == ElementType::U8 &&
                            (input.types[i].dtype == DType::F32 ||
                             input.types[i].dtype == DType::F64) &&
                            !input.specs[i].oneHotClasses &&
                            !input.requests[i].varlen;
    try {
      for (size_t i = 0; i < n; ++i)
        if (!columns[i].isPixels)
          columns[i].converted =
              toColumn(arrays[i], input.specs[i], input.types[i]);
      for (size_t i = 0; i < n; ++i)
        if (columns[i].isPixels)
          columns[i].pixels = std::move(arrays[i].bytes);
      return columns;
    } catch (const std::invalid_argument &) {
    }
    std::vector<int64_t> good;
    std::vector<const Pending *> goodKept;
    for (size_t r = 0; r < kept.size(); ++r) {
      bool ok = true;
      for (size_t i = 0; i < n && ok; ++i) {
        if (columns[i].isPixels)
          continue;
        try {
          toColumn(
              rowOf(arrays[i], static_cast<int64_t>(r),
                    std::string(input.requests[i].varlen ? "varlen " : "") +
                        "feature '" + input.requests[i].name + "' of " +
                        *kept[r]->label + " record " +
                        std::to_string(kept[r]->origin.record)),
              input.specs[i], input.types[i]);
        } catch (const std::invalid_argument &error) {
          skipRecordOrRethrow(error);
          ok = false;
        }
      }
      if (ok) {
        good.push_back(static_cast<int64_t>(r));
        goodKept.push_back(kept[r]);
      }
    }
    kept = std::move(goodKept);
    for (size_t i = 0; i < n; ++i) {
      Array rows = selectRows(arrays[i], good);
      if (columns[i].isPixels)
        columns[i].pixels = std::move(rows.bytes);
      else
        columns[i].converted = toColumn(rows, input.specs[i], input.types[i]);
    }
    return columns;
  }

  /// Parses the pending records into a chunk for the batching thread, then
  /// reports the units that ended.
  void flush() {
    Chunk chunk;
    if (pendingCount > 0) {
      std::vector<const Pending *> kept;
      for (size_t r = 0; r < pendingCount; ++r) {
        const Pending &record = pending[r];
        try {
          parser.add(record.data, *record.label, record.origin.record);
        } catch (const std::runtime_error &error) {
          skipRecordOrRethrow(error);
          continue;
        }
        kept.push_back(&record);
      }
      input.records += static_cast<int64_t>(kept.size());
      std::string of = "no records";
      if (!kept.empty()) {
        of = *kept.front()->label;
        for (const Pending *record : kept)
          if (record->label != kept.front()->label) {
            of = "records of several units";
            break;
          }
      }
      std::vector<Array> arrays = parser.take(of);
      if (!kept.empty()) {
        chunk.columns = convert(arrays, kept);
        chunk.rows = static_cast<int64_t>(kept.size());
        if (input.options.accountBatches)
          for (const Pending *record : kept)
            chunk.origins.push_back(record->origin);
      }
      for (size_t r = 0; r < pendingCount; ++r) {
        pending[r].label.reset();
        if (pending[r].data.capacity() > kReusedRecordBytes)
          std::string().swap(pending[r].data);
      }
      pendingCount = 0;
      pendingBytes = 0;
    }
    if (chunk.rows > 0 && !input.push(std::move(chunk)))
      throw Stopped();
    for (auto &[unit, records] : done) {
      input.work->unitRead(unit, records);
      ++input.units;
    }
    done.clear();
  }
};

//===----------------------------------------------------------------------===//
// The batching thread: chunks through the shuffle buffer into batches.
//===----------------------------------------------------------------------===//

namespace {

/// The shuffle buffer's memory: one anonymous mapping of its whole
/// capacity, which the kernel fills as it is touched (a vector grown row
/// by row copied the buffer at each doubling), on 2 MB pages where it gives
/// them: examples are put and taken at random slots, a TLB miss a copy on
/// 4 KB pages.
class SlotMemory {
public:
  explicit SlotMemory(size_t bytes) : size(bytes) {
    if (bytes == 0)
      return;
    void *mapped = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped == MAP_FAILED)
      throw std::bad_alloc();
    // Advice only: a kernel without transparent huge pages keeps 4 KB.
    madvise(mapped, bytes, MADV_HUGEPAGE);
    memory = static_cast<uint8_t *>(mapped);
  }
  ~SlotMemory() {
    if (memory)
      munmap(memory, size);
  }
  SlotMemory(const SlotMemory &) = delete;
  SlotMemory &operator=(const SlotMemory &) = delete;

  uint8_t *data() const { return memory; }

private:
  uint8_t *memory = nullptr;
  size_t size;
};

/// Lowers this thread's priority below the training step's. The readers
/// and the batching thread work ahead (the prefetch and shuffle buffers),
/// so where the cores are all busy the step should have them first: at
/// equal priority a step waited for a core behind them. Where a core is
/// free they run at once, and a step short of input sleeps and leaves them
/// its core. On Linux a thread's nice value is its own.
void yieldToTheStep() {
  constexpr int kInputNice = 10;
  errno = 0;
  int current = getpriority(PRIO_PROCESS, 0);
  if (errno == 0)
    setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()),
                std::min(current + kInputNice, 19));
}

} // namespace

struct StreamingInput::Batcher {
  StreamingInput &input;
  const int64_t batch;
  const bool shuffle;
  const int64_t capacity;
  const bool account;
  const size_t n;
  Chunk current;
  int64_t row = 0;
  bool exhausted = false;
  std::mt19937_64 random;
  /// Per placeholder: whether its rows are pixels (Column), as the first
  /// chunk brought them, and the bytes of a row so.
  std::vector<bool> pixels;
  std::vector<size_t> stored;
  /// Per placeholder of pixels, their conversion.
  std::vector<std::optional<PixelScale>> scales;
  /// The shuffle buffer: slot j of placeholder i at bytes j * stored[i]
  /// of slots[i]; slots [0, count) hold examples.
  std::vector<std::unique_ptr<SlotMemory>> slots;
  std::vector<ExampleOrigin> origins;
  int64_t count = 0;

  explicit Batcher(StreamingInput &input, int64_t batch)
      : input(input), batch(batch), shuffle(input.options.shuffleBuffer > 1),
        capacity(input.options.shuffleBuffer),
        account(input.options.accountBatches), n(input.names.size()),
        random(input.options.shuffleSeed) {}

  /// Takes the rows' form from the first chunk; a later chunk must bring
  /// the same (a feature that is bytes in some records and numbers in
  /// others is the data's error).
  void checkForm(const Chunk &chunk) {
    if (pixels.empty()) {
      for (size_t i = 0; i < n; ++i) {
        pixels.push_back(chunk.columns[i].isPixels);
        stored.push_back(pixels[i] ? input.rowElements[i] : input.rowBytes[i]);
        if (pixels[i])
          scales.emplace_back(PixelScale(input.specs[i].scale.value_or(1.0),
                                         input.types[i].dtype));
        else
          scales.emplace_back();
      }
      if (shuffle)
        for (size_t i = 0; i < n; ++i)
          slots.push_back(std::make_unique<SlotMemory>(
              static_cast<size_t>(capacity) * stored[i]));
      return;
    }
    for (size_t i = 0; i < n; ++i)
      if (chunk.columns[i].isPixels != pixels[i])
        throw std::runtime_error("streaming input: feature '" +
                                 input.requests[i].name +
                                 "' is bytes in some records and a list of "
                                 "numbers in others");
  }

  /// Whether an example is at `row` of `current` (taking the next chunk).
  bool have() {
    while (!exhausted && row >= current.rows) {
      row = 0;
      current = Chunk();
      if (!input.pop(current))
        exhausted = true;
      else
        checkForm(current);
    }
    return !exhausted;
  }

  const uint8_t *currentRow(size_t i) const {
    const Column &column = current.columns[i];
    const uint8_t *data =
        column.isPixels
            ? column.pixels.data()
            : static_cast<const uint8_t *>(column.converted.rawData());
    return data + static_cast<size_t>(row) * stored[i];
  }

  uint8_t *slot(size_t i, int64_t j) const {
    return slots[i]->data() + static_cast<size_t>(j) * stored[i];
  }

  /// Writes row `from` of placeholder i (as stored) to row `k` of `out`,
  /// converting pixels as toColumn does.
  void emit(size_t i, const uint8_t *from, uint8_t *out, int64_t k) const {
    uint8_t *to = out + static_cast<size_t>(k) * input.rowBytes[i];
    if (!pixels[i]) {
      std::memcpy(to, from, input.rowBytes[i]);
      return;
    }
    (*scales[i])(from, input.rowElements[i], to);
  }

  /// The shuffle buffer's next slot to hand out, drawn in the same order
  /// (and so the same examples) as if drawn when its turn comes, but its
  /// rows and origin asked of the caches now: a random slot of megabytes of
  /// them is cold, and reading it stalled the conversion of its row (and
  /// the origin's read, with the rows streaming through, took 2/3 of the
  /// batching thread's own time).
  int64_t drawSlot() {
    int64_t j = std::uniform_int_distribution<int64_t>(0, count - 1)(random);
    for (size_t i = 0; i < n; ++i)
      for (size_t at = 0; at < stored[i]; at += 64)
        __builtin_prefetch(slot(i, j) + at);
    if (account)
      __builtin_prefetch(&origins[static_cast<size_t>(j)]);
    return j;
  }

  /// Moves the example at `row` into slot `j` (<= count).
  void put(int64_t j) {
    for (size_t i = 0; i < n; ++i)
      std::memcpy(slot(i, j), currentRow(i), stored[i]);
    if (account) {
      if (origins.size() < static_cast<size_t>(j + 1))
        origins.resize(static_cast<size_t>(j + 1));
      origins[static_cast<size_t>(j)] =
          current.origins[static_cast<size_t>(row)];
    }
    ++row;
  }

  Batch newBatch() {
    Batch out;
    for (size_t i = 0; i < n; ++i) {
      Shape shape = input.types[i].shape;
      shape.insert(shape.begin(), batch);
      out.feeds.emplace(input.names[i],
                        Tensor::uninitialized(input.types[i].dtype, shape));
    }
    if (account)
      out.origins.reserve(static_cast<size_t>(batch));
    return out;
  }

  void run() {
    int64_t drawn = -1;
    if (shuffle) {
      while (count < capacity && have()) {
        put(count);
        ++count;
        if (count % 1024 == 0)
          input.buffered = count;
      }
      input.buffered = count;
      if (count > 0)
        drawn = drawSlot();
    }
    while (true) {
      Batch out = newBatch();
      std::vector<uint8_t *> columns(n);
      for (size_t i = 0; i < n; ++i)
        columns[i] =
            static_cast<uint8_t *>(out.feeds.at(input.names[i]).rawData());
      int64_t k = 0;
      for (; k < batch; ++k) {
        if (shuffle) {
          if (count == 0)
            break;
          int64_t j = drawn;
          for (size_t i = 0; i < n; ++i)
            emit(i, slot(i, j), columns[i], k);
          if (account)
            out.origins.push_back(origins[static_cast<size_t>(j)]);
          if (have()) {
            put(j);
          } else if (j != --count) {
            for (size_t i = 0; i < n; ++i)
              std::memcpy(slot(i, j), slot(i, count), stored[i]);
            if (account)
              origins[static_cast<size_t>(j)] =
                  origins[static_cast<size_t>(count)];
          }
          if (count > 0)
            drawn = drawSlot();
        } else {
          if (!have())
            break;
          for (size_t i = 0; i < n; ++i)
            emit(i, currentRow(i), columns[i], k);
          if (account)
            out.origins.push_back(current.origins[static_cast<size_t>(row)]);
          ++row;
        }
      }
      input.buffered = count;
      if (k < batch) {
        input.finish(k);
        return;
      }
      if (account)
        std::sort(out.origins.begin(), out.origins.end());
      input.pushReady(std::move(out));
    }
  }
};

//===----------------------------------------------------------------------===//
// StreamingInput
//===----------------------------------------------------------------------===//

StreamingInput::StreamingInput(
    const std::vector<InputSpec> &specs,
    const std::map<std::string, ExampleType> &placeholders,
    const std::map<std::string, IdTable> &tables,
    std::shared_ptr<WorkSource> work, StreamingOptions options)
    : specs(specs), work(std::move(work)), options(std::move(options)) {
  if (specs.empty())
    throw std::invalid_argument("streaming input: no binding to feed");
  for (const InputSpec &spec : specs)
    if (spec.format != "tfrecord" || spec.path != specs.front().path)
      throw std::invalid_argument(
          spec.origin + ": input of placeholder '" + spec.placeholder +
          "': streaming reads one set of TFRecord files, each binding one "
          "feature of the same records (here " +
          (spec.format != "tfrecord" ? "a binding of format " + spec.format
                                     : "files '" + spec.path + "' besides '" +
                                           specs.front().path + "'") +
          ")");
  checkBindings(specs, placeholders);
  for (const InputSpec &spec : specs) {
    const ExampleType &type = placeholders.at(spec.placeholder);
    names.push_back(spec.placeholder);
    types.push_back(type);
    rowElements.push_back(static_cast<size_t>(numElementsOf(type.shape)));
    rowBytes.push_back(rowElements.back() * dtypeSize(type.dtype));
    FeatureRequest request = featureRequest(spec, placeholders, tables);
    // Every example holds what one example of the placeholder takes: a
    // record that does not is the record's error, not its chunk's.
    if (!request.varlen)
      request.values = spec.oneHotClasses ? 1 : numElementsOf(type.shape);
    request.rowOf = "placeholder '" + spec.placeholder + "' (" +
                    dtypeName(type.dtype) + " " + shapeToString(type.shape) +
                    " per example)";
    requests.push_back(std::move(request));
  }
  if (!this->work)
    throw std::invalid_argument("streaming input: no source of work units");
  if (this->options.readerThreads < 1 || this->options.cycleLength < 1 ||
      this->options.prefetchBatches < 1 || this->options.chunkRecords < 1)
    throw std::invalid_argument(
        "streaming input: reader threads, cycle length, prefetched batches "
        "and chunk records must be at least 1");
}

StreamingInput::~StreamingInput() { cancel(); }

void StreamingInput::cancel() {
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (cancelled)
      return;
    cancelled = true;
    stopped = true;
  }
  wakeAll();
  // A reader may wait in the source's next().
  work->cancel();
  for (std::thread &thread : threads)
    if (thread.joinable())
      thread.join();
}

bool StreamingInput::stopping() const {
  std::lock_guard<std::mutex> lock(mutex);
  return stopped;
}

void StreamingInput::countSkipped(const std::string &message, bool always) {
  ++skipped;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (!always && ++warnings > kWarnings) {
      if (warnings == kWarnings + 1)
        std::cerr << "warning: streaming input: further bad records are "
                     "only counted\n";
      return;
    }
  }
  std::cerr << ("warning: " + message + "\n");
}

void StreamingInput::fail(std::exception_ptr failure) {
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (!error && !stopped)
      error = failure;
    stopped = true;
  }
  wakeAll();
}

void StreamingInput::wakeAll() {
  chunkSpace.notify_all();
  chunkQueued.notify_all();
  batchSpace.notify_all();
  batchReady.notify_all();
}

bool StreamingInput::push(Chunk chunk) {
  std::unique_lock<std::mutex> lock(mutex);
  const size_t queued = static_cast<size_t>(options.readerThreads);
  chunkSpace.wait(lock, [&] { return stopped || chunks.size() < queued; });
  if (stopped)
    return false;
  chunks.push_back(std::move(chunk));
  // Notified unlocked: a woken thread would otherwise wait for the mutex.
  lock.unlock();
  chunkQueued.notify_one();
  return true;
}

bool StreamingInput::pop(Chunk &chunk) {
  std::unique_lock<std::mutex> lock(mutex);
  chunkQueued.wait(
      lock, [&] { return stopped || !chunks.empty() || activeReaders == 0; });
  if (stopped)
    throw Stopped();
  if (chunks.empty())
    return false;
  chunk = std::move(chunks.front());
  chunks.pop_front();
  lock.unlock();
  chunkSpace.notify_one();
  return true;
}

void StreamingInput::pushReady(Batch batch) {
  std::unique_lock<std::mutex> lock(mutex);
  batchSpace.wait(
      lock, [&] { return stopped || ready.size() < options.prefetchBatches; });
  if (stopped)
    throw Stopped();
  ready.push_back(std::move(batch));
  lock.unlock();
  batchReady.notify_one();
}

void StreamingInput::finish(int64_t left) {
  {
    std::lock_guard<std::mutex> lock(mutex);
    ended = true;
    droppedAtEnd = left;
  }
  batchReady.notify_all();
}

void StreamingInput::readLoop(int cycle) {
  // Readers convert and scale what they read (Denormals.h).
  flushDenormalsInThisThread();
  yieldToTheStep();
  try {
    Reader(*this, cycle).run();
  } catch (const Stopped &) {
  } catch (...) {
    fail(std::current_exception());
  }
  {
    std::lock_guard<std::mutex> lock(mutex);
    --activeReaders;
  }
  chunkQueued.notify_all();
}

void StreamingInput::batchLoop() {
  flushDenormalsInThisThread();
  yieldToTheStep();
  try {
    Batcher(*this, batchSize).run();
  } catch (const Stopped &) {
  } catch (...) {
    fail(std::current_exception());
  }
}

void StreamingInput::start() {
  const int readers = options.readerThreads;
  activeReaders = readers;
  started = true;
  threads.reserve(static_cast<size_t>(readers) + 1);
  for (int t = 0; t < readers; ++t) {
    int cycle = options.cycleLength / readers +
                (t < options.cycleLength % readers ? 1 : 0);
    threads.emplace_back([this, cycle] { readLoop(std::max(cycle, 1)); });
  }
  threads.emplace_back([this] { batchLoop(); });
}

void StreamingInput::nextBatch(int64_t batch, FeedMap &feeds) {
  std::unique_lock<std::mutex> lock(mutex);
  if (batch < 1)
    throw std::invalid_argument("streaming input: a batch of " +
                                std::to_string(batch) + " examples");
  if (!started) {
    if (cancelled)
      throw Error(ErrorCode::Cancelled, "streaming input: stopped");
    batchSize = batch;
    start();
  } else if (batch != batchSize) {
    throw std::invalid_argument("a streaming input serves batches of " +
                                std::to_string(batchSize) + ", not " +
                                std::to_string(batch));
  }
  if (options.accountBatches && unsettled.size() >= kMaxUnsettledBatches)
    throw Error(ErrorCode::Internal,
                "streaming input: " + std::to_string(unsettled.size()) +
                    " batches handed out are not settled (batchTrained or "
                    "batchLost): the trainer must settle every batch");
  std::shared_ptr<Batch> out;
  bool tookReady = false;
  if (!lost.empty()) {
    out = std::move(lost.front());
    lost.pop_front();
  } else {
    auto wake = [&] { return error || !ready.empty() || ended || stopped; };
    if (!wake()) {
      auto before = std::chrono::steady_clock::now();
      batchReady.wait(lock, wake);
      waitSeconds += std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - before)
                         .count();
    }
    if (error)
      std::rethrow_exception(error);
    if (ready.empty()) {
      if (ended)
        throw Error(ErrorCode::OutOfRange,
                    "streaming input: end of the data (the last epoch read; " +
                        std::to_string(droppedAtEnd.load()) +
                        " examples left, fewer than a batch of " +
                        std::to_string(batchSize) + ")");
      throw Error(ErrorCode::Cancelled, "streaming input: stopped");
    }
    out = std::make_shared<Batch>(std::move(ready.front()));
    ready.pop_front();
    tookReady = true;
  }
  for (auto &[name, tensor] : out->feeds)
    feeds[name] =
        Tensor::view(tensor.dtype(), tensor.shape(), tensor.rawData(), out);
  if (options.accountBatches) {
    lastId = ++nextId;
    unsettled.emplace(lastId, std::move(out));
  }
  ++batches;
  lock.unlock();
  if (tookReady)
    batchSpace.notify_one();
}

uint64_t StreamingInput::lastBatchId() const {
  std::lock_guard<std::mutex> lock(mutex);
  return lastId;
}

void StreamingInput::awaitAccounted() {
  if (options.accountBatches)
    work->flush();
}

std::map<uint64_t, std::shared_ptr<StreamingInput::Batch>>::iterator
StreamingInput::unsettledLocked(uint64_t id) {
  auto it = unsettled.find(id);
  if (it == unsettled.end())
    throw Error(ErrorCode::Internal, "streaming input: batch " +
                                         std::to_string(id) +
                                         " is not handed out, or already "
                                         "settled");
  return it;
}

void StreamingInput::batchPushing(uint64_t id) {
  if (!options.accountBatches)
    return;
  std::vector<ExampleOrigin> origins;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = unsettledLocked(id);
    origins = it->second->origins;
  }
  work->pushing(origins);
}

void StreamingInput::batchTrained(uint64_t id, int64_t globalStep) {
  if (!options.accountBatches)
    return;
  std::vector<ExampleOrigin> origins;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = unsettledLocked(id);
    origins = std::move(it->second->origins);
    unsettled.erase(it);
  }
  work->trained(origins, globalStep);
}

void StreamingInput::batchLost(uint64_t id, bool inDoubt) {
  if (!options.accountBatches)
    return;
  std::vector<ExampleOrigin> origins;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = unsettledLocked(id);
    origins = it->second->origins;
    lost.push_back(std::move(it->second));
    unsettled.erase(it);
  }
  work->notTrained(origins, inDoubt);
}

StreamingStats StreamingInput::stats() const {
  StreamingStats out;
  out.records = records;
  out.bytes = bytes;
  out.skippedRecords = skipped;
  out.units = units;
  out.bufferedExamples = buffered;
  out.bufferCapacity = options.shuffleBuffer > 1 ? options.shuffleBuffer : 0;
  out.batches = batches;
  out.droppedAtEnd = droppedAtEnd;
  std::lock_guard<std::mutex> lock(mutex);
  out.waitSeconds = waitSeconds;
  return out;
}

} // namespace dtf::data
