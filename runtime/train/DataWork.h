//===- DataWork.h - Where a worker's streamed input gets its units --------===//
//
// Streaming input (runtime/data/Streaming.h) reads the units of work a
// WorkSource hands out. Which source that is depends on the task, known
// only once the task runs: a between-graph worker asks the cluster's data
// coordinator (CoordinatedWorkSource, over the CoordinatorConnection to PS
// task 0), the in-graph master reads every unit itself (a LocalWorkSource).
// The input is opened (and checked against the model) before that, over a
// DeferredWorkSource that the task binds to its source.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/coord/CoordinatorConnection.h"
#include "runtime/core/Error.h"
#include "runtime/core/WorkUnits.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace dtf::train {

/// A WorkSource that forwards to the one bound later; next() waits for
/// the binding (or a cancel()).
class DeferredWorkSource final : public WorkSource {
public:
  void bind(std::shared_ptr<WorkSource> source);

  std::optional<WorkUnit> next() override;
  std::optional<WorkUnit> poll() override;
  void unitRead(const WorkUnit &unit, int64_t records) override;
  void pushing(const std::vector<ExampleOrigin> &examples) override;
  void trained(const std::vector<ExampleOrigin> &examples,
               int64_t globalStep) override;
  void notTrained(const std::vector<ExampleOrigin> &examples,
                  bool inDoubt) override;
  void flush() override;
  void cancel() override;

private:
  /// The bound source; null until bind() (calls other than next() before
  /// it are a bug: nothing was read yet).
  std::shared_ptr<WorkSource> bound() const;

  mutable std::mutex mutex;
  std::condition_variable changed;
  std::shared_ptr<WorkSource> source;
  bool cancelled = false;
};

/// A between-graph worker's units, from the cluster's data coordinator
/// (runtime/coord/DataCoordinator.h). Reports go in order, one at a time,
/// one per trained batch (a report carries one global step): pushing() and
/// trained() queue and return; flush() waits until the coordinator has
/// what was queued, so that a step's push goes only once the coordinator
/// knows its examples are in flight. A reporter thread sends them; but
/// where the connection can send a report and read its answer later
/// (startReportData) and nothing is ahead of it, pushing() sends the
/// step's report on the step's thread: no thread is woken a step (perf:
/// the hand-offs cost the worker four context switches a step). On PS task
/// 0's local socket flush() reads the answer; a report that rides the
/// step's push (rpc/DataReportRider.h) is as good as applied for flush(),
/// and its answer is read once its push was answered; where that push
/// recorded its batch trained (PendingReport::batchTrainedWithPush),
/// trained() has nothing to send. A call that fails
/// for a reason a retry can fix (PS task 0 restarting) is retried, by the
/// reporter thread, until it goes through or the source is cancelled.
class CoordinatedWorkSource final : public WorkSource {
public:
  CoordinatedWorkSource(coord::CoordinatorConnection &coordinator, int worker,
                        coord::DataSetDefinition definition);
  ~CoordinatedWorkSource() override;
  CoordinatedWorkSource(const CoordinatedWorkSource &) = delete;
  CoordinatedWorkSource &operator=(const CoordinatedWorkSource &) = delete;

  /// Defines the data set with the coordinator, once per process (which
  /// gives back any units a previous process of this worker held); the
  /// first next() does if nobody did. The chief defines before its first
  /// checkpoint, which holds the data state.
  void define();

