//===- RowPulls.h - dtf.pull_rows on a worker's CPU step ------------------===//
//
// A worker looks up embedding tables that stay on their PS tasks: each
// dtf.pull_rows of its step (what --dtf-replicate makes of a
// dtf.embedding_lookup) asks the table's task for the rows of the distinct
// ids of the batch, once each and never for padding, and hands every
// position of the ids its row. The bytes of a lookup follow the batch's
// distinct ids, not the table's rows. The pulls of a step whose ids are
// fed (placeholders) are asked for when the step begins, in one request
// per PS task (ExternalOpHandler::beginStep), as TensorFlow reads a step's
// values from a PS task in one RunGraph: a Wide & Deep step's 38 lookups
// of 19 tables in 2 shards are 2 round trips, not 38.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/exec/Executor.h"
#include "runtime/ps/PsConnection.h"

#include <memory>
#include <vector>

namespace dtf::train {

/// The handler of "dtf.pull_rows" for an Executor, over the connections to
/// the PS tasks in task order, which must outlive it.
std::shared_ptr<exec::ExternalOpHandler>
makePullRowsHandler(std::vector<ps::PsConnection *> ps);

} // namespace dtf::train
