//===- Crc32cTest.cpp - CRC-32C against published vectors
//------------------===//

#include "runtime/core/Crc32c.h"

#include <gtest/gtest.h>

#include <string>

namespace dtf {
namespace {

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
}

TEST(Crc32c, Extends) {
  std::string text = "hello, tensorboard";
  uint32_t whole = crc32c(text);
  uint32_t partial = crc32c(text.data(), 7);
  EXPECT_EQ(crc32c(text.data() + 7, text.size() - 7, partial), whole);
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
