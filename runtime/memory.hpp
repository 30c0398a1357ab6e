// Internal: how much memory this process may still allocate, and overflow-checked size arithmetic. The public
// entry points are available_host_memory() and available_device_memory() (runtime.hpp); TileMatrix uses the
// details below to refuse a matrix that cannot fit before it allocates anything.
#pragma once
#include <cstdint>
#include <string>

namespace starfact::detail {

/// a * b into *out; false (and *out untouched) when the product does not fit in 64 bits.
inline bool checked_mul(uint64_t a, uint64_t b, uint64_t* out) { return !__builtin_mul_overflow(a, b, out); }
/// a + b into *out; false when the sum does not fit in 64 bits.
inline bool checked_add(uint64_t a, uint64_t b, uint64_t* out) { return !__builtin_add_overflow(a, b, out); }

/// The bytes a column-major rows x cols array with leading dimension ld spans, (cols - 1) * ld + rows entries of
/// `entry_bytes` (0 when rows or cols is 0), into *bytes; false when that exceeds 2^63 - 1 (no array can be that
/// large, and offsets into it would overflow). rows, cols, ld >= 0.
inline bool array_bytes(int64_t rows, int64_t cols, int64_t ld, uint64_t entry_bytes, uint64_t* bytes) {
    uint64_t entries = 0;
    if (rows == 0 || cols == 0) {
        *bytes = 0;
        return true;
    }
    if (!checked_mul(static_cast<uint64_t>(cols - 1), static_cast<uint64_t>(ld), &entries) ||
        !checked_add(entries, static_cast<uint64_t>(rows), &entries) || !checked_mul(entries, entry_bytes, bytes))
        return false;
    return *bytes <= static_cast<uint64_t>(INT64_MAX);
}

/// Host memory this process may still allocate, and which limit gave it.
struct HostMemory {
    uint64_t bytes = UINT64_MAX;
    /// "MemAvailable (/proc/meminfo)", or the cgroup whose limit is the smallest, e.g.
    /// "cgroup v2 /sys/fs/cgroup/job (memory.max 8589934592, in use 1073741824)". Empty when nothing could be
    /// read (bytes is then UINT64_MAX: no limit known).
    std::string limited_by;
};

/// The smallest of the kernel's MemAvailable and, for every cgroup from this process's own up to the root of its
/// hierarchy that has a memory limit, the room left under it: cgroup v2 memory.max - memory.current, v1
/// memory.limit_in_bytes - memory.usage_in_bytes, each usage less the inactive page cache the kernel reclaims
/// before it fails an allocation (inactive_file of memory.stat). The overcommit setting plays no part: it decides
/// whether malloc refuses, not whether the pages can exist once touched. The files are read as `root` + their path
/// (/proc/meminfo, /proc/self/cgroup, /proc/self/mountinfo, and the cgroup files under the mount points the latter
/// names), so that tests can point it at a tree of their own; production passes "".
HostMemory host_memory(const std::string& root = "");

/// Free bytes on CUDA device `device` (cudaMemGetInfo with that device current; the calling thread's device is put
/// back), 0 without CUDA support or when the device cannot be queried.
uint64_t device_free_memory(int device);

/// "123456789 bytes (117.7 MiB)": a byte count for messages, exact and then readable.
std::string bytes_text(uint64_t bytes);
/// The same for a count that may exceed 64 bits (computed in long double): exact below 2^64, else "about 1.48e+20 bytes".
std::string bytes_text(long double bytes);

}  // namespace starfact::detail
