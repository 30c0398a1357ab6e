// How much memory this process may still allocate: the kernel's MemAvailable and the limits of its cgroups
// (host), cudaMemGetInfo (devices).
#include "runtime/memory.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <vector>

#include "starfact/runtime.hpp"
#ifdef STARFACT_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace starfact {
namespace detail {
namespace {

/// A whole (small) file. POSIX reads and hand parsing below: TileMatrix asks on every construction, and iostreams
/// cost more than the reads themselves.
bool read_text(const std::string& path, std::string* text) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    text->clear();
    char buf[4096];
    for (;;) {
        const ssize_t got = ::read(fd, buf, sizeof(buf));
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) {
            ::close(fd);
            return got == 0;
        }
        text->append(buf, static_cast<size_t>(got));
    }
}

/// The unsigned decimal number at text[pos], after blanks; false if there is none or it overflows.
bool parse_number(const std::string& text, size_t pos, uint64_t* value) {
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t')) ++pos;
    if (pos >= text.size() || text[pos] < '0' || text[pos] > '9') return false;
    uint64_t v = 0;
    for (; pos < text.size() && text[pos] >= '0' && text[pos] <= '9'; ++pos)
        if (!checked_mul(v, 10, &v) || !checked_add(v, static_cast<uint64_t>(text[pos] - '0'), &v)) return false;
    *value = v;
    return true;
}

/// A whole-file unsigned number (cgroup files hold one, "max" for none); false if absent or not a number.
bool read_number(const std::string& path, uint64_t* value) {
    std::string text;
    return read_text(path, &text) && parse_number(text, 0, value);
}

/// Calls f(line) for each line of text.
template <typename F>
void for_each_line(const std::string& text, F&& f) {
    for (size_t pos = 0; pos < text.size();) {
        const size_t end = std::min(text.find('\n', pos), text.size());
        f(text.substr(pos, end - pos));
        pos = end + 1;
    }
}

/// The value of key `key` in a "key value" file (memory.stat, /proc/meminfo with its "Key:" form); false if absent.
bool read_key(const std::string& text, const std::string& key, uint64_t* value) {
    bool found = false;
    for_each_line(text, [&](const std::string& line) {
        if (!found && line.size() > key.size() && line.compare(0, key.size(), key) == 0 &&
            (line[key.size()] == ' ' || line[key.size()] == '\t'))
            found = parse_number(line, key.size(), value);
    });
    return found;
}

/// Undoes the octal escapes (\040 for a space) of /proc/self/mountinfo's paths.
std::string unescape(const std::string& s) {
    std::string out;
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '\\' && i + 3 < s.size()) {
            const std::string oct = s.substr(i + 1, 3);
            if (std::all_of(oct.begin(), oct.end(), [](char c) { return c >= '0' && c <= '7'; })) {
                out += static_cast<char>(std::stoi(oct, nullptr, 8));
                i += 3;
                continue;
            }
        }
        out += s[i];
    }
    return out;
}

bool has_token(const std::string& list, const std::string& token) {
    for (size_t pos = 0; pos <= list.size();) {
        const size_t end = std::min(list.find(',', pos), list.size());
        if (list.compare(pos, end - pos, token) == 0) return true;
        pos = end + 1;
    }
    return false;
}

/// The blank-separated fields of a line.
std::vector<std::string> fields(const std::string& line) {
    std::vector<std::string> f;
    for (size_t pos = 0; pos < line.size();) {
        pos = line.find_first_not_of(' ', pos);
        if (pos == std::string::npos) break;
        const size_t end = std::min(line.find(' ', pos), line.size());
        f.push_back(line.substr(pos, end - pos));
        pos = end;
    }
    return f;
}

/// One cgroup hierarchy to look at: where it is mounted, which part of it the mount shows, and the process's path.
struct Hierarchy {
    int version = 0;  // 0: none found
    std::string mount_root, mount_point, path;
};

/// The room left under the limit of one cgroup directory, when it has one and it is below `best` (the smallest
/// limit so far): false otherwise. The files are read only as far as needed, since TileMatrix asks on every
/// construction (memory.stat, which the kernel aggregates, only for a limit that may win).
bool cgroup_room(const Hierarchy& h, const std::string& dir, uint64_t best, uint64_t* room, std::string* text) {
    uint64_t limit = 0, usage = 0;
    const bool v2 = h.version == 2;
    // v2 writes "max" for no limit (not a number); v1 a huge number, which the comparison drops.
    if (!read_number(dir + (v2 ? "/memory.max" : "/memory.limit_in_bytes"), &limit) || limit >= best) return false;
    if (!read_number(dir + (v2 ? "/memory.current" : "/memory.usage_in_bytes"), &usage)) return false;
    // Inactive page cache is charged to the cgroup but reclaimed before an allocation fails.
    uint64_t inactive = 0;
    std::string stat;
    if (limit - std::min(limit, usage) < best && read_text(dir + "/memory.stat", &stat) &&
        !read_key(stat, v2 ? "inactive_file" : "total_inactive_file", &inactive))
        read_key(stat, "inactive_file", &inactive);
    const uint64_t used = usage - std::min(usage, inactive);
    *room = limit - std::min(limit, used);
    if (*room >= best) return false;
    *text = std::string(v2 ? "cgroup v2 " : "cgroup v1 ") + dir + " (" + (v2 ? "memory.max " : "memory.limit_in_bytes ") +
            std::to_string(limit) + ", in use " + std::to_string(used) + ")";
    return true;
}

