//===- TensorCodec.h - Tensors to and from TensorChunk messages -*- C++ -*-===//
//
// Encoding cuts tensors into TensorChunk messages carrying at most a chunk
// size of data per stream message, packing small tensors together; decoding
// reassembles them while checking every chunk, so that a malformed or
// hostile stream is an error with a message, never a crash or an
// allocation of whatever size a peer claims.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/core/Tensor.h"
#include "tensor.pb.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace dtf::rpc {

DataType toProtoDType(DType dtype);
/// Throws std::invalid_argument for DATA_TYPE_UNSPECIFIED or an unknown
/// value.
DType fromProtoDType(int dtype);

/// The byte size of a tensor of `dtype` and `shape` as a peer described
/// it; throws std::invalid_argument naming the tensor if the shape has a
/// negative dimension or the size exceeds `limit`.
uint64_t checkedTensorBytes(const std::string &name, DType dtype,
                            const Shape &shape, uint64_t limit);

/// Makes every byte of a Bool tensor received from a peer 0 or 1: any
/// other byte would be an invalid C++ bool. Other dtypes are left alone.
void normalizeReceivedBools(Tensor &tensor);

/// Once a message holds this many bytes of chunk headers (names, shapes),
/// encodeTensors sends it even if its data is below the chunk size: many
/// tiny tensors must not add up to an oversized message.
inline constexpr size_t kMaxHeaderBytesPerMessage = 64 << 10;

/// Throws std::invalid_argument unless messages of `chunkBytes` of data
/// plus their headers fit in `maxMessageBytes`.
void checkChunkSize(size_t chunkBytes, int maxMessageBytes);

/// Receives the chunks of one stream message; returns false to stop (the
/// stream broke).
using ChunkMessageSink = std::function<bool(std::vector<TensorChunk> &)>;

/// Cuts `tensors` into chunks and hands them to `sendMessage` a message at a
/// time, each message holding at most `chunkBytes` bytes of tensor data.
/// Sends nothing for an empty list. Returns false as soon as `sendMessage`
/// does.
bool encodeTensors(const std::vector<TensorRef> &tensors, size_t chunkBytes,
                   const ChunkMessageSink &sendMessage);

/// encodeTensors onto a stream of `Message`s that carry nothing but their
/// `chunks` (`stream`: a ServerWriter, ClientWriter or ServerReaderWriter).
/// Returns false when a write fails (the peer ended the call).
template <typename Message, typename Stream>
bool writeTensorMessages(Stream &stream, const std::vector<TensorRef> &tensors,
                         size_t chunkBytes) {
  return encodeTensors(tensors, chunkBytes,
                       [&](std::vector<TensorChunk> &chunks) {
                         Message message;
                         for (TensorChunk &chunk : chunks)
                           *message.add_chunks() = std::move(chunk);
                         return stream.Write(message);
                       });
}

/// Reassembles tensors from their chunks in arrival order. Every violation
/// of the chunk rules of tensor.proto throws std::invalid_argument naming
/// the tensor.
class TensorAssembler {
public:
  /// Called with the name, dtype and shape of each tensor before its buffer
  /// is allocated, with the index of the tensor in the stream; throws to
  /// reject the tensor (e.g. a gradient of the wrong shape).
  using HeaderCheck = std::function<void(size_t index, const std::string &name,
                                         DType dtype, const Shape &shape)>;

  /// Tensors larger than `maxTensorBytes` are rejected before allocation.
  explicit TensorAssembler(HeaderCheck check = {},
                           uint64_t maxTensorBytes = uint64_t(1) << 34);

  void add(const TensorChunk &chunk);

  /// The complete tensors; throws if the last one is incomplete.
  std::vector<NamedTensor> finish();

private:
  HeaderCheck check;
  uint64_t maxTensorBytes;
  std::vector<NamedTensor> complete;
  /// The tensor whose chunks are arriving, and how many of its bytes have.
  NamedTensor current;
  bool receiving = false;
  uint64_t received = 0;
};

} // namespace dtf::rpc
