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
// with no file header or padding. A file may be compressed as a whole
// (TFRecordOptions(compression_type=...)): "GZIP" is a gzip stream, "ZLIB"
// one zlib-wrapped deflate stream; the reader takes either, and plain files.
//
// A plain file can also be read in byte ranges (streaming input's units of
// work, runtime/core/WorkUnits.h): the reader of [begin, end) returns the
// records whose first byte is in the range, so that every record belongs to
// exactly one range of any split of the file. A range that does not start
// at 0 starts at the first offset >= begin where a valid record starts (its
// length's CRC and its data's CRC both match), found by trying each byte;
// or where a corrupt one does (a valid header whose record fits in the file,
// but whose data's CRC does not match: next() reports it, as no other range
// would read it).
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/core/WorkUnits.h"

#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace dtf::data {

/// A file that cannot be written or read, or a record that is corrupt; the
/// message names the file and, for a bad record, its offset.
class RecordError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// The framed bytes of one record holding `data`.
std::string frameRecord(std::string_view data);

/// How the TFRecord file at `path` is compressed, from its first bytes:
/// plain when they are a valid record header (a length and its masked
/// CRC-32C) or the file is empty, else GZIP by gzip's magic bytes 1f 8b,
/// else ZLIB by a valid zlib header. Throws RecordError naming the file when
/// it cannot be opened or is none of these.
Compression detectCompression(const std::string &path);

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

/// Reads the records of a file in order, plain or compressed, checking
/// every length and CRC.
class RecordReader {
public:
  /// Reads all of `path`, plain, gzip- or zlib-compressed (told apart as
  /// detectCompression does; a file that is none of these is read as plain
  /// and fails at its first record). Throws RecordError naming `path` when
  /// it cannot be opened.
  explicit RecordReader(const std::string &path);
  /// Reads `path` compressed as `compression`. A plain file is read from
  /// the first record starting at or after `begin` (see above) to the last
  /// one starting before `end` (read to its own end, even past `end`);
  /// unset, to the end of the file. A compressed file is read whole: `begin`
  /// must be 0 (std::invalid_argument otherwise) and `end` is ignored.
  /// Throws RecordError naming `path` when it cannot be opened.
  RecordReader(const std::string &path, Compression compression,
               uint64_t begin = 0, std::optional<uint64_t> end = std::nullopt);
  ~RecordReader();
  RecordReader(const RecordReader &) = delete;
  RecordReader &operator=(const RecordReader &) = delete;

  /// The next record's data; nullopt at the end of the file (or range).
  /// Throws RecordError on a truncated record or stream or a CRC mismatch,
  /// naming the file (and the range, for one that starts past 0), the
  /// record's index and its offset (in the uncompressed stream).
  std::optional<std::string> next();
  /// As next(), into `data` (its memory reused: a reader of many small
  /// records allocates none per record); false at the end. `data` holds
  /// nothing of use after a throw.
  bool next(std::string &data);
  /// Offset of the next record in the uncompressed stream (in the file,
  /// for a plain one): what next() returned spans the offsets between
  /// offset() before and after the call, framing included.
  uint64_t offset() const { return offset_; }
  /// Index of the next record, from 0 at the start of the range.
  int64_t index() const { return index_; }
  /// Whether next() may be called again after it threw: true when only
  /// the data's CRC of the record was wrong, so that the reader moved past
  /// it (it counts as a record: index() and offset() advanced); false when
  /// the stream is broken (a truncated record or stream, a bad length).
  bool canContinue() const { return canContinue_; }
  const std::string &path() const { return path_; }

  /// Where the reader stands ("f.tfrecord", or "f.tfrecord [bytes 100,
  /// 200)" for a range that does not start at 0), as errors name it.
  std::string where() const;

  class Stream;

private:
  /// Reads up to `size` bytes; fewer only at the end of the stream.
  size_t read(void *buffer, size_t size);
  RecordError failure(const std::string &what) const;
  /// Moves a plain file's reader to the first record at or after `begin`.
  void resynchronize(uint64_t begin);

  std::string path_;
  std::unique_ptr<Stream> stream;
  uint64_t begin_ = 0;
  std::optional<uint64_t> end_;
  uint64_t offset_ = 0;
  int64_t index_ = 0;
  bool canContinue_ = true;
};

} // namespace dtf::data
