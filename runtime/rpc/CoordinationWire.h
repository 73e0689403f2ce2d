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

#include <grpcpp/impl/codegen/proto_utils.h>
#include <grpcpp/support/byte_buffer.h>

#include <string>
#include <string_view>

namespace dtf::rpc {

/// A message from the bytes of a local call's frame (LocalTransport.h).
/// A message whose fields are all defaults is zero bytes (worker 0's
/// AcquireUnit poll), which gRPC's reader refuses: it is left as it is.
template <typename Message>
grpc::Status parseLocalFrame(const grpc::ByteBuffer &bytes, Message &message) {
  if (bytes.Length() == 0)
    return grpc::Status::OK;
  grpc::ByteBuffer copy(bytes);
  return grpc::SerializationTraits<Message>::Deserialize(&copy, &message);
}

void encodeUnit(const WorkUnit &unit, DataUnit *message);
WorkUnit decodeUnit(const DataUnit &message);

void encodeDataSet(const coord::DataSetDefinition &definition,
                   DataSetSpec *message);
coord::DataSetDefinition decodeDataSet(const DataSetSpec &message);

void encodeReport(const coord::DataReport &report, ReportDataRequest *message);
coord::DataReport decodeReport(const ReportDataRequest &message);
/// The same as a serialized ReportDataRequest of `worker`, written and read
/// straight from and to the bytes: a streaming worker's report rides each
/// of its pushes, and the message's objects cost more than the report.
/// The bytes are those the message serializes to; decoding takes what its
/// parser takes (runs packed or not, unknown fields), sets `worker`, and
/// throws Error(InvalidArgument) where the bytes do not parse, as for a
/// malformed message.
std::string encodeReport(int worker, const coord::DataReport &report);
coord::DataReport decodeReport(std::string_view serialized, int &worker);

void encodeStats(const coord::DataStats &stats, GetDataStatsResponse *message);
coord::DataStats decodeStats(const GetDataStatsResponse &message);

} // namespace dtf::rpc
