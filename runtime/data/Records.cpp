//===- Records.cpp - TFRecord framing -------------------------------------===//

#include "runtime/data/Records.h"

#include "runtime/core/Crc32c.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <vector>

namespace dtf::data {
namespace {

void putLittleEndian(std::string &out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i)
    out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

uint64_t getLittleEndian(const unsigned char *in, int bytes) {
  uint64_t value = 0;
  for (int i = 0; i < bytes; ++i)
    value |= static_cast<uint64_t>(in[i]) << (8 * i);
  return value;
}

std::string errnoText() { return std::strerror(errno); }

/// Whether `header` (12 bytes) is a record's length and its masked CRC.
bool validHeader(const unsigned char *header) {
  return static_cast<uint32_t>(getLittleEndian(header + 8, 4)) ==
         maskCrc(crc32c(header, 8));
}

/// Whether two bytes start a zlib stream (RFC 1950): deflate, a window of
/// at most 32 KiB, and the header's check bits.
bool zlibHeader(const unsigned char *bytes) {
  return (bytes[0] & 0x0f) == 8 && (bytes[0] >> 4) <= 7 &&
         ((bytes[0] << 8) | bytes[1]) % 31 == 0;
}

/// An open file descriptor, closed with its owner.
class FileDescriptor {
public:
  explicit FileDescriptor(const std::string &path) {
    do
      fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    while (fd < 0 && errno == EINTR);
    if (fd < 0)
      throw RecordError("cannot open " + path + ": " + errnoText());
  }
  ~FileDescriptor() {
    if (fd >= 0)
      ::close(fd);
  }
  FileDescriptor(const FileDescriptor &) = delete;
  FileDescriptor &operator=(const FileDescriptor &) = delete;

  /// Reads up to `size` bytes at the file position; fewer at its end.
  size_t read(void *buffer, size_t size, const std::string &path) {
    return readFully(buffer, size, path, [&](char *at, size_t left, size_t) {
      return ::read(fd, at, left);
    });
  }
  /// Reads up to `size` bytes at `offset`; fewer at the file's end.
  size_t readAt(void *buffer, size_t size, uint64_t offset,
                const std::string &path) {
    return readFully(
        buffer, size, path, [&](char *at, size_t left, size_t done) {
          return ::pread(fd, at, left, static_cast<off_t>(offset + done));
        });
  }
  /// Calls `readSome(at, left, done)` (read(2) or pread(2)) until `size`
  /// bytes came or the file ended, retrying on EINTR.
  template <typename ReadSome>
  static size_t readFully(void *buffer, size_t size, const std::string &path,
                          const ReadSome &readSome) {
    size_t done = 0;
    while (done < size) {
      ssize_t got =
          readSome(static_cast<char *>(buffer) + done, size - done, done);
      if (got < 0 && errno == EINTR)
        continue;
      if (got < 0)
        throw RecordError("cannot read " + path + ": " + errnoText());
      if (got == 0)
        break;
      done += static_cast<size_t>(got);
    }
    return done;
  }
  uint64_t size(const std::string &path) const {
    struct stat info;
    if (::fstat(fd, &info) != 0)
      throw RecordError("cannot read " + path + ": " + errnoText());
    return static_cast<uint64_t>(info.st_size);
  }
  void seek(uint64_t offset, const std::string &path) {
    if (::lseek(fd, static_cast<off_t>(offset), SEEK_SET) < 0)
      throw RecordError("cannot read " + path + ": " + errnoText());
  }

  int fd = -1;
};

constexpr size_t kBufferBytes = 1 << 17;

} // namespace

/// The bytes of a file as the records' framing sees them: decompressed.
class RecordReader::Stream {
public:
  virtual ~Stream() = default;
  /// Up to `size` bytes; fewer only at the end of the stream. Throws
  /// RecordError(the cause) when the file cannot be read; the reader adds
  /// where.
  virtual size_t read(void *buffer, size_t size) = 0;
  /// Whether the stream ended before its compressed end (a gzip or zlib
  /// stream cut short).
  bool truncated = false;
};

namespace {

/// A plain file, read through a buffer.
class PlainStream final : public RecordReader::Stream {
public:
  explicit PlainStream(const std::string &path) : path(path), file(path) {}

