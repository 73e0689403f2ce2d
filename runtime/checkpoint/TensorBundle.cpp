//===- TensorBundle.cpp - TensorFlow's V2 checkpoint format ---------------===//
//
// The index is a LevelDB table written and read by LevelDB itself
// (TensorFlow's tensorflow/core/lib/io/table*.cc is a copy of LevelDB's
// table code: the same block format, block trailer CRC and footer magic),
// uncompressed and without a filter block, as TensorFlow writes it. Its
// values are the messages of proto/tensor_bundle.proto.
//
// LevelDB trusts the block handles of a table: it allocates a block's
// size before reading it. The reader therefore checks the footer and the
// index block against the file's length before LevelDB sees them, so that
// a hostile index cannot make it allocate more than its own size; the data
// file's entries are checked against the data file's length.
//
//===----------------------------------------------------------------------===//

#include "runtime/checkpoint/TensorBundle.h"

#include "runtime/checkpoint/Files.h"

#include "runtime/core/Crc32c.h"

#include "tensor_bundle.pb.h"

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>
#include <leveldb/env.h>
#include <leveldb/iterator.h>
#include <leveldb/options.h>
#include <leveldb/table.h>
#include <leveldb/table_builder.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace dtf::checkpoint {

using namespace files;

namespace proto = ::dtf::tensor_bundle;

// The data files hold the tensors' bytes as they are in memory, and the
// header says they are little-endian.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "tensor bundles are written with little-endian data");

namespace {

// The format's version (tensor_bundle.cc's kTensorBundleVersion): the
// producer of what is written, and the newest one this reader knows.
constexpr int kBundleVersion = 1;
// Data file names have five digits of shard number and count.
constexpr int kMaxShards = 99999;
// LevelDB's table footer: two block handles padded to 40 bytes, then the
// magic; a block is followed by a type byte and a masked CRC-32C.
constexpr size_t kTableFooterBytes = 48;
constexpr uint64_t kTableMagic = 0xdb4775248b80fb57ull;
constexpr size_t kBlockTrailerBytes = 5;

[[noreturn]] void invalid(const std::string &path, const std::string &why) {
  throw CheckpointError("checkpoint " + path + " is invalid: " + why);
}

std::string quoted(const std::string &name) { return "'" + name + "'"; }

//===----------------------------------------------------------------------===//
// OrderedCode (tensorflow/core/lib/strings/ordered_code.cc): encodings whose
// bytewise order is the order of the values.
//===----------------------------------------------------------------------===//

/// An unsigned number: a length byte, then the big-endian bytes without
/// leading zeros (0 is the one byte 0x00).
void appendOrderedNumber(std::string &out, uint64_t value) {
  unsigned char bytes[8];
  int length = 0;
  for (; value > 0; value >>= 8)
    bytes[7 - length++] = static_cast<unsigned char>(value & 0xff);
  out.push_back(static_cast<char>(length));
  out.append(reinterpret_cast<const char *>(bytes + 8 - length), length);
}

/// A string: its bytes with 0x00 escaped as 00 ff and 0xff as ff 00, then
/// the separator 00 01.
void appendOrderedString(std::string &out, std::string_view value) {
  for (char c : value) {
    out.push_back(c);
    if (c == '\0')
      out.push_back('\xff');
    else if (c == '\xff')
      out.push_back('\0');
  }
  out.append("\0\1", 2);
}

/// A signed number in 1 to 10 bytes: the sign bit (1 for >= 0), as many
/// copies of it as bytes follow the first, a delimiter bit of the other
/// value, then the two's-complement value, big-endian.
void appendOrderedSignedNumber(std::string &out, int64_t value) {
  // The bits to encode besides the sign: those of the value's magnitude.
  uint64_t magnitude =
      value < 0 ? ~static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
  int bits = 0;
  while (bits < 64 && (magnitude >> bits) != 0)
    ++bits;
  // n bytes hold 7n - 1 bits besides the sign and length bits, up to 10.
  int length = 1;
  while (length < 10 && bits > 7 * length - 1)
    ++length;
  // The value sign-extended to 10 bytes, big-endian.
  unsigned char buffer[10];
  unsigned char sign = value < 0 ? 0xff : 0x00;
  buffer[0] = buffer[1] = sign;
  for (int i = 0; i < 8; ++i)
    buffer[2 + i] = static_cast<unsigned char>(static_cast<uint64_t>(value) >>
                                               (56 - 8 * i));
  unsigned char *begin = buffer + 10 - length;
  // The header: `length` ones after the sign (flipped for a negative
  // number, whose sign extension is ones), over the first two bytes.
  uint16_t header = static_cast<uint16_t>(0xffff << (16 - length));
  begin[0] ^= static_cast<unsigned char>(header >> 8);
  if (length > 8)
    begin[1] ^= static_cast<unsigned char>(header & 0xff);
  out.append(reinterpret_cast<const char *>(begin), length);
}

//===----------------------------------------------------------------------===//
// Protos
//===----------------------------------------------------------------------===//

proto::DataType protoDType(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return proto::DT_FLOAT;
  case DType::F64:
    return proto::DT_DOUBLE;
  case DType::I32:
    return proto::DT_INT32;
  case DType::I64:
    return proto::DT_INT64;
  case DType::Bool:
    return proto::DT_BOOL;
  }
  throw CheckpointError("invalid dtype");
}

