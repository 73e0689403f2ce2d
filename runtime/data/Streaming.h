//===- Streaming.h - Batches streamed from TFRecord files -----------------===//
//
// Input for data sets larger than a worker's memory, as tf.data reads them:
//
//   Dataset.from_tensor_slices(units)            (WorkSource: WorkUnits.h)
//     .interleave(TFRecordDataset, cycle_length, num_parallel_calls)
//     .map(parse_example)
//     .shuffle(buffer_size)
//     .batch(batch, drop_remainder=True)
//     .prefetch(n)
//
// `readerThreads` threads take units of work from a WorkSource (a file, or
// a byte range of a plain TFRecord file), each keeping a cycle of units
// open whose records it reads in turn, one from each (interleave's
// block_length 1); together they keep `cycleLength` units open (at least
// one each). They parse records in chunks of `chunkRecords` into rows of
// the placeholders' types (the conversions of Inputs.h, the same checks and
// errors as the in-memory path), each tagged with where it came from
// (ExampleOrigin); a bytes feature for a float placeholder stays bytes
// until its batch (Column: the same values, a quarter of the memory). A
// thread draws the examples through a shuffle buffer of `shuffleBuffer`
// examples (tf.data's shuffle: filled first, then each example is drawn
// from a random slot, which the next example read fills) into batches,
// `prefetchBatches` ahead of nextBatch(). The readers and the batching
// thread run at a lower priority than the training step: they work ahead,
// and where the cores are busy the step should have them first.
//
// Memory: what is read but not yet handed out is at most the shuffle
// buffer, the batch being assembled and `prefetchBatches` ready ones, and
// (2 readerThreads + 1) chunks of `chunkRecords` examples (one being filled
// by each reader, `readerThreads` queued, one being drawn from); with
// accounting, the batches not yet settled too (at most
// kMaxUnsettledBatches). Never the data set.
//
// The end: when the WorkSource has no more units and the buffer holds
// fewer examples than a batch, nextBatch() throws Error(OutOfRange), as
// tf.data's OutOfRangeError ends a TF1 training loop; the examples left
// (fewer than a batch, which the static batch shape cannot take) are
// counted in StreamingStats::droppedAtEnd.
//
// Bad data (a record whose CRC does not match, a truncated file, a file
// that vanished before it was opened, an Example without a feature asked
// for or with values the placeholder cannot take): under
// BadRecordPolicy::Fail, nextBatch() rethrows the first such error
// (std::runtime_error or RecordError naming the file and record; a value
// the placeholder cannot take, std::invalid_argument naming the binding,
// file and record) and the threads stop. Under Skip, the record is
// skipped and counted; where the rest of a unit cannot be read (a
// truncated file or stream, a broken length, a file that cannot be
// opened), the rest of the unit is skipped, counted as one skipped record,
// with a warning on std::cerr naming the file and offset, and the unit is
// still reported read.
//
// Accounting (`accountBatches`): each batch handed out gets an id (1, 2,
// ...) and its examples' origins are kept until the trainer settles it
// (InputSource.h): batchPushing and batchTrained report its origins to the
// WorkSource (pushing, trained), awaitAccounted waits for the WorkSource's
// flush; batchLost reports them not trained (in doubt or not) and has the
// next nextBatch() serve the batch again (the same feeds) under a new id.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/core/WorkUnits.h"
#include "runtime/data/Examples.h"
#include "runtime/data/InputSource.h"
#include "runtime/data/InputSpec.h"
#include "runtime/data/Inputs.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace dtf::data {

/// The units of one epoch of `files` (epoch 0, ids 0, 1, ... in file
/// order): a compressed file is one unit; a plain file is cut into ranges
/// of `unitBytes` ([0, u), [u, 2u), ..., the last to the file's size); an
/// empty file is one unit of 0 bytes. The compression of each file is
/// detected (detectCompression). Throws std::invalid_argument when
/// `unitBytes` is 0, RecordError naming a file that cannot be read or is no
/// TFRecord file.
std::vector<WorkUnit> splitIntoUnits(const std::vector<std::string> &files,
                                     uint64_t unitBytes);

