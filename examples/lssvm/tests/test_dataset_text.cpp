// Tests of the text readers (LIBSVM, CSV) and of the format names on small files written to a temporary directory.
#include "data_files.hpp"

using namespace lssvm_test;

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
        check_errors(tmp.file("bad.svm"), [](const std::string& f) { lssvm::load_libsvm(f); },
                     {{"1 1:1\n# c\n\n-1 2:1 3:abc\n", "bad.svm:4:"},
                      {"1 1:1\n# c\n\n-1 2:1 3:abc\n", "abc"},
                      {"1 1:1\r\n-1 2:nan\r\n", "bad.svm:2:"},
                      {"1 1:inf\n", "bad.svm:1:"},
                      {"1 1:1\nx 1:1\n", "bad.svm:2:"},
                      {"1 2:1 1:1\n", "bad.svm:1:"},
                      {"1 0:1\n", "bad.svm:1:"},
                      {"1 1:1\n1 2\n", "bad.svm:2:"},
                      {"1 1:\n", "bad.svm:1:"},
                      {"1.5 1:1\n", "bad.svm:1:"},
                      {"1 1:1\n1 99999999999999:1\n", "bad.svm:2:"},
                      {"# only comments\n", "bad.svm"},
                      {"+1\n-1 # no index:value pair anywhere\n", "bad.svm"},
                      {"+1\n-1 # no index:value pair anywhere\n", "no features"},
                      {"1 1:1\n1 1:1\0 2:3\n"s, "bad.svm:2:"}});
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
        check_errors(tmp.file("bad.csv"), [](const std::string& f) { lssvm::load_csv(f); },
                     {{"y,a,b\n1,2,3\n1,2\n", "bad.csv:3:"},
                      {"y,a,b\n1,2,3\n1,2\n", "line 1"},
                      {"1,2,3\n\n1,2,3,4\n", "bad.csv:3:"},
                      {"1,2,3\n1,NaN,3\n", "bad.csv:2:"},
                      {"1,2,3\n1,2,-inf\n", "bad.csv:2:"},
                      {"1,2,3\n1,,3\n", "bad.csv:2:"},
                      {"1,2,3\n1,2x,3\n", "bad.csv:2:"},
                      {"1,2,3\n1;2;3\n", "bad.csv:2:"},
                      {"1,2,3\na,2,3\n", "bad.csv:2:"},
                      {"1 2 3\n", "bad.csv:1:"},
                      {"y,a\n", "bad.csv"}});
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
