//===- CoordinationWire.cpp - The data coordinator's messages -------------===//

#include "runtime/rpc/CoordinationWire.h"

#include "runtime/core/Error.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/wire_format_lite.h>

namespace dtf::rpc {

namespace {

template <typename Repeated>
void encodeRanges(const std::vector<RecordRange> &ranges, Repeated *flat) {
  flat->Reserve(static_cast<int>(2 * ranges.size()));
  for (const RecordRange &range : ranges) {
    flat->Add(range.first);
    flat->Add(range.second);
  }
}

template <typename Repeated>
std::vector<RecordRange> decodeRanges(const Repeated &flat, const char *what) {
  if (flat.size() % 2 != 0)
    throw Error(ErrorCode::InvalidArgument,
                std::string("malformed ") + what + ": " +
                    std::to_string(flat.size()) +
                    " range bounds (pairs of first and last)");
  std::vector<RecordRange> ranges;
  ranges.reserve(static_cast<size_t>(flat.size() / 2));
  for (decltype(flat.size()) i = 0; i < flat.size(); i += 2)
    ranges.emplace_back(flat[i], flat[i + 1]);
  return ranges;
}

void encodeRecords(const std::vector<coord::UnitRecords> &groups,
                   google::protobuf::RepeatedPtrField<UnitRecordRuns> *out) {
  out->Reserve(static_cast<int>(groups.size()));
  for (const coord::UnitRecords &group : groups) {
    UnitRecordRuns *message = out->Add();
    message->set_epoch(group.epoch);
    message->set_unit(group.unit);
    encodeRanges(group.records, message->mutable_runs());
  }
}

std::vector<coord::UnitRecords>
decodeRecords(const google::protobuf::RepeatedPtrField<UnitRecordRuns> &in,
              const char *what) {
  std::vector<coord::UnitRecords> groups;
  groups.reserve(static_cast<size_t>(in.size()));
  for (const UnitRecordRuns &message : in)
    groups.push_back(
        {message.epoch(), message.unit(), decodeRanges(message.runs(), what)});
  return groups;
}

} // namespace

void encodeUnit(const WorkUnit &unit, DataUnit *message) {
  message->set_epoch(unit.epoch);
  message->set_id(unit.id);
  message->set_path(unit.path);
  switch (unit.compression) {
  case Compression::None:
    message->set_compression(UNIT_COMPRESSION_NONE);
    break;
  case Compression::Gzip:
    message->set_compression(UNIT_COMPRESSION_GZIP);
    break;
  case Compression::Zlib:
    message->set_compression(UNIT_COMPRESSION_ZLIB);
    break;
  }
  message->set_begin(unit.begin);
  message->set_end(unit.end);
  encodeRanges(unit.trained, message->mutable_trained());
}

WorkUnit decodeUnit(const DataUnit &message) {
  WorkUnit unit;
  unit.epoch = message.epoch();
  unit.id = message.id();
  unit.path = message.path();
  switch (message.compression()) {
  case UNIT_COMPRESSION_NONE:
    unit.compression = Compression::None;
    break;
  case UNIT_COMPRESSION_GZIP:
    unit.compression = Compression::Gzip;
    break;
  case UNIT_COMPRESSION_ZLIB:
    unit.compression = Compression::Zlib;
    break;
  default:
    throw Error(ErrorCode::InvalidArgument,
                "malformed unit " + std::to_string(unit.id) +
                    ": unknown compression " +
                    std::to_string(message.compression()));
  }
  unit.begin = message.begin();
  unit.end = message.end();
  unit.trained = decodeRanges(message.trained(), "trained records of a unit");
  return unit;
}

void encodeDataSet(const coord::DataSetDefinition &definition,
                   DataSetSpec *message) {
  message->mutable_units()->Reserve(static_cast<int>(definition.units.size()));
  for (const WorkUnit &unit : definition.units)
    encodeUnit(unit, message->add_units());
  message->set_epochs(definition.epochs);
  message->set_seed(definition.seed);
  message->set_wait_for_released_units(definition.waitForReleasedUnits);
}

coord::DataSetDefinition decodeDataSet(const DataSetSpec &message) {
  coord::DataSetDefinition definition;
  definition.units.reserve(static_cast<size_t>(message.units_size()));
  for (const DataUnit &unit : message.units())
    definition.units.push_back(decodeUnit(unit));
  definition.epochs = message.epochs();
  definition.seed = message.seed();
  definition.waitForReleasedUnits = message.wait_for_released_units();
  return definition;
}

void encodeReport(const coord::DataReport &report, ReportDataRequest *message) {
  message->mutable_units_read()->Reserve(
      static_cast<int>(report.unitsRead.size()));
  for (const coord::UnitRead &read : report.unitsRead) {
    UnitReadCount *count = message->add_units_read();
    count->set_epoch(read.epoch);
    count->set_unit(read.unit);
    count->set_records(read.records);
  }
  encodeRecords(report.pushing, message->mutable_pushing());
  encodeRecords(report.trained, message->mutable_trained());
  encodeRecords(report.withdrawn, message->mutable_withdrawn());
  encodeRecords(report.inDoubt, message->mutable_in_doubt());
  message->set_global_step(report.globalStep);
  message->set_pushing_rides_its_push(report.pushingRidesItsPush);
}

coord::DataReport decodeReport(const ReportDataRequest &message) {
  coord::DataReport report;
  report.unitsRead.reserve(static_cast<size_t>(message.units_read_size()));
  for (const UnitReadCount &read : message.units_read())
    report.unitsRead.push_back({read.epoch(), read.unit(), read.records()});
  report.pushing = decodeRecords(message.pushing(), "records pushing");
  report.trained = decodeRecords(message.trained(), "records trained");
  report.withdrawn = decodeRecords(message.withdrawn(), "records withdrawn");
  report.inDoubt = decodeRecords(message.in_doubt(), "records in doubt");
  report.globalStep = message.global_step();
  report.pushingRidesItsPush = message.pushing_rides_its_push();
  return report;
}

namespace {

using google::protobuf::internal::WireFormatLite;

/// Reads a ReportDataRequest's fields off the wire into a DataReport, as
/// its generated parser would (packed or unpacked runs, unknown fields
/// skipped), without building the message first.
class ReportReader {
public:
  explicit ReportReader(std::string_view bytes)
      : input(reinterpret_cast<const uint8_t *>(bytes.data()),
              static_cast<int>(bytes.size())) {}

