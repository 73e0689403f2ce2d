//===- Npy.h - NumPy .npy and .npz files ----------------------------------===//
//
// NumPy's array format (numpy.lib.format, versions 1 to 3): the magic
// "\x93NUMPY", a version, a header that is a Python dict literal
// {'descr': '<f4', 'fortran_order': False, 'shape': (60000, 784), } and the
// elements. `.npz` files (numpy.savez, savez_compressed) are zip archives of
// .npy members, read with libzip. Little-endian C-order arrays of bool,
// uint8, int32, int64, float32 and float64 are read; anything else is an
// error naming the file. Every failure throws std::runtime_error.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/data/Array.h"

#include <string>
#include <string_view>
#include <vector>

namespace dtf::data {

/// Parses the bytes of one .npy file; `source` names it in errors.
Array parseNpy(std::string_view bytes, const std::string &source);

/// Reads a .npy file.
Array readNpy(const std::string &path);

/// Reads member `key` (`key.npy`) of a .npz archive; an absent key is an
/// error listing the archive's keys.
Array readNpzMember(const std::string &path, const std::string &key);

} // namespace dtf::data
