// The resident-kernel sweep (tune_batched_chol resident): for orders n = 40, 48, ..., 128 and both
// precisions, times every resident variant of the tuning space (variants.hpp, kCandidateVariants) at n
// and the library's tuned left-looking kernel at its compiled orders (tuning.hpp), same harness as
// tune_one (10,000 matrices, median of 7 after 2 warm-ups, results checked). CSV lines:
//   prec,n,kernel,nt,occ,us,ok      (kernel: variants.hpp's family_kind, or left with nt = occ = 0)
// `tools/tune_batched_chol.sh table ... RESIDENT_CSV` picks, per order, the faster of the two.
#include "tools/tune/batched_chol/common.cuh"
#include "tools/tune/batched_chol/variants.hpp"

namespace starfact::batched::tune {

template <typename T, typename Launch>
void time_resident_row(int n, const char* kernel, int nt, int occ, Launch&& launch) {
    const Timing r = time_factor<T>(n, launch);
    std::printf("%s,%d,%s,%d,%d,%.2f,%d\n", sizeof(T) == 8 ? "d" : "s", n, kernel, nt, occ, r.us, r.ok ? 1 : 0);
    std::fflush(stdout);
}

template <typename T, int N>
void left_row() {
    time_resident_row<T>(N, "left", 0, 0, [](const gpu::Args<T>& a) { gpu::run_factor_tuned<T, N, false, false>(a); });
}

template <typename T>
void sweep_resident_prec() {
    left_row<T, 40>();
    left_row<T, 48>();
    left_row<T, 56>();
    left_row<T, 64>();
    left_row<T, 80>();
    left_row<T, 96>();
    left_row<T, 112>();
    left_row<T, 128>();
    for (int n = 40; n <= 128; n += 8)
        for (const gpu::Variant v : gpu::kCandidateVariants)
            time_resident_row<T>(n, gpu::family_kind(v.family), v.nt, v.occ, [&](const gpu::Args<T>& a) {
                if (!gpu::launch_potrf_candidate<T>(a, v)) std::exit(3);
                check(cudaGetLastError(), "resident launch");
            });
}

void sweep_resident() {
    std::printf("prec,n,kernel,nt,occ,us,ok\n");
    sweep_resident_prec<float>();
    sweep_resident_prec<double>();
}

}  // namespace starfact::batched::tune