  coord::DataReport read(int &worker) {
    coord::DataReport report;
    while (uint32_t tag = input.ReadTag()) {
      int field = WireFormatLite::GetTagFieldNumber(tag);
      bool delimited = WireFormatLite::GetTagWireType(tag) ==
                       WireFormatLite::WIRETYPE_LENGTH_DELIMITED;
      bool varint = WireFormatLite::GetTagWireType(tag) ==
                    WireFormatLite::WIRETYPE_VARINT;
      if (field == ReportDataRequest::kWorkerFieldNumber && varint)
        worker = static_cast<int>(static_cast<int32_t>(varint64()));
      else if (field == ReportDataRequest::kUnitsReadFieldNumber && delimited)
        report.unitsRead.push_back(unitRead());
      else if (field == ReportDataRequest::kPushingFieldNumber && delimited)
        report.pushing.push_back(unitRecords("records pushing"));
      else if (field == ReportDataRequest::kTrainedFieldNumber && delimited)
        report.trained.push_back(unitRecords("records trained"));
      else if (field == ReportDataRequest::kWithdrawnFieldNumber && delimited)
        report.withdrawn.push_back(unitRecords("records withdrawn"));
      else if (field == ReportDataRequest::kInDoubtFieldNumber && delimited)
        report.inDoubt.push_back(unitRecords("records in doubt"));
      else if (field == ReportDataRequest::kGlobalStepFieldNumber && varint)
        report.globalStep = static_cast<int64_t>(varint64());
      else if (field == ReportDataRequest::kPushingRidesItsPushFieldNumber &&
               varint)
        report.pushingRidesItsPush = varint64() != 0;
      else if (!WireFormatLite::SkipField(&input, tag))
        malformed();
    }
    if (!input.ConsumedEntireMessage())
      malformed();
    return report;
  }

private:
  [[noreturn]] static void malformed() {
    throw Error(ErrorCode::InvalidArgument,
                "coordinator: a data report that does not parse");
  }

  uint64_t varint64() {
    uint64_t value;
    if (!input.ReadVarint64(&value))
      malformed();
    return value;
  }

