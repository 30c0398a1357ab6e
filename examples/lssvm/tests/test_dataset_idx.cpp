// Tests of the IDX reader on small files written to a temporary directory, and on Fashion-MNIST where the
// Debian package dataset-fashion-mnist is installed.
#include "data_files.hpp"

using namespace lssvm_test;

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
