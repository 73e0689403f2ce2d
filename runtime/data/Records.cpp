//===- Records.cpp - TFRecord framing -------------------------------------===//

#include "runtime/data/Records.h"

#include "runtime/core/Crc32c.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>

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
  errno = 0;
  // gzopen reads a file without a gzip header as it is.
  file = gzopen(path.c_str(), "rb");
  if (!file)
    throw RecordError("cannot open " + path + ": " +
                      (errno ? errnoText() : "out of memory"));
  gzbuffer(file, 1 << 17);
}

RecordReader::~RecordReader() {
  if (file)
    gzclose(file);
}

size_t RecordReader::read(void *buffer, size_t size) {
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
      if (code == Z_BUF_ERROR)
        return done;
      throw RecordError(path_ + ": record " + std::to_string(index_) +
                        " at offset " + std::to_string(offset_) +
                        ": cannot read: " + message);
    }
    if (got == 0)
      return done;
    done += static_cast<size_t>(got);
  }
  return done;
}

std::optional<std::string> RecordReader::next() {
  auto fail = [&](const std::string &what) -> RecordError {
    return RecordError(path_ + ": record " + std::to_string(index_) +
                       " at offset " + std::to_string(offset_) + ": " + what);
  };
  unsigned char header[12];
  size_t got = read(header, sizeof(header));
  if (got == 0)
    return std::nullopt;
  if (got != sizeof(header))
    throw fail("truncated header (" + std::to_string(got) + " of 12 bytes)");
  uint64_t length = getLittleEndian(header, 8);
  uint32_t lengthCrc = static_cast<uint32_t>(getLittleEndian(header + 8, 4));
  if (lengthCrc != maskCrc(crc32c(header, 8)))
    throw fail("length CRC mismatch");
  // The data is read in pieces, so that a corrupt length cannot make us
  // allocate much more than the file holds (its size is not known before
  // decompression).
  std::string data;
  constexpr uint64_t kPiece = 16 << 20;
  while (data.size() < length) {
    size_t before = data.size();
    size_t piece = static_cast<size_t>(std::min(kPiece, length - before));
    data.resize(before + piece);
    if (read(data.data() + before, piece) != piece)
      throw fail("truncated: length " + std::to_string(length) +
                 " but the file ends first");
  }
  unsigned char footer[4];
  if (read(footer, 4) != 4)
    throw fail("truncated: the data's CRC is missing");
  if (static_cast<uint32_t>(getLittleEndian(footer, 4)) !=
      maskCrc(crc32c(data)))
    throw fail("data CRC mismatch");
  offset_ += 12 + length + 4;
  ++index_;
  return data;
}

} // namespace dtf::data