std::optional<DType> dtypeOfProto(int dtype) {
  switch (dtype) {
  case proto::DT_FLOAT:
    return DType::F32;
  case proto::DT_DOUBLE:
    return DType::F64;
  case proto::DT_INT32:
    return DType::I32;
  case proto::DT_INT64:
    return DType::I64;
  case proto::DT_BOOL:
    return DType::Bool;
  default:
    return std::nullopt;
  }
}

void setShape(proto::TensorShapeProto &out, const Shape &shape) {
  out.Clear();
  for (int64_t size : shape)
    out.add_dim()->set_size(size);
}

proto::TensorSliceProto sliceProto(const TensorSlice &slice) {
  proto::TensorSliceProto result;
  for (const TensorSlice::Extent &extent : slice.extents) {
    proto::TensorSliceProto::Extent *out = result.add_extent();
    if (extent.length) {
      out->set_start(extent.start);
      out->set_length(*extent.length);
    }
  }
  return result;
}

/// A slice as TensorFlow's TensorSlice(const TensorSliceProto&) reads it:
/// a missing length, or -1 from the start, is the whole dimension.
std::optional<TensorSlice> sliceOfProto(const proto::TensorSliceProto &in) {
  TensorSlice slice;
  for (const proto::TensorSliceProto::Extent &extent : in.extent()) {
    bool whole = !extent.has_length() || extent.length() == -1;
    if (whole && extent.start() != 0)
      return std::nullopt;
    slice.extents.push_back(
        whole ? TensorSlice::Extent{}
              : TensorSlice::Extent{extent.start(), extent.length()});
  }
  return slice;
}

proto::BundleHeaderProto bundleHeader(int numShards) {
  proto::BundleHeaderProto header;
  header.set_num_shards(numShards);
  header.set_endianness(proto::BundleHeaderProto::LITTLE);
  header.mutable_version()->set_producer(kBundleVersion);
  return header;
}

/// Rejects a header this reader cannot read, as TensorFlow's
/// CheckVersions and endianness check do.
void checkHeader(const proto::BundleHeaderProto &header,
                 const std::string &path) {
  if (header.num_shards() < 1 || header.num_shards() > kMaxShards)
    invalid(path, "the header has " + std::to_string(header.num_shards()) +
                      " data files");
  if (header.endianness() != proto::BundleHeaderProto::LITTLE)
    invalid(path, "its tensors are big-endian; DTF reads little-endian ones");
  const proto::VersionDef &version = header.version();
  if (version.min_consumer() > kBundleVersion)
    invalid(path, "it needs a reader of version " +
                      std::to_string(version.min_consumer()) +
                      "; this one is version " +
                      std::to_string(kBundleVersion));
  for (int bad : version.bad_consumers())
    if (bad == kBundleVersion)
      invalid(path, "its writer disallows readers of version " +
                        std::to_string(kBundleVersion));
}

//===----------------------------------------------------------------------===//
// The index: a LevelDB table
//===----------------------------------------------------------------------===//

/// A table's bytes in memory, as LevelDB reads a file.
class MemoryFile : public leveldb::RandomAccessFile {
public:
  explicit MemoryFile(const std::string &bytes) : bytes_(bytes) {}
  leveldb::Status Read(uint64_t offset, size_t n, leveldb::Slice *result,
                       char *) const override {
    if (offset > bytes_.size())
      return leveldb::Status::Corruption("read past the end of the table");
    *result = leveldb::Slice(bytes_.data() + offset,
                             std::min<uint64_t>(n, bytes_.size() - offset));
    return leveldb::Status::OK();
  }

private:
  const std::string &bytes_;
};

/// Reads LevelDB's varints with bounds checks.
class VarintReader {
public:
  VarintReader(const std::string &bytes, size_t begin, size_t end)
      : bytes_(bytes), position_(begin), end_(end) {}
  bool read(uint64_t &value) {
    value = 0;
    for (int shift = 0; shift < 64 && position_ < end_; shift += 7) {
      auto byte = static_cast<unsigned char>(bytes_[position_++]);
      value |= uint64_t(byte & 0x7f) << shift;
      if (!(byte & 0x80))
        return true;
    }
    return false;
  }
  bool skip(uint64_t count) {
    if (count > end_ - position_)
      return false;
    position_ += count;
    return true;
  }
  size_t position() const { return position_; }

private:
  const std::string &bytes_;
  size_t position_, end_;
};

struct BlockHandle {
  uint64_t offset = 0, size = 0;
};