  /// Enters a submessage; returns what PopLimit takes back.
  google::protobuf::io::CodedInputStream::Limit enter() {
    uint32_t length;
    if (!input.ReadVarint32(&length) ||
        length > static_cast<uint32_t>(input.BytesUntilLimit()))
      malformed();
    return input.PushLimit(static_cast<int>(length));
  }

  coord::UnitRead unitRead() {
    auto limit = enter();
    coord::UnitRead read;
    while (uint32_t tag = input.ReadTag()) {
      int field = WireFormatLite::GetTagFieldNumber(tag);
      if (WireFormatLite::GetTagWireType(tag) !=
          WireFormatLite::WIRETYPE_VARINT) {
        if (!WireFormatLite::SkipField(&input, tag))
          malformed();
        continue;
      }
      int64_t value = static_cast<int64_t>(varint64());
      if (field == UnitReadCount::kEpochFieldNumber)
        read.epoch = value;
      else if (field == UnitReadCount::kUnitFieldNumber)
        read.unit = value;
      else if (field == UnitReadCount::kRecordsFieldNumber)
        read.records = value;
    }
    leave(limit);
    return read;
  }

  coord::UnitRecords unitRecords(const char *what) {
    auto limit = enter();
    coord::UnitRecords group;
    std::vector<int64_t> &bounds = boundsScratch;
    bounds.clear();
    while (uint32_t tag = input.ReadTag()) {
      int field = WireFormatLite::GetTagFieldNumber(tag);
      auto type = WireFormatLite::GetTagWireType(tag);
      if (field == UnitRecordRuns::kRunsFieldNumber &&
          type == WireFormatLite::WIRETYPE_LENGTH_DELIMITED) {
        auto packed = enter();
        while (input.BytesUntilLimit() > 0)
          bounds.push_back(static_cast<int64_t>(varint64()));
        input.PopLimit(packed);
      } else if (type != WireFormatLite::WIRETYPE_VARINT) {
        if (!WireFormatLite::SkipField(&input, tag))
          malformed();
      } else if (field == UnitRecordRuns::kRunsFieldNumber) {
        bounds.push_back(static_cast<int64_t>(varint64()));
      } else if (field == UnitRecordRuns::kEpochFieldNumber) {
        group.epoch = static_cast<int64_t>(varint64());
      } else if (field == UnitRecordRuns::kUnitFieldNumber) {
        group.unit = static_cast<int64_t>(varint64());
      } else {
        varint64();
      }
    }
    leave(limit);
    group.records = decodeRanges(bounds, what);
    return group;
  }

  void leave(google::protobuf::io::CodedInputStream::Limit limit) {
    if (!input.ConsumedEntireMessage())
      malformed();
    input.PopLimit(limit);
  }

  google::protobuf::io::CodedInputStream input;
  std::vector<int64_t> boundsScratch;
};

} // namespace

namespace {

/// Writes a ReportDataRequest's bytes from a DataReport, as its generated
/// serializer would (fields in number order, defaults left out, runs
/// packed), without building the message first.
class ReportWriter {
public:
  explicit ReportWriter(std::string &out) : stream(&out), output(&stream) {}

  void write(int worker, const coord::DataReport &report) {
    if (worker != 0)
      WireFormatLite::WriteInt32(ReportDataRequest::kWorkerFieldNumber, worker,
                                 &output);
    for (const coord::UnitRead &read : report.unitsRead) {
      size_t size = varintField(read.epoch) + varintField(read.unit) +
                    varintField(read.records);
      startSubmessage(ReportDataRequest::kUnitsReadFieldNumber, size);
      writeVarintField(UnitReadCount::kEpochFieldNumber, read.epoch);
      writeVarintField(UnitReadCount::kUnitFieldNumber, read.unit);
      writeVarintField(UnitReadCount::kRecordsFieldNumber, read.records);
    }
    writeGroups(ReportDataRequest::kPushingFieldNumber, report.pushing);
    writeGroups(ReportDataRequest::kTrainedFieldNumber, report.trained);
    writeVarintField(ReportDataRequest::kGlobalStepFieldNumber,
                     report.globalStep);
    writeGroups(ReportDataRequest::kWithdrawnFieldNumber, report.withdrawn);
    writeGroups(ReportDataRequest::kInDoubtFieldNumber, report.inDoubt);
    if (report.pushingRidesItsPush)
      WireFormatLite::WriteBool(
          ReportDataRequest::kPushingRidesItsPushFieldNumber, true, &output);
  }

private:
  /// The bytes of an int64 field of value `value` (none for 0), tag of a
  /// field number below 16 included.
  static size_t varintField(int64_t value) {
    return value == 0 ? 0 : 1 + WireFormatLite::Int64Size(value);
  }