/// What a bad record does (--input_errors=fail|skip).
enum class BadRecordPolicy { Fail, Skip };

struct StreamingOptions {
  /// Threads that read and parse records (>= 1).
  int readerThreads = 2;
  /// Units read at once by all the reader threads, their records
  /// interleaved (tf.data interleave's cycle_length; >= 1). Each thread
  /// keeps at least one, so that max(cycleLength, readerThreads) units are
  /// open at most.
  int cycleLength = 4;
  /// Examples in the shuffle buffer; <= 1: no shuffle (the examples in the
  /// order read).
  int64_t shuffleBuffer = 10000;
  uint64_t shuffleSeed = 0;
  /// Whole batches assembled ahead (>= 1).
  size_t prefetchBatches = 2;
  BadRecordPolicy badRecords = BadRecordPolicy::Fail;
  /// Number the batches and report them to the WorkSource (see above).
  bool accountBatches = false;
  /// Records a reader parses at once (>= 1); a chunk also ends past 4 MiB
  /// of records.
  int64_t chunkRecords = 256;
};

/// Counters since the start, read at any time.
struct StreamingStats {
  /// Records read and parsed.
  int64_t records = 0;
  /// Bytes of the records read, framing included (of the decompressed
  /// stream, for a compressed file).
  int64_t bytes = 0;
  /// Bad records skipped under BadRecordPolicy::Skip.
  int64_t skippedRecords = 0;
  /// Units read to their end.
  int64_t units = 0;
  /// Examples now in the shuffle buffer, and its size (0 without shuffle).
  int64_t bufferedExamples = 0;
  int64_t bufferCapacity = 0;
  /// Batches handed out (served again after batchLost included).
  int64_t batches = 0;
  /// Time nextBatch() blocked waiting for examples.
  double waitSeconds = 0;
  /// Examples left at the end, fewer than a batch, never handed out.
  int64_t droppedAtEnd = 0;
};

class StreamingInput final : public InputSource {
public:
  /// Batches not yet settled (batchTrained or batchLost) beyond which
  /// nextBatch() throws Error(Internal): the trainer forgot to settle.
  static constexpr size_t kMaxUnsettledBatches = 64;

  /// Feeds the placeholders of `specs` (all of format tfrecord, naming the
  /// same files, each reading one feature of the same records) from the
  /// units that `work` hands out. Throws std::invalid_argument naming the
  /// binding at fault, as readColumns does (Inputs.h), or a bad option.
  /// The threads start with the first nextBatch().
  StreamingInput(const std::vector<InputSpec> &specs,
                 const std::map<std::string, ExampleType> &placeholders,
                 const std::map<std::string, IdTable> &tables,
                 std::shared_ptr<WorkSource> work, StreamingOptions options);
  /// Stops and joins every thread (cancel()).
  ~StreamingInput() override;
  StreamingInput(const StreamingInput &) = delete;
  StreamingInput &operator=(const StreamingInput &) = delete;

  const std::vector<std::string> &placeholders() const override {
    return names;
  }
  /// -1: not known before reading it all.
  int64_t size() const override { return -1; }
  /// The next batch. Every call must ask for the batch size of the first
  /// (std::invalid_argument otherwise). Throws Error(OutOfRange) at the
  /// end of the data (see above), the first bad record's error under
  /// BadRecordPolicy::Fail, Error(Cancelled) once stopped, Error(Internal)
  /// with more than kMaxUnsettledBatches batches unsettled.
  void nextBatch(int64_t batch, FeedMap &feeds) override;

  uint64_t lastBatchId() const override;
  /// Throw Error(Internal) for an id not handed out or already settled
  /// (with accounting; without, they do nothing).
  void batchPushing(uint64_t id) override;
  /// The WorkSource's flush(): its reports reached the coordinator.
  void awaitAccounted() override;
  void batchTrained(uint64_t id, int64_t globalStep) override;
  void batchLost(uint64_t id, bool inDoubt) override;

  StreamingStats stats() const;

