// LS-SVM classification on starfact tiles: the kernel matrix assembled by StarPU tasks, factored and solved by
// starfact's tile Cholesky (or conjugate gradients on the same tiles), predictions as tasks, in one task graph.
//
// Model (Suykens & Vandewalle, "Least squares support vector machine classifiers", 1999), one-vs-all over
// the classes c with targets y_c(i) = +1 (sample i is of class c) or -1:
//     [ 0   1^T ] [ b_c ]   [ 0   ]
//     [ 1   H   ] [ a_c ] = [ y_c ],   H = K + I / C,   K(i, j) = k(x_i, x_j)
// eliminated into one SPD system with 1 + classes right-hand sides sharing H:
//     H [eta, nu_1 .. nu_m] = [1, y_1 .. y_m],   b_c = 1^T nu_c / 1^T eta,   a_c = nu_c - b_c eta,
// and the decision function f_c(x) = sum_i a_c(i) k(x, x_i) + b_c; the predicted class is argmax_c f_c.
#pragma once
#include <starfact/starfact.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dataset.hpp"

namespace lssvm {

template <typename T> class Codelets;

/// The application's codelets next to the starfact Runtime (create it after the Runtime, destroy it before).
class Engine {
public:
    explicit Engine(starfact::Runtime& rt);
    ~Engine();
    starfact::Runtime& runtime() const { return rt_; }
    template <typename T> const Codelets<T>& codelets() const;

private:
    starfact::Runtime& rt_;
    std::unique_ptr<Codelets<float>> s_;
    std::unique_ptr<Codelets<double>> d_;
};

enum class KernelType { Linear, Rbf };
KernelType parse_kernel(const std::string& s);  ///< "linear", "rbf"; std::invalid_argument otherwise
const char* to_string(KernelType k);

/// k(x, z) = x.z (linear) or exp(-gamma |x - z|^2) (RBF); C > 0 the regularisation (H = K + I/C).
struct Hyper {
    KernelType kernel = KernelType::Rbf;
    double gamma = 0;  ///< RBF width; <= 0: 1 / (d * variance of the training features) ("scale")
    double C = 10;
};
/// gamma as used: h.gamma, or the "scale" default from the training data.
double effective_gamma(const Hyper& h, const Dataset& train);

enum class Solver { Cholesky, Cg };

/// How one training + prediction runs.
struct RunOptions {
    starfact::Mapping mapping = starfact::Mapping::GpuOnly;
    int64_t nb = 0;          ///< tile size; 0: starfact::plan's for the order
    bool overlap = true;     ///< one task graph (false: wait after each phase, to time them apart)
    Solver solver = Solver::Cholesky;
    double cg_tol = 1e-6;    ///< CG: stop a right-hand side when |r| / |b| <= tol
    int cg_maxit = 1000;     ///< CG: iteration cap
    bool progress = false;   ///< CG: a progress line on stderr
    /// Cholesky in double: the factorization's precision (starfact::Options::factor). Fp32/Tf32/Bf16/Fp16: the
    /// mixed-precision posv (a low-precision factor refined to double accuracy, docs/mixed_precision.md), run after
    /// the assembly instead of overlapping it; Native: the double factorization in the one task graph.
    starfact::Precision factor = starfact::Precision::Native;
    /// The mixed-precision solve's refinement settings (shift, tolerance, GMRES budget; starfact::Refinement).
    starfact::Refinement refine;
};

/// Seconds of each phase. With overlap the phases run together: the fields are then the times at which each
/// phase's last task completed, measured from the start of the graph (assemble <= factor <= solve <= predict).
struct Timings {
    double setup = 0;     ///< tile allocation and registration (before the graph)
    double assemble = 0, factor = 0, solve = 0, predict = 0;
    double total = 0;     ///< first task submitted .. predictions on the host
};

struct Result {
    int info = 0;                ///< > 0: H is not positive definite in this precision (failing column)
    int cg_iterations = 0;       ///< CG: iterations of the slowest right-hand side
    bool cg_converged = true;
    std::vector<double> bias;    ///< b_c
    std::vector<double> alpha;   ///< n x classes, column-major
    std::vector<double> solution;  ///< n x (1 + classes): [eta, nu_1 .. nu_m], the solved system's columns
    starfact::SolveReport mixed;  ///< Cholesky with a lower factor precision: what the mixed-precision solve did
    std::vector<int> train_pred, test_pred;
    double train_accuracy = 0, test_accuracy = 0;
    Timings t;
};

/// Trains on `train` and predicts `test` with precision T. Throws starfact::InvalidArgument for bad options.
template <typename T>
Result run(const Engine& engine, const Dataset& train, const Dataset& test, const Hyper& h, const RunOptions& o);

/// |H X - R|_F / |R|_F over the system's columns R = [1, y_1 .. y_m] for the solution X of a Result,
/// with H recomputed by tasks (kernel applied on the fly): the solver's relative residual.
template <typename T>
double relative_residual(const Engine& engine, const Dataset& train, const Hyper& h, const Result& r,
                         const RunOptions& o);

/// The same model solved on the host with LAPACKE (full H, <t>posv): the reference of the tests.
Result reference_lapacke(const Dataset& train, const Dataset& test, const Hyper& h);

/// b, a, the training decisions (from the system's rows: K a + b = y - a/C) and the test predictions, from the
/// solution [eta, nu] (n x (1 + m)) and the test products S = K(test, train) [eta, nu] (test.n x (1 + m)).
void finish(Result& res, const std::vector<double>& solution, const std::vector<double>& S, const Dataset& train,
            const Dataset& test, double C);

/// The all-vendor pipeline on the same data (CUDA builds): cuBLAS syrk + an element-wise kernel for H, cuSOLVER
/// Xpotrf + Xpotrs, cuBLAS gemm for the test products; each phase timed apart (Timings: durations, not
/// completion times). Throws std::runtime_error if the GPU lacks the memory or a call fails.
template <typename T>
Result vendor_pipeline(const Dataset& train, const Dataset& test, const Hyper& h);
bool have_vendor_pipeline();

/// Fraction of equal entries.
double accuracy(const std::vector<int>& pred, const std::vector<int>& truth);

}  // namespace lssvm
