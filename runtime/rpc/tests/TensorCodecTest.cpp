//===- TensorCodecTest.cpp - Chunking of tensors --------------------------===//

#include "runtime/rpc/TensorCodec.h"

#include <gtest/gtest.h>

namespace dtf::rpc {
namespace {

std::vector<std::vector<TensorChunk>> encode(const std::vector<TensorRef> &tensors,
                                             size_t chunkBytes) {
  std::vector<std::vector<TensorChunk>> messages;
  EXPECT_TRUE(encodeTensors(tensors, chunkBytes,
                            [&](std::vector<TensorChunk> &chunks) {
                              messages.push_back(chunks);
                              return true;
                            }));
  return messages;
}

std::vector<NamedTensor>
decode(const std::vector<std::vector<TensorChunk>> &messages) {
  TensorAssembler assembler;
  for (const auto &message : messages)
    for (const TensorChunk &chunk : message)
      assembler.add(chunk);
  return assembler.finish();
}

TEST(TensorCodecTest, RoundTripsEveryDTypeThroughSmallChunks) {
  Tensor matrix = Tensor::fromVector<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor step = Tensor::scalar<int64_t>(42);
  Tensor mask = Tensor::fromVector<bool>({3}, {true, false, true});
  Tensor wide = Tensor::fromVector<double>({2}, {0.25, -8.5});
  Tensor ints = Tensor::fromVector<int32_t>({2}, {-7, 9});
  Tensor empty(DType::F32, {0, 4});
  std::vector<TensorRef> tensors = {{"matrix", &matrix}, {"step", &step},
                                    {"mask", &mask},     {"empty", &empty},
                                    {"wide", &wide},     {"ints", &ints}};

  auto messages = encode(tensors, /*chunkBytes=*/7);
  for (const auto &message : messages) {
    size_t data = 0;
    for (const TensorChunk &chunk : message)
      data += chunk.data().size();
    EXPECT_LE(data, 7u);
  }
  std::vector<NamedTensor> decoded = decode(messages);
  ASSERT_EQ(decoded.size(), tensors.size());
  EXPECT_EQ(decoded[0].name, "matrix");
  EXPECT_EQ(decoded[0].tensor.toVector<float>(),
            (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(decoded[0].tensor.shape(), (Shape{2, 3}));
  EXPECT_EQ(decoded[1].tensor.shape(), Shape{});
  EXPECT_EQ(decoded[1].tensor.toVector<int64_t>(), std::vector<int64_t>{42});
  EXPECT_EQ(decoded[2].tensor.toVector<bool>(),
            (std::vector<bool>{true, false, true}));
  EXPECT_EQ(decoded[3].tensor.shape(), (Shape{0, 4}));
  EXPECT_EQ(decoded[4].tensor.toVector<double>(),
            (std::vector<double>{0.25, -8.5}));
  EXPECT_EQ(decoded[5].tensor.toVector<int32_t>(),
            (std::vector<int32_t>{-7, 9}));
}

TEST(TensorCodecTest, PacksSmallTensorsIntoOneMessage) {
  Tensor a = Tensor::filled(DType::F32, {10}, 1.0);
  Tensor b = Tensor::filled(DType::F32, {10}, 2.0);
  auto messages = encode({{"a", &a}, {"b", &b}}, /*chunkBytes=*/1 << 20);
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_EQ(messages[0].size(), 2u);
}

TEST(TensorCodecTest, SplitsALargeTensorAcrossMessages) {
  Tensor big = Tensor::filled(DType::F32, {1000}, 3.0); // 4000 bytes
  auto messages = encode({{"big", &big}}, /*chunkBytes=*/1024);
  EXPECT_EQ(messages.size(), 4u);
  EXPECT_EQ(decode(messages)[0].tensor.toVector<float>(),
            std::vector<float>(1000, 3.0f));
}

TEST(TensorCodecTest, EncodesNothingForNoTensors) {
  EXPECT_TRUE(encode({}, 16).empty());
}

TensorChunk chunk(const std::string &name, Shape shape, uint64_t offset,
                  std::string data, DataType dtype = DATA_TYPE_F32) {
  TensorChunk result;
  result.set_name(name);
  result.set_dtype(dtype);
  for (int64_t dim : shape)
    result.mutable_shape()->add_dims(dim);
  result.set_offset(offset);
  result.set_data(std::move(data));
  return result;
}

std::string rejection(const std::vector<TensorChunk> &chunks,
                      TensorAssembler assembler = TensorAssembler()) {
  try {
    for (const TensorChunk &c : chunks)
      assembler.add(c);
    assembler.finish();
  } catch (const std::invalid_argument &error) {
    return error.what();
  }
  return "(accepted)";
}

TEST(TensorCodecTest, RejectsMalformedChunkStreams) {
  std::string four(4, '\0');
  // Does not start at byte 0.
  EXPECT_NE(rejection({chunk("x", {2}, 4, four)}).find("instead of 0"),
            std::string::npos);
  // A gap between chunks.
  EXPECT_NE(rejection({chunk("x", {3}, 0, four), chunk("x", {3}, 8, four)})
                .find("starts at byte 8 but 4 bytes have arrived"),
            std::string::npos);
  // More data than the shape holds.
  EXPECT_NE(rejection({chunk("x", {1}, 0, std::string(8, '\0'))})
                .find("carry more than its 4 bytes"),
            std::string::npos);
  // The stream ends inside a tensor.
  EXPECT_NE(rejection({chunk("x", {2}, 0, four)}).find("ended inside tensor 'x'"),
            std::string::npos);
  // Another tensor begins before the first is complete.
  EXPECT_NE(rejection({chunk("x", {2}, 0, four), chunk("y", {1}, 0, four)})
                .find("'x' is incomplete"),
            std::string::npos);
  // A later chunk changes the shape.
  EXPECT_NE(rejection({chunk("x", {2}, 0, four), chunk("x", {1, 2}, 4, four)})
                .find("says f32[1,2]"),
            std::string::npos);
  // Negative dimensions, unknown dtypes.
  EXPECT_NE(rejection({chunk("x", {-1}, 0, "")}).find("negative dimension"),
            std::string::npos);
  EXPECT_NE(rejection({chunk("x", {1}, 0, four, DATA_TYPE_UNSPECIFIED)})
                .find("unknown or unspecified data type"),
            std::string::npos);
}

TEST(TensorCodecTest, RejectsOversizedShapesBeforeAllocating) {
  // 2^62 elements would overflow or exhaust memory if trusted.
  EXPECT_NE(rejection({chunk("x", {int64_t(1) << 31, int64_t(1) << 31}, 0,
                             "")})
                .find("exceeds the limit"),
            std::string::npos);
  EXPECT_NE(rejection({chunk("x", {100}, 0, "")},
                      TensorAssembler({}, /*maxTensorBytes=*/399))
                .find("exceeds the limit of 399 bytes"),
            std::string::npos);
}

TEST(TensorCodecTest, HeaderCheckRejectsBeforeAllocation) {
  TensorAssembler assembler([](size_t index, const std::string &name, DType,
                               const Shape &) {
    if (index == 1)
      throw std::invalid_argument("no second tensor, got '" + name + "'");
  });
  assembler.add(chunk("a", {1}, 0, std::string(4, '\0')));
  EXPECT_THROW(assembler.add(chunk("b", {1}, 0, std::string(4, '\0'))),
               std::invalid_argument);
}

TEST(TensorCodecTest, NormalizesBoolBytes) {
  TensorAssembler assembler;
  assembler.add(chunk("m", {2}, 0, std::string("\x00\x07", 2), DATA_TYPE_BOOL));
  std::vector<NamedTensor> tensors = assembler.finish();
  const auto *bytes =
      static_cast<const unsigned char *>(tensors[0].tensor.rawData());
  EXPECT_EQ(bytes[0], 0);
  EXPECT_EQ(bytes[1], 1);
}

} // namespace
} // namespace dtf::rpc
