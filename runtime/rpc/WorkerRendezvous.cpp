//===- WorkerRendezvous.cpp - The rendezvous of a task --------------------===//

#include "runtime/rpc/WorkerRendezvous.h"

#include "runtime/core/DeviceName.h"
#include "runtime/core/Error.h"

#include <optional>

namespace dtf::rpc {

std::string taskOfDevice(std::string_view device) {
  std::string error;
  std::optional<DeviceName> name = DeviceName::parseFull(device, error);
  if (!name)
    throw Error(ErrorCode::InvalidArgument,
                "invalid device '" + std::string(device) + "': " + error);
  return name->taskName();
}

WorkerRendezvous::WorkerRendezvous(std::string taskName,
                                   LocalRendezvous &local, ClientFor clientFor)
    : taskName(std::move(taskName)), local(local),
      clientFor(std::move(clientFor)) {}

void WorkerRendezvous::send(const std::string &key, int64_t stepId,
                            Tensor tensor) {
  RendezvousKey parts = RendezvousKey::parse(key);
  if (taskOfDevice(parts.sourceDevice) != taskName)
    throw Error(ErrorCode::InvalidArgument,
                "task " + taskName + " cannot send tensor '" + key +
                    "': its source device is on another task");
  local.send(key, stepId, std::move(tensor));
}

void WorkerRendezvous::recvAsync(const std::string &key, int64_t stepId,
                                 const RecvArgs &args, RecvCallback done) {
  std::shared_ptr<WorkerClient> client;
  std::string source;
  try {
    source = taskOfDevice(RendezvousKey::parse(key).sourceDevice);
    if (source != taskName)
      client = clientFor(source);
  } catch (...) {
    done(std::current_exception(), Tensor());
    return;
  }
  if (!client)
    return local.recvAsync(key, stepId, args, std::move(done));
  client->recvTensorAsync(
      key, stepId, args.deadline, args.cancellation,
      [this, stepId, source = std::move(source),
       done = std::move(done)](std::exception_ptr error, Tensor tensor) {
        if (!error) {
          std::lock_guard<std::mutex> lock(trafficMutex);
          received[stepId][source] += static_cast<int64_t>(tensor.byteSize());
        }
        done(std::move(error), std::move(tensor));
      });
}

std::map<std::string, int64_t>
WorkerRendezvous::takeReceivedBytes(int64_t stepId) {
  std::lock_guard<std::mutex> lock(trafficMutex);
  auto step = received.find(stepId);
  if (step == received.end())
    return {};
  std::map<std::string, int64_t> bytes = std::move(step->second);
  received.erase(step);
  return bytes;
}

} // namespace dtf::rpc
