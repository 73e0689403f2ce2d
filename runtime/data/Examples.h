//===- Examples.h - tf.train.Example features from TFRecord files ---------===//
//
// The format TensorFlow users keep training data in: TFRecord files
// (Records.h), plain, GZIP- or ZLIB-compressed, of serialized tf.train.Example
// protos (proto/example.proto, wire-compatible with TensorFlow's). A
// feature becomes one array row per example:
//
//   float_list  float32 values
//   int64_list  int64 values
//   bytes_list  one value of raw bytes, read as uint8 (an image's pixels, as
//               TensorFlow's convert_to_records.py writes them)
//
// Every example must hold each feature asked for, with the same kind and
// number of values; an example without one is an error naming the feature.
// A varlen feature (tf.io.VarLenFeature) is ragged instead: an int64_list
// of any length up to the row's, its values followed by kVarLenPadding to
// fill the row; an example without the feature, or whose feature holds no
// kind of list, has an empty list.
//
// Ids are checked as they are read, where the record that holds them is
// still known: a varlen feature's ids, and those of any feature whose
// request names the embedding table they look up, must be at least 0 (-1
// pads a row, and no table has a negative row), and below the table's
// rows when it has a fixed number. Every failure throws std::runtime_error
// naming the file and the record.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/data/Array.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dtf::data {

/// What fills a varlen row after an example's values: the padding id, an
/// empty slot to an embedding lookup.
inline constexpr int64_t kVarLenPadding = -1;

/// The embedding table a feature's ids look up.
struct IdTable {
  std::string name;
  /// Its rows, the bound of its ids; unset for a dynamic (hashed) table,
  /// whose ids are any int64 of at least 0.
  std::optional<int64_t> rows;
};

/// One feature to read from every example.
struct FeatureRequest {
  std::string name;
  /// Ragged int64 ids padded to rows of `rowLength` (see above).
  bool varlen = false;
  int64_t rowLength = 0;
  /// What the row feeds, for the error of a list longer than the row
  /// ("placeholder 'cat_ids' (i64 [5] per example)").
  std::string rowOf;
  /// The table the feature's ids look up, whose rows they must be; unset
  /// when no lookup takes them (or none is known).
  std::optional<IdTable> table;
  /// The values every example's feature must hold (not varlen): what one
  /// example of `rowOf` takes. Unset: as many as the first example's.
  std::optional<int64_t> values;
};

/// Parses serialized tf.train.Examples into one array row per example and
/// request: the work on each record of readExampleFeatures, which streaming
/// input (Streaming.h) does on its records in chunks.
class ExampleParser {
public:
  explicit ExampleParser(std::vector<FeatureRequest> features);
  ~ExampleParser();
  ExampleParser(ExampleParser &&) noexcept;
  ExampleParser &operator=(ExampleParser &&) noexcept;

  /// Appends a row to each array for the Example serialized in `record`,
  /// the record numbered `index` of `file`. On an error appends nothing and
  /// throws std::runtime_error "<file>: record <index>: <why>". Every
  /// example's features must have the kind and number of values of the
  /// first example this parser took (or `values`).
  void add(std::string_view record, const std::string &file, int64_t index);
  /// Examples added since the last take().
  int64_t examples() const { return rows; }
  /// One array per request of the examples added since the last take(),
  /// dimension 0 indexing them (a varlen feature's is int64 [examples,
  /// rowLength]); each array's source is "feature 'F' of <of>".
  std::vector<Array> take(const std::string &of);

private:
  struct State;
  std::vector<FeatureRequest> features;
  std::unique_ptr<State> state;
  std::vector<Array> arrays;
  std::vector<size_t> counts;
  int64_t rows = 0;
  int64_t parsed = 0;
};

/// The files matching the glob(3) pattern `pattern`, sorted; a pattern
/// without wildcards names one file, which must exist. Throws naming the
/// pattern when nothing matches.
std::vector<std::string> matchFiles(const std::string &pattern);

/// The files matching any of the glob(3) patterns in `patterns`, separated
/// by ':' as the directories of $PATH are (each as matchFiles takes it;
/// a comma would clash with the options of an --input binding), sorted,
/// each once. Throws
/// std::runtime_error naming the pattern that matches nothing, or saying
/// that the list (or one of its patterns) is empty.
std::vector<std::string> matchFilePatterns(const std::string &patterns);

/// Reads every record of `files`, in order, and returns one array per
/// request, dimension 0 indexing the examples: a varlen feature's is int64
/// [examples, rowLength].
std::vector<Array>
readExampleFeatures(const std::vector<std::string> &files,
                    const std::vector<FeatureRequest> &features);

/// The same, for features that are not varlen.
std::vector<Array>
readExampleFeatures(const std::vector<std::string> &files,
                    const std::vector<std::string> &features);

} // namespace dtf::data
