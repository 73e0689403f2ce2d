//===- TensorWire.cpp - Tensors in gRPC byte buffers, without copies ------===//

#include "runtime/rpc/TensorWire.h"

#include <google/protobuf/message_lite.h>
#include <grpc/slice.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "the tensor wire format assumes a little-endian host");

namespace dtf::rpc {

namespace {

// Field numbers of TensorChunk and TensorShape (tensor.proto).
enum ChunkField { ChunkName = 1, ChunkDType = 2, ChunkShape = 3,
                  ChunkOffset = 4, ChunkData = 5 };
constexpr int kShapeDims = 1;

void appendVarint(std::string &out, uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>(value | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

void appendTag(std::string &out, int field, WireReader::WireType type) {
  appendVarint(out, (static_cast<uint64_t>(field) << 3) | type);
}

/// The slice's user data: a reference to the owner of the memory it points
/// at, dropped when gRPC unreferences the slice for the last time.
void releaseOwner(void *reference) {
  delete static_cast<std::shared_ptr<const void> *>(reference);
}

} // namespace

void WireMessageBuilder::addVarint(int field, uint64_t value) {
  size_t before = pending.size();
  appendTag(pending, field, WireReader::Varint);
  appendVarint(pending, value);
  size += pending.size() - before;
}

void WireMessageBuilder::addString(int field, std::string_view value) {
  size_t before = pending.size();
  appendTag(pending, field, WireReader::LengthDelimited);
  appendVarint(pending, value.size());
  pending.append(value);
  size += pending.size() - before;
}

void WireMessageBuilder::addMessage(int field,
                                    const google::protobuf::MessageLite &message) {
  addString(field, message.SerializeAsString());
}

void WireMessageBuilder::addTensors(int field,
                                    const std::vector<TensorRef> &tensors,
                                    const std::shared_ptr<const void> &owner) {
  for (const TensorRef &ref : tensors) {
    const Tensor &tensor = *ref.tensor;
    // The chunk's fields before its data, in field-number order; offset is
    // 0 and, as proto3 writes it, left out.
    std::string header;
    appendTag(header, ChunkName, WireReader::LengthDelimited);
    appendVarint(header, ref.name.size());
    header.append(ref.name);
    appendTag(header, ChunkDType, WireReader::Varint);
    appendVarint(header, toProtoDType(tensor.dtype()));
    if (!tensor.shape().empty()) {
      std::string dims;
      for (int64_t dim : tensor.shape()) {
        appendTag(dims, kShapeDims, WireReader::Varint);
        appendVarint(dims, static_cast<uint64_t>(dim));
      }
      appendTag(header, ChunkShape, WireReader::LengthDelimited);
      appendVarint(header, dims.size());
      header.append(dims);
    }
    size_t data = tensor.byteSize();
    if (data != 0) {
      appendTag(header, ChunkData, WireReader::LengthDelimited);
      appendVarint(header, data);
    }

    size_t before = pending.size();
    appendTag(pending, field, WireReader::LengthDelimited);
    appendVarint(pending, header.size() + data);
    pending.append(header);
    size += pending.size() - before;
    if (data == 0)
      continue;
    flushPending();
    // gRPC only reads through the slice; the const_cast is its C API's.
    void *bytes = const_cast<void *>(tensor.rawData());
    grpc_slice slice = grpc_slice_new_with_user_data(
        bytes, data, releaseOwner, new std::shared_ptr<const void>(owner));
    slices.emplace_back(slice, grpc::Slice::STEAL_REF);
    size += data;
  }
}

void WireMessageBuilder::flushPending() {
  if (pending.empty())
    return;
  slices.emplace_back(pending);
  pending.clear();
}

grpc::ByteBuffer WireMessageBuilder::finish() {
  flushPending();
  grpc::ByteBuffer buffer(slices.data(), slices.size());
  slices.clear();
  size = 0;
  return buffer;
}

WireReader::WireReader(const grpc::ByteBuffer &buffer) {
  // Dump takes references to the slices; it copies no bytes.
  if (!buffer.Dump(&slices).ok())
    throw std::invalid_argument("the message cannot be read");
  for (const grpc::Slice &slice : slices)
    limit += slice.size();
}

void WireReader::require(uint64_t size) const {
  if (size > limit - position)
    throw std::invalid_argument(
        "the message ends " + std::to_string(size - (limit - position)) +
        " bytes before the end of a field it announces");
}

void WireReader::readBytes(void *out, size_t size) {
  require(size);
  auto *target = static_cast<unsigned char *>(out);
  while (size > 0) {
    const grpc::Slice &slice = slices[sliceIndex];
    uint64_t within = position - sliceStart;
    size_t piece = std::min<uint64_t>(size, slice.size() - within);
    std::memcpy(target, slice.begin() + within, piece);
    target += piece;
    size -= piece;
    position += piece;
    if (position - sliceStart == slice.size() &&
        sliceIndex + 1 < slices.size()) {
      sliceStart += slice.size();
      ++sliceIndex;
    }
  }
}

bool WireReader::readWithinOneSlice(size_t size, grpc::Slice &out) {
  require(size);
  // Past the end of a slice that has been read up to its end.
  while (sliceIndex < slices.size() &&
         position - sliceStart == slices[sliceIndex].size() &&
         sliceIndex + 1 < slices.size()) {
    sliceStart += slices[sliceIndex].size();
    ++sliceIndex;
  }
  const grpc::Slice &slice = slices[sliceIndex];
  uint64_t within = position - sliceStart;
  if (within + size > slice.size())
    return false;
  out = slice.sub(within, within + size);
  position += size;
  return true;
}

uint64_t WireReader::readVarint() {
  uint64_t value = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    unsigned char byte;
    readBytes(&byte, 1);
    value |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if (!(byte & 0x80))
      return value;
  }
  throw std::invalid_argument("a varint is longer than 10 bytes");
}

void WireReader::readTag(int &field, WireType &type) {
  uint64_t key = readVarint();
  field = static_cast<int>(key >> 3);
  uint64_t wire = key & 7;
  if (key >> 3 == 0 || key >> 3 > (uint64_t(1) << 29) ||
      (wire != Varint && wire != Fixed64 && wire != LengthDelimited &&
       wire != Fixed32))
    throw std::invalid_argument("a field key (" + std::to_string(key) +
                                ") is invalid");
  type = static_cast<WireType>(wire);
}

uint64_t WireReader::readLength() {
  uint64_t length = readVarint();
  require(length);
  return length;
}

std::string WireReader::readString() {
  std::string value(readLength(), '\0');
  readBytes(value.data(), value.size());
  return value;
}

void WireReader::skip(WireType type) {
  switch (type) {
  case Varint:
    readVarint();
    return;
  case Fixed64:
  case Fixed32:
  case LengthDelimited: {
    uint64_t size = type == Fixed64 ? 8 : type == Fixed32 ? 4 : readLength();
    require(size);
    // Walk the slices without copying.
    while (size > 0) {
      uint64_t left = slices[sliceIndex].size() - (position - sliceStart);
      uint64_t piece = std::min(size, left);
      position += piece;
      size -= piece;
      if (piece == left && sliceIndex + 1 < slices.size()) {
        sliceStart += slices[sliceIndex].size();
        ++sliceIndex;
      }
    }
    return;
  }
  }
}

void WireReader::readSubmessage(uint64_t length,
                                const std::function<void()> &parse) {
  require(length);
  uint64_t outer = limit;
  limit = position + length;
  parse();
  if (!atEnd())
    throw std::invalid_argument("a submessage has " +
                                std::to_string(remaining()) +
                                " bytes its fields do not account for");
  limit = outer;
}

NamedTensor readWholeTensor(WireReader &reader, uint64_t length, size_t index,
                            const TensorHeaderCheck &check,
                            uint64_t maxTensorBytes) {
  NamedTensor result;
  int dtypeValue = 0;
  Shape shape;
  bool haveData = false;
  auto where = [&] {
    return "tensor " + std::to_string(index) +
           (result.name.empty() ? std::string() : " ('" + result.name + "')");
  };
  reader.readSubmessage(length, [&] {
    while (!reader.atEnd()) {
      int field;
      WireReader::WireType type;
      reader.readTag(field, type);
      if (haveData)
        throw std::invalid_argument(
            where() + " has a field after its data; a chunk's fields must "
                      "come in field-number order");
      switch (field) {
      case ChunkName:
        if (type != WireReader::LengthDelimited)
          break;
        result.name = reader.readString();
        continue;
      case ChunkDType:
        if (type != WireReader::Varint)
          break;
        dtypeValue = static_cast<int>(reader.readVarint());
        continue;
      case ChunkShape:
        if (type != WireReader::LengthDelimited)
          break;
        reader.readSubmessage(reader.readLength(), [&] {
          while (!reader.atEnd()) {
            int dimField;
            WireReader::WireType dimType;
            reader.readTag(dimField, dimType);
            if (dimField == kShapeDims && dimType == WireReader::Varint) {
              shape.push_back(static_cast<int64_t>(reader.readVarint()));
            } else if (dimField == kShapeDims &&
                       dimType == WireReader::LengthDelimited) {
              // Packed dims, as some serializers write repeated int64.
              reader.readSubmessage(reader.readLength(), [&] {
                while (!reader.atEnd())
                  shape.push_back(static_cast<int64_t>(reader.readVarint()));
              });
            } else {
              reader.skip(dimType);
            }
          }
        });
        continue;
      case ChunkOffset:
        if (type != WireReader::Varint)
          break;
        if (uint64_t offset = reader.readVarint(); offset != 0)
          throw std::invalid_argument(
              where() + " starts at byte " + std::to_string(offset) +
              "; a step's messages carry whole tensors");
        continue;
      case ChunkData: {
        if (type != WireReader::LengthDelimited)
          break;
        DType dtype = fromProtoDType(dtypeValue);
        uint64_t expected =
            checkedTensorBytes(result.name, dtype, shape, maxTensorBytes);
        uint64_t dataBytes = reader.readLength();
        if (dataBytes != expected)
          throw std::invalid_argument(
              where() + " (" + dtypeName(dtype) + shapeToString(shape) +
              ") carries " + std::to_string(dataBytes) + " bytes instead of " +
              std::to_string(expected));
        if (check)
          check(index, result.name, dtype, shape);
        grpc::Slice slice;
        if (dtype != DType::Bool && dataBytes != 0 &&
            reader.readWithinOneSlice(dataBytes, slice)) {
          // A slice may hold small data inline, in the slice object itself:
          // the address that counts is the held copy's.
          auto held = std::make_shared<grpc::Slice>(std::move(slice));
          void *data = const_cast<uint8_t *>(held->begin());
          if (reinterpret_cast<uintptr_t>(data) % dtypeSize(dtype) == 0) {
            // The tensor reads from the received slice itself.
            result.tensor = Tensor::view(dtype, shape, data, std::move(held));
          } else {
            result.tensor = Tensor::uninitialized(dtype, shape);
            std::memcpy(result.tensor.rawData(), data, dataBytes);
          }
        } else {
          result.tensor = Tensor::uninitialized(dtype, shape);
          reader.readBytes(result.tensor.rawData(), dataBytes);
        }
        haveData = true;
        continue;
      }
      default:
        reader.skip(type);
        continue;
      }
      throw std::invalid_argument(where() + " has field " +
                                  std::to_string(field) +
                                  " with the wrong wire type");
    }
  });
  if (!haveData) {
    // An empty tensor carries no data field (proto3 leaves out empty bytes).
    DType dtype = fromProtoDType(dtypeValue);
    uint64_t expected =
        checkedTensorBytes(result.name, dtype, shape, maxTensorBytes);
    if (expected != 0)
      throw std::invalid_argument(where() + " (" + dtypeName(dtype) +
                                  shapeToString(shape) + ") has no data");
    if (check)
      check(index, result.name, dtype, shape);
    result.tensor = Tensor::uninitialized(dtype, shape);
  } else {
    normalizeReceivedBools(result.tensor);
  }
  return result;
}

} // namespace dtf::rpc
