// The refinement's flexible GMRES (RefineOps::gmres, refine_ops.hpp: the SPD and the LU solves alike) with its Krylov vectors in the solve's memory:
// per restart cycle, for every group of right-hand sides (all of them in lockstep, block l of a panel holding every
// column's l-th vector), and per iteration k
//
//   in := V_k;  out := M^-1 in;  Z_k := out              the solve with the low-precision factor (the solve's
//                                                         submit_precondition)
//   V_{k+1} := A out                                      one block product with A (submit_product)
//   h := V_{0..k+1}^T V_{k+1};  V_{k+1} -= V_{0..k} h     classical Gram-Schmidt, twice (the second pass also gives
//   h' := V_{0..k+1}^T V_{k+1};  V_{k+1} -= V_{0..k} h'   ||V_{k+1}||), all on the device, the coefficients read
//   V_{k+1} /= ||V_{k+1}||                                where the dots wrote them; one small read back of h and
//                                                         h' per iteration; Givens rotations on the host
//
// then X += Z y (y from the Hessenberg matrix, on the host) and, before the next cycle, the true residual.
#include <algorithm>
#include <cmath>
#include <complex>
#include <vector>

#include "algorithms/mixed_ops.hpp"
#include "algorithms/mixed_tiles.hpp"
#include "algorithms/submit.hpp"
#include "codelets/krylov_codelets.hpp"
#include "codelets/mixed_codelets.hpp"
#include "kernels/mixed/krylov_normalize.hpp"
#include "starfact/sequence.hpp"

