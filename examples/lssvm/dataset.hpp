// Data sets for the LS-SVM classifier: IDX (MNIST layout), LIBSVM and CSV readers, label alignment between a
// training and a test set, and min-max feature scaling.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace lssvm {

/// Bad or unreadable input. The message names the file and, where it applies, the line ("file:LINE: ...", text
/// formats) or the byte offset and record (IDX).
class DataError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// A labelled data set with a dense, column-major feature matrix.
struct Dataset {
    int64_t n = 0;                   ///< samples
    int64_t d = 0;                   ///< features
    std::vector<double> X;           ///< column-major n x d (leading dimension n): X[i + j*n] = feature j of sample i
    std::vector<int> y;              ///< class index of each sample, 0 .. classes()-1
    std::vector<long> label_values;  ///< the original label of each class index (sorted ascending)
    std::string source;              ///< file name(s), for messages
    /// Number of classes (distinct labels).
    int classes() const { return static_cast<int>(label_values.size()); }
};

/// Input file formats; Auto picks by file extension (see load_text).
enum class Format { Auto, Idx, Libsvm, Csv };

/// Parses "auto", "idx", "libsvm" or "csv" (case-insensitive).
/// @throws DataError for any other name.
Format parse_format(const std::string& name);

/// Reads an IDX pair in the MNIST / Fashion-MNIST layout: an images file (magic 0x00000803: u8, n x rows x cols)
/// and a labels file (magic 0x00000801: u8, n). Either file may be gzip-compressed (recognised by its 0x1f 0x8b
/// magic) or plain. Pixels are scaled to [0, 1] (divided by 255); d = rows * cols, row-major pixel order.
/// A gzip file is always inflated to its end, so that the CRC-32 and length in its trailer check all of it, even
/// when `limit` keeps fewer samples (gzip has no checksum of a part).
/// @param limit  if >= 0, keep at most the first `limit` samples (all of them if the file has fewer).
/// @throws DataError on a missing file, a wrong magic, truncated data (records missing, or a gzip file cut before its
///         trailer), corrupt gzip data (a CRC-32 or length mismatch), image and label counts that differ, no
///         images, a label above 254, or trailing data after the declared records.
Dataset load_idx(const std::string& images, const std::string& labels, int64_t limit = -1);

/// Reads LIBSVM text: "label index:value index:value ..." with 1-based, strictly increasing indices; '#' starts a
/// comment, blank lines are skipped, CRLF line ends are accepted. Labels are integers ("+1" and integral values such
/// as "2.0" are accepted); the classes are the distinct labels sorted ascending.
/// @param features  if > 0, the number of features d (an index above it is an error); otherwise d = largest index.
/// @param limit     if >= 0, keep at most the first `limit` samples.
/// @throws DataError naming the file and line for a malformed token or a non-finite value; naming the file for no
///         samples, no features, or a truncated or corrupt gzip file.
Dataset load_libsvm(const std::string& path, int64_t features = 0, int64_t limit = -1);

/// Reads CSV: one sample per line, the integer label in the first column, then the features. An optional header line
/// (its first field is not a number) is skipped; blank lines are skipped. The separator is ',', ';' or tab, taken
/// from the first line and used for the whole file. Every row must have the same number of fields.
/// @param limit  if >= 0, keep at most the first `limit` samples.
/// @throws DataError naming the file and line for a ragged row, an empty or malformed field, or a NaN/inf value;
///         naming the file for no samples, or a truncated or corrupt gzip file.
Dataset load_csv(const std::string& path, int64_t limit = -1);

/// Reads a text data set. Format::Auto picks by extension: ".csv" (or ".csv.gz") is CSV, anything else LIBSVM.
/// Text files may also be gzip-compressed; the whole file is read, so the gzip trailer checks all of it.
/// Format::Idx is rejected: IDX needs two files, use load_idx.
/// @param features  passed to load_libsvm (ignored for CSV).
Dataset load_text(const std::string& path, Format f = Format::Auto, int64_t features = 0, int64_t limit = -1);

/// Maps `test`'s classes onto `train`'s: afterwards test.label_values == train.label_values and test.y holds train's
/// class indices.
/// @throws DataError naming the first test label (in sample order) that train does not have, or naming both sets and
///         both counts if test.d differs from train.d (an empty test set takes train.d). Load a LIBSVM test set with
///         features = train.d: its feature count is otherwise only its largest index.
void align_to(Dataset& test, const Dataset& train);

/// Per-feature min-max scaling fitted on a training set: x -> (x - lo) / scale, where scale is the width of the
/// training range. Training data maps into [0, 1]; a constant feature (scale 0) maps to 0. Test data may fall slightly
/// outside [0, 1] and is left unclipped.
struct MinMax {
    std::vector<double> lo;     ///< per-feature minimum over the training set
    std::vector<double> scale;  ///< per-feature range (max - min) over the training set; 0 for a constant feature
    /// Fits lo and scale on `train`. @throws DataError if train has no samples.
    static MinMax fit(const Dataset& train);
    /// Scales `data` in place. @throws DataError if data.d differs from the fitted feature count.
    void apply(Dataset& data) const;
};

/// A training and a test set.
struct Split {
    Dataset train;  ///< training set
    Dataset test;   ///< test set, aligned to train (see align_to)
};

/// Loads Fashion-MNIST from a directory holding train-images-idx3-ubyte.gz, train-labels-idx1-ubyte.gz,
/// t10k-images-idx3-ubyte.gz and t10k-labels-idx1-ubyte.gz (each also accepted without .gz). The default directory is
/// where the Debian package dataset-fashion-mnist installs them. The test set is aligned to the training set.
/// @param train_limit, test_limit  if >= 0, keep at most that many leading samples of each set.
/// @throws DataError naming the directory and the package if a file is missing, or any load_idx error.
Split load_fashion_mnist(const std::string& dir = "/usr/share/datasets/fashion-mnist", int64_t train_limit = -1,
                         int64_t test_limit = -1);

}  // namespace lssvm
