//===- Crc32c.cpp - CRC-32C (Castagnoli) ----------------------------------===//
//
// Three implementations, one chosen at run time by the CPU's features:
//
// - x86-64 with SSE4.2: the `crc32` instruction, 8 bytes at a time, on three
//   interleaved streams (its latency is 3 cycles, its throughput 1 a cycle),
//   combined by shifting a stream's CRC over the bytes of the streams after
//   it (as Intel's paper and Google's crc32c library do). Compiled with
//   `target("sse4.2")` on those functions only, never -msse4.2 or -march.
// - AArch64 (little-endian Linux): the ARMv8 CRC32C instructions, where
//   getauxval(AT_HWCAP) reports HWCAP_CRC32.
// - Anywhere else: slicing-by-8 tables, portable C++.
//
//===----------------------------------------------------------------------===//

#include "runtime/core/Crc32c.h"

#include <array>
#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define DTF_CRC32C_SSE42 1
#include <nmmintrin.h>
#else
#define DTF_CRC32C_SSE42 0
#endif

#if defined(__aarch64__) && defined(__linux__) && defined(__BYTE_ORDER__) &&   \
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ &&                               \
    (defined(__GNUC__) || defined(__clang__))
#define DTF_CRC32C_ARM 1
#include <arm_acle.h>
#include <sys/auxv.h>
#ifndef HWCAP_CRC32
#define HWCAP_CRC32 (1 << 7)
#endif
// Clang before 16 declares the ACLE's __crc32c* only when the whole file is
// compiled for +crc; its builtins need the function's target alone.
#if defined(__clang__)
#define DTF_TARGET_CRC __attribute__((target("crc")))
#define DTF_CRC32CB __builtin_arm_crc32cb
#define DTF_CRC32CD __builtin_arm_crc32cd
#else
#define DTF_TARGET_CRC __attribute__((target("+crc")))
#define DTF_CRC32CB __crc32cb
#define DTF_CRC32CD __crc32cd
#endif
#else
#define DTF_CRC32C_ARM 0
#endif

namespace dtf {
namespace {

using Crc32cFn = uint32_t (*)(const void *, size_t, uint32_t);

/// The reflected polynomial 0x1EDC6F41.
constexpr uint32_t kPoly = 0x82F63B78u;

/// Slicing-by-8: kTables[0] is the byte-at-a-time table; kTables[k][b] is
/// the CRC of byte b followed by k zero bytes.
using Tables = std::array<std::array<uint32_t, 256>, 8>;

constexpr Tables makeTables() {
  Tables tables{};
  for (uint32_t byte = 0; byte < 256; ++byte) {
    uint32_t crc = byte;
    for (int bit = 0; bit < 8; ++bit)
      crc = (crc >> 1) ^ ((crc & 1) ? kPoly : 0u);
    tables[0][byte] = crc;
  }
  for (size_t k = 1; k < 8; ++k)
    for (uint32_t byte = 0; byte < 256; ++byte) {
      uint32_t prev = tables[k - 1][byte];
      tables[k][byte] = (prev >> 8) ^ tables[0][prev & 0xff];
    }
  return tables;
}

constexpr Tables kTables = makeTables();

#if DTF_CRC32C_SSE42 || DTF_CRC32C_ARM
inline uint64_t load64(const unsigned char *p) {
  uint64_t word;
  std::memcpy(&word, p, sizeof word);
  return word;
}
#endif

#if DTF_CRC32C_SSE42

// The lengths of one stream's block: 3 x 8 KiB while that many bytes are
// left, then 3 x 256 bytes, then one stream.
constexpr size_t kLongBlock = 8192;
constexpr size_t kShortBlock = 256;

/// The linear map that runs a CRC (without its pre- and post-inversion)
/// over `n` zero bytes, as four tables of its byte lanes:
/// shift(crc) == the CRC of crc followed by n zero bytes.
struct ZerosShift {
  uint32_t lanes[4][256];

