//===- HostMemoryTest.cpp - Available memory from meminfo and cgroup ------===//

#include "runtime/core/HostMemory.h"

#include <gtest/gtest.h>

namespace dtf {
namespace {

const char *kMeminfo = "MemTotal:       24567890 kB\n"
                       "MemFree:         1000000 kB\n"
                       "MemAvailable:   20000000 kB\n";

TEST(HostMemoryTest, MemAvailableWithoutACgroupLimit) {
  EXPECT_EQ(availableMemoryFrom(kMeminfo, "", ""), 20000000ull * 1024);
  EXPECT_EQ(availableMemoryFrom(kMeminfo, "max\n", "5000\n"),
            20000000ull * 1024);
}

TEST(HostMemoryTest, ACgroupLimitBelowTheHostsMemoryWins) {
  EXPECT_EQ(availableMemoryFrom(kMeminfo, "1073741824\n", "73741824\n"),
            1000000000ull);
  // Over its limit (reclaim pending): nothing is left.
  EXPECT_EQ(availableMemoryFrom(kMeminfo, "1000\n", "2000\n"), 0ull);
}

TEST(HostMemoryTest, NothingKnown) {
  EXPECT_FALSE(availableMemoryFrom("", "", "").has_value());
  EXPECT_FALSE(availableMemoryFrom("MemTotal: 5 kB\n", "max", "").has_value());
}

TEST(HostMemoryTest, ThisHostReportsSomething) {
  std::optional<uint64_t> available = availableHostMemory();
  ASSERT_TRUE(available.has_value());
  EXPECT_GT(*available, 0ull);
}

TEST(HostMemoryTest, FormatBytes) {
  EXPECT_EQ(formatBytes(999), "999 bytes");
  EXPECT_EQ(formatBytes(313000), "313.0 KB");
  EXPECT_EQ(formatBytes(40000000000ull), "40.0 GB");
}

} // namespace
} // namespace dtf
