//===- Records.h - TFRecord framing ------------------------------*- C++
//-*-===//
//
// TensorFlow's record format (tensorflow/core/lib/io/record_writer.h), the
// framing of TFRecord data files and of TensorBoard event files. Each record
// is
//
//   uint64  length                      (little-endian)
//   uint32  masked CRC-32C of length    (of its 8 bytes)
//   byte    data[length]
//   uint32  masked CRC-32C of data
//
// with no file header or padding. A file may be gzip-compressed as a whole
// (TFRecordOptions(compression_type="GZIP")); the reader takes either.
//
//===----------------------------------------------------------------------===//

#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

struct gzFile_s;

namespace dtf::data {

/// A file that cannot be written or read, or a record that is corrupt; the
/// message names the file and, for a bad record, its offset.
class RecordError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// The framed bytes of one record holding `data`.
std::string frameRecord(std::string_view data);

/// Appends records to a file.
class RecordWriter {
public:
  /// Creates (truncates) `path`; throws RecordError naming it on failure.
  explicit RecordWriter(const std::string &path);
  ~RecordWriter();
  RecordWriter(const RecordWriter &) = delete;
  RecordWriter &operator=(const RecordWriter &) = delete;

  void write(std::string_view data);
  /// Hands the written records to the OS, so that a reader sees them.
  void flush();
  const std::string &path() const { return path_; }

private:
  std::string path_;
  std::FILE *file = nullptr;
};

/// Reads the records of a file in order, plain or gzip-compressed, checking
/// every length and CRC.
class RecordReader {
public:
  /// Throws RecordError naming `path` when it cannot be opened.
  explicit RecordReader(const std::string &path);
  ~RecordReader();
  RecordReader(const RecordReader &) = delete;
  RecordReader &operator=(const RecordReader &) = delete;

  /// The next record's data; nullopt at the end of the file. Throws
  /// RecordError on a truncated record or a CRC mismatch, naming the file,
  /// the record's index and its offset (in the uncompressed stream).
  std::optional<std::string> next();
  /// Offset of the next record in the uncompressed stream.
  uint64_t offset() const { return offset_; }
  /// Index of the next record.
  int64_t index() const { return index_; }

private:
  /// Reads up to `size` bytes; fewer only at the end of the stream.
  size_t read(void *buffer, size_t size);

  std::string path_;
  gzFile_s *file = nullptr;
  uint64_t offset_ = 0;
  int64_t index_ = 0;
};

} // namespace dtf::data
