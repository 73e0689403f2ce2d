//===- Allocator.cpp - Caching allocator of device memory -----------------===//

#include "runtime/cuda/Allocator.h"

#include <algorithm>

namespace dtf::cuda {

CachingAllocator::~CachingAllocator() {
  std::lock_guard<std::mutex> lock(mutex);
  releaseCachedLocked();
  for (auto &[block, size] : liveBlocks)
    backingFree(block);
}

size_t CachingAllocator::roundUp(size_t bytes) {
  constexpr size_t kSmall = 512;
  constexpr size_t kLarge = 2 << 20;
  bytes = std::max<size_t>(bytes, 1);
  size_t granule = bytes < (1 << 20) ? kSmall : kLarge;
  return (bytes + granule - 1) / granule * granule;
}

void *CachingAllocator::allocate(size_t bytes) {
  const size_t size = roundUp(bytes);
  std::lock_guard<std::mutex> lock(mutex);
  void *block = nullptr;
  size_t blockSize = size;
  // The smallest cached block that fits, unless it wastes more than half.
  auto it = cachedBlocks.lower_bound(size);
  if (it != cachedBlocks.end() && it->first / 2 < size) {
    blockSize = it->first;
    block = it->second;
    cachedBlocks.erase(it);
    statistics.cached -= blockSize;
  } else {
    block = backingAllocate(size);
    if (!block && !cachedBlocks.empty()) {
      releaseCachedLocked();
      block = backingAllocate(size);
    }
    if (!block)
      return nullptr;
    ++statistics.backingAllocations;
  }
  liveBlocks.emplace(block, blockSize);
  statistics.inUse += blockSize;
  statistics.peakInUse = std::max(statistics.peakInUse, statistics.inUse);
  return block;
}

void CachingAllocator::deallocate(void *block) {
  if (!block)
    return;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = liveBlocks.find(block);
  if (it == liveBlocks.end())
    return;
  size_t size = it->second;
  liveBlocks.erase(it);
  statistics.inUse -= size;
  statistics.cached += size;
  cachedBlocks.emplace(size, block);
}

void CachingAllocator::releaseCached() {
  std::lock_guard<std::mutex> lock(mutex);
  releaseCachedLocked();
}

void CachingAllocator::releaseCachedLocked() {
  for (auto &[size, block] : cachedBlocks) {
    backingFree(block);
    ++statistics.backingFrees;
  }
  cachedBlocks.clear();
  statistics.cached = 0;
}

MemoryStats CachingAllocator::stats() const {
  std::lock_guard<std::mutex> lock(mutex);
  return statistics;
}

} // namespace dtf::cuda
