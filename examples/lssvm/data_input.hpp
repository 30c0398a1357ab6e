// Internal to the data set readers (dataset.cpp, dataset_idx.cpp, dataset_text.cpp): messages naming the file,
// a file read through zlib (GzFile), and the steps every reader shares (text input, zeroed storage, the
// column-major copy, the labels).
#pragma once
#include <zlib.h>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "dataset.hpp"

namespace lssvm::input {


[[noreturn]] inline void fail(const std::string& where, const std::string& what) { throw DataError(where + ": " + what); }

/// "file:LINE" for messages about text input.
inline std::string at(const std::string& path, int64_t line) { return path + ":" + std::to_string(line); }

inline std::string str(uint64_t v) { return std::to_string(v); }

/// A file read through zlib: gzread inflates gzip data (recognised by the 0x1f 0x8b magic) and passes plain files
/// through unchanged, so every reader accepts both.
class GzFile {
public:
    explicit GzFile(const std::string& path) : path_(path) {
        errno = 0;
        f_ = gzopen(path.c_str(), "rb");
        if (!f_) fail(path, std::string("cannot open: ") + (errno ? std::strerror(errno) : "out of memory"));
        gzbuffer(f_, 1 << 20);
    }
    ~GzFile() { gzclose(f_); }
    GzFile(const GzFile&) = delete;
    GzFile& operator=(const GzFile&) = delete;

    /// Reads up to `len` bytes; fewer only where the data ends (see cut()). Throws on a read error and on corrupt
    /// gzip data: an invalid deflate stream, or a CRC-32 or length in the gzip trailer that does not match the data
    /// (inflate checks the trailer when it reaches the end of the stream).
    size_t read(void* buf, size_t len) {
        size_t got = 0;
        while (got < len) {
            const unsigned step = static_cast<unsigned>(std::min<size_t>(len - got, size_t(1) << 30));
            errno = 0;
            const int r = gzread(f_, static_cast<char*>(buf) + got, step);
            if (r < 0) {
                const int err = errno;
                int code = Z_OK;
                const std::string msg = zlib_message(gzerror(f_, &code));
                if (code == Z_ERRNO) fail(path_, std::string("read error: ") + std::strerror(err));
                if (code != Z_DATA_ERROR) fail(path_, "read error: " + msg);
                const char* why = msg == "incorrect data check"
                                      ? " (the CRC-32 in the gzip trailer does not match the data)"
                                  : msg == "incorrect length check"
                                      ? " (the length in the gzip trailer does not match the data)"
                                      : "";
                fail(path_, "corrupt gzip data: " + msg + why);
            }
            if (r == 0) break;
            got += static_cast<size_t>(r);
        }
        return got;
    }

    /// Reads and discards the rest of the data; returns how many bytes that was. For gzip this inflates to the end
    /// of the stream, so that the trailer's CRC-32 and length check all of the data (see read()).
    uint64_t skip_rest() {
        std::vector<char> buf(size_t(1) << 20);
        uint64_t n = 0;
        while (const size_t got = read(buf.data(), buf.size())) n += got;
        return n;
    }

    /// Whether the data ended inside a gzip stream, before its trailer: gzread reports such a cut file as a plain
    /// end of data (zlib's "unexpected end of file"), so a reader must ask.
    bool cut() {
        int code = Z_OK;
        gzerror(f_, &code);
        return code == Z_BUF_ERROR;
    }

    /// Whether the data is gzip-compressed (valid once something has been read).
    bool compressed() { return !gzdirect(f_); }

    /// The size of the file on disk (the maximum of uint64_t if unknown).
    uint64_t file_size() const {
        std::error_code ec;
        const uint64_t size = std::filesystem::file_size(path_, ec);
        return ec ? std::numeric_limits<uint64_t>::max() : size;
    }