  size_t read(void *buffer, size_t size) override {
    auto *out = static_cast<char *>(buffer);
    size_t done = 0;
    while (done < size) {
      if (at == filled) {
        if (size - done >= kBufferBytes)
          return done + file.read(out + done, size - done, path);
        at = 0;
        filled = file.read(data.data(), data.size(), path);
        if (filled == 0)
          break;
      }
      size_t piece = std::min(size - done, filled - at);
      std::memcpy(out + done, data.data() + at, piece);
      at += piece;
      done += piece;
    }
    return done;
  }

  /// Moves to `offset`, dropping what the buffer holds.
  void seek(uint64_t offset) {
    file.seek(offset, path);
    at = filled = 0;
  }

  std::string path;
  FileDescriptor file;
  std::vector<char> data = std::vector<char>(kBufferBytes);
  size_t at = 0, filled = 0;
};

/// A gzip file (or, as gzopen reads it, a plain one).
class GzipStream final : public RecordReader::Stream {
public:
  explicit GzipStream(const std::string &path) {
    errno = 0;
    file = gzopen(path.c_str(), "rb");
    if (!file)
      throw RecordError("cannot open " + path + ": " +
                        (errno ? errnoText() : "out of memory"));
    gzbuffer(file, kBufferBytes);
  }
  ~GzipStream() override { gzclose(file); }

  size_t read(void *buffer, size_t size) override {
    auto *out = static_cast<char *>(buffer);
    size_t done = 0;
    while (done < size) {
      unsigned request = static_cast<unsigned>(
          std::min<size_t>(size - done, std::numeric_limits<int>::max()));
      int got = gzread(file, out + done, request);
      if (got < 0) {
        int code;
        const char *message = gzerror(file, &code);
        // Z_BUF_ERROR is a gzip stream cut short: the caller reports the
        // record it ends in as truncated.
        if (code == Z_BUF_ERROR) {
          truncated = true;
          return done;
        }
        throw RecordError(std::string("cannot read: ") + message);
      }
      if (got == 0) {
        int code;
        gzerror(file, &code);
        if (code == Z_BUF_ERROR)
          truncated = true;
        return done;
      }
      done += static_cast<size_t>(got);
    }
    return done;
  }

private:
  gzFile file = nullptr;
};

/// A zlib-wrapped deflate stream (TFRecordOptions' "ZLIB"); streams
/// written one after another are read as one.
class ZlibStream final : public RecordReader::Stream {
public:
  explicit ZlibStream(const std::string &path) : path(path), file(path) {
    if (inflateInit(&stream) != Z_OK)
      throw RecordError("cannot read " + path + ": out of memory");
  }
  ~ZlibStream() override { inflateEnd(&stream); }