/// Checks that every block the table's footer and index block name lies
/// within the file and is uncompressed, before LevelDB allocates and reads
/// any of them, and the bytes LevelDB does not check: the footer's padding
/// and the metaindex block.
void checkTableLayout(const std::string &bytes, const std::string &path) {
  if (bytes.size() < kTableFooterBytes)
    invalid(path, "truncated: " + std::to_string(bytes.size()) +
                      " bytes, fewer than a table's footer");
  size_t footer = bytes.size() - kTableFooterBytes;
  uint64_t magic = 0;
  for (int i = 7; i >= 0; --i)
    magic = (magic << 8) | static_cast<unsigned char>(bytes[footer + 40 + i]);
  if (magic != kTableMagic)
    invalid(path, "truncated or not a table: no table magic at its end");
  auto readHandle = [&](VarintReader &reader, const char *what) {
    BlockHandle handle;
    if (!reader.read(handle.offset) || !reader.read(handle.size) ||
        handle.offset > footer || handle.size > footer - handle.offset ||
        kBlockTrailerBytes > footer - handle.offset - handle.size)
      invalid(path, std::string("corrupt: ") + what + " lies outside the file");
    // Uncompressed, as TensorFlow writes its tables: a compressed block
    // would make LevelDB allocate the size it claims uncompressed.
    if (bytes[handle.offset + handle.size] != leveldb::kNoCompression)
      invalid(path, std::string(what) + " is compressed or corrupt");
    return handle;
  };
  // A block's trailer: its compression type, then the masked CRC-32C of
  // the block and that byte. LevelDB checks those of the blocks it reads;
  // it never reads the metaindex block of a table without filters.
  auto checkBlockCrc = [&](const BlockHandle &handle, const char *what) {
    const char *block = bytes.data() + handle.offset;
    uint32_t stored = 0;
    for (int i = 4; i >= 1; --i)
      stored = (stored << 8) |
               static_cast<unsigned char>(block[handle.size + size_t(i)]);
    if (unmaskCrc(stored) != crc32c(block, handle.size + 1))
      invalid(path, std::string("corrupt: the checksum of ") + what +
                        " does not match");
  };
  VarintReader footerReader(bytes, footer, footer + 40);
  checkBlockCrc(readHandle(footerReader, "the metaindex block"),
                "the metaindex block");
  BlockHandle index = readHandle(footerReader, "the index block");
  checkBlockCrc(index, "the index block");
  // The handles are padded with zeros, as LevelDB and TensorFlow write
  // them.
  for (size_t i = footerReader.position(); i < footer + 40; ++i)
    if (bytes[i] != '\0')
      invalid(path, "corrupt: the table's footer");

  // The index block: entries (shared key bytes, unshared key bytes, value
  // bytes, the key's unshared bytes, the value: a data block's handle),
  // then the restart offsets and their count.
  size_t end = index.offset + index.size;
  if (index.size < 4)
    invalid(path, "corrupt: the index block is too short");
  uint32_t restarts = 0;
  for (int i = 3; i >= 0; --i)
    restarts = (restarts << 8) | static_cast<unsigned char>(bytes[end - 4 + i]);
  if (restarts > (index.size - 4) / 4)
    invalid(path, "corrupt: the index block's restart count");
  size_t entriesEnd = end - 4 - 4 * size_t(restarts);
  VarintReader entries(bytes, index.offset, entriesEnd);
  while (entries.position() < entriesEnd) {
    uint64_t shared, unshared, valueBytes;
    if (!entries.read(shared) || !entries.read(unshared) ||
        !entries.read(valueBytes) || !entries.skip(unshared))
      invalid(path, "corrupt: an entry of the index block");
    size_t valueEnd = entries.position() + valueBytes;
    if (valueBytes > entriesEnd - entries.position())
      invalid(path, "corrupt: an entry of the index block");
    VarintReader value(bytes, entries.position(), valueEnd);
    readHandle(value, "a data block");
    entries.skip(valueBytes);
  }
}

/// The header and entries of an index file, in key order.
struct Index {
  proto::BundleHeaderProto header;
  std::vector<std::pair<std::string, proto::BundleEntryProto>> entries;
};

Index readIndex(const std::string &path) {
  std::string bytes = readWholeFile(path);
  checkTableLayout(bytes, path);
  MemoryFile file(bytes);
  leveldb::Options options;
  options.paranoid_checks = true; // the index block's CRC
  leveldb::Table *opened = nullptr;
  leveldb::Status status =
      leveldb::Table::Open(options, &file, bytes.size(), &opened);
  if (!status.ok())
    invalid(path, status.ToString());
  std::unique_ptr<leveldb::Table> table(opened);
  leveldb::ReadOptions readOptions;
  readOptions.verify_checksums = true; // each data block's CRC
  std::unique_ptr<leveldb::Iterator> it(table->NewIterator(readOptions));

  Index index;
  it->SeekToFirst();
  if (!it->Valid() || !it->key().empty())
    invalid(path, it->status().ok() ? "no header entry (key \"\") first"
                                    : it->status().ToString());
  if (!index.header.ParseFromArray(it->value().data(),
                                   static_cast<int>(it->value().size())))
    invalid(path, "the header entry does not parse");
  checkHeader(index.header, path);
  for (it->Next(); it->Valid(); it->Next()) {
    std::string key = it->key().ToString();
    proto::BundleEntryProto entry;
    if (!entry.ParseFromArray(it->value().data(),
                              static_cast<int>(it->value().size())))
      invalid(path, "the entry of tensor " + quoted(key) + " does not parse");
    index.entries.emplace_back(std::move(key), std::move(entry));
  }
  if (!it->status().ok())
    invalid(path, it->status().ToString());
  return index;
}

/// Writes a table of `entries` (sorted) after `header` to `path`
/// atomically.
void writeIndex(const std::string &path, const proto::BundleHeaderProto &header,
                const std::map<std::string, proto::BundleEntryProto> &entries) {
  std::string temporary = temporaryPathFor(path);
  leveldb::WritableFile *opened = nullptr;
  leveldb::Status status =
      leveldb::Env::Default()->NewWritableFile(temporary, &opened);
  if (!status.ok())
    throw CheckpointError("cannot create " + temporary + ": " +
                          status.ToString());
  std::unique_ptr<leveldb::WritableFile> file(opened);
  leveldb::Options options;
  options.compression = leveldb::kNoCompression;
  {
    leveldb::TableBuilder builder(options, file.get());
    builder.Add("", header.SerializeAsString());
    for (const auto &[key, entry] : entries)
      builder.Add(key, entry.SerializeAsString());
    status = builder.Finish();
  }
  if (status.ok())
    status = file->Sync();
  if (status.ok())
    status = file->Close();
  if (!status.ok()) {
    ::unlink(temporary.c_str());
    throw CheckpointError("cannot write " + temporary + ": " +
                          status.ToString());
  }
  renameFile(temporary, path);
  syncDirectory(directoryOf(path));
}

