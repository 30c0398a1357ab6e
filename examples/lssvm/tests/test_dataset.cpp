// Tests of the LS-SVM data set readers on small files written to a temporary directory, and on Fashion-MNIST where
// the Debian package dataset-fashion-mnist is installed.
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
#include <limits>

namespace fs = std::filesystem;
using namespace std::string_literals;
using lssvm::DataError;
using lssvm::Dataset;

namespace {

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

void write_plain(const std::string& path, const Bytes& data) {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
    REQUIRE(out.good());
}

void write_gz(const std::string& path, const Bytes& data) {
    gzFile f = gzopen(path.c_str(), "wb");
    REQUIRE(f != nullptr);
    REQUIRE(gzwrite(f, data.data(), static_cast<unsigned>(data.size())) == static_cast<int>(data.size()));
    REQUIRE(gzclose(f) == Z_OK);
}

Bytes read_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    REQUIRE(in.good());
    return Bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

/// Writes `data` gzip-compressed, then damages the compressed file: `flip` >= 1 inverts the byte that many bytes
/// before its end (the gzip trailer is its last 8 bytes: CRC-32, then the length), `cut` >= 1 drops that many bytes
/// from its end.
void write_bad_gz(const std::string& path, const Bytes& data, size_t flip, size_t cut = 0) {
    write_gz(path, data);
    Bytes gz = read_bytes(path);
    REQUIRE(gz.size() > 8 + std::max(flip, cut));
    if (flip) gz[gz.size() - flip] ^= 0xff;
    gz.resize(gz.size() - cut);
    write_plain(path, gz);
}

void write_text(const std::string& path, const std::string& text) {
    write_plain(path, Bytes(text.begin(), text.end()));
}

void put32(Bytes& b, uint32_t v) {
    for (int s = 24; s >= 0; s -= 8) b.push_back(static_cast<unsigned char>(v >> s));
}

/// IDX images file: n images of rows x cols u8 pixels, pixel (i, k) = (7 * i + 3 * k) % 256.
Bytes idx_images(uint32_t n, uint32_t rows, uint32_t cols) {
    Bytes b;
    put32(b, 0x803);
    put32(b, n);
    put32(b, rows);
    put32(b, cols);
    for (uint32_t i = 0; i < n; ++i)
        for (uint32_t k = 0; k < rows * cols; ++k) b.push_back(static_cast<unsigned char>((7 * i + 3 * k) % 256));
    return b;
}

Bytes idx_labels(const Bytes& labels) {
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

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

double at(const Dataset& ds, int64_t i, int64_t j) { return ds.X[static_cast<size_t>(i + j * ds.n)]; }

void check_shape(const Dataset& ds) {
    REQUIRE(ds.X.size() == static_cast<size_t>(ds.n * ds.d));
    REQUIRE(ds.y.size() == static_cast<size_t>(ds.n));
}

const Bytes labels5{3, 1, 3, 7, 1};

void check_idx(const Dataset& ds, int64_t n) {
    check_shape(ds);
    REQUIRE(ds.n == n);
    REQUIRE(ds.d == 6);
    for (int64_t i = 0; i < n; ++i)
        for (int64_t k = 0; k < 6; ++k) CHECK(at(ds, i, k) == static_cast<double>((7 * i + 3 * k) % 256) / 255.0);
}

}  // namespace

TEST_CASE("IDX round trip, plain and gzip", "[idx]") {
    TempDir tmp;
    const std::string img = tmp.file("img"), lab = tmp.file("lab"), img_gz = tmp.file("img.gz"),
                      lab_gz = tmp.file("lab.gz");
    write_plain(img, idx_images(5, 2, 3));
    write_plain(lab, idx_labels(labels5));
    write_gz(img_gz, idx_images(5, 2, 3));
    write_gz(lab_gz, idx_labels(labels5));

    for (const auto& files : {std::make_pair(img, lab), std::make_pair(img_gz, lab_gz), std::make_pair(img_gz, lab)}) {
        const Dataset ds = lssvm::load_idx(files.first, files.second);
        check_idx(ds, 5);
        CHECK(ds.label_values == std::vector<long>{1, 3, 7});
        CHECK(ds.y == std::vector<int>{1, 0, 1, 2, 0});
        CHECK(ds.classes() == 3);
        CHECK(contains(ds.source, files.first));
    }

    SECTION("limit keeps the first samples") {
        const Dataset ds = lssvm::load_idx(img_gz, lab_gz, 2);
        check_idx(ds, 2);
        CHECK(ds.label_values == std::vector<long>{1, 3});
        CHECK(ds.y == std::vector<int>{1, 0});
        check_idx(lssvm::load_idx(img, lab, 100), 5);
        check_idx(lssvm::load_idx(img, lab, 0), 0);
    }
    SECTION("full pixel range maps to [0, 1]") {
        Bytes b;
        put32(b, 0x803);
        put32(b, 1);
        put32(b, 1);
        put32(b, 2);
        b.push_back(0);
        b.push_back(255);
        write_gz(img_gz, b);
        write_plain(lab, idx_labels({0}));
        const Dataset ds = lssvm::load_idx(img_gz, lab);
        CHECK(ds.X == std::vector<double>{0.0, 1.0});
    }
}

TEST_CASE("IDX errors name the file", "[idx]") {
    TempDir tmp;
    const std::string img = tmp.file("images.idx"), lab = tmp.file("labels.idx");
    write_plain(img, idx_images(5, 2, 3));
    write_plain(lab, idx_labels(labels5));

    SECTION("missing file") {
        const std::string msg = error_of([&] { lssvm::load_idx(tmp.file("nope.gz"), lab); });
        CHECK(contains(msg, "nope.gz"));
    }
    SECTION("wrong magic") {
        const std::string msg = error_of([&] { lssvm::load_idx(lab, lab); });  // a labels file as images
        CHECK(contains(msg, "labels.idx"));
        CHECK(contains(msg, "magic"));
        CHECK(contains(error_of([&] { lssvm::load_idx(img, img); }), "images.idx"));
    }
    SECTION("truncated images, plain and gzip") {
        Bytes b = idx_images(5, 2, 3);
        b.resize(b.size() - 4);
        write_plain(img, b);
        std::string msg = error_of([&] { lssvm::load_idx(img, lab); });
        CHECK(contains(msg, "images.idx"));
        CHECK(contains(msg, "truncated"));
        CHECK(contains(msg, "record 4"));
        write_gz(tmp.file("images.gz"), b);
        msg = error_of([&] { lssvm::load_idx(tmp.file("images.gz"), lab); });
        CHECK(contains(msg, "images.gz"));
        CHECK(contains(msg, "truncated"));
        // a limit that stops before the cut still finds the file short of its declared records
        msg = error_of([&] { lssvm::load_idx(img, lab, 2); });
        CHECK(contains(msg, "images.idx"));
        CHECK(contains(msg, "truncated"));
        CHECK(contains(msg, "record 4 of the 5 declared"));
    }
    SECTION("cut gzip stream") {
        write_gz(tmp.file("images.gz"), idx_images(50, 2, 3));
        std::ifstream in(tmp.file("images.gz"), std::ios::binary);
        Bytes gz((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        gz.resize(gz.size() / 2);
        write_plain(tmp.file("images.gz"), gz);
        write_plain(lab, idx_labels(Bytes(50, 1)));
        CHECK(contains(error_of([&] { lssvm::load_idx(tmp.file("images.gz"), lab); }), "images.gz"));
    }
    SECTION("a damaged gzip file fails even where a limit reads only its first records") {
        // 2,000 images: the first two records are decompressed long before the damage at the end of the file.
        const std::string gz = tmp.file("images.gz");
        const Bytes images = idx_images(2000, 2, 3);
        write_plain(lab, idx_labels(Bytes(2000, 1)));
        for (const int64_t limit : {int64_t(2), int64_t(-1)}) {
            INFO("limit " << limit);
            write_bad_gz(gz, images, 6);  // inside the CRC-32
            std::string msg = error_of([&] { lssvm::load_idx(gz, lab, limit); });
            CHECK(contains(msg, "images.gz"));
            CHECK(contains(msg, "corrupt gzip data"));
            CHECK(contains(msg, "CRC-32"));
            write_bad_gz(gz, images, 2);  // inside the length
            msg = error_of([&] { lssvm::load_idx(gz, lab, limit); });
            CHECK(contains(msg, "images.gz"));
            CHECK(contains(msg, "length in the gzip trailer"));
            write_bad_gz(gz, images, 0, 8);  // no trailer: all the data, nothing to check it with
            msg = error_of([&] { lssvm::load_idx(gz, lab, limit); });
            CHECK(contains(msg, "images.gz"));
            CHECK(contains(msg, "truncated gzip file"));
            CHECK(contains(msg, "unexpected end of file"));
            write_bad_gz(gz, images, 0, read_bytes(gz).size() / 2);  // cut inside the records
            msg = error_of([&] { lssvm::load_idx(gz, lab, limit); });
            CHECK(contains(msg, "images.gz"));
            CHECK(contains(msg, "truncated"));
            CHECK(contains(msg, "of the 2000 declared"));
        }
        // the labels file is checked the same way
        write_gz(gz, images);
        write_bad_gz(tmp.file("labels.gz"), idx_labels(Bytes(2000, 1)), 6);
        const std::string msg = error_of([&] { lssvm::load_idx(gz, tmp.file("labels.gz"), 2); });
        CHECK(contains(msg, "labels.gz"));
        CHECK(contains(msg, "CRC-32"));
        check_idx(lssvm::load_idx(gz, lab, 2), 2);  // the intact pair reads
    }
    SECTION("truncated header") {
        write_plain(img, Bytes{0, 0, 8, 3, 0, 0});
        CHECK(contains(error_of([&] { lssvm::load_idx(img, lab); }), "images.idx"));
    }
    SECTION("image and label counts differ") {
        write_plain(lab, idx_labels({1, 2, 3, 4}));
        const std::string msg = error_of([&] { lssvm::load_idx(img, lab); });
        CHECK(contains(msg, "images.idx"));
        CHECK(contains(msg, "labels.idx"));
    }
    SECTION("label above 254") {
        write_plain(lab, idx_labels({1, 2, 255, 4, 5}));
        const std::string msg = error_of([&] { lssvm::load_idx(img, lab); });
        CHECK(contains(msg, "labels.idx"));
        CHECK(contains(msg, "record 2"));
    }
    SECTION("no images") {
        write_plain(img, idx_images(0, 2, 3));
        write_plain(lab, idx_labels({}));
        const std::string msg = error_of([&] { lssvm::load_idx(img, lab); });
        CHECK(contains(msg, "images.idx"));
        CHECK(contains(msg, "no samples"));
    }
    SECTION("trailing data") {
        Bytes b = idx_images(5, 2, 3);
        b.push_back(9);
        write_plain(img, b);
        CHECK(contains(error_of([&] { lssvm::load_idx(img, lab); }), "images.idx"));
    }
    SECTION("a header that overstates the count fails as truncated") {
        Bytes b = idx_images(5, 2, 3), l = idx_labels(labels5);
        b[4] = l[4] = 0x7f;  // n = 0x7f000005 in both headers
        write_plain(img, b);
        write_plain(lab, l);
        const std::string msg = error_of([&] { lssvm::load_idx(img, lab); });
        CHECK(contains(msg, "labels.idx"));
        CHECK(contains(msg, "truncated"));
    }
}

TEST_CASE("LIBSVM text", "[libsvm]") {
    TempDir tmp;
    const std::string path = tmp.file("data.svm");
    write_text(path,
               "# a comment line\n"
               "+1 1:0.5 3:-2   # trailing comment\r\n"
               "\n"
               "   \t\n"
               "-1 2:1e3\r\n"
               "+1\n"
               "-1 1:1 2:2 3:3");
    const Dataset ds = lssvm::load_libsvm(path);
    check_shape(ds);
    REQUIRE(ds.n == 4);
    REQUIRE(ds.d == 3);
    CHECK(ds.label_values == std::vector<long>{-1, 1});
    CHECK(ds.y == std::vector<int>{1, 0, 1, 0});
    const std::vector<double> want{0.5, 0, 0, 1, 0, 1000, 0, 2, -2, 0, 0, 3};
    CHECK(ds.X == want);

    SECTION("features and limit") {
        const Dataset wide = lssvm::load_libsvm(path, 5, 2);
        check_shape(wide);
        CHECK(wide.n == 2);
        CHECK(wide.d == 5);
        CHECK(at(wide, 0, 2) == -2);
        CHECK(at(wide, 1, 4) == 0);
        const std::string msg = error_of([&] { lssvm::load_libsvm(path, 2); });
        CHECK(contains(msg, "data.svm:2:"));
    }
    SECTION("multi-class integer labels, gzip text") {
        const std::string gz = tmp.file("digits.svm.gz");
        write_gz(gz, Bytes{'9', ' ', '1', ':', '1', '\n', '0', ' ', '2', ':', '1', '\n', '3', '.', '0', '\n'});
        const Dataset m = lssvm::load_text(gz);
        CHECK(m.label_values == std::vector<long>{0, 3, 9});
        CHECK(m.y == std::vector<int>{2, 0, 1});
    }
    SECTION("errors name file and line") {
        const std::string bad = tmp.file("bad.svm");
        auto line_error = [&](const std::string& text) {
            write_text(bad, text);
            return error_of([&] { lssvm::load_libsvm(bad); });
        };
        std::string msg = line_error("1 1:1\n# c\n\n-1 2:1 3:abc\n");
        CHECK(contains(msg, "bad.svm:4:"));
        CHECK(contains(msg, "abc"));
        CHECK(contains(line_error("1 1:1\r\n-1 2:nan\r\n"), "bad.svm:2:"));
        CHECK(contains(line_error("1 1:inf\n"), "bad.svm:1:"));
        CHECK(contains(line_error("1 1:1\nx 1:1\n"), "bad.svm:2:"));
        CHECK(contains(line_error("1 2:1 1:1\n"), "bad.svm:1:"));
        CHECK(contains(line_error("1 0:1\n"), "bad.svm:1:"));
        CHECK(contains(line_error("1 1:1\n1 2\n"), "bad.svm:2:"));
        CHECK(contains(line_error("1 1:\n"), "bad.svm:1:"));
        CHECK(contains(line_error("1.5 1:1\n"), "bad.svm:1:"));
        CHECK(contains(line_error("1 1:1\n1 99999999999999:1\n"), "bad.svm:2:"));
        CHECK(contains(line_error("# only comments\n"), "bad.svm"));
        msg = line_error("+1\n-1 # no index:value pair anywhere\n");
        CHECK(contains(msg, "bad.svm"));
        CHECK(contains(msg, "no features"));
        CHECK(contains(line_error("1 1:1\n1 1:1\0 2:3\n"s), "bad.svm:2:"));
    }
}

TEST_CASE("CSV text", "[csv]") {
    TempDir tmp;
    const std::string with_header = tmp.file("with.csv"), plain = tmp.file("plain.csv");
    write_text(with_header, "label,f1,f2\r\n2, 0.5 ,1\r\n0,-1,2e1\r\n\r\n2,3,4\r\n");
    write_text(plain, "2;0.5;1\n0;-1;20\n2;3;4");
    for (const std::string& p : {with_header, plain}) {
        const Dataset ds = lssvm::load_text(p);
        check_shape(ds);
        REQUIRE(ds.n == 3);
        REQUIRE(ds.d == 2);
        CHECK(ds.label_values == std::vector<long>{0, 2});
        CHECK(ds.y == std::vector<int>{1, 0, 1});
        CHECK(ds.X == std::vector<double>{0.5, -1, 3, 1, 20, 4});
    }
    SECTION("tab separated, limit, format by name") {
        const std::string tsv = tmp.file("data.tsv");
        write_text(tsv, "1\t7\t8\t9\n-1\t1\t2\t3\n");
        const Dataset ds = lssvm::load_text(tsv, lssvm::parse_format("CSV"), 0, 1);
        CHECK(ds.n == 1);
        CHECK(ds.d == 3);
        CHECK(ds.X == std::vector<double>{7, 8, 9});
    }
    SECTION("errors name file and line") {
        const std::string bad = tmp.file("bad.csv");
        auto line_error = [&](const std::string& text) {
            write_text(bad, text);
            return error_of([&] { lssvm::load_csv(bad); });
        };
        std::string msg = line_error("y,a,b\n1,2,3\n1,2\n");
        CHECK(contains(msg, "bad.csv:3:"));
        CHECK(contains(msg, "line 1"));
        CHECK(contains(line_error("1,2,3\n\n1,2,3,4\n"), "bad.csv:3:"));
        CHECK(contains(line_error("1,2,3\n1,NaN,3\n"), "bad.csv:2:"));
        CHECK(contains(line_error("1,2,3\n1,2,-inf\n"), "bad.csv:2:"));
        CHECK(contains(line_error("1,2,3\n1,,3\n"), "bad.csv:2:"));
        CHECK(contains(line_error("1,2,3\n1,2x,3\n"), "bad.csv:2:"));
        CHECK(contains(line_error("1,2,3\n1;2;3\n"), "bad.csv:2:"));
        CHECK(contains(line_error("1,2,3\na,2,3\n"), "bad.csv:2:"));
        CHECK(contains(line_error("1 2 3\n"), "bad.csv:1:"));
        CHECK(contains(line_error("y,a\n"), "bad.csv"));
    }
    SECTION("a damaged gzip file fails even where a limit reads only its first lines") {
        const std::string gz = tmp.file("data.csv.gz");
        std::string text;
        for (int i = 0; i < 500; ++i) text += std::to_string(i % 2) + "," + std::to_string(i) + ",0.5\n";
        const Bytes data(text.begin(), text.end());
        write_bad_gz(gz, data, 6);
        std::string msg = error_of([&] { lssvm::load_text(gz, lssvm::Format::Auto, 0, 10); });
        CHECK(contains(msg, "data.csv.gz"));
        CHECK(contains(msg, "corrupt gzip data"));
        CHECK(contains(msg, "CRC-32"));
        write_bad_gz(gz, data, 0, 8);  // every line there, the trailer missing
        msg = error_of([&] { lssvm::load_text(gz, lssvm::Format::Auto, 0, 10); });
        CHECK(contains(msg, "data.csv.gz"));
        CHECK(contains(msg, "truncated gzip file"));
        write_gz(gz, data);
        CHECK(lssvm::load_text(gz, lssvm::Format::Auto, 0, 10).n == 10);
    }
}

TEST_CASE("format names", "[text]") {
    CHECK(lssvm::parse_format("auto") == lssvm::Format::Auto);
    CHECK(lssvm::parse_format("idx") == lssvm::Format::Idx);
    CHECK(lssvm::parse_format("libsvm") == lssvm::Format::Libsvm);
    CHECK(lssvm::parse_format("csv") == lssvm::Format::Csv);
    CHECK(contains(error_of([] { lssvm::parse_format("arff"); }), "arff"));
    CHECK(contains(error_of([] { lssvm::load_text("x.idx", lssvm::Format::Idx); }), "load_idx"));
}

TEST_CASE("align_to maps labels and refuses other feature counts", "[align]") {
    Dataset train;
    train.n = 3;
    train.d = 3;
    train.X.assign(9, 1.0);
    train.y = {0, 1, 2};
    train.label_values = {-1, 4, 9};
    train.source = "train.svm";

    Dataset test;
    test.n = 2;
    test.d = 3;
    test.X = {1, 2, 3, 4, 5, 6};
    test.y = {1, 0};
    test.label_values = {4, 9};
    test.source = "test.svm";

    SECTION("known labels") {
        lssvm::align_to(test, train);
        CHECK(test.label_values == train.label_values);
        CHECK(test.y == std::vector<int>{2, 1});
        CHECK(test.d == 3);
        CHECK(test.X == std::vector<double>{1, 2, 3, 4, 5, 6});
    }
    SECTION("unseen label") {
        test.label_values = {4, 5};
        test.y = {0, 1};
        const std::string msg = error_of([&] { lssvm::align_to(test, train); });
        CHECK(contains(msg, "label 5"));
        CHECK(contains(msg, "test.svm"));
        CHECK(test.y == std::vector<int>{0, 1});  // left unchanged
    }
    SECTION("fewer features than train: no zero padding") {
        test.d = 2;
        test.X.resize(4);
        const std::string msg = error_of([&] { lssvm::align_to(test, train); });
        CHECK(contains(msg, "test.svm: 2 features"));
        CHECK(contains(msg, "train.svm has 3"));
        CHECK(test.d == 2);  // left unchanged
    }
    SECTION("more features than train") {
        test.d = 4;
        test.X.resize(8);
        const std::string msg = error_of([&] { lssvm::align_to(test, train); });
        CHECK(contains(msg, "test.svm: 4 features"));
        CHECK(contains(msg, "train.svm has 3"));
    }
    SECTION("an empty test set takes train's feature count") {
        test = Dataset{};
        test.source = "test.svm";
        lssvm::align_to(test, train);
        CHECK(test.d == 3);
        CHECK(test.n == 0);
    }
}

TEST_CASE("MinMax scaling", "[minmax]") {
    Dataset train;
    train.n = 3;
    train.d = 3;
    train.X = {0.1, 0.7, 0.3, /* constant */ 5, 5, 5, -3, 1e3, 17};
    train.y = {0, 0, 0};
    train.label_values = {1};
    const lssvm::MinMax mm = lssvm::MinMax::fit(train);
    mm.apply(train);
    for (double x : train.X) {
        CHECK(x >= 0.0);
        CHECK(x <= 1.0);
    }
    CHECK(train.X[0] == 0.0);
    CHECK(train.X[1] == 1.0);
    CHECK(train.X[3] == 0.0);
    CHECK(train.X[4] == 0.0);
    CHECK(train.X[7] == 1.0);

    Dataset test = train;
    test.n = 1;
    test.X = {0.8, 6, -4};
    mm.apply(test);
    CHECK(test.X[0] > 1.0);  // unclipped
    CHECK(test.X[1] == 0.0);
    CHECK(test.X[2] < 0.0);

    test.d = 2;
    CHECK_THROWS_AS(mm.apply(test), DataError);
    CHECK_THROWS_AS(lssvm::MinMax::fit(Dataset{}), DataError);
}

TEST_CASE("Fashion-MNIST", "[fashion]") {
    const std::string dir = "/usr/share/datasets/fashion-mnist";
    if (!fs::is_directory(dir)) {
        WARN("skipped: " << dir << " not found (Debian package dataset-fashion-mnist)");
        return;
    }
    auto in_unit_range = [](const Dataset& ds) {
        for (double x : ds.X)
            if (!(x >= 0.0 && x <= 1.0)) return false;
        return true;
    };

    SECTION("limited") {
        const lssvm::Split s = lssvm::load_fashion_mnist(dir, 2000, 500);
        check_shape(s.train);
        check_shape(s.test);
        CHECK(s.train.n == 2000);
        CHECK(s.test.n == 500);
        CHECK(s.train.d == 784);
        CHECK(s.test.d == 784);
        CHECK(s.train.classes() == 10);
        CHECK(s.test.label_values == s.train.label_values);
        CHECK(s.train.label_values == std::vector<long>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
        CHECK(in_unit_range(s.train));
        CHECK(in_unit_range(s.test));
    }
    SECTION("full") {
        const auto t0 = std::chrono::steady_clock::now();
        const lssvm::Split s = lssvm::load_fashion_mnist(dir);
        const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        WARN("full Fashion-MNIST (60000 + 10000 images) loaded in " << secs << " s");
        check_shape(s.train);
        check_shape(s.test);
        CHECK(s.train.n == 60000);
        CHECK(s.test.n == 10000);
        CHECK(s.train.d == 784);
        CHECK(s.train.classes() == 10);
        CHECK(s.test.classes() == 10);
        CHECK(in_unit_range(s.train));
    }
    SECTION("missing directory names the package") {
        const std::string msg = error_of([] { lssvm::load_fashion_mnist("/nonexistent/fashion"); });
        CHECK(contains(msg, "/nonexistent/fashion"));
        CHECK(contains(msg, "dataset-fashion-mnist"));
    }
}
