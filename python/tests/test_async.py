"""The _async forms: a Job whose wait() returns the blocking form's result, info once done, failures on wait()."""
import numpy
import pytest

import starfact
from support import LIMIT, NB, cholesky_residual, general, inverse_residual, lu_residual, rhs, solve_residual, spd


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
def test_every_async_form(rng, dtype):
    n = 3 * NB + 7
    a = spd(rng, n, dtype)
    g = general(rng, n, dtype)
    b = rhs(rng, n, 3, dtype)
    jobs = {
        "potrf": starfact.potrf_async(a, lower=True, nb=NB),
        "posv": starfact.posv_async(a, b, nb=NB),
        "potri": starfact.potri_async(a, nb=NB),
        "getrf": starfact.getrf_async(g, nb=NB),
        "gesv": starfact.gesv_async(g, b, nb=NB),
    }
    for job in jobs.values():
        assert isinstance(job, starfact.Job)
    c, lower = jobs["potrf"].wait()
    assert lower and cholesky_residual(a, c, True, dtype) < LIMIT
    assert jobs["potrf"].info == 0 and jobs["potrf"].done()
    assert solve_residual(a, jobs["posv"].wait(), b, dtype) < LIMIT
    assert inverse_residual(a, jobs["potri"].wait(), dtype) < LIMIT
    lu, piv = jobs["getrf"].wait()
    assert lu_residual(g, lu, piv, dtype) < LIMIT
    assert solve_residual(g, jobs["gesv"].wait(), b, dtype) < LIMIT
    x = starfact.potrs_async((c, True), b, nb=NB).wait()
    assert solve_residual(a, x, b, dtype) < LIMIT
    x = starfact.getrs_async((lu, piv), b, nb=NB).wait()
    assert solve_residual(g, x, b, dtype) < LIMIT


def test_wait_twice_and_info(rng):
    n = 50
    a = spd(rng, n, numpy.float64)
    job = starfact.potrf_async(a, nb=16)
    first = job.wait()
    second = job.wait()
    assert first[0] is second[0]
    assert job.info == 0 and job.done()
    assert "info=0" in repr(job)


def test_failure_raised_by_wait(rng):
    n = 2 * NB
    a = spd(rng, n, numpy.float64)
    a[NB + 2, NB + 2] = -5
    job = starfact.posv_async(a, rhs(rng, n, None, numpy.float64), nb=NB)
    for _ in range(2):
        with pytest.raises(starfact.LinAlgError) as e:
            job.wait()
        assert e.value.info == NB + 3
    assert job.info == NB + 3


def test_many_jobs_in_flight(rng):
    """Jobs submitted back to back run together; each waits for its own."""
    n = 2 * NB + 1
    problems = [(spd(rng, n, numpy.float64), rhs(rng, n, 2, numpy.float64)) for _ in range(12)]
    jobs = [starfact.posv_async(a, b, nb=NB) for a, b in problems]
    for (a, b), job in reversed(list(zip(problems, jobs))):
        assert solve_residual(a, job.wait(), b, numpy.float64) < LIMIT


def test_unwaited_job_completes_on_collection(rng):
    a = spd(rng, 64, numpy.float64)
    job = starfact.potrf_async(a, nb=16)
    del job  # completed and freed by the garbage collector; the runtime goes on
    assert starfact.potrf(a, nb=16)[0].shape == (64, 64)


def test_several_threads_wait_for_one_job(rng):
    """Threads waiting for one job all block until the result is there, and get the same result, or the same
    exception; done() polled meanwhile says True only when a wait() returns it at once."""
    import threading  # pylint: disable=import-outside-toplevel
    import time  # pylint: disable=import-outside-toplevel
    n = 12 * NB + 5  # hundreds of tasks: the waiters arrive while they run
    a = spd(rng, n, numpy.float64)
    b = rhs(rng, n, 2, numpy.float64)
    bad = a.copy()
    bad[n - 3, n - 3] = -1.0
    for matrix, expected in ((a, 0), (bad, n - 2)):
        job = starfact.posv_async(matrix, b, nb=NB)
        start = threading.Barrier(5)
        seen = [None] * 5

        def waiter(k, poll, job=job, start=start, seen=seen):
            start.wait()
            while poll and not job.done():
                time.sleep(0.0005)
            try:
                seen[k] = ("result", job.wait(), job.info)
            except starfact.LinAlgError as e:
                seen[k] = ("error", e, job.info)

        threads = [threading.Thread(target=waiter, args=(k, k == 4)) for k in range(5)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert all(s is not None and s[2] == expected for s in seen), [s and (s[0], s[2]) for s in seen]
        assert all(s[1] is seen[0][1] for s in seen)  # one result (one exception) for all
        if expected == 0:
            assert seen[0][0] == "result" and solve_residual(a, seen[0][1], b, numpy.float64) < LIMIT
        else:
            assert seen[0][0] == "error" and seen[0][1].info == expected


def test_done_while_another_thread_builds_the_result(rng):
    """done() is False while a waiting thread is still building the result (the finish step), True after."""
    import threading  # pylint: disable=import-outside-toplevel
    a = spd(rng, 40, numpy.float64)
    job = starfact.potrf_async(a, nb=16)
    inside, leave = threading.Event(), threading.Event()
    finish = job._finish  # pylint: disable=protected-access

    def slow_finish(info, report):
        inside.set()
        leave.wait(10)
        return finish(info, report)

    job._finish = slow_finish  # pylint: disable=protected-access
    t = threading.Thread(target=job.wait)
    t.start()
    assert inside.wait(10)
    assert not job.done() and job.info is None
    leave.set()
    t.join()
    assert job.done() and job.info == 0
    assert cholesky_residual(a, job.wait()[0], False, numpy.float64) < LIMIT
