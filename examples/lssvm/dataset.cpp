// Data set readers (IDX, LIBSVM, CSV), label alignment and min-max scaling for the LS-SVM classifier.
#include "dataset.hpp"

#include <zlib.h>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>

namespace lssvm {
namespace {

[[noreturn]] void fail(const std::string& where, const std::string& what) { throw DataError(where + ": " + what); }

/// "file:LINE" for messages about text input.
std::string at(const std::string& path, int64_t line) { return path + ":" + std::to_string(line); }

std::string str(uint64_t v) { return std::to_string(v); }

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
std::string read_text(const std::string& path) {
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
void resize_zeroed(std::vector<double>& v, size_t count) {
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
void set_labels(Dataset& ds, const std::vector<long>& raw) {
    ds.label_values = raw;
    std::sort(ds.label_values.begin(), ds.label_values.end());
    ds.label_values.erase(std::unique(ds.label_values.begin(), ds.label_values.end()), ds.label_values.end());
    if (ds.label_values.size() > size_t(std::numeric_limits<int>::max())) fail(ds.source, "too many distinct labels");
    ds.y.resize(raw.size());
    for (size_t i = 0; i < raw.size(); ++i)
        ds.y[i] = static_cast<int>(std::lower_bound(ds.label_values.begin(), ds.label_values.end(), raw[i]) -
                                   ds.label_values.begin());
}

// ---- IDX ----

uint32_t be32(const unsigned char* p) {
    return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | uint32_t(p[3]);
}

std::string hex(uint32_t v) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%08x", v);
    return buf;
}

/// Reads the header of an IDX file of u8 elements with `ndims` dimensions and returns the dimensions.
std::vector<uint64_t> idx_header(GzFile& f, const std::string& path, int ndims) {
    unsigned char h[4 + 4 * 3];
    const size_t len = 4 + 4 * size_t(ndims);
    const size_t got = f.read(h, len);
    if (got < 4) fail(path, "truncated: " + str(got) + " bytes, not even an IDX magic number" + f.end_note());
    const uint32_t magic = be32(h), want = 0x800u + uint32_t(ndims);
    if (magic != want)
        fail(path, "wrong magic " + hex(magic) + " at byte offset 0, expected " + hex(want) + " (u8 data, " +
                       str(ndims) + (ndims == 1 ? " dimension: labels)" : " dimensions: images)"));
    if (got < len) fail(path, "truncated header: " + str(got) + " of " + str(len) + " bytes" + f.end_note());
    std::vector<uint64_t> dims(ndims);
    for (int k = 0; k < ndims; ++k) dims[k] = be32(h + 4 + 4 * k);
    return dims;
}

/// Fails unless the file can hold `count` records of `size` bytes after its header, before allocating for them.
void idx_check_room(GzFile& f, const std::string& path, uint64_t header, uint64_t count, uint64_t size) {
    const uint64_t room = f.max_data_size(), bytes = count * size;
    if (room >= header && bytes <= room - header) return;
    if (f.compressed())
        fail(path, "truncated: " + str(count) + " records of " + str(size) + " bytes declared, more than the " +
                       "compressed file can hold");
    fail(path, "truncated: data ends at byte offset " + str(room) + ", inside record " +
                   str(room > header ? (room - header) / size : 0) + " of the " + str(count) + " to read");
}

/// Reads `len` bytes of records of `size` bytes into `buf`; the first is record `record`, at byte offset `offset`,
/// of the `count` the header declares.
void idx_read(GzFile& f, const std::string& path, unsigned char* buf, uint64_t len, uint64_t offset, uint64_t record,
              uint64_t size, uint64_t count) {
    const size_t got = f.read(buf, static_cast<size_t>(len));
    if (got < len)
        fail(path, "truncated: data ends at byte offset " + str(offset + got) + ", inside record " +
                       str(record + got / size) + " of the " + str(count) + " declared" + f.end_note());
}

/// Checks the rest of an IDX file after the first `keep` of its `count` records of `size` bytes (header: `header`
/// bytes) have been read: the records it declares are all there and nothing follows them. A gzip file is inflated to
/// its end even when a limit keeps fewer records, because its only checksum, the CRC-32 in the trailer, covers the
/// whole stream; a cut or corrupt file fails here rather than feeding its first records to the model. This costs
/// about 0.1-0.3 s for the 26 MB Fashion-MNIST training images. A plain file has no checksum: its size is compared.
void idx_finish(GzFile& f, const std::string& path, uint64_t header, uint64_t keep, uint64_t count, uint64_t size) {
    const uint64_t want = header + count * size;
    uint64_t end = 0;  // where the data ends
    if (f.compressed()) {
        end = header + keep * size + f.skip_rest();  // throws on a CRC-32 or length mismatch
    } else if (keep == count) {
        end = want + f.skip_rest();
    } else {
        end = f.file_size();
        if (end == std::numeric_limits<uint64_t>::max()) return;  // not a regular file: nothing to compare
    }
    if (end < want)
        fail(path, "truncated: data ends at byte offset " + str(end) + ", inside record " + str((end - header) / size) +
                       " of the " + str(count) + " declared" + f.end_note());
    if (end > want) fail(path, "unexpected data after the declared records, at byte offset " + str(want));
    if (f.cut())
        fail(path, "truncated gzip file: it ends after the " + str(count) +
                       " records, before the gzip trailer that checks them" + f.end_note());
}

}  // namespace

Format parse_format(const std::string& name) {
    std::string s = name;
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (s == "auto") return Format::Auto;
    if (s == "idx") return Format::Idx;
    if (s == "libsvm") return Format::Libsvm;
    if (s == "csv") return Format::Csv;
    throw DataError("unknown data format '" + name + "' (expected auto, idx, libsvm or csv)");
}

Dataset load_idx(const std::string& images, const std::string& labels, int64_t limit) {
    GzFile fi(images), fl(labels);
    const std::vector<uint64_t> di = idx_header(fi, images, 3), dl = idx_header(fl, labels, 1);
    const uint64_t n = di[0], d = di[1] * di[2];
    if (n != dl[0])
        fail(images, str(n) + " images, but " + labels + " has " + str(dl[0]) + " labels (header counts differ)");
    if (n == 0) fail(images, "no samples: the header declares 0 images");
    if (d == 0) fail(images, "images of " + str(di[1]) + " x " + str(di[2]) + " pixels hold no data");
    if (n > 0 && d > uint64_t(std::numeric_limits<int64_t>::max()) / sizeof(double) / n)
        fail(images, "header declares " + str(n) + " images of " + str(di[1]) + " x " + str(di[2]) + ": too large");
    const uint64_t keep = limit >= 0 ? std::min<uint64_t>(n, uint64_t(limit)) : n;

    idx_check_room(fl, labels, 8, keep, 1);
    std::vector<unsigned char> lab(static_cast<size_t>(keep));
    idx_read(fl, labels, lab.data(), keep, 8, 0, 1, n);
    idx_finish(fl, labels, 8, keep, n, 1);  // before the labels are trusted
    std::vector<long> raw(lab.size());
    for (size_t i = 0; i < lab.size(); ++i) {
        if (lab[i] > 254)
            fail(labels,
                 "label " + str(lab[i]) + " in record " + str(i) + " (byte offset " + str(8 + i) + ") is above 254");
        raw[i] = lab[i];
    }

    // Pixels: blocks of whole images (about 4 MiB) are read and converted straight into the column-major X.
    idx_check_room(fi, images, 16, keep, d);
    Dataset ds;
    ds.source = images + " + " + labels;
    ds.n = static_cast<int64_t>(keep);
    ds.d = static_cast<int64_t>(d);
    resize_zeroed(ds.X, static_cast<size_t>(keep * d));
    double scaled[256];
    for (int v = 0; v < 256; ++v) scaled[v] = v / 255.0;
    const uint64_t per_block = std::min(keep, std::max<uint64_t>(1, (uint64_t(4) << 20) / d));
    std::vector<unsigned char> buf(static_cast<size_t>(per_block * d));
    for (uint64_t i0 = 0; i0 < keep; i0 += per_block) {
        const uint64_t m = std::min(per_block, keep - i0);
        idx_read(fi, images, buf.data(), m * d, 16 + i0 * d, i0, d, n);
        to_column_major(buf.data(), static_cast<int64_t>(m), ds.d, ds.X.data() + i0, ds.n,
                        [&](unsigned char v) { return scaled[v]; });
    }
    idx_finish(fi, images, 16, keep, n, d);
    set_labels(ds, raw);
    return ds;
}

// ---- text formats ----

namespace {

/// Parses all of `s` as a double (finite or not); false if anything is left over or nothing was read.
bool to_double(const char* s, double& v) {
    char* end = nullptr;
    v = std::strtod(s, &end);
    return end != s && *end == '\0';
}

/// Parses all of `s` as an integer label: "3", "+1", "-1", or an integral real such as "2.0".
bool to_label(const char* s, long& v) {
    char* end = nullptr;
    errno = 0;
    v = std::strtol(s, &end, 10);
    if (end != s && *end == '\0') return errno == 0;
    double x;
    if (!to_double(s, x) || !std::isfinite(x) || x != std::floor(x) || std::fabs(x) > 1e15) return false;
    v = static_cast<long>(x);
    return true;
}

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

/// Calls fn(line, number) for each line of `text` (1-based numbers), the line end ("\n" or "\r\n") replaced by '\0'
/// so that the line is a C string. fn returns false to stop early.
template <class Fn>
void for_each_line(std::string& text, const std::string& path, Fn fn) {
    char* p = &text[0];
    char* const end = p + text.size();
    for (int64_t no = 1; p < end; ++no) {
        char* nl = static_cast<char*>(std::memchr(p, '\n', static_cast<size_t>(end - p)));
        char* e = nl ? nl : end;
        if (std::memchr(p, '\0', static_cast<size_t>(e - p)))
            fail(at(path, no), "NUL byte in a text line (binary file?)");
        if (e > p && e[-1] == '\r') e[-1] = '\0';
        *e = '\0';  // at `end` this rewrites the string's own terminator
        if (!fn(p, no)) return;
        p = e + 1;
    }
}

/// Cuts the next blank-separated token out of `p` (terminating it in place); nullptr at the end of the line.
char* next_token(char*& p) {
    while (is_blank(*p)) ++p;
    if (!*p) return nullptr;
    char* tok = p;
    while (*p && !is_blank(*p)) ++p;
    if (*p) *p++ = '\0';
    return tok;
}

/// Largest dense matrix (elements) a text file may expand to; a stray huge index fails instead of exhausting memory.
constexpr int64_t max_dense = int64_t(1) << 30;  // 8 GiB of doubles

}  // namespace

Dataset load_libsvm(const std::string& path, int64_t features, int64_t limit) {
    std::string text = read_text(path);
    std::vector<long> raw;
    std::vector<int64_t> start{0}, col;  // sample i's entries are [start[i], start[i+1]) of col / val
    std::vector<double> val;
    int64_t max_index = 0, max_line = 0;
    if (limit != 0)
        for_each_line(text, path, [&](char* line, int64_t no) {
            if (char* hash = std::strchr(line, '#')) *hash = '\0';
            char* p = line;
            const char* tok = next_token(p);
            if (!tok) return true;
            long label;
            if (!to_label(tok, label)) fail(at(path, no), "label '" + std::string(tok) + "' is not an integer");
            int64_t prev = 0;
            while (char* t = next_token(p)) {
                char* colon = std::strchr(t, ':');
                if (!colon) fail(at(path, no), "expected index:value, got '" + std::string(t) + "'");
                *colon = '\0';
                const char* vs = colon + 1;
                char* e = nullptr;
                errno = 0;
                const long long idx = std::strtoll(t, &e, 10);
                if (e == t || *e || errno || idx < 1)
                    fail(at(path, no),
                         "bad index '" + std::string(t) + "' in '" + t + ":" + vs + "' (indices are integers >= 1)");
                if (idx <= prev)
                    fail(at(path, no),
                         "index " + str(uint64_t(idx)) + " after " + str(uint64_t(prev)) + ": indices must increase");
                if (features > 0 && idx > features)
                    fail(at(path, no),
                         "index " + str(uint64_t(idx)) + " exceeds the feature count " + str(uint64_t(features)));
                double v;
                if (!to_double(vs, v))
                    fail(at(path, no), "bad value '" + std::string(vs) + "' for index " + str(uint64_t(idx)));
                if (!std::isfinite(v))
                    fail(at(path, no),
                         "value '" + std::string(vs) + "' for index " + str(uint64_t(idx)) + " is not finite");
                prev = idx;
                if (idx > max_index) max_index = idx, max_line = no;
                col.push_back(idx - 1);
                val.push_back(v);
            }
            raw.push_back(label);
            start.push_back(static_cast<int64_t>(col.size()));
            return limit < 0 || static_cast<int64_t>(raw.size()) < limit;
        });

    Dataset ds;
    ds.source = path;
    ds.n = static_cast<int64_t>(raw.size());
    ds.d = features > 0 ? features : max_index;
    if (ds.n == 0 && limit != 0) fail(path, "no samples");
    if (ds.n > 0 && ds.d == 0) fail(path, "no features: no sample has an index:value pair");
    if (ds.d > 0 && ds.n > max_dense / ds.d)
        fail(at(path, max_line), str(uint64_t(ds.n)) + " samples x " + str(uint64_t(ds.d)) +
                                     " features is too large for a dense matrix (largest index on this line)");
    resize_zeroed(ds.X, static_cast<size_t>(ds.n * ds.d));
    for (int64_t i = 0; i < ds.n; ++i)
        for (int64_t k = start[i]; k < start[i + 1]; ++k) ds.X[i + col[k] * ds.n] = val[k];
    set_labels(ds, raw);
    return ds;
}

Dataset load_csv(const std::string& path, int64_t limit) {
    std::string text = read_text(path);
    std::vector<long> raw;
    std::vector<double> rows;  // row-major features
    std::vector<char*> field;
    char sep = 0;
    size_t width = 0;
    int64_t width_line = 0;
    bool first = true;
    if (limit != 0)
        for_each_line(text, path, [&](char* line, int64_t no) {
            char* p = line;
            while (is_blank(*p)) ++p;
            if (!*p) return true;
            if (!sep) {
                sep = std::strchr(p, ',') ? ',' : std::strchr(p, ';') ? ';' : std::strchr(p, '\t') ? '\t' : 0;
                if (!sep) fail(at(path, no), "no separator (',', ';' or tab) between the label and the features");
            }
            field.clear();
            for (char* f = line;;) {
                char* s = std::strchr(f, sep);
                if (s) *s = '\0';
                while (is_blank(*f)) ++f;
                char* e = f + std::strlen(f);
                while (e > f && is_blank(e[-1])) *--e = '\0';
                field.push_back(f);
                if (!s) break;
                f = s + 1;
            }
            double v;
            const bool header = first && !to_double(field[0], v);
            first = false;
            if (!width) {
                width = field.size();
                width_line = no;
            } else if (field.size() != width) {
                fail(at(path, no),
                     str(field.size()) + " fields, but line " + str(uint64_t(width_line)) + " has " + str(width));
            }
            if (header) return true;
            long label;
            if (!to_label(field[0], label))
                fail(at(path, no), "label '" + std::string(field[0]) + "' is not an integer");
            for (size_t k = 1; k < field.size(); ++k) {
                if (!*field[k]) fail(at(path, no), "field " + str(k + 1) + " is empty");
                if (!to_double(field[k], v))
                    fail(at(path, no), "field " + str(k + 1) + " '" + field[k] + "' is not a number");
                if (!std::isfinite(v)) fail(at(path, no), "field " + str(k + 1) + " '" + field[k] + "' is not finite");
                rows.push_back(v);
            }
            raw.push_back(label);
            return limit < 0 || static_cast<int64_t>(raw.size()) < limit;
        });

    Dataset ds;
    ds.source = path;
    ds.n = static_cast<int64_t>(raw.size());
    ds.d = width > 0 ? static_cast<int64_t>(width) - 1 : 0;
    if (ds.n == 0 && limit != 0) fail(path, "no samples");
    resize_zeroed(ds.X, rows.size());
    to_column_major(rows.data(), ds.n, ds.d, ds.X.data(), ds.n, [](double x) { return x; });
    set_labels(ds, raw);
    return ds;
}

Dataset load_text(const std::string& path, Format f, int64_t features, int64_t limit) {
    if (f == Format::Auto) {
        std::string lower = path;
        for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        auto ends_with = [&](const std::string& suffix) {
            return lower.size() >= suffix.size() &&
                   lower.compare(lower.size() - suffix.size(), suffix.size(), suffix) == 0;
        };
        f = ends_with(".csv") || ends_with(".csv.gz") ? Format::Csv : Format::Libsvm;
    }
    switch (f) {
        case Format::Csv:
            return load_csv(path, limit);
        case Format::Libsvm:
            return load_libsvm(path, features, limit);
        default:
            fail(path, "IDX data needs an images and a labels file: use load_idx");
    }
}

void align_to(Dataset& test, const Dataset& train) {
    // A dense file with other columns than the training file would be scaled and classified as garbage (padding
    // zeros in place of the missing features, for instance), so any difference is an error. An empty set has no
    // features to differ: it takes train's count.
    if (test.n > 0 && test.d != train.d)
        fail(test.source, str(uint64_t(test.d)) + " features, but the training set " + train.source + " has " +
                              str(uint64_t(train.d)) + ": the feature counts must match");
    std::vector<int> map(test.label_values.size(), -1);
    for (size_t c = 0; c < map.size(); ++c) {
        auto it = std::lower_bound(train.label_values.begin(), train.label_values.end(), test.label_values[c]);
        if (it != train.label_values.end() && *it == test.label_values[c])
            map[c] = static_cast<int>(it - train.label_values.begin());
    }
    for (size_t i = 0; i < test.y.size(); ++i) {
        const int c = test.y[i];
        if (c < 0 || size_t(c) >= map.size()) fail(test.source, "class index out of range at sample " + str(i));
        if (map[c] < 0)
            fail(test.source, "label " + std::to_string(test.label_values[c]) + " (sample " + str(i) +
                                  ") does not occur in the training set " + train.source);
    }
    for (int& c : test.y) c = map[c];
    test.label_values = train.label_values;
    if (test.n == 0) test.d = train.d;
}

MinMax MinMax::fit(const Dataset& train) {
    if (train.n <= 0) fail(train.source, "cannot fit min-max scaling on an empty data set");
    MinMax m;
    m.lo.resize(static_cast<size_t>(train.d));
    m.scale.resize(static_cast<size_t>(train.d));
    for (int64_t j = 0; j < train.d; ++j) {
        const double* col = train.X.data() + j * train.n;
        const auto [lo, hi] = std::minmax_element(col, col + train.n);
        m.lo[j] = *lo;
        m.scale[j] = *hi - *lo;
    }
    return m;
}

void MinMax::apply(Dataset& data) const {
    if (data.d != static_cast<int64_t>(lo.size()))
        fail(data.source, str(uint64_t(data.d)) + " features, but the scaling was fitted on " + str(lo.size()));
    for (int64_t j = 0; j < data.d; ++j) {
        double* col = data.X.data() + j * data.n;
        const double l = lo[j], s = scale[j];
        if (s > 0)
            for (int64_t i = 0; i < data.n; ++i) col[i] = (col[i] - l) / s;
        else
            std::fill(col, col + data.n, 0.0);
    }
}

Split load_fashion_mnist(const std::string& dir, int64_t train_limit, int64_t test_limit) {
    namespace fs = std::filesystem;
    const std::string hint =
        "; install the Debian package dataset-fashion-mnist or pass the directory that holds "
        "the Fashion-MNIST IDX files";
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) fail(dir, "no such directory" + hint);
    auto find = [&](const std::string& base) {
        for (const std::string& name : {base + ".gz", base}) {
            const std::string p = (fs::path(dir) / name).string();
            if (fs::is_regular_file(p, ec)) return p;
        }
        fail(dir, "missing " + base + ".gz (or " + base + ")" + hint);
    };
    Split s;
    s.train = load_idx(find("train-images-idx3-ubyte"), find("train-labels-idx1-ubyte"), train_limit);
    s.test = load_idx(find("t10k-images-idx3-ubyte"), find("t10k-labels-idx1-ubyte"), test_limit);
    align_to(s.test, s.train);
    return s;
}

}  // namespace lssvm