namespace starfact::detail {

namespace {

int64_t small_tile(int m, int g) { return std::max<int64_t>(m + 2, g); }

/// One column's Hessenberg matrix (Givens-reduced), rotations and right-hand side within a restart cycle.
struct Hessenberg {
    std::vector<double> H, cs, sn, gv;
    int m = 0, k = 0;
    double beta = 0, target = 0;
    bool active = false, running = false;
    double& h(int i, int j) { return H[static_cast<size_t>(i + j * (m + 1))]; }
    void start(int cycle) {
        m = cycle;
        k = 0;
        H.assign(static_cast<size_t>((m + 1) * m), 0.0);
        cs.assign(static_cast<size_t>(m), 0.0);
        sn.assign(static_cast<size_t>(m), 0.0);
        gv.assign(static_cast<size_t>(m) + 1, 0.0);
        gv[0] = beta;
        running = true;
    }
    /// Column k of the Hessenberg matrix (k + 2 entries), reduced by the rotations; the new residual norm.
    void add(const double* column, int kk) {
        for (int i = 0; i <= kk + 1; ++i) h(i, kk) = column[i];
        for (int i = 0; i < kk; ++i) {
            const size_t ui = static_cast<size_t>(i);
            const double t = cs[ui] * h(i, kk) + sn[ui] * h(i + 1, kk);
            h(i + 1, kk) = -sn[ui] * h(i, kk) + cs[ui] * h(i + 1, kk);
            h(i, kk) = t;
        }
        const size_t uk = static_cast<size_t>(kk);
        const double rr = std::hypot(h(kk, kk), h(kk + 1, kk));
        cs[uk] = rr > 0 ? h(kk, kk) / rr : 1.0;
        sn[uk] = rr > 0 ? h(kk + 1, kk) / rr : 0.0;
        h(kk, kk) = rr;
        h(kk + 1, kk) = 0;
        gv[uk + 1] = -sn[uk] * gv[uk];
        gv[uk] *= cs[uk];
        beta = std::fabs(gv[uk + 1]);
        k = kk + 1;
    }
    /// y := H(0:k, 0:k)^-1 g(0:k), written into y[0..k).
    void solve(double* y) {
        for (int i = k - 1; i >= 0; --i) {
            double t = gv[static_cast<size_t>(i)];
            for (int l = i + 1; l < k; ++l) t -= h(i, l) * y[l];
            y[i] = h(i, i) != 0 ? t / h(i, i) : 0.0;
        }
    }
};

}  // namespace

template <typename T>
KrylovSpace<T>::KrylovSpace(Runtime& rt, int64_t n, int64_t nb, int64_t jc_, int64_t c0_, int g_, int m_, Residency r)
    : jc(jc_),
      c0(c0_),
      g(g_),
      m(m_),
      V(rt, n, static_cast<int64_t>(m_ + 1) * g_, nb, r),
      Z(rt, n, static_cast<int64_t>(m_) * g_, nb, r),
      in(rt, n, g_, nb, r),
      out(rt, n, g_, nb, r),
      w(rt, n, g_, nb, r),
      S(rt, 1, g_, nb, r),
      low(rt, n, g_, nb, r),
      H(rt, m_ + 2, g_, small_tile(m_, g_), r),
      H2(rt, m_ + 2, g_, small_tile(m_, g_), r),
      mask(rt, 1, g_, small_tile(m_, g_)),
      scale(rt, 1, g_, small_tile(m_, g_)),
      y(rt, m_, g_, small_tile(m_, g_)),
      ones(rt, 1, g_, small_tile(m_, g_)) {
    std::vector<double> v(static_cast<size_t>(g_), 1.0);
    ones.import(v.data(), 1);
}

template <typename T>
int RefineOps<T>::gmres(const std::vector<bool>& active, const std::vector<double>& target, std::vector<T> r,
                        int restart, int budget, const std::function<bool()>& out_of_time) {
    // real entries per element: a complex tile of m rows is read as 2m real rows by the Krylov codelets
    constexpr int reals = is_complex_v<T> ? 2 : 1;
    Runtime& rt = A_.runtime();
    const int64_t n = n_, nb = A_.nb(), mt = A_.mt();
    const size_t N = static_cast<size_t>(n);
    if (budget <= 0 || nb < 2) return 0;
    const Residency where = vector_residency(rt, hi_.mapping);
    // The groups of right-hand sides: B's column tiles, cut so that a panel of m + 1 blocks is one tile wide.
    const int m = std::max(1, std::min<int>(restart, static_cast<int>(nb) - 1));
    if (krylov_.empty() || krylov_.front()->m != m) {
        krylov_.clear();
        const int per = static_cast<int>(std::max<int64_t>(1, nb / (m + 1)));
        for (int64_t jc = 0; jc < B_.nt(); ++jc) {
            const int64_t width = tile_cols(B_.tile(0, jc));
            for (int64_t c0 = 0; c0 < width; c0 += per)
                krylov_.push_back(std::make_unique<KrylovSpace<T>>(rt, n, nb, jc, c0,
                                                                static_cast<int>(std::min<int64_t>(per, width - c0)), m, where));
        }
    }
    std::vector<Hessenberg> col(static_cast<size_t>(c_));
    auto norm_of = [&](int64_t j) {
        double s = 0;
        for (size_t e = 0; e < N; ++e) s += abs2_of(r[j * N + e]);
        return std::sqrt(s);
    };
    for (int64_t j = 0; j < c_; ++j) {
        Hessenberg& q = col[static_cast<size_t>(j)];
        q.beta = norm_of(j);
        q.target = target[static_cast<size_t>(j)];
        q.active = active[static_cast<size_t>(j)] && std::isfinite(q.beta) && q.beta > q.target;
    }
    int used = 0;
    while (used < budget) {
        int cycle_used = 0;
        bool any = false;
        for (auto& space : krylov_) {
            KrylovSpace<T>& K = *space;
            const int g = K.g;
            const int64_t first = K.jc * nb + K.c0;  // B's column of the group's column 0
            auto q = [&](int j) -> Hessenberg& { return col[static_cast<size_t>(first + j)]; };
            bool group = false;
            for (int j = 0; j < g; ++j) group = group || q(j).active;
            if (!group) continue;
            any = true;
            const int cycle = std::min(m, budget - used);
            std::vector<double> scale(static_cast<size_t>(g), 0.0), h1(static_cast<size_t>((m + 2) * g)), h2(h1.size()), column(static_cast<size_t>(m + 2));
            for (int j = 0; j < g; ++j)
                if (q(j).active) {
                    q(j).start(cycle);
                    scale[static_cast<size_t>(j)] = 1.0 / q(j).beta;
                } else {
                    q(j).running = false;
                }
            K.scale.import(scale.data(), 1);
            auto panel = [&](TileMatrix<T>& P) {
                std::vector<starpu_data_handle_t> h;
                for (int64_t i = 0; i < mt; ++i) h.push_back(P.tile(i, 0));
                return h;
            };
            const std::vector<starpu_data_handle_t> vtiles = panel(K.V);
            // V_0 := R / beta, per column (0 for the columns not iterating)
            auto seq = std::make_unique<Sequence>(rt);
            TaskOptions o = on_solve_memory(rt, options(*seq));
            for (int64_t i = 0; i < mt; ++i)
                insert_krylov_combine(rt, o, K.V.tile(i, 0), 0, v_->R.tile(i, K.jc), static_cast<int>(K.c0), 1, g,
                                      K.scale.tile(0, 0), 0.0, 1.0, reals);
            // The columns iterating, on the device for the normalisation (imported again when one stops)
            std::vector<double> mask(static_cast<size_t>(g));
            auto set_mask = [&] {
                for (int j = 0; j < g; ++j) mask[static_cast<size_t>(j)] = q(j).running ? 1.0 : 0.0;
                K.mask.import(mask.data(), 1);
            };
            set_mask();
            int k = 0;
            for (; k < cycle; ++k) {
                bool running = false;
                for (int j = 0; j < g; ++j) running = running || q(j).running;
                if (!running || out_of_time()) break;
                const int next = (k + 1) * g;
                for (int64_t i = 0; i < mt; ++i)
                    insert_krylov_combine(rt, o, K.in.tile(i, 0), 0, K.V.tile(i, 0), k * g, 1, g, K.ones.tile(0, 0), 0.0,
                                          1.0, reals);
                submit_precondition(o, K.in, K.S, K.low, K.out, false);
                for (int64_t i = 0; i < mt; ++i)
                    insert_krylov_combine(rt, o, K.Z.tile(i, 0), k * g, K.out.tile(i, 0), 0, 1, g, K.ones.tile(0, 0), 0.0,
                                          1.0, reals);
                // V_{k+1} := w = -A z (the Arnoldi vector with its sign flipped: the Hessenberg column and the
                // normalisation take the sign back)
                submit_product(o, nullptr, K.out, K.w);
                for (int64_t i = 0; i < mt; ++i)
                    insert_krylov_combine(rt, o, K.V.tile(i, 0), next, K.w.tile(i, 0), 0, 1, g, K.ones.tile(0, 0), 0.0,
                                          1.0, reals);
                // two passes of classical Gram-Schmidt on the device: h1 = V^T w, w -= V h1, h2 = V^T w, w -= V h2,
                // v_{k+1} = -w / ||w|| (||w||^2 = h2[k+1] - |h2[0..k]|^2); then one read back of h1 and h2
                insert_krylov_dot(rt, o, K.H.tile(0, 0), vtiles, k + 2, g, next, reals);
                for (int64_t i = 0; i < mt; ++i)
                    insert_krylov_combine(rt, o, K.V.tile(i, 0), next, nullptr, 0, k + 1, g, K.H.tile(0, 0), 1.0, -1.0,
                                      reals);
                insert_krylov_dot(rt, o, K.H2.tile(0, 0), vtiles, k + 2, g, next, reals);
                for (int64_t i = 0; i < mt; ++i) {
                    insert_krylov_combine(rt, o, K.V.tile(i, 0), next, nullptr, 0, k + 1, g, K.H2.tile(0, 0), 1.0, -1.0,
                                          reals);
                    insert_krylov_normalize(rt, o, K.V.tile(i, 0), next, g, k, K.H2.tile(0, 0), K.mask.tile(0, 0), -1.0,
                                        reals);
                }
                seq->wait();
                K.H.export_to(h1.data(), m + 2);
                K.H2.export_to(h2.data(), m + 2);
                bool stopped = false;
                for (int j = 0; j < g; ++j) {
                    Hessenberg& c = q(j);
                    if (!c.running) continue;
                    const double* e2 = h2.data() + static_cast<size_t>(j) * (m + 2);
                    const double* e1 = h1.data() + static_cast<size_t>(j) * (m + 2);
                    for (int l = 0; l <= k; ++l) column[static_cast<size_t>(l)] = -(e1[l] + e2[l]);
                    const double factor = krylov_column_factor(e2, k, 1.0, 1.0);  // 1 / ||w||, 0 if not positive
                    column[static_cast<size_t>(k + 1)] = factor > 0 ? 1.0 / factor : 0.0;
                    c.add(column.data(), k);
                    if (c.beta <= c.target || !(factor > 0) || !std::isfinite(c.beta)) {
                        c.running = false;
                        stopped = true;
                    }
                }
                if (stopped) set_mask();
                seq = std::make_unique<Sequence>(rt);
                o = on_solve_memory(rt, options(*seq));
            }
            // X += Z y, per column
            std::vector<double> y(static_cast<size_t>(m * g), 0.0);
            for (int j = 0; j < g; ++j)
                if (q(j).active) q(j).solve(y.data() + static_cast<size_t>(j) * m);
            K.y.import(y.data(), m);
            if (k > 0)
                for (int64_t i = 0; i < mt; ++i)
                    insert_krylov_combine(rt, o, B_.tile(i, K.jc), static_cast<int>(K.c0), K.Z.tile(i, 0), 0, k, g,
                                          K.y.tile(0, 0), 1.0, 1.0, reals);
            seq->wait();
            cycle_used = std::max(cycle_used, k);
        }
        used += cycle_used;
        if (!any || cycle_used == 0 || used >= budget || out_of_time()) break;
        // the next cycle from the true residual r - A d
        std::vector<T> x;
        residual(r, x);
        bool more = false;
        for (int64_t j = 0; j < c_; ++j) {
            Hessenberg& q = col[static_cast<size_t>(j)];
            if (!q.active) continue;
            q.beta = norm_of(j);
            q.active = std::isfinite(q.beta) && q.beta > q.target;
            more = more || q.active;
        }
        if (!more) break;
    }
    return used;
}

template struct KrylovSpace<double>;
template struct KrylovSpace<std::complex<double>>;
template int RefineOps<double>::gmres(const std::vector<bool>&, const std::vector<double>&, std::vector<double>, int,
                                      int, const std::function<bool()>&);
template int RefineOps<std::complex<double>>::gmres(const std::vector<bool>&, const std::vector<double>&,
                                                    std::vector<std::complex<double>>, int, int,
                                                    const std::function<bool()>&);

}  // namespace starfact::detail
