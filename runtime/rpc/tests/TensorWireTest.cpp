//===- TensorWireTest.cpp - Tensors in byte buffers, without copies -------===//
//
// The step's messages are encoded over the tensors' memory and decoded from
// whatever slices gRPC hands over: these tests cut the same message at
// every kind of boundary, misalign it, and truncate it.
//
//===----------------------------------------------------------------------===//

#include "runtime/rpc/TensorWire.h"

#include "parameter_server.pb.h"

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <random>

namespace dtf::rpc {
namespace {

/// The field of PullResponse that carries its tensors.
constexpr int kChunks = PullResponse::kChunksFieldNumber;

/// The tensors of every kind a message carries.
struct Sample {
  Tensor matrix = Tensor::fromVector<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor step = Tensor::scalar<int64_t>(42);
  Tensor mask = Tensor::fromVector<bool>({3}, {true, false, true});
  Tensor empty = Tensor(DType::F32, {0, 4});
  Tensor wide = Tensor::fromVector<double>({2}, {0.25, -8.5});
  Tensor ints = Tensor::fromVector<int32_t>({2}, {-7, 9});

  std::vector<TensorRef> refs() const {
    return {{"matrix", &matrix}, {"step", &step}, {"mask", &mask},
            {"empty", &empty},   {"wide", &wide}, {"ints", &ints}};
  }
};

/// A PullResponse of `tensors` with epoch 7.
grpc::ByteBuffer encode(const std::vector<TensorRef> &tensors,
                        std::shared_ptr<const void> owner = nullptr) {
  WireMessageBuilder message;
  message.addVarint(PullResponse::kEpochFieldNumber, 7);
  message.addTensors(kChunks, tensors, owner);
  return message.finish();
}

std::string bytesOf(const grpc::ByteBuffer &buffer) {
  std::vector<grpc::Slice> slices;
  EXPECT_TRUE(buffer.Dump(&slices).ok());
  std::string bytes;
  for (const grpc::Slice &slice : slices)
    bytes.append(reinterpret_cast<const char *>(slice.begin()), slice.size());
  return bytes;
}

/// `bytes` as gRPC might deliver them: in slices ending at `cuts`.
grpc::ByteBuffer sliced(const std::string &bytes, std::vector<size_t> cuts) {
  cuts.push_back(bytes.size());
  std::vector<grpc::Slice> slices;
  size_t begin = 0;
  for (size_t end : cuts) {
    slices.emplace_back(bytes.data() + begin, end - begin);
    begin = end;
  }
  return grpc::ByteBuffer(slices.data(), slices.size());
}

/// The epoch and tensors of a PullResponse.
std::pair<int64_t, std::vector<NamedTensor>>
decode(const grpc::ByteBuffer &buffer,
       const TensorHeaderCheck &check = {}) {
  int64_t epoch = 0;
  std::vector<NamedTensor> tensors;
  WireReader reader(buffer);
  while (!reader.atEnd()) {
    int field;
    WireReader::WireType type;
    reader.readTag(field, type);
    if (field == kChunks && type == WireReader::LengthDelimited)
      tensors.push_back(
          readWholeTensor(reader, reader.readLength(), tensors.size(), check));
    else if (field == PullResponse::kEpochFieldNumber)
      epoch = static_cast<int64_t>(reader.readVarint());
    else
      reader.skip(type);
  }
  return {epoch, std::move(tensors)};
}

void expectSample(const std::vector<NamedTensor> &decoded) {
  ASSERT_EQ(decoded.size(), 6u);
  EXPECT_EQ(decoded[0].name, "matrix");
  EXPECT_EQ(decoded[0].tensor.shape(), (Shape{2, 3}));
  EXPECT_EQ(decoded[0].tensor.toVector<float>(),
            (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(decoded[1].tensor.shape(), Shape{});
  EXPECT_EQ(decoded[1].tensor.toVector<int64_t>(), std::vector<int64_t>{42});
  EXPECT_EQ(decoded[2].tensor.toVector<bool>(),
            (std::vector<bool>{true, false, true}));
  EXPECT_EQ(decoded[3].name, "empty");
  EXPECT_EQ(decoded[3].tensor.shape(), (Shape{0, 4}));
  EXPECT_EQ(decoded[4].tensor.toVector<double>(),
            (std::vector<double>{0.25, -8.5}));
  EXPECT_EQ(decoded[5].tensor.toVector<int32_t>(),
            (std::vector<int32_t>{-7, 9}));
}

TEST(TensorWireTest, SendsTheTensorsOwnMemory) {
  Tensor big = Tensor::filled(DType::F32, {256}, 3.0);
  grpc::ByteBuffer buffer = encode({{"big", &big}});
  std::vector<grpc::Slice> slices;
  ASSERT_TRUE(buffer.Dump(&slices).ok());
  bool pointsAtTensor = false;
  for (const grpc::Slice &slice : slices)
    pointsAtTensor |= slice.begin() == big.rawData() &&
                      slice.size() == big.byteSize();
  EXPECT_TRUE(pointsAtTensor) << "the data was copied";
}

TEST(TensorWireTest, ReleasesTheOwnerWhenGrpcIsDone) {
  Tensor big = Tensor::filled(DType::F32, {256}, 3.0);
  bool released = false;
  {
    std::shared_ptr<const void> owner(nullptr,
                                      [&](const void *) { released = true; });
    grpc::ByteBuffer buffer = encode({{"big", &big}}, owner);
    owner.reset();
    EXPECT_FALSE(released) << "released while a slice points at the data";
    grpc::ByteBuffer copy = buffer; // gRPC's own reference, say
    buffer.Clear();
    EXPECT_FALSE(released);
  }
  EXPECT_TRUE(released);
}

TEST(TensorWireTest, IsOrdinaryProtobufBothWays) {
  Sample sample;
  PullResponse parsed;
  ASSERT_TRUE(parsed.ParseFromString(bytesOf(encode(sample.refs()))));
  EXPECT_EQ(parsed.epoch(), 7);
  ASSERT_EQ(parsed.chunks_size(), 6);
  EXPECT_EQ(parsed.chunks(0).name(), "matrix");
  EXPECT_EQ(parsed.chunks(0).shape().dims_size(), 2);
  EXPECT_EQ(parsed.chunks(0).data().size(), 24u);
  EXPECT_EQ(parsed.chunks(3).data().size(), 0u);

  // What protobuf writes, the decoder reads.
  std::string serialized = parsed.SerializeAsString();
  auto [epoch, decoded] = decode(sliced(serialized, {}));
  EXPECT_EQ(epoch, 7);
  expectSample(decoded);
}

TEST(TensorWireTest, DecodesTensorsSplitAcrossSliceBoundaries) {
  Sample sample;
  std::string bytes = bytesOf(encode(sample.refs()));
  // Every cut position, one at a time.
  for (size_t cut = 1; cut < bytes.size(); ++cut) {
    auto [epoch, decoded] = decode(sliced(bytes, {cut}));
    EXPECT_EQ(epoch, 7);
    expectSample(decoded);
    if (HasFailure())
      FAIL() << "cut at byte " << cut;
  }
  // One byte per slice, and random cuts.
  std::vector<size_t> everyByte;
  for (size_t i = 1; i < bytes.size(); ++i)
    everyByte.push_back(i);
  expectSample(decode(sliced(bytes, everyByte)).second);
  std::mt19937 random(7);
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<size_t> cuts;
    for (size_t i = 1; i < bytes.size(); ++i)
      if (random() % 5 == 0)
        cuts.push_back(i);
    expectSample(decode(sliced(bytes, cuts)).second);
  }
}

TEST(TensorWireTest, ReadsInPlaceWhenAlignedAndCopiesWhenNot) {
  Tensor values = Tensor::fromVector<float>({64}, std::vector<float>(64, 1.5f));
  std::string bytes = bytesOf(encode({{"v", &values}}));
  size_t header = bytes.size() - values.byteSize();
  // Place the message so that its data starts at an aligned address, then
  // one byte off.
  for (size_t shift : {size_t(0), size_t(1)}) {
    std::vector<char> memory(bytes.size() + 64);
    uintptr_t base = reinterpret_cast<uintptr_t>(memory.data());
    size_t start = (64 - (base + header) % 64) % 64 + shift;
    std::memcpy(memory.data() + start, bytes.data(), bytes.size());
    // A slice over that memory, as the transport's receive buffer.
    grpc::Slice slice(grpc_slice_from_static_buffer(memory.data() + start,
                                                    bytes.size()),
                      grpc::Slice::STEAL_REF);
    grpc::ByteBuffer buffer(&slice, 1);
    std::vector<NamedTensor> decoded = decode(buffer).second;
    ASSERT_EQ(decoded.size(), 1u);
    EXPECT_EQ(decoded[0].tensor.toVector<float>(),
              std::vector<float>(64, 1.5f));
    bool inPlace = decoded[0].tensor.rawData() == memory.data() + start + header;
    EXPECT_EQ(inPlace, shift == 0) << "shift " << shift;
  }
}

TEST(TensorWireTest, EmptyMessageAndEmptyTensor) {
  // No tensors at all: only the epoch.
  auto [epoch, none] = decode(encode({}));
  EXPECT_EQ(epoch, 7);
  EXPECT_TRUE(none.empty());
  Tensor empty(DType::I64, {3, 0});
  std::vector<NamedTensor> decoded = decode(encode({{"e", &empty}})).second;
  ASSERT_EQ(decoded.size(), 1u);
  EXPECT_EQ(decoded[0].tensor.shape(), (Shape{3, 0}));
  EXPECT_EQ(decoded[0].tensor.dtype(), DType::I64);
}

TEST(TensorWireTest, RejectsAMessageShorterThanItsHeaderSays) {
  Sample sample;
  std::vector<TensorRef> refs = sample.refs();
  std::string bytes = bytesOf(encode(refs));
  // Where a field ends, a shorter message is well-formed with fewer
  // tensors, which the receiver's count check refuses (PsClient, the PS
  // task's push). Everywhere else, it is an error.
  std::map<size_t, size_t> tensorsEndingAt;
  for (size_t count = 0; count <= refs.size(); ++count)
    tensorsEndingAt[bytesOf(encode({refs.begin(), refs.begin() + count}))
                        .size()] = count;
  for (size_t length = 1; length < bytes.size(); ++length) {
    grpc::ByteBuffer truncated = sliced(bytes.substr(0, length), {length / 2});
    auto boundary = tensorsEndingAt.find(length);
    if (boundary != tensorsEndingAt.end()) {
      EXPECT_EQ(decode(truncated).second.size(), boundary->second);
      continue;
    }
    EXPECT_THROW(decode(truncated), std::invalid_argument)
        << "truncated to " << length << " of " << bytes.size() << " bytes";
  }
}

TEST(TensorWireTest, RejectsLiesAboutSizeBeforeAllocating) {
  // A chunk that claims 2^40 x 2^20 floats but carries 8 bytes.
  TensorChunk chunk;
  chunk.set_name("w");
  chunk.set_dtype(DATA_TYPE_F32);
  chunk.mutable_shape()->add_dims(int64_t(1) << 40);
  chunk.mutable_shape()->add_dims(int64_t(1) << 20);
  chunk.set_data(std::string(8, '\0'));
  PullResponse message;
  *message.add_chunks() = chunk;
  try {
    decode(sliced(message.SerializeAsString(), {}));
    FAIL() << "accepted";
  } catch (const std::invalid_argument &error) {
    EXPECT_NE(std::string(error.what()).find("exceeds the limit"),
              std::string::npos)
        << error.what();
  }

  // The right size for its shape, or else an error naming both.
  chunk.mutable_shape()->Clear();
  chunk.mutable_shape()->add_dims(3);
  *message.mutable_chunks(0) = chunk;
  try {
    decode(sliced(message.SerializeAsString(), {}));
    FAIL() << "accepted";
  } catch (const std::invalid_argument &error) {
    EXPECT_NE(std::string(error.what()).find("carries 8 bytes instead of 12"),
              std::string::npos)
        << error.what();
  }

  // A chunk of a tensor that is not the whole of it.
  chunk.set_offset(4);
  *message.mutable_chunks(0) = chunk;
  EXPECT_THROW(decode(sliced(message.SerializeAsString(), {})),
               std::invalid_argument);
}

TEST(TensorWireTest, TheHeaderCheckRunsBeforeTheData) {
  Sample sample;
  std::string bytes = bytesOf(encode(sample.refs()));
  size_t checked = 0;
  EXPECT_THROW(decode(sliced(bytes, {}),
                      [&](size_t index, const std::string &name, DType,
                          const Shape &) {
                        ++checked;
                        if (index == 2)
                          throw std::invalid_argument("no " + name);
                      }),
               std::invalid_argument);
  EXPECT_EQ(checked, 3u);
}

} // namespace
} // namespace dtf::rpc
