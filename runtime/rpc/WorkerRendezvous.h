//===- WorkerRendezvous.h - The rendezvous of a task ------------*- C++ -*-===//
//
// Sends, and recvs of tensors this task sends itself, meet in the task's
// LocalRendezvous; a recv of a tensor another task sends fetches it from
// that task's worker service (RecvTensor), which waits on its own local
// rendezvous until the tensor is sent.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/rpc/WorkerClient.h"

#include "runtime/core/Rendezvous.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

namespace dtf::rpc {

/// The task a device belongs to: "/job:worker/task:1/device:CPU:0" ->
/// "/job:worker/task:1".
std::string taskOfDevice(std::string_view device);

class WorkerRendezvous : public Rendezvous {
public:
  /// The client of another task's worker service; throws when the task is
  /// unknown.
  using ClientFor =
      std::function<std::shared_ptr<WorkerClient>(const std::string &task)>;

  /// The rendezvous of task `taskName`, whose own tensors go through
  /// `local`; both must outlive it.
  WorkerRendezvous(std::string taskName, LocalRendezvous &local,
                   ClientFor clientFor);

  /// Buffers the tensor locally, where its recv (local or remote) finds it.
  void send(const std::string &key, int64_t stepId, Tensor tensor) override;
  void recvAsync(const std::string &key, int64_t stepId, const RecvArgs &args,
                 RecvCallback done) override;

  /// The tensor bytes received from each other task in step `stepId`, by
  /// task name; forgets them. A step's recvs are all done when its
  /// executor returns, so the step's runner takes its count then.
  std::map<std::string, int64_t> takeReceivedBytes(int64_t stepId);

private:
  std::string taskName;
  LocalRendezvous &local;
  ClientFor clientFor;

  std::mutex trafficMutex;
  /// Bytes received per step and source task, until taken.
  std::unordered_map<int64_t, std::map<std::string, int64_t>> received;
};

} // namespace dtf::rpc
