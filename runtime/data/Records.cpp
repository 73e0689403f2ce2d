//===- Records.cpp - TFRecord framing of event files ----------------------===//

#include "runtime/summary/Records.h"

#include "runtime/core/Crc32c.h"

#include <cerrno>
#include <cstring>

namespace dtf::summary {
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
  file = std::fopen(path.c_str(), "rb");
  if (!file)
    throw RecordError("cannot open " + path + ": " + errnoText());
}

RecordReader::~RecordReader() {
  if (file)
    std::fclose(file);
}

std::optional<std::string> RecordReader::next() {
  auto fail = [&](const std::string &what) -> RecordError {
    return RecordError(path_ + ": record at offset " +
                       std::to_string(offset_) + ": " + what);
  };
  unsigned char header[12];
  size_t got = std::fread(header, 1, sizeof(header), file);
  if (got == 0 && std::feof(file))
    return std::nullopt;
  if (got != sizeof(header))
    throw fail("truncated header (" + std::to_string(got) + " of 12 bytes)");
  uint64_t length = getLittleEndian(header, 8);
  uint32_t lengthCrc = static_cast<uint32_t>(getLittleEndian(header + 8, 4));
  if (lengthCrc != maskCrc(crc32c(header, 8)))
    throw fail("length CRC mismatch");
  std::string data;
  // A corrupt length cannot make us allocate more than the file holds.
  long here = std::ftell(file);
  if (std::fseek(file, 0, SEEK_END) != 0)
    throw fail("cannot seek: " + errnoText());
  long end = std::ftell(file);
  std::fseek(file, here, SEEK_SET);
  if (here < 0 || end < 0 || length + 4 > static_cast<uint64_t>(end - here))
    throw fail("truncated: length " + std::to_string(length) + " but " +
               std::to_string(end - here) + " bytes left");
  data.resize(length);
  unsigned char footer[4];
  if (std::fread(data.data(), 1, length, file) != length ||
      std::fread(footer, 1, 4, file) != 4)
    throw fail("truncated data");
  if (static_cast<uint32_t>(getLittleEndian(footer, 4)) !=
      maskCrc(crc32c(data)))
    throw fail("data CRC mismatch");
  offset_ += 12 + length + 4;
  return data;
}

} // namespace dtf::summary
