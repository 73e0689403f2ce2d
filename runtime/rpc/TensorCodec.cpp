//===- TensorCodec.cpp - Tensors to and from TensorChunk messages ---------===//

#include "runtime/rpc/TensorCodec.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <stdexcept>

// Tensors travel as raw little-endian bytes, copied straight from and into
// the host buffers.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "the tensor wire format assumes a little-endian host");

namespace dtf::rpc {

DataType toProtoDType(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return DATA_TYPE_F32;
  case DType::F64:
    return DATA_TYPE_F64;
  case DType::I32:
    return DATA_TYPE_I32;
  case DType::I64:
    return DATA_TYPE_I64;
  case DType::Bool:
    return DATA_TYPE_BOOL;
  }
  throw std::invalid_argument("unknown dtype");
}

DType fromProtoDType(int dtype) {
  switch (dtype) {
  case DATA_TYPE_F32:
    return DType::F32;
  case DATA_TYPE_F64:
    return DType::F64;
  case DATA_TYPE_I32:
    return DType::I32;
  case DATA_TYPE_I64:
    return DType::I64;
  case DATA_TYPE_BOOL:
    return DType::Bool;
  default:
    throw std::invalid_argument("unknown or unspecified data type " +
                                std::to_string(dtype));
  }
}

void checkChunkSize(size_t chunkBytes, int maxMessageBytes) {
  // The headers, and the protobuf framing of every field, on top of the
  // data.
  size_t needed = chunkBytes + 2 * kMaxHeaderBytesPerMessage;
  if (chunkBytes == 0 || maxMessageBytes < 0 ||
      needed > static_cast<size_t>(maxMessageBytes))
    throw std::invalid_argument(
        "chunks of " + std::to_string(chunkBytes) +
        " bytes do not fit in messages of at most " +
        std::to_string(maxMessageBytes) + " bytes (need " +
        std::to_string(needed) + ")");
}

namespace {
size_t headerBytes(const TensorRef &tensor) {
  return tensor.name.size() + 10 * tensor.tensor->shape().size() + 32;
}
} // namespace

bool encodeTensors(const std::vector<TensorRef> &tensors, size_t chunkBytes,
                   const ChunkMessageSink &sendMessage) {
  if (chunkBytes == 0)
    throw std::invalid_argument("the chunk size must be positive");
  std::vector<TensorChunk> message;
  size_t messageData = 0, messageHeaders = 0;
  auto flush = [&] {
    bool sent = sendMessage(message);
    message.clear();
    messageData = messageHeaders = 0;
    return sent;
  };

  for (const TensorRef &ref : tensors) {
    const Tensor &tensor = *ref.tensor;
    const char *bytes = static_cast<const char *>(tensor.rawData());
    size_t total = tensor.byteSize(), offset = 0;
    // A do-loop: a tensor of zero bytes still sends one chunk.
    do {
      if (messageData >= chunkBytes ||
          messageHeaders >= kMaxHeaderBytesPerMessage)
        if (!flush())
          return false;
      size_t piece = std::min(total - offset, chunkBytes - messageData);
      TensorChunk &chunk = message.emplace_back();
      chunk.set_name(ref.name);
      chunk.set_dtype(toProtoDType(tensor.dtype()));
      for (int64_t dim : tensor.shape())
        chunk.mutable_shape()->add_dims(dim);
      chunk.set_offset(offset);
      chunk.set_data(bytes + offset, piece);
      offset += piece;
      messageData += piece;
      messageHeaders += headerBytes(ref);
    } while (offset < total);
  }
  if (!message.empty())
    return flush();
  return true;
}

TensorAssembler::TensorAssembler(HeaderCheck check, uint64_t maxTensorBytes)
    : check(std::move(check)), maxTensorBytes(maxTensorBytes) {}

void normalizeReceivedBools(Tensor &tensor) {
  if (tensor.dtype() != DType::Bool)
    return;
  auto *bytes = static_cast<unsigned char *>(tensor.rawData());
  for (size_t i = 0, n = tensor.byteSize(); i < n; ++i)
    bytes[i] = bytes[i] != 0;
}

uint64_t checkedTensorBytes(const std::string &name, DType dtype,
                                const Shape &shape, uint64_t limit) {
  uint64_t size = dtypeSize(dtype);
  for (int64_t dim : shape) {
    if (dim < 0)
      throw std::invalid_argument("tensor '" + name + "' has the shape " +
                                  shapeToString(shape) +
                                  " with a negative dimension");
    if (dim != 0 && size > limit / static_cast<uint64_t>(dim))
      size = limit + 1; // Saturate: the check below rejects it.
    else
      size *= static_cast<uint64_t>(dim);
  }
  if (size > limit)
    throw std::invalid_argument("tensor '" + name + "' of shape " +
                                shapeToString(shape) + " exceeds the limit of " +
                                std::to_string(limit) + " bytes");
  return size;
}

void TensorAssembler::add(const TensorChunk &chunk) {
  DType dtype = fromProtoDType(chunk.dtype());
  Shape shape(chunk.shape().dims().begin(), chunk.shape().dims().end());

  if (!receiving) {
    // The first chunk of a new tensor: check it, then allocate.
    if (chunk.offset() != 0)
      throw std::invalid_argument(
          "the first chunk of tensor '" + chunk.name() + "' starts at byte " +
          std::to_string(chunk.offset()) + " instead of 0");
    checkedTensorBytes(chunk.name(), dtype, shape, maxTensorBytes);
    if (check)
      check(complete.size(), chunk.name(), dtype, shape);
    current.name = chunk.name();
    // Handed out only once every byte has arrived.
    current.tensor = Tensor::uninitialized(dtype, shape);
    receiving = true;
    received = 0;
  } else {
    if (chunk.name() != current.name)
      throw std::invalid_argument(
          "tensor '" + current.name + "' is incomplete (" +
          std::to_string(received) + " of " +
          std::to_string(current.tensor.byteSize()) + " bytes) when '" +
          chunk.name() + "' begins");
    if (dtype != current.tensor.dtype() || shape != current.tensor.shape())
      throw std::invalid_argument(
          "a chunk of tensor '" + current.name + "' says " + dtypeName(dtype) +
          shapeToString(shape) + " but its first chunk said " +
          current.tensor.typeString());
    if (chunk.offset() != received)
      throw std::invalid_argument(
          "a chunk of tensor '" + current.name + "' starts at byte " +
          std::to_string(chunk.offset()) + " but " + std::to_string(received) +
          " bytes have arrived");
  }

  uint64_t total = current.tensor.byteSize();
  if (chunk.data().size() > total - received)
    throw std::invalid_argument(
        "the chunks of tensor '" + current.name + "' (" +
        current.tensor.typeString() + ") carry more than its " +
        std::to_string(total) + " bytes");
  std::memcpy(static_cast<char *>(current.tensor.rawData()) + received,
              chunk.data().data(), chunk.data().size());
  received += chunk.data().size();

  if (received == total) {
    normalizeReceivedBools(current.tensor);
    complete.push_back(std::move(current));
    current = NamedTensor();
    receiving = false;
  }
}

std::vector<NamedTensor> TensorAssembler::finish() {
  if (receiving)
    throw std::invalid_argument(
        "the stream ended inside tensor '" + current.name + "' (" +
        std::to_string(received) + " of " +
        std::to_string(current.tensor.byteSize()) + " bytes arrived)");
  return std::move(complete);
}

} // namespace dtf::rpc
