// The test data of tests/test_dataset*.cpp: small IDX, LIBSVM and CSV files written into a temporary directory,
// and the checks of what the readers make of them.
#pragma once
#include "../dataset.hpp"

#if __has_include(<catch2/catch_test_macros.hpp>)  // Catch2 v3
#include <catch2/catch_message.hpp>
#include <catch2/catch_test_macros.hpp>
#else  // Catch2 v2 (the single header Debian 12 ships)
#include <catch2/catch.hpp>
#endif

#include <stdlib.h>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <initializer_list>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace lssvm_test {

namespace fs = std::filesystem;
using namespace std::string_literals;
using lssvm::DataError;
using lssvm::Dataset;

using Bytes = std::vector<unsigned char>;

/// A fresh temporary directory, removed with its files at the end of the test.
struct TempDir {
    fs::path path;
    TempDir() {
        std::string tmpl = (fs::temp_directory_path() / "lssvm-data-XXXXXX").string();
        REQUIRE(mkdtemp(&tmpl[0]) != nullptr);
        path = tmpl;
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
    std::string file(const std::string& name) const { return (path / name).string(); }
};

inline void write_plain(const std::string& path, const Bytes& data) {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
    REQUIRE(out.good());
}

inline void write_gz(const std::string& path, const Bytes& data) {
    gzFile f = gzopen(path.c_str(), "wb");
    REQUIRE(f != nullptr);
    REQUIRE(gzwrite(f, data.data(), static_cast<unsigned>(data.size())) == static_cast<int>(data.size()));
    REQUIRE(gzclose(f) == Z_OK);
}

inline Bytes read_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    REQUIRE(in.good());
    return Bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

/// Writes `data` gzip-compressed, then damages the compressed file: `flip` >= 1 inverts the byte that many bytes
/// before its end (the gzip trailer is its last 8 bytes: CRC-32, then the length), `cut` >= 1 drops that many bytes
/// from its end.
inline void write_bad_gz(const std::string& path, const Bytes& data, size_t flip, size_t cut = 0) {
    write_gz(path, data);
    Bytes gz = read_bytes(path);
    REQUIRE(gz.size() > 8 + std::max(flip, cut));
    if (flip) gz[gz.size() - flip] ^= 0xff;
    gz.resize(gz.size() - cut);
    write_plain(path, gz);
}

inline void write_text(const std::string& path, const std::string& text) {
    write_plain(path, Bytes(text.begin(), text.end()));
}

inline void put32(Bytes& b, uint32_t v) {
    for (int s = 24; s >= 0; s -= 8) b.push_back(static_cast<unsigned char>(v >> s));
}

/// IDX images file: n images of rows x cols u8 pixels, pixel (i, k) = (7 * i + 3 * k) % 256.
inline Bytes idx_images(uint32_t n, uint32_t rows, uint32_t cols) {
    Bytes b;
    put32(b, 0x803);
    put32(b, n);
    put32(b, rows);
    put32(b, cols);
    for (uint32_t i = 0; i < n; ++i)
        for (uint32_t k = 0; k < rows * cols; ++k) b.push_back(static_cast<unsigned char>((7 * i + 3 * k) % 256));
    return b;
}

inline Bytes idx_labels(const Bytes& labels) {
    Bytes b;
    put32(b, 0x801);
    put32(b, static_cast<uint32_t>(labels.size()));
    b.insert(b.end(), labels.begin(), labels.end());
    return b;
}

/// The message of the DataError that `fn` throws ("" and a failed check if it throws none).
template <class Fn>
std::string error_of(Fn fn) {
    try {
        fn();
    } catch (const DataError& e) {
        return e.what();
    }
    FAIL_CHECK("no DataError thrown");
    return "";
}

inline bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

inline double at(const Dataset& ds, int64_t i, int64_t j) { return ds.X[static_cast<size_t>(i + j * ds.n)]; }

inline void check_shape(const Dataset& ds) {
    REQUIRE(ds.X.size() == static_cast<size_t>(ds.n * ds.d));
    REQUIRE(ds.y.size() == static_cast<size_t>(ds.n));
}

/// Writes each text of `cases` into `path` and checks that load(path) throws a DataError whose message contains
/// the part paired with it.
template <class Load>
void check_errors(const std::string& path, Load load,
                  std::initializer_list<std::pair<std::string, std::string>> cases) {
    for (const auto& [text, part] : cases) {
        write_text(path, text);
        INFO("input: " << text);
        CHECK(contains(error_of([&] { load(path); }), part));
    }
}

inline const Bytes labels5{3, 1, 3, 7, 1};

inline void check_idx(const Dataset& ds, int64_t n) {
    check_shape(ds);
    REQUIRE(ds.n == n);
    REQUIRE(ds.d == 6);
    for (int64_t i = 0; i < n; ++i)
        for (int64_t k = 0; k < 6; ++k) CHECK(at(ds, i, k) == static_cast<double>((7 * i + 3 * k) % 256) / 255.0);
}

}  // namespace lssvm_test
