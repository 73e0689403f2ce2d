//===- Allocator.h - Caching allocator of device memory ---------*- C++ -*-===//
//
// Device memory comes from cuMemAlloc, which synchronizes and is slow, so
// freed blocks are kept and handed out again, as TensorFlow's BFC allocator
// and PyTorch's caching allocator do. A training step allocates the same
// sizes every time, so after the first step nothing reaches the driver.
//
// Reuse is stream-ordered: a block freed while kernels that use it are still
// queued may be given to work queued after them on the same stream, which
// runs later. Every user of a device's memory works on its one stream
// (Device::stream()).
//
//===----------------------------------------------------------------------===//

#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <mutex>
#include <unordered_map>

namespace dtf::cuda {

struct MemoryStats {
  /// Bytes handed out and not yet freed (rounded block sizes).
  size_t inUse = 0;
  /// Bytes freed and kept for reuse.
  size_t cached = 0;
  /// Largest inUse so far.
  size_t peakInUse = 0;
  /// Blocks obtained from the backing allocator, and given back to it.
  size_t backingAllocations = 0;
  size_t backingFrees = 0;
};

class CachingAllocator {
public:
  /// `allocate` returns nullptr when out of memory; `free` gives a block
  /// back. Both are only called with the allocator's lock held.
  using BackingAllocate = std::function<void *(size_t bytes)>;
  using BackingFree = std::function<void(void *block)>;

  CachingAllocator(BackingAllocate allocate, BackingFree free)
      : backingAllocate(std::move(allocate)), backingFree(std::move(free)) {}
  CachingAllocator(const CachingAllocator &) = delete;
  CachingAllocator &operator=(const CachingAllocator &) = delete;
  /// Gives every block back, cached or not.
  ~CachingAllocator();

  /// A block of at least `bytes` (at least 1), or nullptr when the backing
  /// allocator fails even after the cache has been given back to it.
  void *allocate(size_t bytes);
  /// Returns a block from allocate() to the cache. Null is ignored.
  void deallocate(void *block);
  /// Gives the cached blocks back to the backing allocator.
  void releaseCached();

  MemoryStats stats() const;

  /// The block size a request of `bytes` gets: a multiple of 512 bytes, or
  /// of 2 MiB from 1 MiB on, so that nearby sizes share blocks.
  static size_t roundUp(size_t bytes);

private:
  void releaseCachedLocked();

  BackingAllocate backingAllocate;
  BackingFree backingFree;
  mutable std::mutex mutex;
  /// Cached blocks by size.
  std::multimap<size_t, void *> cachedBlocks;
  /// Size of every block handed out.
  std::unordered_map<void *, size_t> liveBlocks;
  MemoryStats statistics;
};

} // namespace dtf::cuda
