//===- Array.h - An array as a data file holds it -------------------------===//
//
// What a reader returns before the array becomes a placeholder's column
// (Inputs.h): the file's own element type (bytes of pixels, int64 labels,
// float features), its shape with dimension 0 indexing the examples, and
// where it came from, for errors.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/core/Tensor.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace dtf::data {

/// The element types that data files hold: those of DType, and the
/// unsigned bytes of IDX files, NumPy's uint8 and tf.train.Example's
/// bytes_list.
enum class ElementType { U8, I32, I64, F32, F64, Bool };

/// "uint8", "int32", "int64", "float32", "float64", "bool" (NumPy's names).
const char *elementTypeName(ElementType type);
size_t elementTypeSize(ElementType type);

struct Array {
  ElementType type = ElementType::U8;
  /// Dimension 0 indexes the examples.
  Shape shape;
  /// Row-major, in the host's (little-endian) byte order.
  std::vector<uint8_t> bytes;
  /// What the array was read from ("train.npz member x.npy"), for errors.
  std::string source;
};

} // namespace dtf::data
