//===- Examples.h - tf.train.Example features from TFRecord files ---------===//
//
// The format TensorFlow users keep training data in: TFRecord files
// (Records.h), plain or gzip-compressed, of serialized tf.train.Example
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
#include <optional>
#include <string>
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
};

/// The files matching the glob(3) pattern `pattern`, sorted; a pattern
/// without wildcards names one file, which must exist. Throws naming the
/// pattern when nothing matches.
std::vector<std::string> matchFiles(const std::string &pattern);

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