//===----------------------------------------------------------------------===//
// Shapes and slices
//===----------------------------------------------------------------------===//

/// The element count of a shape read from a file, or nullopt if a
/// dimension is negative or the count overflows.
std::optional<uint64_t> elementCount(const Shape &shape) {
  uint64_t count = 1;
  for (int64_t size : shape) {
    if (size < 0)
      return std::nullopt;
    if (size != 0 && count > (uint64_t(1) << 62) / uint64_t(size))
      return std::nullopt;
    count *= uint64_t(size);
  }
  return count;
}

/// Whether `slice` lies within `shape` (same rank, extents in bounds).
bool sliceFits(const TensorSlice &slice, const Shape &shape) {
  if (slice.rank() != shape.size())
    return false;
  for (size_t d = 0; d < shape.size(); ++d) {
    const TensorSlice::Extent &extent = slice.extents[d];
    if (extent.length &&
        (extent.start < 0 || *extent.length < 0 || extent.start > shape[d] ||
         *extent.length > shape[d] - extent.start))
      return false;
  }
  return true;
}

/// A slice as a box of the full tensor: the start and size per dimension.
struct Box {
  Shape start, size;
};

Box boxOf(const TensorSlice &slice, const Shape &fullShape) {
  Box box;
  for (size_t d = 0; d < fullShape.size(); ++d) {
    const TensorSlice::Extent &extent = slice.extents[d];
    box.start.push_back(extent.length ? extent.start : 0);
    box.size.push_back(extent.length ? *extent.length : fullShape[d]);
  }
  return box;
}

/// The intersection of two boxes; nullopt if empty.
std::optional<Box> intersect(const Box &a, const Box &b) {
  Box result;
  for (size_t d = 0; d < a.start.size(); ++d) {
    int64_t begin = std::max(a.start[d], b.start[d]);
    int64_t end = std::min(a.start[d] + a.size[d], b.start[d] + b.size[d]);
    if (end <= begin)
      return std::nullopt;
    result.start.push_back(begin);
    result.size.push_back(end - begin);
  }
  return result;
}

uint64_t volume(const Box &box) {
  uint64_t count = 1;
  for (int64_t size : box.size)
    count *= uint64_t(size);
  return count;
}

/// Copies the elements of `region` from `source`, which holds the box
/// `sourceBox` of a full tensor, into `target`, which holds `targetBox`;
/// `region` lies within both. Rows of the last dimension are contiguous.
void copyRegion(const Tensor &source, const Box &sourceBox, Tensor &target,
                const Box &targetBox, const Box &region) {
  size_t rank = region.size.size();
  size_t elementBytes = dtypeSize(source.dtype());
  auto rowMajorOffset = [&](const Box &box, const Shape &index) {
    uint64_t offset = 0;
    for (size_t d = 0; d < rank; ++d)
      offset =
          offset * uint64_t(box.size[d]) + uint64_t(index[d] - box.start[d]);
    return offset;
  };
  size_t rowBytes = size_t(region.size[rank - 1]) * elementBytes;
  const auto *from = static_cast<const char *>(source.rawData());
  auto *to = static_cast<char *>(target.rawData());
  Shape index = region.start;
  while (true) {
    std::memcpy(to + rowMajorOffset(targetBox, index) * elementBytes,
                from + rowMajorOffset(sourceBox, index) * elementBytes,
                rowBytes);
    // The next row: count up the dimensions before the last, the later
    // ones faster.
    size_t d = rank - 1;
    while (true) {
      if (d == 0)
        return;
      --d;
      if (++index[d] < region.start[d] + region.size[d])
        break;
      index[d] = region.start[d];
    }
  }
}

} // namespace

//===----------------------------------------------------------------------===//
// TensorSlice and names
//===----------------------------------------------------------------------===//

TensorSlice TensorSlice::full(size_t rank) {
  TensorSlice slice;
  slice.extents.resize(rank);
  return slice;
}

TensorSlice TensorSlice::fromStartsAndLengths(
    const std::vector<std::pair<int64_t, int64_t>> &extents) {
  TensorSlice slice;
  for (auto [start, length] : extents)
    slice.extents.push_back({start, length});
  return slice;
}

Shape TensorSlice::shapeIn(const Shape &fullShape) const {
  Shape shape;
  for (size_t d = 0; d < extents.size(); ++d)
    shape.push_back(extents[d].length ? *extents[d].length : fullShape[d]);
  return shape;
}

std::string TensorSlice::toString() const {
  std::string text;
  for (size_t d = 0; d < extents.size(); ++d) {
    if (d)
      text += ':';
    text += extents[d].length ? std::to_string(extents[d].start) + "," +
                                    std::to_string(*extents[d].length)
                              : "-";
  }
  return text;
}

