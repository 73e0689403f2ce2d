//===- Crc32c.cpp - CRC-32C (Castagnoli) checksums ------------------------===//

#include "runtime/checkpoint/Crc32c.h"

#include <array>

namespace dtf::checkpoint {

namespace {

/// Slicing-by-4 tables of the reflected polynomial 0x82F63B78.
struct Tables {
  std::array<std::array<uint32_t, 256>, 4> t{};
  Tables() {
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t crc = i;
      for (int bit = 0; bit < 8; ++bit)
        crc = (crc >> 1) ^ (0x82F63B78u & (0u - (crc & 1u)));
      t[0][i] = crc;
    }
    for (uint32_t i = 0; i < 256; ++i)
      for (int k = 1; k < 4; ++k)
        t[k][i] = (t[k - 1][i] >> 8) ^ t[0][t[k - 1][i] & 0xff];
  }
};

const Tables &tables() {
  static const Tables instance;
  return instance;
}

} // namespace

uint32_t crc32cExtend(uint32_t crc, const void *data, size_t size) {
  const auto &t = tables().t;
  const auto *p = static_cast<const unsigned char *>(data);
  crc = ~crc;
  while (size >= 4) {
    crc ^= uint32_t(p[0]) | (uint32_t(p[1]) << 8) | (uint32_t(p[2]) << 16) |
           (uint32_t(p[3]) << 24);
    crc = t[3][crc & 0xff] ^ t[2][(crc >> 8) & 0xff] ^
          t[1][(crc >> 16) & 0xff] ^ t[0][crc >> 24];
    p += 4;
    size -= 4;
  }
  while (size--)
    crc = (crc >> 8) ^ t[0][(crc ^ *p++) & 0xff];
  return ~crc;
}

} // namespace dtf::checkpoint
