//===- HostMemory.h - How much memory a task may still allocate -*- C++ -*-===//
//
// A PS task holds its variables in memory; one that cannot fit them should
// say so, naming the variable, before it allocates anything, rather than
// fail with std::bad_alloc (or be killed by the OOM killer) mid-way. The
// memory a process may still take is the least of what the kernel reports
// available (MemAvailable: free memory plus what can be reclaimed) and what
// its cgroup v2 memory limit leaves (memory.max - memory.current), as a
// container's limit is usually far below the host's memory.
//
//===----------------------------------------------------------------------===//

#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace dtf {

/// The available memory, in bytes, from the texts of /proc/meminfo and the
/// cgroup's memory.max and memory.current (each empty where absent; "max"
/// means no limit). nullopt where none of them tells.
std::optional<uint64_t> availableMemoryFrom(const std::string &meminfo,
                                            const std::string &cgroupMax,
                                            const std::string &cgroupCurrent);

/// availableMemoryFrom() of this process's /proc/meminfo and cgroup.
std::optional<uint64_t> availableHostMemory();

/// "40.0 GB", "312.5 KB": a byte count for people.
std::string formatBytes(uint64_t bytes);

} // namespace dtf