  std::optional<WorkUnit> next() override;
  std::optional<WorkUnit> poll() override;
  void unitRead(const WorkUnit &unit, int64_t records) override;
  void pushing(const std::vector<ExampleOrigin> &examples) override;
  void trained(const std::vector<ExampleOrigin> &examples,
               int64_t globalStep) override;
  void notTrained(const std::vector<ExampleOrigin> &examples,
                  bool inDoubt) override;
  void flush() override;
  void cancel() override;

private:
  /// The report that gathers what comes: the last one queued, unless it
  /// is sealed, or `forTrained` and it holds trained records already (a
  /// report carries one global step). Requires the mutex.
  coord::DataReport &openReportLocked(bool forTrained);
  /// Runs `call` until it succeeds; retries (with backoff, up to 1 s) what
  /// a retry may fix; false when cancelled first.
  template <typename Call> bool retrying(const Call &call);
  /// The reporter thread: sends the queued reports in order.
  void sendReports();
  /// A report that pushing() sent on the step's thread, its answer unread.
  struct DirectReport {
    std::unique_ptr<coord::PendingReport> call;
    coord::DataReport report;
    /// trained() took its batch, which its push recorded trained.
    bool batchSettled = false;
  };
  /// Whether the push that `batch`'s report rode recorded it trained (its
  /// answer read or not); the first such report of it is taken. Requires
  /// the mutex.
  bool takeTrainedWithPushLocked(const std::vector<coord::UnitRecords> &batch);
  /// Reads `sent`'s answer (without the mutex); a failure a retry may fix
  /// puts its report back at the head of the queue for the reporter.
  void finishDirect(DirectReport sent);
  /// Finishes the reports at the head of `direct` whose answers can be
  /// read: one on the socket (waiting for it), one that rode a push
  /// answered. Requires the mutex, which it releases meanwhile.
  void finishDirectLocked(std::unique_lock<std::mutex> &lock);
  /// Whether a report sent on the socket waits for its answer to be read
  /// (the next one waits for it). Requires the mutex.
  bool frameOnItsWayLocked() const;
  /// Reports riding pushes, their answers not read. Requires the mutex.
  uint64_t ridingLocked() const;
  /// Puts a report that did not go through back at the head of the queue.
  /// Requires the mutex.
  void requeueLocked(coord::DataReport report);
  /// Says that a report the coordinator refused is dropped.
  void warnRefused(const Error &error) const;

  coord::CoordinatorConnection &coordinator;
  const int worker;
  const coord::DataSetDefinition definition;

  std::mutex mutex;
  /// The reporter thread waits on toSend (and waits of next() and of
  /// retries, for a cancel), flush() on sentChanged.
  std::condition_variable toSend, sentChanged;
  /// Held while defining: the readers' first next() calls wait for one
  /// definition.
  std::mutex defining;
  std::atomic<bool> defined{false};
  std::atomic<bool> cancelled{false};
  struct QueuedReport {
    coord::DataReport report;
    /// Holds what the coordinator needs now (records about to be pushed,
    /// a unit read to its end, records not trained after all).
    bool urgent = false;
    /// Takes nothing more (what follows must be applied after it).
    bool sealed = false;
  };
  /// Reports not sent yet, oldest first.
  std::deque<QueuedReport> queued;
  /// The reporter thread's call, or pushing()'s, is on its way: the next
  /// report waits for it.
  bool reportInFlight = false;
  /// The reports pushing() sent, oldest first, their answers not read:
  /// flush() reads them, or the reporter thread when a report is to follow
  /// one on the socket. Riders all, or none (the connection's choice).
  std::deque<DirectReport> direct;
  /// A thread reads answers of `direct` (in order, one thread at a time).
  bool finishing = false;
  /// The batches of answers read whose pushes recorded them trained, and
  /// that trained() has not taken yet (one or two: a batch is trained
  /// once its push is answered).
  std::deque<std::vector<coord::UnitRecords>> trainedWithPush;
  /// Reports queued and sent, counted since the start; flush() wants those
  /// up to flushTarget sent.
  uint64_t queuedCount = 0;
  uint64_t sentCount = 0;
  uint64_t flushTarget = 0;
  std::thread reporter;
};

/// The units of one epoch of a streamed data set and how they are handed
/// out: what every worker defines with the data coordinator.
struct StreamedData {
  std::vector<WorkUnit> units;
  /// Passes over the data; 0 for no end (training ends at --train_steps).
  int64_t epochs = 0;
  /// Seeds the order units are handed out in, per epoch.
  uint64_t seed = 0;
  /// What the training input reads from; the task binds it.
  std::shared_ptr<DeferredWorkSource> work;
};

} // namespace dtf::train
