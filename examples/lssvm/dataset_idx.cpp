// The IDX reader (MNIST layout, plain or gzip) and the Fashion-MNIST loader of the LS-SVM classifier.
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "data_input.hpp"
#include "dataset.hpp"

namespace lssvm {

using namespace input;

namespace {

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