  size_t read(void *buffer, size_t size) override {
    auto *out = static_cast<unsigned char *>(buffer);
    size_t done = 0;
    while (done < size && !ended) {
      if (stream.avail_in == 0) {
        size_t got = file.read(input.data(), input.size(), path);
        if (got == 0) {
          // The file ends: the stream must have ended at a stream's end.
          ended = true;
          truncated = !atStreamEnd;
          break;
        }
        stream.next_in = input.data();
        stream.avail_in = static_cast<uInt>(got);
      }
      if (atStreamEnd) {
        // More bytes after a stream's end: the next stream.
        if (inflateReset(&stream) != Z_OK)
          throw RecordError("cannot read: ZLIB stream error");
        atStreamEnd = false;
      }
      size_t piece =
          std::min<size_t>(size - done, std::numeric_limits<uInt>::max());
      stream.next_out = out + done;
      stream.avail_out = static_cast<uInt>(piece);
      int status = inflate(&stream, Z_NO_FLUSH);
      done += piece - stream.avail_out;
      if (status == Z_STREAM_END) {
        atStreamEnd = true;
      } else if (status != Z_OK && status != Z_BUF_ERROR) {
        throw RecordError(std::string("cannot read: ZLIB data error") +
                          (stream.msg ? std::string(" (") + stream.msg + ")"
                                      : std::string()));
      }
    }
    return done;
  }

private:
  std::string path;
  FileDescriptor file;
  z_stream stream{};
  std::vector<unsigned char> input = std::vector<unsigned char>(kBufferBytes);
  bool atStreamEnd = false;
  bool ended = false;
};

} // namespace

std::string frameRecord(std::string_view data) {
  std::string record;
  record.reserve(data.size() + 16);
  putLittleEndian(record, data.size(), 8);
  putLittleEndian(record, maskCrc(crc32c(record.data(), 8)), 4);
  record.append(data);
  putLittleEndian(record, maskCrc(crc32c(data)), 4);
  return record;
}

namespace {

/// What the first bytes of `path` say it is; nullopt when nothing.
std::optional<Compression> sniffCompression(const std::string &path) {
  FileDescriptor file(path);
  unsigned char head[12];
  size_t got = file.read(head, sizeof(head), path);
  if (got == 0 || (got == sizeof(head) && validHeader(head)))
    return Compression::None;
  if (got >= 2 && head[0] == 0x1f && head[1] == 0x8b)
    return Compression::Gzip;
  if (got >= 2 && zlibHeader(head))
    return Compression::Zlib;
  return std::nullopt;
}

} // namespace

Compression detectCompression(const std::string &path) {
  std::optional<Compression> compression = sniffCompression(path);
  if (!compression)
    throw RecordError(path +
                      ": not a TFRecord file: its first bytes are neither a "
                      "record header nor a GZIP or ZLIB stream's");
  return *compression;
}

RecordWriter::RecordWriter(const std::string &path) : path_(path) {
  file = std::fopen(path.c_str(), "wb");
  if (!file)
    throw RecordError("cannot create " + path + ": " + errnoText());
}

RecordWriter::~RecordWriter() {
  if (file)
    std::fclose(file);
}

void RecordWriter::write(std::string_view data) {
  std::string record = frameRecord(data);
  if (std::fwrite(record.data(), 1, record.size(), file) != record.size())
    throw RecordError("cannot write " + path_ + ": " + errnoText());
}

void RecordWriter::flush() {
  if (std::fflush(file) != 0)
    throw RecordError("cannot write " + path_ + ": " + errnoText());
}

RecordReader::RecordReader(const std::string &path) : path_(path) {
  // gzopen reads a file without a gzip header as it is; a ZLIB stream needs
  // inflate with its wrapper.
  if (sniffCompression(path) == Compression::Zlib)
    stream = std::make_unique<ZlibStream>(path);
  else
    stream = std::make_unique<GzipStream>(path);
}

RecordReader::RecordReader(const std::string &path, Compression compression,
                           uint64_t begin, std::optional<uint64_t> end)
    : path_(path), begin_(begin) {
  switch (compression) {
  case Compression::None: {
    end_ = end;
    auto plain = std::make_unique<PlainStream>(path);
    PlainStream &file = *plain;
    stream = std::move(plain);
    if (begin > 0) {
      resynchronize(begin);
      file.seek(offset_);
    }
    return;
  }
  case Compression::Gzip:
  case Compression::Zlib:
    if (begin != 0)
      throw std::invalid_argument(path + ": a " + compressionName(compression) +
                                  " file is read whole, not from offset " +
                                  std::to_string(begin));
    if (compression == Compression::Gzip)
      stream = std::make_unique<GzipStream>(path);
    else
      stream = std::make_unique<ZlibStream>(path);
    return;
  }
}

RecordReader::~RecordReader() = default;

std::string RecordReader::where() const {
  if (begin_ == 0)
    return path_;
  return path_ + " [bytes " + std::to_string(begin_) + ", " +
         (end_ ? std::to_string(*end_) : std::string("end")) + ")";
}

RecordError RecordReader::failure(const std::string &what) const {
  return RecordError(where() + ": record " + std::to_string(index_) +
                     " at offset " + std::to_string(offset_) + ": " + what);
}

void RecordReader::resynchronize(uint64_t begin) {
  auto &file = static_cast<PlainStream &>(*stream).file;
  const uint64_t size = file.size(path_);
  const uint64_t stop = std::min(size, end_.value_or(size));
  // A window of the file, scanned for a header at each offset; a header
  // that checks is followed by its data, read apart.
  std::vector<unsigned char> window;
  uint64_t windowAt = begin;
  std::string data;
  for (uint64_t at = begin; at < stop && at + 12 <= size; ++at) {
    if (at + 12 > windowAt + window.size()) {
      windowAt = at;
      window.resize(kBufferBytes);
      window.resize(file.readAt(window.data(), window.size(), at, path_));
      if (window.size() < 12)
        break;
    }
    const unsigned char *header = window.data() + (at - windowAt);
    if (!validHeader(header))
      continue;
    uint64_t length = getLittleEndian(header, 8);
    if (length > size || at + 16 + length > size)
      continue; // no record of this file: it would end past it
    offset_ = at;
    data.resize(length + 4);
    if (file.readAt(data.data(), data.size(), at + 12, path_) != data.size())
      continue;
    uint32_t crc = static_cast<uint32_t>(getLittleEndian(
        reinterpret_cast<const unsigned char *>(data.data()) + length, 4));
    if (crc == maskCrc(crc32c(data.data(), length)))
      return;
    // A valid header of a record that fits in the file, whose data does
    // not match: a corrupt record. Bytes inside a record that merely look
    // like a header (a chance of 2^-32 at each offset) hold a length that
    // fits in the file with a chance of (file size / 2^64) more; so it
    // starts here, in this range, which no other range reads, and next()
    // reports it rather than leaving it unread.
    return;
  }
  offset_ = std::max(stop, begin); // no record starts in the range
}

size_t RecordReader::read(void *buffer, size_t size) {
  try {
    return stream->read(buffer, size);
  } catch (const RecordError &error) {
    throw failure(error.what());
  }
}

std::optional<std::string> RecordReader::next() {
  std::string data;
  if (!next(data))
    return std::nullopt;
  return data;
}

bool RecordReader::next(std::string &data) {
  if (end_ && offset_ >= *end_)
    return false;
  canContinue_ = false;
  unsigned char header[12];
  size_t got = read(header, sizeof(header));
  if (got == 0) {
    if (stream->truncated)
      throw failure("truncated: the compressed stream ends before its end");
    canContinue_ = true;
    return false;
  }
  if (got != sizeof(header))
    throw failure("truncated header (" + std::to_string(got) + " of 12 bytes)");
  uint64_t length = getLittleEndian(header, 8);
  if (!validHeader(header))
    throw failure("length CRC mismatch");
  // The data is read in pieces, so that a corrupt length cannot make us
  // allocate much more than the file holds (its size is not known before
  // decompression). Bytes `data` holds already are overwritten, not
  // cleared first.
  constexpr uint64_t kPiece = 16 << 20;
  for (uint64_t filled = 0; filled < length;) {
    size_t piece = static_cast<size_t>(std::min(kPiece, length - filled));
    if (data.size() < filled + piece)
      data.resize(filled + piece);
    if (read(data.data() + filled, piece) != piece)
      throw failure("truncated: length " + std::to_string(length) +
                    " but the file ends first");
    filled += piece;
  }
  data.resize(length);
  unsigned char footer[4];
  if (read(footer, 4) != 4)
    throw failure("truncated: the data's CRC is missing");
  if (static_cast<uint32_t>(getLittleEndian(footer, 4)) !=
      maskCrc(crc32c(data))) {
    RecordError error = failure("data CRC mismatch");
    // The framing holds: the next record follows.
    offset_ += 12 + length + 4;
    ++index_;
    canContinue_ = true;
    throw error;
  }
  offset_ += 12 + length + 4;
  ++index_;
  canContinue_ = true;
  return true;
}

} // namespace dtf::data