std::string encodeTensorNameSlice(std::string_view name,
                                  const TensorSlice &slice) {
  std::string key;
  appendOrderedNumber(key, 0);
  appendOrderedString(key, name);
  appendOrderedNumber(key, slice.rank());
  for (const TensorSlice::Extent &extent : slice.extents) {
    appendOrderedSignedNumber(key, extent.length ? extent.start : 0);
    appendOrderedSignedNumber(key, extent.length ? *extent.length : -1);
  }
  return key;
}

std::string bundleIndexPath(const std::string &prefix) {
  return prefix + ".index";
}

std::string bundleDataPath(const std::string &prefix, int shard,
                           int numShards) {
  char suffix[32];
  std::snprintf(suffix, sizeof(suffix), ".data-%05d-of-%05d", shard, numShards);
  return prefix + suffix;
}

std::string shardedSavePrefix(const std::string &prefix, int shard,
                              int numShards) {
  char part[32];
  std::snprintf(part, sizeof(part), "part-%05d-of-%05d", shard, numShards);
  return prefix + "_temp/" + part;
}

//===----------------------------------------------------------------------===//
// BundleWriter
//===----------------------------------------------------------------------===//

struct BundleWriter::State {
  std::string dataPath, dataTemporary;
  File data;
  uint64_t dataBytes = 0;
  std::map<std::string, proto::BundleEntryProto> entries;
  // finish() was called, or a write failed: nothing more can be added.
  bool closed = false;
  // The data file has its final name: nothing is left to remove.
  bool dataRenamed = false;
};

