//===- Crc32c.h - CRC-32C (Castagnoli) checksums ----------------*- C++ -*-===//
//
// The checksum of TensorFlow's file formats, which DTF writes and reads:
// TFRecord framing (event files, runtime/summary) and checkpoint files
// (runtime/checkpoint). CRC-32C is polynomial 0x1EDC6F41, reflected (iSCSI,
// RFC 3720); the "masked" form is stored next to data that may itself
// contain CRCs. (Debian packages no CRC-32C library for C++; Google's
// crc32c, which TensorFlow uses, is not in bookworm.)
//
// crc32c() picks its implementation once, at run time, by the CPU's
// features (never by -march: the binaries run on any x86-64): SSE4.2's
// `crc32` instruction on three interleaved streams on x86-64, the ARMv8
// CRC32 instructions on AArch64, and a portable slicing-by-8 table
// elsewhere.
//
//===----------------------------------------------------------------------===//

#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace dtf {

/// The CRC-32C of `size` bytes at `data`, continuing from `crc` (the CRC of
/// the bytes before them; 0 to start). crc32c("123456789") == 0xE3069283.
uint32_t crc32c(const void *data, size_t size, uint32_t crc = 0);

inline uint32_t crc32c(std::string_view bytes) {
  return crc32c(bytes.data(), bytes.size());
}

/// TensorFlow's masking (tensorflow/core/lib/hash/crc32c.h): a CRC stored
/// in the data it covers would make checksums of checksums degenerate, so
/// the stored value is rotated and offset.
inline uint32_t maskCrc(uint32_t crc) {
  return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}

inline uint32_t unmaskCrc(uint32_t masked) {
  uint32_t rotated = masked - 0xa282ead8u;
  return (rotated >> 17) | (rotated << 15);
}

namespace detail {

/// The implementations behind crc32c(), for its tests and benchmarks: the
/// portable slicing-by-8 table, always available, and the CPU's
/// instructions where crc32cHardwareAvailable() (where they are not,
/// crc32cHardware() runs crc32cPortable()).
uint32_t crc32cPortable(const void *data, size_t size, uint32_t crc = 0);
bool crc32cHardwareAvailable();
uint32_t crc32cHardware(const void *data, size_t size, uint32_t crc = 0);

/// What crc32c() runs: "sse4.2", "armv8-crc" or "slicing-by-8".
const char *crc32cImplementation();

} // namespace detail
} // namespace dtf
