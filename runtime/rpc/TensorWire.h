//===- TensorWire.h - Tensors in gRPC byte buffers, without copies -*- C++ -*-===//
//
// The messages of a training step (Pull, Push, PushPull in
// parameter_server.proto) are written and read here by hand, as TensorFlow
// does for RecvTensor (core/distributed_runtime/rpc/grpc_tensor_coding.cc):
// they are ordinary protobuf on the wire, but a tensor's bytes never pass
// through a protobuf message.
//
// - Sending, WireMessageBuilder lays the small fields (names, dtypes,
//   shapes, steps) into a few owned slices and adds each tensor's data as a
//   slice over the tensor's own memory; gRPC writes from there and releases
//   the slice when it is done with it, which releases the owner given with
//   the tensors.
// - Receiving, WireReader parses the received slices in place, without
//   joining them. A tensor's data is copied once, from the slices into the
//   new tensor's buffer; a tensor whose data lies in a single slice, aligned
//   for its element type, is not copied at all: it keeps the slice and reads
//   from it.
//
// Readers check everything a peer says (lengths, sizes, shapes) before
// trusting it and throw std::invalid_argument with a precise message: a
// malformed or hostile message is an error, never a crash, an overread or
// an allocation of whatever size it claims.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/rpc/TensorCodec.h"

#include <grpcpp/support/byte_buffer.h>
#include <grpcpp/support/slice.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace google::protobuf {
class MessageLite;
} // namespace google::protobuf

namespace dtf::rpc {

/// Writes one message in protobuf wire format into a grpc::ByteBuffer.
/// Fields are appended in call order.
class WireMessageBuilder {
public:
  /// A varint field (int64, uint64, enum); written even when 0.
  void addVarint(int field, uint64_t value);
  /// A string or bytes field, copied.
  void addString(int field, std::string_view value);
  /// A submessage, serialized (for small metadata only).
  void addMessage(int field, const google::protobuf::MessageLite &message);
  /// One TensorChunk (tensor.proto) per tensor, each the whole tensor, as
  /// repeated field `field`. The data is not copied: the message points at
  /// the tensors' memory, which must stay unchanged until `owner` is
  /// released. The builder and every slice of the finished buffer hold a
  /// reference to `owner`; gRPC drops the last when it has sent the data.
  void addTensors(int field, const std::vector<TensorRef> &tensors,
                  const std::shared_ptr<const void> &owner);

  /// Bytes written so far.
  size_t byteSize() const { return size; }
  /// The message; the builder is empty afterwards.
  grpc::ByteBuffer finish();

private:
  void flushPending();

  /// Small fields not yet turned into a slice.
  std::string pending;
  std::vector<grpc::Slice> slices;
  size_t size = 0;
};

/// Reads protobuf wire format from the slices of a received buffer.
class WireReader {
public:
  /// Takes references to `buffer`'s slices; the buffer may go away.
  explicit WireReader(const grpc::ByteBuffer &buffer);

  /// Wire types of the protobuf encoding.
  enum WireType { Varint = 0, Fixed64 = 1, LengthDelimited = 2, Fixed32 = 5 };

  /// Whether the current message (or submessage) has no bytes left.
  bool atEnd() const { return position == limit; }
  /// Bytes left in the current message (or submessage).
  uint64_t remaining() const { return limit - position; }

  /// Reads a field key; sets its number and wire type.
  void readTag(int &field, WireType &type);
  uint64_t readVarint();
  /// The length of a length-delimited field, checked against what is left.
  uint64_t readLength();
  std::string readString();
  /// Skips the value of a field of wire type `type`.
  void skip(WireType type);
  /// Copies `size` bytes out.
  void readBytes(void *out, size_t size);
  /// If the next `size` bytes lie in one slice: sets `out` to a reference
  /// to them, moves past them and returns true; else returns false and
  /// stays.
  bool readWithinOneSlice(size_t size, grpc::Slice &out);

  /// Reads a submessage of `length` bytes: within `parse`, atEnd() is its
  /// end. Throws if `parse` leaves some of it unread.
  void readSubmessage(uint64_t length, const std::function<void()> &parse);

private:
  /// Throws unless `size` more bytes are left.
  void require(uint64_t size) const;

  std::vector<grpc::Slice> slices;
  /// The slice holding `position`, and where it starts in the message.
  size_t sliceIndex = 0;
  uint64_t sliceStart = 0;
  uint64_t position = 0;
  uint64_t limit = 0;
};

/// The header of a tensor as it arrives; throws to reject the tensor before
/// its buffer is allocated (see TensorAssembler::HeaderCheck).
using TensorHeaderCheck = TensorAssembler::HeaderCheck;

/// Reads one whole-tensor TensorChunk of `length` bytes, the `index`-th of
/// its message. Fields come in field-number order, as every protobuf
/// serializer writes them: a chunk whose data comes before its dtype or
/// shape is rejected, as is one that is not the whole tensor (offset 0, all
/// its bytes).
NamedTensor readWholeTensor(WireReader &reader, uint64_t length, size_t index,
                            const TensorHeaderCheck &check,
                            uint64_t maxTensorBytes = uint64_t(1) << 34);

} // namespace dtf::rpc
