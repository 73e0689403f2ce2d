//===- Crc32c.h - CRC-32C (Castagnoli), as TFRecord files use it -*- C++ -*-===//

#ifndef DTF_RUNTIME_SUMMARY_CRC32C_H
#define DTF_RUNTIME_SUMMARY_CRC32C_H

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace dtf::summary {

/// CRC-32C (polynomial 0x1EDC6F41, reflected; iSCSI, RFC 3720) of `size`
/// bytes, continuing from `crc` (0 to start).
uint32_t crc32c(const void *data, size_t size, uint32_t crc = 0);

inline uint32_t crc32c(std::string_view bytes) {
  return crc32c(bytes.data(), bytes.size());
}

/// TensorFlow's masked CRC (tensorflow/core/lib/hash/crc32c.h): rotated and
/// offset, so that a CRC of data containing CRCs is not degenerate.
inline uint32_t maskCrc(uint32_t crc) {
  return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}

inline uint32_t unmaskCrc(uint32_t masked) {
  uint32_t rotated = masked - 0xa282ead8u;
  return (rotated >> 17) | (rotated << 15);
}

} // namespace dtf::summary

#endif // DTF_RUNTIME_SUMMARY_CRC32C_H
