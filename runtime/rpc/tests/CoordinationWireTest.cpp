//===- CoordinationWireTest.cpp - Data reports to and from their bytes ----===//
//
// encodeReport and decodeReport over bytes skip the generated message:
// they must write the bytes it serializes to and take what its parser
// takes.
//
//===----------------------------------------------------------------------===//

#include "runtime/rpc/CoordinationWire.h"

#include "runtime/core/Error.h"

#include <gtest/gtest.h>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <string>

namespace dtf::rpc {
namespace {

coord::DataReport everyPart() {
  coord::DataReport report;
  report.unitsRead = {{0, 3, 7500}, {1, 0, 12}, {0, 0, 0}};
  report.pushing = {{0, 3, {{0, 1}, {5, 9}}}, {1, 0, {{200, 201}}}};
  report.trained = {{2, 1, {{1LL << 40, (1LL << 40) + 3}}}, {0, 0, {}}};
  report.withdrawn = {{0, 4, {{3, 4}}}};
  report.inDoubt = {{0, 5, {{0, 128}}}};
  report.globalStep = 123456789;
  report.pushingRidesItsPush = true;
  return report;
}

void expectSameReport(const coord::DataReport &a, const coord::DataReport &b) {
  ASSERT_EQ(a.unitsRead.size(), b.unitsRead.size());
  for (size_t i = 0; i < a.unitsRead.size(); ++i) {
    EXPECT_EQ(a.unitsRead[i].epoch, b.unitsRead[i].epoch);
    EXPECT_EQ(a.unitsRead[i].unit, b.unitsRead[i].unit);
    EXPECT_EQ(a.unitsRead[i].records, b.unitsRead[i].records);
  }
  EXPECT_EQ(a.pushing, b.pushing);
  EXPECT_EQ(a.trained, b.trained);
  EXPECT_EQ(a.withdrawn, b.withdrawn);
  EXPECT_EQ(a.inDoubt, b.inDoubt);
  EXPECT_EQ(a.globalStep, b.globalStep);
  EXPECT_EQ(a.pushingRidesItsPush, b.pushingRidesItsPush);
}

std::string serializedMessage(int worker, const coord::DataReport &report) {
  ReportDataRequest message;
  message.set_worker(worker);
  encodeReport(report, &message);
  return message.SerializeAsString();
}

TEST(CoordinationWireTest, WritesTheBytesTheMessageSerializesTo) {
  for (int worker : {0, 1, 7, -1}) {
    SCOPED_TRACE(worker);
    EXPECT_EQ(encodeReport(worker, everyPart()),
              serializedMessage(worker, everyPart()));
  }
  coord::DataReport empty;
  EXPECT_EQ(encodeReport(0, empty), "");
  EXPECT_EQ(encodeReport(2, empty), serializedMessage(2, empty));
}

TEST(CoordinationWireTest, ReadsWhatTheMessageReads) {
  std::string bytes = serializedMessage(5, everyPart());
  int worker = -1;
  coord::DataReport decoded = decodeReport(bytes, worker);
  EXPECT_EQ(worker, 5);
  expectSameReport(decoded, everyPart());
  ReportDataRequest message;
  ASSERT_TRUE(message.ParseFromString(bytes));
  expectSameReport(decoded, decodeReport(message));
}

TEST(CoordinationWireTest, ReadsUnpackedRunsAndSkipsUnknownFields) {
  // A writer may send the runs unpacked (proto2's default), and a newer
  // one fields this reader does not know.
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream out(&stream);
    out.WriteTag((1 << 3) | 0); // worker 3
    out.WriteVarint32(3);
    std::string runs;
    {
      google::protobuf::io::StringOutputStream runsStream(&runs);
      google::protobuf::io::CodedOutputStream group(&runsStream);
      group.WriteTag((2 << 3) | 0); // unit 4
      group.WriteVarint64(4);
      for (uint64_t bound : {10, 12, 20, 21}) {
        group.WriteTag((3 << 3) | 0); // one run bound, unpacked
        group.WriteVarint64(bound);
      }
      group.WriteTag((9 << 3) | 2); // unknown, length-delimited
      group.WriteVarint32(3);
      group.WriteRaw("abc", 3);
    }
    out.WriteTag((3 << 3) | 2); // pushing
    out.WriteVarint32(static_cast<uint32_t>(runs.size()));
    out.WriteString(runs);
    out.WriteTag((99 << 3) | 5); // unknown, fixed32
    out.WriteLittleEndian32(7);
  }
  int worker = 0;
  coord::DataReport decoded = decodeReport(bytes, worker);
  EXPECT_EQ(worker, 3);
  ASSERT_EQ(decoded.pushing.size(), 1u);
  EXPECT_EQ(decoded.pushing[0],
            (coord::UnitRecords{0, 4, {{10, 12}, {20, 21}}}));
  ReportDataRequest message;
  ASSERT_TRUE(message.ParseFromString(bytes));
  expectSameReport(decoded, decodeReport(message));
}

TEST(CoordinationWireTest, RefusesBytesThatDoNotParse) {
  std::string whole = serializedMessage(1, everyPart());
  auto refusal = [](const std::string &bytes) -> std::string {
    try {
      int worker;
      decodeReport(bytes, worker);
    } catch (const Error &error) {
      EXPECT_EQ(error.code(), ErrorCode::InvalidArgument);
      return error.what();
    }
    return "accepted";
  };
  // Cut short inside a submessage, a length past the end, a field 0.
  EXPECT_NE(refusal(whole.substr(0, whole.size() / 2)).find("does not parse"),
            std::string::npos);
  EXPECT_NE(refusal(std::string("\x1a\x7f\x08\x01", 4)).find("does not parse"),
            std::string::npos);
  EXPECT_NE(refusal(std::string("\x00\x01", 2)).find("does not parse"),
            std::string::npos);
  // Three bounds are no whole range.
  ReportDataRequest message;
  UnitRecordRuns *runs = message.add_trained();
  runs->add_runs(1);
  runs->add_runs(2);
  runs->add_runs(3);
  EXPECT_NE(refusal(message.SerializeAsString())
                .find("malformed records trained: 3 range bounds"),
            std::string::npos);
}

} // namespace
} // namespace dtf::rpc
