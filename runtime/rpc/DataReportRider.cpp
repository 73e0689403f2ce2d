//===- DataReportRider.cpp - A worker's data reports riding its pushes ----===//

#include "runtime/rpc/DataReportRider.h"

#include <utility>

namespace dtf::rpc {

void DataReportRide::land(std::exception_ptr why, bool trained) {
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (state == State::Landed)
      return;
    state = State::Landed;
    failure = std::move(why);
    batchTrained = trained;
  }
  landed.notify_all();
}

class DataReportRider::Pending final : public coord::PendingReport {
public:
  Pending(DataReportRider &rider, std::shared_ptr<DataReportRide> ride)
      : rider(rider), ride(std::move(ride)) {}

  void finish() override {
    rider.sendAloneUnlessTaken(*ride);
    std::lock_guard<std::mutex> lock(ride->mutex);
    if (ride->failure)
      std::rethrow_exception(ride->failure);
  }

  bool ridesPush() const override { return true; }

  bool answered() const override {
    std::lock_guard<std::mutex> lock(ride->mutex);
    return ride->state == DataReportRide::State::Landed;
  }

  bool batchTrainedWithPush() const override {
    std::lock_guard<std::mutex> lock(ride->mutex);
    return ride->state == DataReportRide::State::Landed && ride->batchTrained;
  }

private:
  DataReportRider &rider;
  std::shared_ptr<DataReportRide> ride;
};

void DataReportRider::sendAloneUnlessTaken(DataReportRide &ride) {
  std::unique_lock<std::mutex> lock(ride.mutex);
  if (ride.state == DataReportRide::State::Held) {
    // No push took it: it goes alone, and a push that comes meanwhile
    // waits for it.
    ride.state = DataReportRide::State::Alone;
    lock.unlock();
    try {
      sendAlone(ride.request());
      ride.land(nullptr);
    } catch (...) {
      ride.land(std::current_exception());
    }
    lock.lock();
  }
  ride.landed.wait(lock,
                   [&] { return ride.state == DataReportRide::State::Landed; });
}

void DataReportRider::sendHeld() {
  std::shared_ptr<DataReportRide> earlier;
  {
    std::lock_guard<std::mutex> lock(mutex);
    earlier = std::move(held);
    held.reset();
  }
  if (earlier)
    sendAloneUnlessTaken(*earlier);
}

std::unique_ptr<coord::PendingReport>
DataReportRider::hold(std::string request) {
  // The report held before must reach the coordinator first, and a push
  // may take this one as soon as it is held.
  sendHeld();
  auto ride = std::make_shared<DataReportRide>(std::move(request));
  {
    std::lock_guard<std::mutex> lock(mutex);
    held = ride;
  }
  return std::make_unique<Pending>(*this, std::move(ride));
}

void DataReportRider::send(const std::string &request) {
  sendHeld();
  sendAlone(request);
}

std::shared_ptr<DataReportRide> DataReportRider::board() {
  std::shared_ptr<DataReportRide> ride;
  {
    std::lock_guard<std::mutex> lock(mutex);
    ride = std::move(held);
    held.reset();
  }
  if (!ride)
    return nullptr;
  std::unique_lock<std::mutex> lock(ride->mutex);
  if (ride->state == DataReportRide::State::Held) {
    ride->state = DataReportRide::State::Boarded;
    return ride;
  }
  // On its way alone (finish() took it): the push goes after it.
  ride->landed.wait(
      lock, [&] { return ride->state == DataReportRide::State::Landed; });
  return nullptr;
}

} // namespace dtf::rpc
