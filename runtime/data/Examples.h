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
// number of values. Every failure throws std::runtime_error naming the file
// and the record.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/data/Array.h"

#include <string>
#include <vector>

namespace dtf::data {

/// The files matching the glob(3) pattern `pattern`, sorted; a pattern
/// without wildcards names one file, which must exist. Throws naming the
/// pattern when nothing matches.
std::vector<std::string> matchFiles(const std::string &pattern);

/// Reads every record of `files`, in order, and returns one array per name
/// of `features`, dimension 0 indexing the examples.
std::vector<Array>
readExampleFeatures(const std::vector<std::string> &files,
                    const std::vector<std::string> &features);

} // namespace dtf::data
