// Column-major arrays whose leading dimension is 2^31 entries or more, without the memory: an anonymous private
// mapping made with MAP_NORESERVE, of which only the pages the columns touch are ever backed (a few per column).
#pragma once
#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace starfact::test {

/// The smallest leading dimension that does not fit a 32-bit signed integer.
constexpr int64_t kWide = int64_t(1) << 31;

/// A rows x cols column-major array with leading dimension ld over a mapping that reserves no memory. The two
/// entries after each column's last row hold a marker, which nothing the library does may change.
template <typename T>
class WideArray {
public:
    static constexpr T kMarker = T(-777);

    WideArray(int64_t rows, int64_t cols, int64_t ld) : rows_(rows), cols_(cols), ld_(ld) {
        bytes_ = static_cast<size_t>((std::max<int64_t>(cols, 1) - 1) * ld + rows + 2) * sizeof(T);
        void* p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p == MAP_FAILED)
            throw std::runtime_error("mmap of " + std::to_string(bytes_) + " bytes without reserve failed");
        data_ = static_cast<T*>(p);
        for (int64_t j = 0; j < cols_; ++j) data_[j * ld_ + rows_] = data_[j * ld_ + rows_ + 1] = kMarker;
    }
    ~WideArray() { munmap(data_, bytes_); }
    WideArray(const WideArray&) = delete;
    WideArray& operator=(const WideArray&) = delete;

    T* data() { return data_; }
    int64_t ld() const { return ld_; }

    /// Writes the compact rows x cols array A (leading dimension rows) into the array.
    void put(const std::vector<T>& A) {
        for (int64_t j = 0; j < cols_; ++j)
            std::copy(A.begin() + j * rows_, A.begin() + (j + 1) * rows_, data_ + j * ld_);
    }
    /// The array's contents, compact (leading dimension rows).
    std::vector<T> get() const {
        std::vector<T> A(static_cast<size_t>(rows_ * cols_));
        for (int64_t j = 0; j < cols_; ++j) std::copy(data_ + j * ld_, data_ + j * ld_ + rows_, A.begin() + j * rows_);
        return A;
    }
    /// Whether every marker past the columns is unchanged.
    bool markers_intact() const {
        for (int64_t j = 0; j < cols_; ++j)
            if (data_[j * ld_ + rows_] != kMarker || data_[j * ld_ + rows_ + 1] != kMarker) return false;
        return true;
    }

private:
    int64_t rows_, cols_, ld_;
    size_t bytes_ = 0;
    T* data_ = nullptr;
};

}  // namespace starfact::test
