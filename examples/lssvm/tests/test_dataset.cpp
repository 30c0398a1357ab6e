// Tests of label alignment between a training and a test set, and of min-max scaling.
#include "data_files.hpp"

using namespace lssvm_test;

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
