"""Several Python threads calling at once: the GIL is released while StarPU works, each call waits for its own
tasks, and every result is right (a quarter of the calls fail on purpose, as the C++ thread tests do)."""
import threading
import time

import numpy

import starfact
from support import LIMIT, NB, general, rhs, solve_residual, spd

THREADS = 8
CALLS = 12


def test_threads_calling_at_once(rng):
    seeds = rng.integers(0, 1 << 30, THREADS)
    failures = []
    counts = {"ok": 0, "failed": 0}
    lock = threading.Lock()
    start = threading.Barrier(THREADS)

    def worker(seed):
        r = numpy.random.default_rng(seed)
        start.wait()
        try:
            for call in range(CALLS):
                dtype = (numpy.float32, numpy.float64)[call % 2]
                n = int(r.integers(1, 3 * NB))
                b = rhs(r, n, 2, dtype)
                fail = call % 4 == 3
                if call % 3 == 0:
                    a = spd(r, n, dtype)
                    if fail:
                        a[n - 1, n - 1] = -1
                    op = lambda: starfact.posv(a, b, nb=NB)  # noqa: E731
                elif call % 3 == 1:
                    a = general(r, n, dtype)
                    if fail:
                        a[:, n - 1] = 0
                    op = lambda: starfact.gesv(a, b, nb=NB)  # noqa: E731
                else:
                    a = spd(r, n, dtype)
                    if fail:
                        a[0, 0] = -1
                    op = lambda: starfact.posv_async(a, b, nb=NB).wait()  # noqa: E731
                try:
                    x = op()
                except starfact.LinAlgError as e:
                    if not fail:
                        failures.append("unexpected failure n=%d: %s" % (n, e))
                    with lock:
                        counts["failed"] += 1
                    continue
                if fail:
                    failures.append("a failing call succeeded (n=%d)" % n)
                elif solve_residual(a, x, b, dtype) >= LIMIT:
                    failures.append("residual too large (n=%d)" % n)
                with lock:
                    counts["ok"] += 1
        except Exception as e:  # pylint: disable=broad-except
            failures.append(repr(e))

    threads = [threading.Thread(target=worker, args=(int(s),)) for s in seeds]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures, failures
    assert counts["ok"] + counts["failed"] == THREADS * CALLS
    assert counts["failed"] == THREADS * CALLS // 4


def test_gil_is_released(rng):
    """A Python thread keeps running while another waits for a factorization."""
    n = 600
    a = spd(rng, n, numpy.float64)
    ticks = []
    done = threading.Event()

    def ticker():
        while not done.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.001)

    t = threading.Thread(target=ticker)
    t.start()
    try:
        t0 = time.perf_counter()
        for _ in range(3):
            starfact.potri(a, nb=64)
        t1 = time.perf_counter()
    finally:
        done.set()
        t.join()
    inside = [x for x in ticks if t0 < x < t1]
    assert len(inside) >= 3, "the ticker thread did not run while starfact worked (%d ticks in %.3f s)" \
        % (len(inside), t1 - t0)
