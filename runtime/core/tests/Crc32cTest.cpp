//===- Crc32cTest.cpp - CRC-32C against published vectors ----------------===//
//
// The dispatched crc32c(), the portable slicing-by-8 fallback and the CPU's
// instructions (where this machine has them) against the RFC 3720 vectors
// and against a bit-at-a-time reference written here.
//
//===----------------------------------------------------------------------===//

#include "runtime/core/Crc32c.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace dtf {
namespace {

/// The definition itself: one bit at a time, reflected 0x1EDC6F41.
uint32_t referenceCrc(const void *data, size_t size, uint32_t crc = 0) {
  const auto *bytes = static_cast<const unsigned char *>(data);
  crc = ~crc;
  for (size_t i = 0; i < size; ++i) {
    crc ^= bytes[i];
    for (int bit = 0; bit < 8; ++bit)
      crc = (crc >> 1) ^ ((crc & 1) ? 0x82F63B78u : 0u);
  }
  return ~crc;
}

using Crc32cFn = uint32_t (*)(const void *, size_t, uint32_t);

struct Variant {
  const char *name;
  Crc32cFn fn;
};

/// Every implementation this machine can run, the dispatched one first.
std::vector<Variant> variants() {
  std::vector<Variant> out = {
      {"dispatched",
       [](const void *d, size_t n, uint32_t c) { return crc32c(d, n, c); }},
      {"portable", detail::crc32cPortable}};
  if (detail::crc32cHardwareAvailable())
    out.push_back({"hardware", detail::crc32cHardware});
  return out;
}

std::vector<unsigned char> randomBytes(size_t size, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<unsigned char> bytes(size);
  for (auto &byte : bytes)
    byte = static_cast<unsigned char>(rng());
  return bytes;
}

// RFC 3720 (iSCSI) appendix B.4 test vectors and the common check value.
TEST(Crc32c, StandardVectors) {
  EXPECT_EQ(crc32c("123456789"), 0xE3069283u);
  std::string zeros(32, '\0'), ones(32, '\xff'), ascending, descending;
  for (int i = 0; i < 32; ++i) {
    ascending.push_back(static_cast<char>(i));
    descending.push_back(static_cast<char>(31 - i));
  }
  EXPECT_EQ(crc32c(zeros), 0x8A9136AAu);
  EXPECT_EQ(crc32c(ones), 0x62A8AB43u);
  EXPECT_EQ(crc32c(ascending), 0x46DD794Eu);
  EXPECT_EQ(crc32c(descending), 0x113FDB5Cu);
  EXPECT_EQ(crc32c(""), 0u);

  for (const Variant &variant : variants()) {
    SCOPED_TRACE(variant.name);
    EXPECT_EQ(variant.fn("123456789", 9, 0), 0xE3069283u);
    EXPECT_EQ(variant.fn(zeros.data(), 32, 0), 0x8A9136AAu);
    EXPECT_EQ(variant.fn(ones.data(), 32, 0), 0x62A8AB43u);
    EXPECT_EQ(variant.fn(ascending.data(), 32, 0), 0x46DD794Eu);
    EXPECT_EQ(variant.fn(descending.data(), 32, 0), 0x113FDB5Cu);
    EXPECT_EQ(variant.fn(nullptr, 0, 0), 0u);
    EXPECT_EQ(referenceCrc(ascending.data(), 32), 0x46DD794Eu);
  }
}

// The instructions must be what runs where the CPU has them: a machine
// that has SSE4.2 (every x86-64 CI machine) tests both paths.
TEST(Crc32c, UsesTheCpusInstructions) {
  std::string name = detail::crc32cImplementation();
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  if (__builtin_cpu_supports("sse4.2")) {
    EXPECT_TRUE(detail::crc32cHardwareAvailable());
    EXPECT_EQ(name, "sse4.2");
  } else {
    EXPECT_EQ(name, "slicing-by-8");
  }
#endif
  EXPECT_EQ(detail::crc32cHardwareAvailable(), name != "slicing-by-8");
  if (!detail::crc32cHardwareAvailable())
    GTEST_SKIP() << "this CPU has no CRC-32C instructions; only the "
                    "portable path is tested";
}

// Every length 0..300 at every alignment 0..15, from zero and from a
// running CRC, against the reference.
TEST(Crc32c, EveryLengthAndAlignment) {
  std::vector<unsigned char> bytes = randomBytes(300 + 16, 1);
  std::vector<Variant> all = variants();
  for (size_t align = 0; align < 16; ++align)
    for (size_t size = 0; size <= 300; ++size) {
      const unsigned char *data = bytes.data() + align;
      uint32_t expected = referenceCrc(data, size);
      uint32_t continued = referenceCrc(data, size, 0x12345678u);
      for (const Variant &variant : all) {
        ASSERT_EQ(variant.fn(data, size, 0), expected)
            << variant.name << " size " << size << " align " << align;
        ASSERT_EQ(variant.fn(data, size, 0x12345678u), continued)
            << variant.name << " size " << size << " align " << align;
      }
    }
}

// Lengths around the hardware path's blocks (3 x 256 and 3 x 8192 bytes)
// and beyond, where the interleaved streams are combined.
TEST(Crc32c, LongBuffers) {
  std::vector<unsigned char> bytes = randomBytes(200000 + 16, 2);
  std::vector<size_t> sizes = {767,   768,   769,   775,    776,   1535,
                               1536,  1537,  24575, 24576,  24577, 24576 + 767,
                               25344, 25351, 49152, 100000, 200000};
  std::vector<Variant> all = variants();
  for (size_t size : sizes)
    for (size_t align : {0, 1, 3, 7, 8, 13}) {
      const unsigned char *data = bytes.data() + align;
      uint32_t expected = referenceCrc(data, size);
      for (const Variant &variant : all)
        ASSERT_EQ(variant.fn(data, size, 0), expected)
            << variant.name << " size " << size << " align " << align;
    }
  std::vector<unsigned char> zeros(65536, 0), ones(65536, 0xff);
  for (const Variant &variant : all) {
    EXPECT_EQ(variant.fn(zeros.data(), zeros.size(), 0),
              referenceCrc(zeros.data(), zeros.size()))
        << variant.name;
    EXPECT_EQ(variant.fn(ones.data(), ones.size(), 0),
              referenceCrc(ones.data(), ones.size()))
        << variant.name;
  }
}

TEST(Crc32c, Extends) {
  std::string text = "hello, tensorboard";
  uint32_t whole = crc32c(text);
  uint32_t partial = crc32c(text.data(), 7);
  EXPECT_EQ(crc32c(text.data() + 7, text.size() - 7, partial), whole);
}

// Extending over a buffer split anywhere (in two, and in three) gives the
// CRC of one call, on every implementation.
TEST(Crc32c, ExtendsOverSplitBuffers) {
  std::vector<unsigned char> bytes = randomBytes(1000, 3);
  std::vector<Variant> all = variants();
  for (const Variant &variant : all) {
    uint32_t whole = variant.fn(bytes.data(), bytes.size(), 0);
    ASSERT_EQ(whole, referenceCrc(bytes.data(), bytes.size()));
    for (size_t split = 0; split <= bytes.size(); ++split) {
      uint32_t first = variant.fn(bytes.data(), split, 0);
      ASSERT_EQ(variant.fn(bytes.data() + split, bytes.size() - split, first),
                whole)
          << variant.name << " split " << split;
    }
    for (size_t a = 0; a <= bytes.size(); a += 37)
      for (size_t b = a; b <= bytes.size(); b += 53) {
        uint32_t crc = variant.fn(bytes.data(), a, 0);
        crc = variant.fn(bytes.data() + a, b - a, crc);
        crc = variant.fn(bytes.data() + b, bytes.size() - b, crc);
        ASSERT_EQ(crc, whole) << variant.name << " splits " << a << ", " << b;
      }
  }
  // A long buffer through the interleaved streams, split into pieces.
  std::vector<unsigned char> longBytes = randomBytes(100000, 4);
  uint32_t whole = referenceCrc(longBytes.data(), longBytes.size());
  for (const Variant &variant : all)
    for (size_t split : {1, 769, 24577, 50000, 99999}) {
      uint32_t first = variant.fn(longBytes.data(), split, 0);
      EXPECT_EQ(
          variant.fn(longBytes.data() + split, longBytes.size() - split, first),
          whole)
          << variant.name << " split " << split;
    }
}

// As TensorFlow's crc32c_test.cc: masking changes the value and unmasks.
TEST(Crc32c, Mask) {
  uint32_t crc = crc32c("foo");
  EXPECT_NE(maskCrc(crc), crc);
  EXPECT_NE(maskCrc(maskCrc(crc)), crc);
  EXPECT_EQ(unmaskCrc(maskCrc(crc)), crc);
  EXPECT_EQ(unmaskCrc(unmaskCrc(maskCrc(maskCrc(crc)))), crc);
  // ((crc >> 15) | (crc << 17)) + 0xa282ead8 for crc = 0.
  EXPECT_EQ(maskCrc(0), 0xa282ead8u);
}

} // namespace
} // namespace dtf