BundleWriter::BundleWriter(std::string prefix)
    : prefix_(std::move(prefix)), state_(std::make_unique<State>()) {
  createDirectories(directoryOf(prefix_));
  state_->dataPath = bundleDataPath(prefix_, 0, 1);
  state_->dataTemporary = temporaryPathFor(state_->dataPath);
  state_->data = File(::open(state_->dataTemporary.c_str(),
                             O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (state_->data.get() < 0)
    throw CheckpointError("cannot create " + state_->dataTemporary + ": " +
                          errnoText());
}

BundleWriter::~BundleWriter() {
  if (!state_->dataRenamed)
    ::unlink(state_->dataTemporary.c_str());
}

void BundleWriter::add(const std::string &name, const Tensor &value) {
  if (state_->closed)
    throw CheckpointError("checkpoint " + prefix_ + ": adding " + quoted(name) +
                          " after finish()");
  if (name.empty())
    throw CheckpointError("checkpoint " + prefix_ +
                          ": a tensor's name is empty");
  if (state_->entries.count(name))
    throw CheckpointError("checkpoint " + prefix_ + ": tensor " + quoted(name) +
                          " is added twice");
  if (value.shape().size() > kMaxRank)
    throw CheckpointError("checkpoint " + prefix_ + ": tensor " + quoted(name) +
                          " has rank above " + std::to_string(kMaxRank));
  try {
    writeAll(state_->data.get(), value.rawData(), value.byteSize(),
             state_->dataTemporary);
  } catch (const CheckpointError &) {
    // Part of the bytes may be in the file: the offsets that follow would
    // be wrong.
    state_->closed = true;
    throw;
  }
  proto::BundleEntryProto &entry = state_->entries[name];
  entry.set_dtype(protoDType(value.dtype()));
  setShape(*entry.mutable_shape(), value.shape());
  entry.set_shard_id(0);
  entry.set_offset(static_cast<int64_t>(state_->dataBytes));
  entry.set_size(static_cast<int64_t>(value.byteSize()));
  entry.set_crc32c(maskCrc(crc32c(value.rawData(), value.byteSize())));
  state_->dataBytes += value.byteSize();
}

void BundleWriter::addSlice(const std::string &name, const Shape &fullShape,
                            const TensorSlice &slice, const Tensor &value) {
  std::string what = "checkpoint " + prefix_ + ": slice " + slice.toString() +
                     " of " + quoted(name) + shapeToString(fullShape);
  if (fullShape.empty() || !sliceFits(slice, fullShape))
    throw CheckpointError(what + " does not fit the shape");
  if (value.shape() != slice.shapeIn(fullShape))
    throw CheckpointError(what + " holds a tensor of shape " +
                          shapeToString(value.shape()));
  if (slice.shapeIn(fullShape) == fullShape)
    return add(name, value);

  auto existing = state_->entries.find(name);
  if (existing != state_->entries.end()) {
    const proto::BundleEntryProto &entry = existing->second;
    Shape shape;
    for (const auto &dim : entry.shape().dim())
      shape.push_back(dim.size());
    if (entry.slices().empty() || shape != fullShape ||
        entry.dtype() != protoDType(value.dtype()))
      throw CheckpointError(what + ": " + quoted(name) +
                            " was added before as another tensor");
    Box box = boxOf(slice, fullShape);
    for (const proto::TensorSliceProto &other : entry.slices())
      if (intersect(box, boxOf(*sliceOfProto(other), fullShape)))
        throw CheckpointError(what + " overlaps a slice added before");
  }
  add(encodeTensorNameSlice(name, slice), value);
  // The variable's own entry: its dtype and full shape, and no bytes.
  proto::BundleEntryProto &entry = state_->entries[name];
  entry.set_dtype(protoDType(value.dtype()));
  setShape(*entry.mutable_shape(), fullShape);
  *entry.add_slices() = sliceProto(slice);
}

void BundleWriter::finish() {
  if (state_->closed)
    throw CheckpointError("checkpoint " + prefix_ + ": finish() again");
  state_->closed = true;
  if (::fsync(state_->data.get()) != 0 || ::close(state_->data.release()) != 0)
    throw CheckpointError("cannot write " + state_->dataTemporary + ": " +
                          errnoText());
  // A bundle at this prefix before must not pair its index with our data.
  std::string indexPath = bundleIndexPath(prefix_);
  removeIfPresent(indexPath);
  renameFile(state_->dataTemporary, state_->dataPath);
  state_->dataRenamed = true;
  writeIndex(indexPath, bundleHeader(1), state_->entries);
}

//===----------------------------------------------------------------------===//
// mergeBundles
//===----------------------------------------------------------------------===//

void mergeBundles(const std::vector<std::string> &prefixes,
                  const std::string &mergedPrefix) {
  if (prefixes.empty())
    throw CheckpointError("checkpoint " + mergedPrefix +
                          ": no bundles to merge");
  std::map<std::string, proto::BundleEntryProto> merged;
  std::map<std::string, std::string> origin; // key -> the index it came from
  std::vector<std::pair<std::string, int>> dataFiles; // path, new shard id
  for (const std::string &prefix : prefixes) {
    std::string path = bundleIndexPath(prefix);
    Index index = readIndex(path);
    int firstShard = static_cast<int>(dataFiles.size());
    int numShards = index.header.num_shards();
    if (firstShard + numShards > kMaxShards)
      throw CheckpointError("checkpoint " + mergedPrefix + ": more than " +
                            std::to_string(kMaxShards) + " data files");
    for (int shard = 0; shard < numShards; ++shard)
      dataFiles.emplace_back(bundleDataPath(prefix, shard, numShards),
                             firstShard + shard);
    for (auto &[key, entry] : index.entries) {
      auto [it, created] = merged.try_emplace(key, entry);
      if (created) {
        if (entry.slices().empty()) {
          if (entry.shard_id() < 0 || entry.shard_id() >= numShards)
            invalid(path, "tensor " + quoted(key) + " is in data file " +
                              std::to_string(entry.shard_id()) + " of " +
                              std::to_string(numShards));
          it->second.set_shard_id(firstShard + entry.shard_id());
        }
        origin[key] = path;
        continue;
      }
      // Only a partitioned variable may be in several bundles: each holds
      // some of its slices.
      proto::BundleEntryProto &existing = it->second;
      if (existing.slices().empty() || entry.slices().empty() ||
          existing.dtype() != entry.dtype() ||
          existing.shape().SerializeAsString() !=
              entry.shape().SerializeAsString())
        throw CheckpointError("cannot merge " + path + " into " + mergedPrefix +
                              ": tensor " + quoted(key) + " is also in " +
                              origin[key]);
      for (const proto::TensorSliceProto &slice : entry.slices())
        *existing.add_slices() = slice;
    }
  }
  // Every data file is there before any is moved.
  for (const auto &[path, shard] : dataFiles) {
    struct stat info;
    if (::stat(path.c_str(), &info) != 0)
      throw CheckpointError("cannot merge into " + mergedPrefix +
                            ": data file " + path +
                            " is missing: " + errnoText());
  }

  createDirectories(directoryOf(mergedPrefix));
  std::string indexPath = bundleIndexPath(mergedPrefix);
  removeIfPresent(indexPath);
  int numShards = static_cast<int>(dataFiles.size());
  for (const auto &[path, shard] : dataFiles)
    renameFile(path, bundleDataPath(mergedPrefix, shard, numShards));
  syncDirectory(directoryOf(mergedPrefix));
  writeIndex(indexPath, bundleHeader(numShards), merged);

  // The inputs are consumed: their indexes go, and their directories if
  // nothing else is left in them.
  for (const std::string &prefix : prefixes) {
    ::unlink(bundleIndexPath(prefix).c_str());
    std::string directory = directoryOf(prefix);
    if (directory != directoryOf(mergedPrefix))
      ::rmdir(directory.c_str());
  }
}

//===----------------------------------------------------------------------===//
// BundleReader
//===----------------------------------------------------------------------===//

namespace {

/// An entry of the index as the reader uses it.
struct Entry {
  DType dtype;
  Shape shape;
  // Where a stored tensor's bytes are.
  int shard = 0;
  uint64_t offset = 0, size = 0;
  uint32_t maskedCrc = 0;
  // A partitioned variable's slices (its bytes are in theirs).
  std::vector<TensorSlice> slices;
};

struct DataFile {
  std::string path;
  File file;
  uint64_t size = 0;
};

} // namespace

struct BundleReader::State {
  std::string indexPath;
  std::vector<DataFile> dataFiles;
  std::map<std::string, Entry> entries;      // by key, slices' keys included
  std::map<std::string, TensorInfo> tensors; // by name
  // "slice 0,3:- of tensor 'embedding'", by the slice's key.
  std::map<std::string, std::string> descriptions;

  /// How errors name the entry of `key`.
  std::string describe(const std::string &key) const {
    auto it = descriptions.find(key);
    return it != descriptions.end() ? it->second : "tensor " + quoted(key);
  }

  const Entry &entry(const std::string &name) const {
    auto it = entries.find(name);
    if (it == entries.end() || !tensors.count(name))
      throw CheckpointError("checkpoint " + indexPath + " has no tensor " +
                            quoted(name));
    return it->second;
  }

  /// The bytes of a stored (not partitioned) entry, checked against its
  /// CRC.
  Tensor readStored(const std::string &key, const Entry &entry) const {
    const DataFile &data = dataFiles[size_t(entry.shard)];
    Tensor tensor = Tensor::uninitialized(entry.dtype, entry.shape);
    auto *bytes = static_cast<char *>(tensor.rawData());
    size_t done = 0;
    while (done < entry.size) {
      ssize_t got = ::pread(data.file.get(), bytes + done, entry.size - done,
                            static_cast<off_t>(entry.offset + done));
      if (got < 0 && errno == EINTR)
        continue;
      if (got < 0)
        throw CheckpointError("cannot read checkpoint " + data.path + ": " +
                              errnoText());
      if (got == 0)
        invalid(data.path, "truncated: " + describe(key) +
                               " runs past the end of the file");
      done += static_cast<size_t>(got);
    }
    if (unmaskCrc(entry.maskedCrc) != crc32c(bytes, entry.size))
      invalid(data.path,
              "the checksum of " + describe(key) + " does not match (corrupt)");
    return tensor;
  }
};

BundleReader::BundleReader(std::string prefix)
    : prefix_(std::move(prefix)), state_(std::make_unique<State>()) {
  const std::string &path = state_->indexPath = bundleIndexPath(prefix_);
  Index index = readIndex(path);
  int numShards = index.header.num_shards();
  for (int shard = 0; shard < numShards; ++shard) {
    DataFile data;
    data.path = bundleDataPath(prefix_, shard, numShards);
    data.file = File(::open(data.path.c_str(), O_RDONLY | O_CLOEXEC));
    struct stat info;
    if (data.file.get() < 0 || ::fstat(data.file.get(), &info) != 0)
      throw CheckpointError("cannot open checkpoint data file " + data.path +
                            " of " + path + ": " + errnoText());
    data.size = static_cast<uint64_t>(info.st_size);
    state_->dataFiles.push_back(std::move(data));
  }

  // The slices of the partitioned variables first: errors name a slice's
  // entry by its variable and extents rather than by its binary key.
  std::map<std::string, std::vector<TensorSlice>> slicesOf;
  for (const auto &[name, in] : index.entries) {
    for (const proto::TensorSliceProto &sliceIn : in.slices()) {
      std::optional<TensorSlice> slice = sliceOfProto(sliceIn);
      if (!slice)
        invalid(path, "tensor " + quoted(name) +
                          " has a slice that starts inside a whole dimension");
      state_->descriptions[encodeTensorNameSlice(name, *slice)] =
          "slice " + slice->toString() + " of tensor " + quoted(name);
      slicesOf[name].push_back(std::move(*slice));
    }
  }

  for (const auto &[key, in] : index.entries) {
    std::string what = state_->describe(key);
    Entry entry;
    std::optional<DType> dtype = dtypeOfProto(in.dtype());
    if (!dtype)
      invalid(path, what + " has dtype " + std::to_string(in.dtype()) +
                        " (DTF reads float, double, int32, int64 and bool)");
    entry.dtype = *dtype;
    if (in.shape().unknown_rank() ||
        in.shape().dim_size() > static_cast<int>(kMaxRank))
      invalid(path,
              what + " has no shape or rank above " + std::to_string(kMaxRank));
    for (const auto &dim : in.shape().dim())
      entry.shape.push_back(dim.size());
    std::optional<uint64_t> elements = elementCount(entry.shape);
    if (!elements)
      invalid(path,
              what + " has an invalid shape " + shapeToString(entry.shape));
    if (in.slices().empty()) {
      if (in.shard_id() < 0 || in.shard_id() >= numShards)
        invalid(path, what + " is in data file " +
                          std::to_string(in.shard_id()) + " of " +
                          std::to_string(numShards));
      entry.shard = in.shard_id();
      entry.offset = static_cast<uint64_t>(in.offset());
      entry.size = static_cast<uint64_t>(in.size());
      entry.maskedCrc = in.crc32c();
      if (*elements > (uint64_t(1) << 60) / dtypeSize(entry.dtype) ||
          entry.size != *elements * dtypeSize(entry.dtype))
        invalid(path, what + ": " + std::to_string(in.size()) + " bytes for " +
                          dtypeName(entry.dtype) + shapeToString(entry.shape));
      const DataFile &data = state_->dataFiles[size_t(entry.shard)];
      if (in.offset() < 0 || entry.offset > data.size ||
          entry.size > data.size - entry.offset)
        invalid(data.path, "truncated: " + what + " at byte " +
                               std::to_string(in.offset()) + " (" +
                               std::to_string(entry.size) +
                               " bytes) runs past the end of the " +
                               std::to_string(data.size) + "-byte file");
    } else {
      entry.slices = std::move(slicesOf[key]);
      for (const TensorSlice &slice : entry.slices)
        if (entry.shape.empty() || !sliceFits(slice, entry.shape))
          invalid(path, what + shapeToString(entry.shape) + " has slice " +
                            slice.toString() + " outside its shape");
    }
    state_->entries.emplace(key, std::move(entry));
  }

  // Each partitioned variable's slices: stored with the variable's dtype
  // and the slice's shape, disjoint. Their keys are not tensors' names.
  for (const auto &[name, entry] : state_->entries) {
    std::vector<Box> boxes;
    for (const TensorSlice &slice : entry.slices) {
      std::string key = encodeTensorNameSlice(name, slice);
      std::string what = state_->describe(key);
      auto it = state_->entries.find(key);
      if (it == state_->entries.end())
        invalid(path, what + " has no entry");
      const Entry &stored = it->second;
      if (!stored.slices.empty() || stored.dtype != entry.dtype ||
          stored.shape != slice.shapeIn(entry.shape))
        invalid(path, what + " is stored as " + dtypeName(stored.dtype) +
                          shapeToString(stored.shape));
      Box box = boxOf(slice, entry.shape);
      for (const Box &other : boxes)
        if (intersect(box, other))
          invalid(path, what + " overlaps another of its slices");
      boxes.push_back(std::move(box));
    }
  }
  for (const auto &[name, entry] : state_->entries)
    if (!state_->descriptions.count(name))
      state_->tensors.emplace(
          name, TensorInfo{entry.dtype, entry.shape, entry.slices});
}

BundleReader::~BundleReader() = default;

const std::map<std::string, BundleReader::TensorInfo> &
BundleReader::tensors() const {
  return state_->tensors;
}

int BundleReader::numShards() const {
  return static_cast<int>(state_->dataFiles.size());
}

Tensor BundleReader::read(const std::string &name) const {
  const Entry &entry = state_->entry(name);
  if (entry.slices.empty())
    return state_->readStored(name, entry);
  return readSlice(name, TensorSlice::full(entry.shape.size()));
}

Tensor BundleReader::readSlice(const std::string &name,
                               const TensorSlice &slice) const {
  const Entry &entry = state_->entry(name);
  if (entry.shape.empty() || !sliceFits(slice, entry.shape))
    throw CheckpointError("checkpoint " + state_->indexPath + ": slice " +
                          slice.toString() + " does not fit tensor " +
                          quoted(name) + shapeToString(entry.shape));
  Box wanted = boxOf(slice, entry.shape);
  Tensor result(entry.dtype, wanted.size);
  if (result.numElements() == 0)
    return result;

  // Each stored part (the whole tensor, or each slice) that overlaps the
  // wanted box gives its overlap; the slices are disjoint, so the wanted
  // box is covered when the overlaps add up to it.
  std::vector<std::pair<std::string, TensorSlice>> parts;
  if (entry.slices.empty())
    parts.emplace_back(name, TensorSlice::full(entry.shape.size()));
  for (const TensorSlice &stored : entry.slices)
    parts.emplace_back(encodeTensorNameSlice(name, stored), stored);
  uint64_t covered = 0;
  for (const auto &[key, stored] : parts) {
    Box storedBox = boxOf(stored, entry.shape);
    std::optional<Box> overlap = intersect(storedBox, wanted);
    if (!overlap)
      continue;
    Tensor part = state_->readStored(key, state_->entries.at(key));
    if (storedBox.start == wanted.start && storedBox.size == wanted.size)
      return part;
    copyRegion(part, storedBox, result, wanted, *overlap);
    covered += volume(*overlap);
  }
  if (covered != volume(wanted))
    throw CheckpointError("checkpoint " + state_->indexPath +
                          ": the slices of tensor " + quoted(name) +
                          " do not cover " + slice.toString());
  return result;
}

std::map<std::string, Tensor> BundleReader::readAll() const {
  std::map<std::string, Tensor> values;
  for (const auto &[name, info] : state_->tensors)
    values.emplace(name, read(name));
  return values;
}

//===----------------------------------------------------------------------===//
// The `checkpoint` state file
//===----------------------------------------------------------------------===//

namespace {

const char *const kStateFileName = "checkpoint";

/// Keeps the first error of a text-format parse, for the CheckpointError
/// (protobuf would log it).
class FirstParseError : public google::protobuf::io::ErrorCollector {
public:
  void AddError(int line, google::protobuf::io::ColumnNumber column,
                const std::string &message) override {
    if (error.empty())
      error = "line " + std::to_string(line + 1) + " column " +
              std::to_string(column + 1) + ": " + message;
  }
  std::string error;
};

} // namespace

void writeCheckpointState(const std::string &directory,
                          const CheckpointState &state) {
  proto::CheckpointState message;
  message.set_model_checkpoint_path(state.modelCheckpointPath);
  for (const std::string &path : state.allModelCheckpointPaths)
    message.add_all_model_checkpoint_paths(path);
  std::string text;
  if (!google::protobuf::TextFormat::PrintToString(message, &text))
    throw CheckpointError("cannot format the checkpoint state of " + directory);
  createDirectories(directory);
  writeFileAtomically(directory + "/" + kStateFileName, text);
}

std::optional<CheckpointState>
readCheckpointState(const std::string &directory) {
  std::string path = directory + "/" + kStateFileName;
  struct stat info;
  if (::stat(path.c_str(), &info) != 0 && errno == ENOENT)
    return std::nullopt;
  proto::CheckpointState message;
  google::protobuf::TextFormat::Parser parser;
  FirstParseError parseError;
  parser.RecordErrorsTo(&parseError);
  if (!parser.ParseFromString(readWholeFile(path), &message))
    invalid(path,
            "it is not a text-format CheckpointState: " + parseError.error);
  CheckpointState state;
  state.modelCheckpointPath = message.model_checkpoint_path();
  state.allModelCheckpointPaths.assign(
      message.all_model_checkpoint_paths().begin(),
      message.all_model_checkpoint_paths().end());
  return state;
}

} // namespace dtf::checkpoint