  /// Stops: wakes every thread, calls the WorkSource's cancel() (so that
  /// a reader blocked in its next() returns), joins them. Later nextBatch()
  /// calls throw Error(Cancelled). Idempotent.
  void cancel();

private:
  /// A column of a chunk: its rows as the placeholder takes them, or
  /// (isPixels) the u8 values of a bytes feature that the batching thread
  /// converts to floats with the binding's scale as it places a row in a
  /// batch. The shuffle buffer holds rows as the chunks bring them: pixels
  /// are a quarter of their floats' bytes through it.
  struct Column {
    Tensor converted;
    std::vector<uint8_t> pixels;
    bool isPixels = false;
  };
  /// Examples parsed and converted by a reader: a row of each column.
  struct Chunk {
    std::vector<Column> columns;
    std::vector<ExampleOrigin> origins;
    int64_t rows = 0;
  };
  /// A batch, and where its examples came from (with accounting). Served
  /// as views that share it: an unsettled batch stays for a re-serve
  /// without a copy (the feeds are read, never written: a placeholder's
  /// kernel copies its feed).
  struct Batch {
    FeedMap feeds;
    /// Sorted by (epoch, unit, record), not in the rows' order: the
    /// batching thread sorts them, so that the step's thread, which reports
    /// them twice, does not.
    std::vector<ExampleOrigin> origins;
  };
  struct Reader;
  struct Batcher;
  /// Unwinds a thread when the input stops.
  struct Stopped {};

  void start();
  void readLoop(int cycle);
  void batchLoop();
  /// Records `error` as the input's (the first one wins) and stops.
  void fail(std::exception_ptr error);
  /// Hands `chunk` to the batching thread; false when stopping.
  bool push(Chunk chunk);
  /// The next chunk; false when no more will come. Throws Stopped.
  bool pop(Chunk &chunk);
  /// Hands a batch to nextBatch(). Throws Stopped.
  void pushReady(Batch batch);
  /// The batching thread is done: `left` examples, fewer than a batch,
  /// are dropped.
  void finish(int64_t left);
  bool stopping() const;
  /// Wakes every thread waiting on the input's conditions.
  void wakeAll();
  /// Counts a bad record skipped (BadRecordPolicy::Skip) and says why in a
  /// line on std::cerr; after the first 20 lines, only those `always`.
  void countSkipped(const std::string &message, bool always);

  const std::vector<InputSpec> specs;
  std::vector<std::string> names;
  std::vector<ExampleType> types;
  std::vector<FeatureRequest> requests;
  /// Bytes of one example of each placeholder.
  std::vector<size_t> rowBytes;
  /// Elements of one example of each placeholder.
  std::vector<size_t> rowElements;
  const std::shared_ptr<WorkSource> work;
  const StreamingOptions options;

  mutable std::mutex mutex;
  /// One condition a waiter: a chunk or a batch handed on wakes the one
  /// thread that waits for it, not every thread of the input (the step's
  /// thread among them), which cost a context switch each a step.
  /// Readers wait for room in `chunks`, the batching thread for a chunk
  /// and for room in `ready`, nextBatch() for a batch. wakeAll() wakes
  /// every waiter (a stop, an error).
  std::condition_variable chunkSpace, chunkQueued, batchSpace, batchReady;
  bool started = false;
  /// The threads are to stop (cancel(), or an error).
  bool stopped = false;
  bool cancelled = false;
  std::exception_ptr error;
  int64_t batchSize = 0;
  std::deque<Chunk> chunks;
  int activeReaders = 0;
  std::deque<Batch> ready;
  bool ended = false;
  double waitSeconds = 0;
  // Accounting.
  uint64_t lastId = 0;
  uint64_t nextId = 0;
  std::map<uint64_t, std::shared_ptr<Batch>> unsettled;
  /// Batch `id` among the unsettled; Error(Internal) when it is not one.
  /// Requires the mutex.
  std::map<uint64_t, std::shared_ptr<Batch>>::iterator
  unsettledLocked(uint64_t id);
  std::deque<std::shared_ptr<Batch>> lost;
  int warnings = 0;

  std::atomic<int64_t> records{0}, bytes{0}, skipped{0}, units{0}, buffered{0},
      batches{0}, droppedAtEnd{0};

  std::vector<std::thread> threads;
};

} // namespace dtf::data
