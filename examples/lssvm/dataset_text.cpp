// The text readers (LIBSVM, CSV, plain or gzip) of the LS-SVM classifier.
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "data_input.hpp"
#include "dataset.hpp"

namespace lssvm {

using namespace input;

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

}  // namespace lssvm
