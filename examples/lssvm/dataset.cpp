// Data set choices of the LS-SVM classifier: the format names, label alignment between a training and a test set,
// and min-max scaling. The readers: dataset_idx.cpp (IDX, Fashion-MNIST), dataset_text.cpp (LIBSVM, CSV).
#include "dataset.hpp"

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "data_input.hpp"

namespace lssvm {

using namespace input;

Format parse_format(const std::string& name) {
    std::string s = name;
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (s == "auto") return Format::Auto;
    if (s == "idx") return Format::Idx;
    if (s == "libsvm") return Format::Libsvm;
    if (s == "csv") return Format::Csv;
    throw DataError("unknown data format '" + name + "' (expected auto, idx, libsvm or csv)");
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

}  // namespace lssvm
