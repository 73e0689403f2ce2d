//===- DeviceName.h - TensorFlow device names -------------------*- C++ -*-===//
//
// The one parser of device names in DTF: the dialect's #dtf.device, the
// worker's --device flag, the GPU runtime and the rendezvous keys all go
// through it, so that a name means the same everywhere. Two forms:
//
//   full:    /job:JOB[/replica:R]/task:T[/device:TYPE:K]
//            (JOB is ps or worker; replica, which DTF does not use, is
//            accepted and dropped, as TensorFlow's in-graph names carry it)
//   device:  TYPE[:K], /device:TYPE[:K], /TYPE[:K]   (K defaults to 0)
//
// TYPE is CPU or GPU in any case, kept in upper case. Parsing never throws
// (the compiler, built without exceptions, uses it): a bad name yields
// nullopt and a message saying what is wrong.
//
//===----------------------------------------------------------------------===//

#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace dtf {

struct DeviceName {
  /// "ps" or "worker"; empty in the device form.
  std::string job;
  /// -1 in the device form.
  int64_t task = -1;
  /// "CPU" or "GPU"; empty for a full name of a task.
  std::string type;
  /// -1 when `type` is empty.
  int64_t index = -1;

  /// Parses the full form; on error, returns nullopt and sets `error`
  /// (e.g. "unknown job 'chief'; expected 'ps' or 'worker'").
  static std::optional<DeviceName> parseFull(std::string_view name,
                                             std::string &error);
  /// Parses the device form, or a full name that ends in a device.
  static std::optional<DeviceName> parseDevice(std::string_view name,
                                               std::string &error);

  bool hasDevice() const { return !type.empty(); }
  bool isGpu() const { return type == "GPU"; }
  /// "/job:worker/task:1"; empty in the device form.
  std::string taskName() const;
  /// The canonical name: "/job:worker/task:1/device:GPU:0", or
  /// "/device:GPU:0" in the device form.
  std::string str() const;
};

} // namespace dtf