  void writeVarintField(int field, int64_t value) {
    if (value != 0)
      WireFormatLite::WriteInt64(field, value, &output);
  }

  void startSubmessage(int field, size_t size) {
    WireFormatLite::WriteTag(field, WireFormatLite::WIRETYPE_LENGTH_DELIMITED,
                             &output);
    output.WriteVarint32(static_cast<uint32_t>(size));
  }

  void writeGroups(int field, const std::vector<coord::UnitRecords> &groups) {
    for (const coord::UnitRecords &group : groups) {
      size_t runs = 0;
      for (const RecordRange &range : group.records)
        runs += WireFormatLite::Int64Size(range.first) +
                WireFormatLite::Int64Size(range.second);
      size_t size = varintField(group.epoch) + varintField(group.unit);
      if (runs > 0)
        size +=
            1 + WireFormatLite::UInt32Size(static_cast<uint32_t>(runs)) + runs;
      startSubmessage(field, size);
      writeVarintField(UnitRecordRuns::kEpochFieldNumber, group.epoch);
      writeVarintField(UnitRecordRuns::kUnitFieldNumber, group.unit);
      if (runs == 0)
        continue;
      startSubmessage(UnitRecordRuns::kRunsFieldNumber, runs);
      for (const RecordRange &range : group.records) {
        output.WriteVarint64(static_cast<uint64_t>(range.first));
        output.WriteVarint64(static_cast<uint64_t>(range.second));
      }
    }
  }

  google::protobuf::io::StringOutputStream stream;
  google::protobuf::io::CodedOutputStream output;
};

} // namespace

std::string encodeReport(int worker, const coord::DataReport &report) {
  std::string bytes;
  // The writer's streams trim `bytes` to what was written as they go.
  ReportWriter(bytes).write(worker, report);
  return bytes;
}

coord::DataReport decodeReport(std::string_view serialized, int &worker) {
  worker = 0;
  return ReportReader(serialized).read(worker);
}

void encodeStats(const coord::DataStats &stats, GetDataStatsResponse *message) {
  message->set_defined(stats.defined);
  message->set_finished(stats.finished);
  message->set_current_epoch(stats.currentEpoch);
  message->set_epochs_completed(stats.epochsCompleted);
  message->set_units_per_epoch(stats.unitsPerEpoch);
  message->set_units_done(stats.unitsDone);
  message->set_units_out(stats.unitsOut);
  message->set_units_pending(stats.unitsPending);
  message->set_records_trained(stats.recordsTrained);
  message->set_records_in_doubt(stats.recordsInDoubt);
  message->set_duplicate_records(stats.duplicateRecords);
  message->set_stale_records(stats.staleRecords);
  message->mutable_units_handed_out()->Add(stats.unitsHandedOut.begin(),
                                           stats.unitsHandedOut.end());
  message->mutable_records_trained_per_worker()->Add(
      stats.recordsTrainedPerWorker.begin(),
      stats.recordsTrainedPerWorker.end());
  message->mutable_acquires_refused()->Add(stats.acquiresRefused.begin(),
                                           stats.acquiresRefused.end());
}

coord::DataStats decodeStats(const GetDataStatsResponse &message) {
  coord::DataStats stats;
  stats.defined = message.defined();
  stats.finished = message.finished();
  stats.currentEpoch = message.current_epoch();
  stats.epochsCompleted = message.epochs_completed();
  stats.unitsPerEpoch = message.units_per_epoch();
  stats.unitsDone = message.units_done();
  stats.unitsOut = message.units_out();
  stats.unitsPending = message.units_pending();
  stats.recordsTrained = message.records_trained();
  stats.recordsInDoubt = message.records_in_doubt();
  stats.duplicateRecords = message.duplicate_records();
  stats.staleRecords = message.stale_records();
  stats.unitsHandedOut.assign(message.units_handed_out().begin(),
                              message.units_handed_out().end());
  stats.recordsTrainedPerWorker.assign(
      message.records_trained_per_worker().begin(),
      message.records_trained_per_worker().end());
  stats.acquiresRefused.assign(message.acquires_refused().begin(),
                               message.acquires_refused().end());
  return stats;
}

} // namespace dtf::rpc