std::string parent(const std::string& dir) {
    const size_t slash = dir.find_last_of('/');
    return slash == std::string::npos || slash == 0 ? "/" : dir.substr(0, slash);
}

}  // namespace

HostMemory host_memory(const std::string& root) {
    HostMemory best;
    std::string text;
    uint64_t kib = 0, bytes = 0;
    if (read_text(root + "/proc/meminfo", &text) && read_key(text, "MemAvailable:", &kib) &&
        checked_mul(kib, 1024, &bytes)) {
        best.bytes = bytes;
        best.limited_by = "MemAvailable of /proc/meminfo";
    }

    // This process's cgroups: "0::/path" (v2) and "N:memory[,...]:/path" (v1's memory controller).
    Hierarchy v1, v2;
    if (read_text(root + "/proc/self/cgroup", &text))
        for_each_line(text, [&](const std::string& line) {
            const size_t a = line.find(':'), b = a == std::string::npos ? a : line.find(':', a + 1);
            if (b == std::string::npos) return;
            const std::string id = line.substr(0, a), controllers = line.substr(a + 1, b - a - 1);
            if (id == "0" && controllers.empty()) v2.path = line.substr(b + 1);
            else if (has_token(controllers, "memory")) v1.path = line.substr(b + 1);
        });
    // Where they are mounted: "id parent dev root mountpoint options [tags] - fstype source superoptions".
    if (read_text(root + "/proc/self/mountinfo", &text))
        for_each_line(text, [&](const std::string& line) {
            if (line.find(" - cgroup") == std::string::npos) return;  // the other mounts, quickly
            const std::vector<std::string> f = fields(line);
            const auto dash = std::find(f.begin(), f.end(), "-");
            if (f.size() < 5 || dash == f.end() || dash + 1 == f.end()) return;
            const std::string& fstype = *(dash + 1);
            const std::string super = dash + 3 < f.end() ? *(dash + 3) : "";
            Hierarchy* h = fstype == "cgroup2" && !v2.path.empty() && v2.version == 0 ? &v2
                           : fstype == "cgroup" && has_token(super, "memory") && !v1.path.empty() && v1.version == 0
                               ? &v1
                               : nullptr;
            if (!h) return;
            h->version = h == &v2 ? 2 : 1;
            h->mount_root = unescape(f[3]);
            h->mount_point = unescape(f[4]);
        });
    for (const Hierarchy* h : {&v2, &v1}) {
        if (h->version == 0) continue;
        // The process's directory under the mount (the mount may show a subtree only, as in a container), then
        // every parent up to the mount point: a parent's limit binds its children too.
        std::string rel;
        if (h->mount_root == "/") rel = h->path;
        else if (h->path.compare(0, h->mount_root.size(), h->mount_root) == 0) rel = h->path.substr(h->mount_root.size());
        while (!rel.empty() && rel.back() == '/') rel.pop_back();
        const std::string top = root + h->mount_point;
        std::string dir = top + rel;
        for (;;) {
            uint64_t room = 0;
            std::string where;
            if (cgroup_room(*h, dir, best.bytes, &room, &where)) {
                best.bytes = room;
                best.limited_by = where;
            }
            if (dir.size() <= top.size()) break;
            dir = parent(dir);
        }
    }
    return best;
}

uint64_t device_free_memory(int device) {
#ifdef STARFACT_HAVE_CUDA
    int previous = -1;
    if (cudaGetDevice(&previous) != cudaSuccess) {
        cudaGetLastError();
        previous = -1;
    }
    if (cudaSetDevice(device) != cudaSuccess) {
        cudaGetLastError();  // no such device: nothing free there
        return 0;
    }
    size_t free_bytes = 0, total = 0;
    const bool ok = cudaMemGetInfo(&free_bytes, &total) == cudaSuccess;
    if (!ok) cudaGetLastError();
    if (previous >= 0 && previous != device) cudaSetDevice(previous);
    return ok ? static_cast<uint64_t>(free_bytes) : 0;
#elif defined(STARFACT_SIMULATION)
    (void)device;
    return UINT64_MAX;  // a simulated GPU: StarPU's allowance (the platform's memsize) is the bound
#else
    (void)device;
    return 0;
#endif
}

std::string bytes_text(uint64_t bytes) {
    std::string text = std::to_string(bytes) + " bytes";
    if (bytes < 1024) return text;
    static const char* units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double v = static_cast<double>(bytes) / 1024;
    int u = 0;
    while (v >= 1024 && u < 5) {
        v /= 1024;
        ++u;
    }
    char buf[32];
    std::snprintf(buf, sizeof(buf), " (%.1f %s)", v, units[u]);
    return text + buf;
}

std::string bytes_text(long double bytes) {
    if (bytes < 18446744073709551616.0L) return bytes_text(static_cast<uint64_t>(bytes));
    char buf[48];
    std::snprintf(buf, sizeof(buf), "about %.3Le bytes", bytes);
    return buf;
}

}  // namespace detail

uint64_t available_host_memory() { return detail::host_memory().bytes; }
uint64_t available_device_memory(int device) { return detail::device_free_memory(device); }

}  // namespace starfact
