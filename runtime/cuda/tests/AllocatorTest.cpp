//===- AllocatorTest.cpp - The caching allocator, on host memory ----------===//

#include "runtime/cuda/Allocator.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <set>

namespace dtf::cuda {
namespace {

/// A backing allocator on malloc with a budget, recording what it does.
struct Backing {
  size_t budget = SIZE_MAX;
  size_t used = 0;
  std::set<void *> live;

  CachingAllocator make() {
    return CachingAllocator(
        [this](size_t bytes) -> void * {
          if (used + bytes > budget)
            return nullptr;
          used += bytes;
          void *block = std::malloc(bytes);
          live.insert(block);
          sizes[block] = bytes;
          return block;
        },
        [this](void *block) {
          used -= sizes[block];
          live.erase(block);
          std::free(block);
        });
  }
  std::map<void *, size_t> sizes;
};

TEST(CachingAllocatorTest, RoundsToBlockSizes) {
  EXPECT_EQ(CachingAllocator::roundUp(0), 512u);
  EXPECT_EQ(CachingAllocator::roundUp(1), 512u);
  EXPECT_EQ(CachingAllocator::roundUp(512), 512u);
  EXPECT_EQ(CachingAllocator::roundUp(513), 1024u);
  EXPECT_EQ(CachingAllocator::roundUp(1 << 20), 2u << 20);
  EXPECT_EQ(CachingAllocator::roundUp((2 << 20) + 1), 4u << 20);
}

TEST(CachingAllocatorTest, ReusesFreedBlocks) {
  Backing backing;
  CachingAllocator allocator = backing.make();
  void *a = allocator.allocate(1000);
  allocator.deallocate(a);
  // A training step asks for the same sizes again: no new backing block.
  void *b = allocator.allocate(1000);
  EXPECT_EQ(a, b);
  void *c = allocator.allocate(600);
  EXPECT_NE(c, b);
  MemoryStats stats = allocator.stats();
  EXPECT_EQ(stats.backingAllocations, 2u);
  EXPECT_EQ(stats.inUse, 1024u + 1024u);
  EXPECT_EQ(stats.cached, 0u);
  allocator.deallocate(b);
  allocator.deallocate(c);
  EXPECT_EQ(allocator.stats().cached, 2048u);
  EXPECT_EQ(allocator.stats().peakInUse, 2048u);
}

TEST(CachingAllocatorTest, DoesNotWasteLargeBlocksOnSmallRequests) {
  Backing backing;
  CachingAllocator allocator = backing.make();
  void *large = allocator.allocate(64 << 10);
  allocator.deallocate(large);
  void *small = allocator.allocate(512);
  EXPECT_NE(small, large);
  EXPECT_EQ(allocator.stats().backingAllocations, 2u);
}

TEST(CachingAllocatorTest, ReleasesTheCacheWhenOutOfMemory) {
  Backing backing;
  backing.budget = 4096;
  CachingAllocator allocator = backing.make();
  void *a = allocator.allocate(3000);
  ASSERT_NE(a, nullptr);
  allocator.deallocate(a);
  // 3072 bytes are cached; 2048 more do not fit until the cache goes back.
  void *b = allocator.allocate(4000);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(allocator.stats().backingFrees, 1u);
  EXPECT_EQ(allocator.allocate(1000), nullptr);
  allocator.deallocate(b);
}

TEST(CachingAllocatorTest, GivesEverythingBackOnDestruction) {
  Backing backing;
  {
    CachingAllocator allocator = backing.make();
    allocator.allocate(100);
    allocator.deallocate(allocator.allocate(5000));
  }
  EXPECT_TRUE(backing.live.empty());
  EXPECT_EQ(backing.used, 0u);
}

TEST(CachingAllocatorTest, IgnoresNullAndForeignBlocks) {
  Backing backing;
  CachingAllocator allocator = backing.make();
  allocator.deallocate(nullptr);
  int local = 0;
  allocator.deallocate(&local);
  EXPECT_EQ(allocator.stats().cached, 0u);
}

} // namespace
} // namespace dtf::cuda
