//===- CoordinationWire.h - The data coordinator's messages ------*- C++
//-*-===//
//
// Between the data coordinator's types (runtime/coord/DataTypes.h) and the
// messages of coordination.proto, for CoordinationService and
// CoordinationClient. Record ranges travel as flattened [first, last)
// pairs. Decoding throws Error(InvalidArgument) for a malformed message
// (an odd number of range bounds, an unknown compression).
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/coord/DataTypes.h"

#include "coordination.pb.h"

namespace dtf::rpc {

void encodeUnit(const WorkUnit &unit, DataUnit *message);
WorkUnit decodeUnit(const DataUnit &message);

void encodeDataSet(const coord::DataSetDefinition &definition,
                   DataSetSpec *message);
coord::DataSetDefinition decodeDataSet(const DataSetSpec &message);

void encodeReport(const coord::DataReport &report, ReportDataRequest *message);
coord::DataReport decodeReport(const ReportDataRequest &message);

void encodeStats(const coord::DataStats &stats, GetDataStatsResponse *message);
coord::DataStats decodeStats(const GetDataStatsResponse &message);

} // namespace dtf::rpc
