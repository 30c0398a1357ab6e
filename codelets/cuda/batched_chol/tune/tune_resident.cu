// The resident-kernel sweep (tune_batched_chol resident): for orders n = 40, 48, ..., 128 and both
// precisions, times every resident variant (resident_dispatch.cuh: kResidentVariants) at n and the
// library's tuned left-looking kernel at its compiled orders (tuned_table.hpp), same harness as
// tune_one (10,000 matrices, median of 7 after 2 warm-ups, results checked). CSV lines:
//   prec,n,kernel,nt,occ,us,ok      (kernel: resident (IB 8) | resident16 (IB 16) | residentw1 (W1) | left; left rows carry nt = occ = 0)
// `tools/tune_batched_chol.sh table ... RESIDENT_CSV` picks, per order, the faster of the two.
#include "codelets/cuda/batched_chol/resident_dispatch.cuh"
#include "codelets/cuda/batched_chol/tune/tune_common.cuh"

namespace starfact::batched::tune {

template <typename T, typename Launch>
void time_resident_row(int n, const char* kernel, int nt, int occ, Launch&& launch) {
    const size_t elems = static_cast<size_t>(kBatch) * n * n;
    T *pristine = nullptr, *work = nullptr;
    int* info = nullptr;
    check(cudaMalloc(&pristine, elems * sizeof(T)), "cudaMalloc");
    check(cudaMalloc(&work, elems * sizeof(T)), "cudaMalloc");
    check(cudaMalloc(&info, kBatch * sizeof(int)), "cudaMalloc");
    starfact::bench::fill_spd<T><<<1024, 256>>>(pristine, n, kBatch);
    gpu::Args<T> a;
    a.n = n;
    a.A.base = work;
    a.A.stride = int64_t(n) * n;
    a.lda = n;
    a.info = info;
    a.batch = kBatch;
    cudaEvent_t e0, e1;
    check(cudaEventCreate(&e0), "event");
    check(cudaEventCreate(&e1), "event");
    std::vector<double> t;
    for (int r = 0; r < 9; ++r) {
        check(cudaMemcpy(work, pristine, elems * sizeof(T), cudaMemcpyDeviceToDevice), "reset");
        check(cudaEventRecord(e0), "record");
        launch(a);
        check(cudaEventRecord(e1), "record");
        check(cudaEventSynchronize(e1), "kernel");
        float ms = 0;
        check(cudaEventElapsedTime(&ms, e0, e1), "elapsed");
        if (r >= 2) t.push_back(ms * 1e3);
    }
    std::sort(t.begin(), t.end());
    std::vector<int> hinfo(kBatch);
    check(cudaMemcpy(hinfo.data(), info, kBatch * sizeof(int), cudaMemcpyDeviceToHost), "info");
    const int members = 16;
    std::vector<T> in(size_t(members) * n * n), out(in.size());
    check(cudaMemcpy(in.data(), pristine, in.size() * sizeof(T), cudaMemcpyDeviceToHost), "in");
    check(cudaMemcpy(out.data(), work, out.size() * sizeof(T), cudaMemcpyDeviceToHost), "out");
    const bool ok = std::all_of(hinfo.begin(), hinfo.end(), [](int v) { return v == 0; }) &&
                    host_check<T>(n, in, out, members);
    std::printf("%s,%d,%s,%d,%d,%.2f,%d\n", sizeof(T) == 8 ? "d" : "s", n, kernel, nt, occ, t[t.size() / 2], ok ? 1 : 0);
    std::fflush(stdout);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    cudaFree(pristine);
    cudaFree(work);
    cudaFree(info);
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
        for (const gpu::ResidentConfig v : gpu::kResidentVariants)
            time_resident_row<T>(n, v.ib == 16 ? "resident16" : v.w1 ? "residentw1" : "resident", v.nt, v.occ, [&](const gpu::Args<T>& a) {
                if (!gpu::run_resident_variant<T, false>(a, v)) std::exit(3);
                check(cudaGetLastError(), "resident launch");
            });
}

void sweep_resident() {
    std::printf("prec,n,kernel,nt,occ,us,ok\n");
    sweep_resident_prec<float>();
    sweep_resident_prec<double>();
}

}  // namespace starfact::batched::tune
