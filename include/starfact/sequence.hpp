// Asynchronous submission: a Sequence groups operations whose tasks were submitted without waiting.
#pragma once
#include <cstdint>
#include <memory>

#include "starfact/runtime.hpp"
#include "starfact/starpu_types.hpp"

namespace starfact {

namespace detail {
struct SequenceState;
struct SequenceAccess;
class Membership;
}  // namespace detail

/// A group of operations submitted without waiting: the `async::` forms (cholesky.hpp) put their tasks
/// into a Sequence and return as soon as the tasks are submitted; StarPU orders them by their data, so
/// operations chained on the same tiles (potrf, then potrs on its factor) need no wait in between, and
/// their phases overlap. wait() blocks until the tasks of this sequence, and only those, have completed:
/// two threads (or one thread with two sequences) factor two matrices at once without waiting for each
/// other. Each factorization in the sequence gets an operation index whose LAPACK `info` is read after wait().
///
///     starfact::Sequence seq(rt);
///     const int op = starfact::async::potrf(A, seq);
///     starfact::async::potrs(A, B, seq);          // follows the factorization tile by tile
///     if (seq.wait() != 0) ... seq.info(op) ...   // first nonzero info; B is meaningless then
///
/// The tiles an operation uses must stay alive until wait() returns. A Sequence may be reused after wait().
///
/// A Sequence belongs to its Runtime and should be destroyed before it. If the Runtime is destroyed first, its
/// destructor completes the sequence's tasks (it waits for every task) and gives back the sequence's StarPU data;
/// from then on runtime(), wait(), submit(), info(op) of an operation not waited for, and the async:: forms given
/// the sequence throw RuntimeError; done(), pending(), submitted(), operations(), info() and info(op) of the
/// operations already waited for still answer, and the destructor does nothing.
class Sequence {
public:
    explicit Sequence(Runtime& runtime);
    /// Waits for the sequence's tasks (a destructor never throws: errors are swallowed).
    ~Sequence();
    Sequence(const Sequence&) = delete;
    Sequence& operator=(const Sequence&) = delete;

    /// The Runtime this sequence belongs to; throws RuntimeError once that Runtime was destroyed.
    Runtime& runtime() const;

    /// Blocks until every task submitted into this sequence so far has completed and gathers the infos
    /// of its operations; returns info(). Tasks outside the sequence are not waited for. With a factorization
    /// of a distributed matrix in it: this rank's tasks, then a reduction of the infos over the ranks (every
    /// rank calls wait(), and gets the same info; docs/mpi.md). Throws RuntimeError once the Runtime was
    /// destroyed (the infos of operations not waited for before are lost then).
    int wait();
    /// Whether every task submitted into the sequence so far has completed (never blocks).
    bool done() const;
    /// Tasks submitted into the sequence and not yet completed.
    int64_t pending() const;
    /// Tasks submitted into the sequence since it was created.
    int64_t submitted() const;

    /// After wait(): 0 if every factorization of the sequence succeeded, else the first nonzero info in
    /// submission order (LAPACK's meaning: the failing column, 1-based).
    int info() const;
    /// After wait(): the info of operation `op` (an index returned by an async:: factorization).
    /// Throws InvalidArgument for an unknown index, RuntimeError before wait() returned.
    int info(int op) const;
    /// Operations with an info registered so far.
    int operations() const;

    /// Submits a task of the caller's own codelet into the sequence (so that wait() covers it), e.g. the
    /// tasks that assemble a matrix before async::potrf factors it. The task must have no callback (the
    /// sequence uses that slot). Throws InvalidArgument if it has one, RuntimeError if StarPU refuses it
    /// (the task is then destroyed). The task is submitted on this process as it is: not for tiles of a
    /// distributed TileMatrix, whose tasks StarPU-MPI places on their owners (docs/mpi.md).
    void submit(starpu_task* task);

private:
    friend struct detail::SequenceAccess;
    int wait_tasks();  // wait() without the Runtime check (the destructor, once out of the registry)
    Runtime* rt_;
    std::unique_ptr<detail::SequenceState> state_;
    std::unique_ptr<detail::Membership> membership_;  // in the Runtime's registry (runtime/runtime_state.hpp)
};

}  // namespace starfact
