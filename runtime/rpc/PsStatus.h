//===- PsStatus.h - What GetStep reports of a PS task -----------*- C++ -*-===//

#ifndef DTF_RUNTIME_RPC_PSSTATUS_H
#define DTF_RUNTIME_RPC_PSSTATUS_H

#include <cstdint>

namespace dtf::rpc {

/// Where a PS task's values come from, as GetStep reports it.
struct PsTaskStatus {
  int64_t step = 0;
  /// Serving: the chief initialized or restored the task.
  bool initialized = false;
  int64_t epoch = 0;
  /// Holds values (restored from a checkpoint at start-up) though not
  /// serving yet.
  bool hasValues = false;
  /// The checkpoint step of the values at the last restore; -1 for initial
  /// values or none.
  int64_t restoredFrom = -1;
  bool holdsGlobalStep = false;
};

} // namespace dtf::rpc

#endif // DTF_RUNTIME_RPC_PSSTATUS_H