  uint32_t shift(uint32_t crc) const {
    return lanes[0][crc & 0xff] ^ lanes[1][(crc >> 8) & 0xff] ^
           lanes[2][(crc >> 16) & 0xff] ^ lanes[3][crc >> 24];
  }
};

__attribute__((target("sse4.2"))) void makeZerosShift(ZerosShift &out,
                                                      size_t n) {
  // The images of the 32 basis vectors, by running the instruction itself.
  uint32_t basis[32];
  for (int bit = 0; bit < 32; ++bit) {
    uint64_t crc = uint64_t{1} << bit;
    for (size_t i = 0; i < n / 8; ++i)
      crc = _mm_crc32_u64(crc, 0);
    basis[bit] = static_cast<uint32_t>(crc);
  }
  for (int lane = 0; lane < 4; ++lane)
    for (uint32_t byte = 0; byte < 256; ++byte) {
      uint32_t image = 0;
      for (int bit = 0; bit < 8; ++bit)
        if (byte & (1u << bit))
          image ^= basis[lane * 8 + bit];
      out.lanes[lane][byte] = image;
    }
}

struct Sse42Shifts {
  ZerosShift longBlock, shortBlock;
  Sse42Shifts() {
    makeZerosShift(longBlock, kLongBlock);
    makeZerosShift(shortBlock, kShortBlock);
  }
};

const Sse42Shifts &sse42Shifts() {
  static const Sse42Shifts shifts;
  return shifts;
}

/// Three streams of `block` bytes each from `p`, continuing `crc`.
__attribute__((target("sse4.2"))) inline uint64_t
threeStreams(uint64_t crc, const unsigned char *p, size_t block,
             const ZerosShift &shift) {
  uint64_t crc1 = 0, crc2 = 0;
  const unsigned char *end = p + block;
  do {
    crc = _mm_crc32_u64(crc, load64(p));
    crc1 = _mm_crc32_u64(crc1, load64(p + block));
    crc2 = _mm_crc32_u64(crc2, load64(p + 2 * block));
    p += 8;
  } while (p != end);
  // crc(A B C) = shift(shift(crc(A)) ^ crc0(B)) ^ crc0(C), where crc0
  // starts from zero: the CRC (uninverted) is linear in its start.
  uint32_t combined =
      shift.shift(static_cast<uint32_t>(crc)) ^ static_cast<uint32_t>(crc1);
  return shift.shift(combined) ^ static_cast<uint32_t>(crc2);
}

__attribute__((target("sse4.2"))) uint32_t
crc32cSse42(const void *data, size_t size, uint32_t crc) {
  const auto *p = static_cast<const unsigned char *>(data);
  uint64_t state = ~crc;
  // Aligned loads from here on (unaligned ones are correct, only slower
  // where they cross cache lines).
  while (size > 0 && (reinterpret_cast<uintptr_t>(p) & 7) != 0) {
    state = _mm_crc32_u8(static_cast<uint32_t>(state), *p++);
    --size;
  }
  if (size >= 3 * kShortBlock) {
    const Sse42Shifts &shifts = sse42Shifts();
    while (size >= 3 * kLongBlock) {
      state = threeStreams(state, p, kLongBlock, shifts.longBlock);
      p += 3 * kLongBlock;
      size -= 3 * kLongBlock;
    }
    while (size >= 3 * kShortBlock) {
      state = threeStreams(state, p, kShortBlock, shifts.shortBlock);
      p += 3 * kShortBlock;
      size -= 3 * kShortBlock;
    }
  }
  while (size >= 8) {
    state = _mm_crc32_u64(state, load64(p));
    p += 8;
    size -= 8;
  }
  while (size > 0) {
    state = _mm_crc32_u8(static_cast<uint32_t>(state), *p++);
    --size;
  }
  return ~static_cast<uint32_t>(state);
}

#endif // DTF_CRC32C_SSE42

#if DTF_CRC32C_ARM

DTF_TARGET_CRC uint32_t crc32cArm(const void *data, size_t size, uint32_t crc) {
  const auto *p = static_cast<const unsigned char *>(data);
  uint32_t state = ~crc;
  while (size > 0 && (reinterpret_cast<uintptr_t>(p) & 7) != 0) {
    state = DTF_CRC32CB(state, *p++);
    --size;
  }
  while (size >= 8) {
    state = DTF_CRC32CD(state, load64(p));
    p += 8;
    size -= 8;
  }
  while (size > 0) {
    state = DTF_CRC32CB(state, *p++);
    --size;
  }
  return ~state;
}

#endif // DTF_CRC32C_ARM

struct Implementation {
  Crc32cFn fn;
  const char *name;
};

Implementation chooseImplementation() {
#if DTF_CRC32C_SSE42
  __builtin_cpu_init();
  if (__builtin_cpu_supports("sse4.2"))
    return {crc32cSse42, "sse4.2"};
#endif
#if DTF_CRC32C_ARM
  if (getauxval(AT_HWCAP) & HWCAP_CRC32)
    return {crc32cArm, "armv8-crc"};
#endif
  return {detail::crc32cPortable, "slicing-by-8"};
}

const Implementation &implementation() {
  static const Implementation chosen = chooseImplementation();
  return chosen;
}

} // namespace

uint32_t crc32c(const void *data, size_t size, uint32_t crc) {
  return implementation().fn(data, size, crc);
}

namespace detail {

uint32_t crc32cPortable(const void *data, size_t size, uint32_t crc) {
  const auto *p = static_cast<const unsigned char *>(data);
  crc = ~crc;
  while (size >= 8) {
    // Bytes assembled one by one: the same on either byte order.
    uint32_t low = crc ^ (uint32_t{p[0]} | uint32_t{p[1]} << 8 |
                          uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24);
    crc = kTables[7][low & 0xff] ^ kTables[6][(low >> 8) & 0xff] ^
          kTables[5][(low >> 16) & 0xff] ^ kTables[4][low >> 24] ^
          kTables[3][p[4]] ^ kTables[2][p[5]] ^ kTables[1][p[6]] ^
          kTables[0][p[7]];
    p += 8;
    size -= 8;
  }
  while (size > 0) {
    crc = kTables[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
    --size;
  }
  return ~crc;
}

bool crc32cHardwareAvailable() { return implementation().fn != crc32cPortable; }

uint32_t crc32cHardware(const void *data, size_t size, uint32_t crc) {
  return implementation().fn(data, size, crc);
}

const char *crc32cImplementation() { return implementation().name; }

} // namespace detail
} // namespace dtf
