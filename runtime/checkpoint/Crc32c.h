//===- Crc32c.h - CRC-32C (Castagnoli) checksums ----------------*- C++ -*-===//
//
// The checksum of checkpoint files, as TensorFlow uses it for its record
// and tensor-bundle formats: CRC-32C (polynomial 0x1EDC6F41, reflected), and
// the "masked" form stored next to data that may itself contain CRCs.
//
//===----------------------------------------------------------------------===//

#ifndef DTF_RUNTIME_CHECKPOINT_CRC32C_H
#define DTF_RUNTIME_CHECKPOINT_CRC32C_H

#include <cstddef>
#include <cstdint>

namespace dtf::checkpoint {

/// Extends `crc` (the CRC-32C of some preceding bytes; 0 for none) with
/// `size` bytes at `data`. crc32c("123456789") == 0xE3069283.
uint32_t crc32cExtend(uint32_t crc, const void *data, size_t size);

inline uint32_t crc32c(const void *data, size_t size) {
  return crc32cExtend(0, data, size);
}

/// TensorFlow's masking: a CRC stored in the data it covers would make
/// checksums of checksums degenerate, so the stored value is rotated and
/// offset.
inline uint32_t maskCrc(uint32_t crc) {
  return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}
inline uint32_t unmaskCrc(uint32_t masked) {
  uint32_t rotated = masked - 0xa282ead8u;
  return (rotated >> 17) | (rotated << 15);
}

} // namespace dtf::checkpoint

#endif // DTF_RUNTIME_CHECKPOINT_CRC32C_H