    /// An upper bound on the size of the (decompressed) data: the file size, times 1032 (deflate's largest
    /// compression ratio) for gzip. Lets a reader reject an impossible record count before allocating for it.
    uint64_t max_data_size() {
        const uint64_t size = file_size();
        if (gzdirect(f_)) return size;
        return size > std::numeric_limits<uint64_t>::max() / 1032 ? std::numeric_limits<uint64_t>::max() : size * 1032;
    }

    /// zlib's explanation of an early end (e.g. "unexpected end of file" in a cut gzip stream), or "".
    std::string end_note() {
        int code = Z_OK;
        const char* msg = gzerror(f_, &code);
        if (code == Z_OK) return "";
        return std::string(" (") + (gzdirect(f_) ? "" : "gzip: ") + zlib_message(msg) + ")";
    }

private:
    /// A gzerror message without the "PATH: " that zlib puts in front (the messages already start with the path).
    std::string zlib_message(const char* msg) const {
        std::string m = msg ? msg : "";
        const std::string prefix = path_ + ": ";
        if (m.compare(0, prefix.size(), prefix) == 0) m.erase(0, prefix.size());
        return m;
    }

    std::string path_;
    gzFile f_ = nullptr;
};

/// The whole (decompressed) content of a text file.
inline std::string read_text(const std::string& path) {
    GzFile f(path);
    std::string s;
    size_t got = 0;
    for (;;) {
        s.resize(std::max<size_t>(size_t(1) << 20, 2 * got));
        const size_t r = f.read(&s[got], s.size() - got);
        got += r;
        if (got < s.size()) break;
    }
    if (f.cut())
        fail(path, "truncated gzip file: it ends after " + str(got) +
                       " bytes of decompressed data, before the gzip trailer (gzip: unexpected end of file)");
    s.resize(got);
    return s;
}

/// Sizes the empty vector `v` to `count` zeros. On Linux it first asks for transparent huge pages, so that a large
/// matrix is faulted in 2 MiB rather than 4 KiB at a time (several times faster for a few hundred MiB).
inline void resize_zeroed(std::vector<double>& v, size_t count) {
    v.reserve(count);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    const uintptr_t huge = uintptr_t(2) << 20, begin = reinterpret_cast<uintptr_t>(v.data());
    const uintptr_t first = (begin + huge - 1) & ~(huge - 1), last = (begin + count * sizeof(double)) & ~(huge - 1);
    if (last > first) madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);  // advice only
#endif
    v.resize(count);
}

/// Writes the row-major m x d matrix `src` column-major into X (leading dimension ldx), converting each element with
/// `conv`. Blocks of rows keep the strided reads in cache while the writes to each column stay contiguous.
template <class T, class Conv>
void to_column_major(const T* src, int64_t m, int64_t d, double* X, int64_t ldx, Conv conv) {
    constexpr int64_t block = 128;
    for (int64_t i0 = 0; i0 < m; i0 += block) {
        const int64_t i1 = std::min(m, i0 + block);
        for (int64_t j = 0; j < d; ++j) {
            double* col = X + j * ldx;
            const T* s = src + j;
            for (int64_t i = i0; i < i1; ++i) col[i] = conv(s[i * d]);
        }
    }
}

/// Sets label_values (distinct labels, ascending) and y (class index of each sample) from the raw labels.
inline void set_labels(Dataset& ds, const std::vector<long>& raw) {
    ds.label_values = raw;
    std::sort(ds.label_values.begin(), ds.label_values.end());
    ds.label_values.erase(std::unique(ds.label_values.begin(), ds.label_values.end()), ds.label_values.end());
    if (ds.label_values.size() > size_t(std::numeric_limits<int>::max())) fail(ds.source, "too many distinct labels");
    ds.y.resize(raw.size());
    for (size_t i = 0; i < raw.size(); ++i)
        ds.y[i] = static_cast<int>(std::lower_bound(ds.label_values.begin(), ds.label_values.end(), raw[i]) -
                                   ds.label_values.begin());
}

}  // namespace lssvm::input
