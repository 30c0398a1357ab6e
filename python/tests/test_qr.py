"""qr, geqrf, ormqr (both sides), orgqr, gels, lstsq on NumPy arrays and PyTorch CPU tensors: ||I - Q^T Q||,
||A - Q R||, ormqr against the explicit Q and the least-squares residual < 60; wide matrices (R trapezoidal, the
minimum-norm solution against NumPy's), both precisions, C and Fortran order, m not a multiple of nb, n = 1, m = n,
n < nb; the trees; in place without copies; LinAlgError with info for a zero diagonal of R; errors naming the
argument; async forms and threads."""
import threading

import numpy
import pytest

import starfact
from starfact import _clib
from support import (DTYPES, LIMIT, NB, eps, layout, lstsq_residual, norm1, orthogonality, qr_residual,
                     solve_residual, tall)

# (m, n): m = n = 1, m = n < nb, n = 1, m not a multiple of nb with several tile columns, m = n over several tiles
SHAPES = [(1, 1), (NB - 5, NB - 5), (3 * NB + 7, 1), (3 * NB + 7, NB + 3), (2 * NB + 1, 2 * NB + 1), (5 * NB, 2 * NB)]


def _same(x, y, dtype):
    """Two runs of the same computation agree: bit for bit when only CPU workers run it; with CUDA workers a tile
    task may run on either kind of worker, whose kernels round differently, so within the residual tests' bound."""
    x, y = numpy.asarray(x), numpy.asarray(y)
    if x.shape != y.shape:
        return False
    if not (starfact.built_with_cuda() and starfact.cuda_device_count() > 0):
        return numpy.array_equal(x, y)
    scale = max(norm1(x), numpy.finfo(dtype).tiny)
    return norm1(x.astype(numpy.float64) - y) / (scale * max(x.shape) * eps(dtype)) < LIMIT


def _upper(r):
    r = numpy.asarray(r)
    return numpy.array_equal(r, numpy.triu(r))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("order", ["C", "F"])
def test_qr_economic(rng, dtype, shape, order):
    m, n = shape
    a = tall(rng, m, n, dtype)
    a_in = layout(a, order)
    q, r = starfact.qr(a_in, nb=NB)
    assert numpy.array_equal(a_in, a)  # not overwritten
    assert q.shape == (m, n) and r.shape == (n, n) and q.dtype == dtype and r.dtype == dtype
    assert _upper(r)
    assert orthogonality(q, dtype) < LIMIT
    assert qr_residual(a, q, r, dtype) < LIMIT


@pytest.mark.parametrize("dtype", DTYPES)
def test_qr_modes(rng, dtype):
    m, n = 2 * NB + 9, NB + 2
    a = tall(rng, m, n, dtype)
    q, r = starfact.qr(a, mode="full", nb=NB)
    assert q.shape == (m, m) and r.shape == (m, n) and _upper(r)
    assert orthogonality(q, dtype) < LIMIT and qr_residual(a, q, r, dtype) < LIMIT
    (r_only,) = starfact.qr(a, mode="r", nb=NB)  # SciPy's: a 1-tuple, R m x n
    assert r_only.shape == (m, n) and numpy.allclose(numpy.abs(r_only), numpy.abs(r), atol=0)
    q_e, r_e = starfact.qr(a, nb=NB)  # economic by default
    assert q_e.shape == (m, n) and _same(r_e, r[:n], dtype)
    # the same factorization as LAPACK's, up to the signs of R's rows
    r_np = numpy.linalg.qr(a.astype(numpy.float64), mode="r")
    assert numpy.allclose(numpy.abs(r_e), numpy.abs(r_np), atol=50 * m * numpy.finfo(dtype).eps)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("tree", ["flat", "binary", "domains=2", "auto", "panel"])
def test_trees(rng, dtype, tree):
    m, n = 7 * NB + 5, 2 * NB + 3
    mt = (m + NB - 1) // NB
    a = tall(rng, m, n, dtype)
    b = tall(rng, m, 3, dtype)
    f = starfact.geqrf(a, tree=tree, nb=NB)
    assert f.tree == tree and f.nb == NB and f.shape == (m, n) and f.dtype == dtype
    assert f.domain_rows == {"flat": mt, "binary": 1, "domains=2": 2, "panel": mt}.get(tree, f.domain_rows)
    q = starfact.orgqr(f)
    assert orthogonality(q, dtype) < LIMIT and qr_residual(a, q, f.r(), dtype) < LIMIT
    x = starfact.gels(a, b, tree=tree, nb=NB)
    assert lstsq_residual(a, x, b, dtype) < LIMIT


@pytest.mark.parametrize("dtype", DTYPES)
def test_cholqr_in_panels(rng, dtype):
    """The Cholesky QR in panels of ib columns (ib < n, through the C ABI): the factors keep ib; Q, R, ormqr from both
    sides with both transposes and gels within the residual bounds."""
    m, n, ib = 9 * NB + 4, NB - 3, 7
    a = tall(rng, m, n, dtype)
    f = starfact.geqrf(a, tree="cholqr", nb=NB, ib=ib)
    assert f.tree == "cholqr" and f.ib == ib
    q = starfact.ormqr(f, numpy.eye(m, dtype=dtype), "N").astype(numpy.float64)  # the explicit m x m Q
    assert orthogonality(q, dtype) < LIMIT and qr_residual(a, q[:, :n], f.r(), dtype) < LIMIT
    c, w = tall(rng, m, 3, dtype), tall(rng, 3, m, dtype)
    for trans, left, right in (("N", q, q), ("T", q.T, q.T)):
        got = starfact.ormqr(f, c, trans)
        assert norm1(got - left @ c) / (norm1(c) * m * eps(dtype)) < LIMIT, trans
        got = starfact.ormqr(f, w, trans, side="R")
        assert norm1(got - w @ right) / (norm1(w) * m * eps(dtype)) < LIMIT, trans
    b = tall(rng, m, 2, dtype)
    x = starfact.gels(a, b, tree="cholqr", nb=NB, ib=ib)
    assert lstsq_residual(a, x, b, dtype) < LIMIT


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ["C", "F"])
def test_ormqr(rng, dtype, order):
    m, n = 3 * NB + 7, NB + 3
    a = tall(rng, m, n, dtype)
    c = layout(tall(rng, m, 4, dtype), order)
    f = starfact.geqrf(layout(a, order), nb=NB)
    q = starfact.orgqr(f)
    qtc = starfact.ormqr(f, c, "T")
    assert qtc.shape == c.shape and qtc.dtype == dtype
    scale = numpy.abs(c).sum(axis=0).max() * m * numpy.finfo(dtype).eps
    assert numpy.abs(qtc[:n] - q.T.astype(numpy.float64) @ c).max() / scale < LIMIT  # the coefficients on Q's columns
    back = starfact.ormqr(f, qtc, trans="N")
    assert numpy.abs(back - c).max() / scale < LIMIT
    # Q^T A = [R; 0]
    qta = starfact.ormqr(f, a, "T")
    assert numpy.abs(qta[:n] - f.r()).max() / scale < LIMIT and numpy.abs(qta[n:]).max() / scale < LIMIT
    v = c[:, 0].copy()
    assert numpy.abs(starfact.ormqr(f, starfact.ormqr(f, v, "T")) - v).max() / scale < LIMIT  # vectors


# wide (m < n): m = 1, m < nb, m not a multiple of nb, m a multiple of nb
WIDE = [(1, 5), (NB - 5, 3 * NB + 7), (2 * NB + 1, 5 * NB + 3), (2 * NB, 4 * NB)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", WIDE)
@pytest.mark.parametrize("tree", ["flat", "binary", "panel"])
def test_qr_wide(rng, dtype, shape, tree):
    m, n = shape
    a = tall(rng, m, n, dtype)
    q, r = starfact.qr(a, nb=NB, tree=tree)  # economic: Q m x m, R m x n upper trapezoidal
    assert q.shape == (m, m) and r.shape == (m, n) and _upper(r)
    assert orthogonality(q, dtype) < LIMIT and qr_residual(a, q, r, dtype) < LIMIT
    q_full, r_full = starfact.qr(a, mode="full", nb=NB, tree=tree)
    assert q_full.shape == (m, m) and _same(r_full, r, dtype)
    assert orthogonality(q_full, dtype) < LIMIT and qr_residual(a, q_full, r_full, dtype) < LIMIT
    f = starfact.geqrf(a, nb=NB, tree=tree)
    c = tall(rng, m, 3, dtype)
    scale = numpy.abs(c).sum(axis=0).max() * m * eps(dtype)
    assert numpy.abs(starfact.ormqr(f, c, "T") - q.T.astype(numpy.float64) @ c).max() / scale < LIMIT
    assert numpy.abs(starfact.ormqr(f, c.T, "N", side="R") - c.T.astype(numpy.float64) @ q).max() / scale < LIMIT


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", WIDE)
@pytest.mark.parametrize("nrhs", [None, 3])
@pytest.mark.parametrize("order", ["C", "F"])
def test_lstsq_wide_minimum_norm(rng, dtype, shape, nrhs, order):
    m, n = shape
    a = tall(rng, m, n, dtype)
    b = tall(rng, m, nrhs, dtype) if nrhs is not None else tall(rng, m, 1, dtype)[:, 0]
    a_in, b_in = layout(a, order), layout(b, order)
    x, residues, rank, s = starfact.lstsq(a_in, b_in, nb=NB)
    assert numpy.array_equal(a_in, a) and numpy.array_equal(b_in, b)
    assert x.shape == (n,) + b.shape[1:] and x.dtype == dtype
    assert residues.shape == (0,) and rank == m and s is None
    assert solve_residual(a, x, b, dtype) < LIMIT  # a x = b
    # the minimum-norm solution: numpy's (by the SVD)
    x_np = numpy.linalg.lstsq(a.astype(numpy.float64), b.astype(numpy.float64), rcond=None)[0]
    assert norm1(x - x_np) / (norm1(x_np) * n * eps(dtype)) < LIMIT
    assert _same(starfact.gels(a_in, b_in, nb=NB), x, dtype)
    # in place: a gets the factors of a^T, transposed
    a_f = numpy.array(a, order="F")  # a copy (a 1 x n a is Fortran-ordered already)
    x2 = starfact.gels_async(a_f, b, overwrite_a=True, nb=NB).wait()
    assert _same(x2, x, dtype) and not numpy.array_equal(a_f, a)


@pytest.mark.parametrize("dtype", DTYPES)
def test_lstsq_wide_rank_deficient(rng, dtype):
    m, n = NB + 3, 3 * NB + 7
    a = tall(rng, m, n, dtype)
    a[7] = 0  # a zero row: R[7, 7] == 0 for a^T
    with pytest.raises(starfact.LinAlgError) as e:
        starfact.lstsq(a, tall(rng, m, 2, dtype), nb=NB)
    assert e.value.info == 8


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("tree", ["flat", "binary", "panel"])
def test_ormqr_right(rng, dtype, order, tree):
    m, n = 3 * NB + 7, NB + 3
    a = tall(rng, m, n, dtype)
    f = starfact.geqrf(a, nb=NB, tree=tree)
    q = starfact.ormqr(f, numpy.eye(m, dtype=dtype), "N").astype(numpy.float64)  # the explicit m x m Q
    assert orthogonality(q, dtype) < LIMIT and qr_residual(a, q[:, :n], f.r(), dtype) < LIMIT
    for k in (1, 5):
        c = layout(tall(rng, k, m, dtype), order)
        scale = numpy.abs(c).sum(axis=1).max() * m * numpy.finfo(dtype).eps  # by rows: Q acts on c's rows
        for trans, ref in (("N", c.astype(numpy.float64) @ q), ("T", c.astype(numpy.float64) @ q.T)):
            got = starfact.ormqr(f, c, trans, side="R")
            assert got.shape == c.shape and got.dtype == dtype
            assert numpy.abs(got - ref).sum(axis=1).max() / scale < LIMIT, (k, trans)
    v = tall(rng, m, 1, dtype)[:, 0]  # a vector from the right is a row
    scale = numpy.abs(v).sum() * m * numpy.finfo(dtype).eps
    assert numpy.abs(starfact.ormqr(f, v, "N", side="right") - v.astype(numpy.float64) @ q).sum() / scale < LIMIT
    w = starfact.ormqr_async(f, starfact.ormqr(f, c, "N", side="R"), "T", side="R").wait()
    assert numpy.abs(w - c).sum(axis=1).max() / (numpy.abs(c).sum(axis=1).max() * m * numpy.finfo(dtype).eps) < LIMIT


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("nrhs", [None, 1, 4])
@pytest.mark.parametrize("order", ["C", "F", "strided"])
def test_gels_lstsq(rng, dtype, shape, nrhs, order):
    m, n = shape
    a = tall(rng, m, n, dtype)
    b = tall(rng, m, nrhs, dtype) if nrhs is not None else tall(rng, m, 1, dtype)[:, 0]
    a_in, b_in = layout(a, order), layout(b, order)
    x = starfact.gels(a_in, b_in, nb=NB)
    assert numpy.array_equal(a_in, a) and numpy.array_equal(b_in, b)
    assert x.shape == (n,) + b.shape[1:] and x.dtype == dtype
    assert lstsq_residual(a, x, b, dtype) < LIMIT
    x2, residues, rank, s = starfact.lstsq(a_in, b_in, nb=NB)
    assert _same(x, x2, dtype) and rank == n and s is None
    if m > n:
        r = b.astype(numpy.float64) - a.astype(numpy.float64) @ x.astype(numpy.float64)
        expect = (r * r).sum(axis=0)
        assert numpy.shape(residues) == numpy.shape(expect)
        assert numpy.allclose(residues, expect, rtol=1e-3 if dtype == numpy.float32 else 1e-9,
                              atol=m * numpy.finfo(dtype).eps * (numpy.abs(b).max() + 1) ** 2)
    else:
        assert residues.shape == (0,)


@pytest.mark.parametrize("dtype", DTYPES)
def test_lstsq_matches_numpy(rng, dtype):
    m, n = 300, 100  # the plan's tile size (nb = None)
    a = tall(rng, m, n, dtype)
    b = tall(rng, m, 2, dtype)
    x, residues, _, _ = starfact.lstsq(a, b)
    x_np, res_np, _, _ = numpy.linalg.lstsq(a.astype(numpy.float64), b.astype(numpy.float64), rcond=None)
    tol = 1e-3 if dtype == numpy.float32 else 1e-10
    assert numpy.allclose(x, x_np, rtol=tol, atol=tol) and numpy.allclose(residues, res_np, rtol=tol)
    q, r = starfact.qr(a)
    assert orthogonality(q, dtype) < LIMIT and qr_residual(a, q, r, dtype) < LIMIT


@pytest.mark.parametrize("dtype", DTYPES)
def test_in_place_no_copy(rng, dtype):
    m, n = 3 * NB + 7, NB + 3
    a = tall(rng, m, n, dtype)
    b = tall(rng, m, 2, dtype)
    a_f, b_f = numpy.asfortranarray(a), numpy.asfortranarray(b)
    before = _clib.copy_counters()
    f = starfact.geqrf(a_f, overwrite_a=True, nb=NB)
    assert f.qr is a_f and _clib.copy_counters() == before
    c = numpy.asfortranarray(b)
    assert starfact.ormqr(f, c, "T", overwrite_c=True) is c and _clib.copy_counters() == before
    a_f = numpy.asfortranarray(a)
    x = starfact.gels(a_f, b_f, overwrite_a=True, overwrite_b=True, nb=NB)
    assert _clib.copy_counters() == before  # both viewed in place
    assert numpy.shares_memory(x, b_f) and numpy.array_equal(x, b_f[:n])
    assert lstsq_residual(a, x, b, dtype) < LIMIT
    assert numpy.abs(numpy.triu(a_f[:n])).sum() > 0  # a holds R


@pytest.mark.parametrize("dtype", DTYPES)
def test_rank_deficient(rng, dtype):
    m, n = 3 * NB + 7, NB + 3
    a = tall(rng, m, n, dtype)
    a[:, 7] = 0  # R[7, 7] == 0
    b = tall(rng, m, 2, dtype)
    for function in (starfact.gels, starfact.lstsq):
        with pytest.raises(starfact.LinAlgError) as e:
            function(a, b, nb=NB)
        assert e.value.info == 8 and "rank deficient" in str(e.value)
        assert isinstance(e.value, numpy.linalg.LinAlgError)
    job = starfact.gels_async(a, b, nb=NB)
    with pytest.raises(starfact.LinAlgError):
        job.wait()
    assert job.info == 8
    q, r = starfact.qr(a, nb=NB)  # the factorization itself has no failure
    assert r[7, 7] == 0 and qr_residual(a, q, r, dtype) < LIMIT


def test_errors(rng):
    m, n = 40, 10
    a = tall(rng, m, n, numpy.float64)
    b = tall(rng, m, 2, numpy.float64)
    cases = [
        (TypeError, "a", lambda: starfact.qr(a.astype(numpy.int64))),
        (TypeError, "b", lambda: starfact.gels(a, b.astype(numpy.float32))),
        (ValueError, "b", lambda: starfact.lstsq(a.T, b)),  # a wide a: b needs its m rows
        (ValueError, "b", lambda: starfact.gels(a, b[:-1])),
        (ValueError, "a", lambda: starfact.geqrf(a[None])),
        (ValueError, "mode", lambda: starfact.qr(a, mode="raw")),
        (TypeError, "mode", lambda: starfact.qr(a, mode=1)),
        (TypeError, "tree", lambda: starfact.geqrf(a, tree=2)),
        (TypeError, "ib", lambda: starfact.geqrf(a, ib=1.5)),
        (ValueError, "ib", lambda: starfact.geqrf(a, ib=-1)),
        (TypeError, "overwrite_a", lambda: starfact.gels(a, b, overwrite_a="yes")),
        (TypeError, "factors", lambda: starfact.ormqr(a, b)),
        (TypeError, "factors", lambda: starfact.orgqr((a, None))),
    ]
    for kind, argument, call in cases:
        with pytest.raises(kind) as e:
            call()
        assert "'%s'" % argument in str(e.value), (argument, str(e.value))
    f = starfact.geqrf(a, nb=16)
    more = [
        (ValueError, "c", lambda: starfact.ormqr(f, b[:-1])),
        (TypeError, "c", lambda: starfact.ormqr(f, b.astype(numpy.float32))),
        (ValueError, "trans", lambda: starfact.ormqr(f, b, "X")),
        (ValueError, "side", lambda: starfact.ormqr(f, b, side="up")),
        (ValueError, "c", lambda: starfact.ormqr(f, b, side="R")),  # (m, 2): not m columns
    ]
    for kind, argument, call in more:
        with pytest.raises(kind) as e:
            call()
        assert "'%s'" % argument in str(e.value), (argument, str(e.value))
    # found by the library: ArgumentError naming the argument
    for argument, call in [("tree", lambda: starfact.geqrf(a, tree="diagonal")),
                           ("tree", lambda: starfact.gels(a, b, tree="domains=0")),
                           ("ib", lambda: starfact.geqrf(a, nb=8, ib=9)),
                           ("nb", lambda: starfact.ormqr(f, b, nb=8)),
                           ("variant", lambda: starfact.geqrf(a, variant="left"))]:
        with pytest.raises(starfact.ArgumentError) as e:
            call()
        assert e.value.argument == argument, (argument, e.value.argument, str(e.value))
    f.close()
    assert f.closed and "freed" in repr(f)
    with pytest.raises(ValueError) as e:
        starfact.orgqr(f)
    assert "'factors'" in str(e.value)
    f.close()  # idempotent


@pytest.mark.parametrize("dtype", DTYPES)
def test_async(rng, dtype):
    m, n = 4 * NB + 1, NB
    a = tall(rng, m, n, dtype)
    b = tall(rng, m, 3, dtype)
    jobs = [starfact.geqrf_async(a, nb=NB, tree="binary"), starfact.gels_async(a, b, nb=NB),
            starfact.lstsq_async(a, b[:, 0], nb=NB)]
    f, x, (x1, _, rank, _) = (job.wait() for job in jobs)
    assert all(job.info == 0 for job in jobs) and rank == n
    assert lstsq_residual(a, x, b, dtype) < LIMIT and lstsq_residual(a, x1, b[:, 0], dtype) < LIMIT
    jq = starfact.orgqr_async(f)
    jc = starfact.ormqr_async(f, b, "T")
    q, c = jq.wait(), jc.wait()
    assert orthogonality(q, dtype) < LIMIT and numpy.allclose(c[:n], q.T @ b, atol=100 * m * numpy.finfo(dtype).eps)


def test_threads(rng):
    """Eight threads at once, each factoring its own matrices (a quarter of the least-squares calls rank deficient);
    two of them also applying one shared factorization."""
    shared = tall(rng, 3 * NB + 7, NB + 3, numpy.float64)
    f = starfact.geqrf(shared, nb=NB)
    seeds = rng.integers(0, 1 << 30, 8)
    failures = []
    start = threading.Barrier(len(seeds))

    def worker(index, seed):
        r = numpy.random.default_rng(seed)
        start.wait()
        try:
            for call in range(8):
                dtype = DTYPES[call % 2]
                n = int(r.integers(1, 2 * NB))
                m = n + int(r.integers(0, 3 * NB))
                a = tall(r, m, n, dtype)
                b = tall(r, m, 2, dtype)
                if call % 4 == 3:
                    a[:, n - 1] = 0
                    try:
                        starfact.lstsq(a, b, nb=NB)
                        failures.append("a rank-deficient lstsq succeeded")
                    except starfact.LinAlgError as e:
                        if e.info != n:
                            failures.append("info %d, expected %d" % (e.info, n))
                    continue
                q, rr = starfact.qr(a, nb=NB, tree=("flat", "binary")[call % 2])
                if orthogonality(q, dtype) >= LIMIT or qr_residual(a, q, rr, dtype) >= LIMIT:
                    failures.append("qr residual (m=%d, n=%d)" % (m, n))
                if lstsq_residual(a, starfact.lstsq(a, b, nb=NB)[0], b, dtype) >= LIMIT:
                    failures.append("lstsq residual (m=%d, n=%d)" % (m, n))
                if index < 2:
                    c = tall(r, shared.shape[0], 2, numpy.float64)
                    if numpy.abs(starfact.ormqr(f, starfact.ormqr(f, c, "T")) - c).max() > 1e-12:
                        failures.append("shared factors: Q Q^T c != c")
        except Exception as e:  # pylint: disable=broad-except
            failures.append(repr(e))

    threads = [threading.Thread(target=worker, args=(i, s)) for i, s in enumerate(seeds)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures, failures


def test_runtime_close_frees_factors(rng):
    a = tall(rng, 50, 20, numpy.float64)
    with starfact.Runtime(ncpus=2) as rt:
        f = starfact.geqrf(a, nb=16, runtime=rt)
        q = starfact.orgqr(f)  # on the factors' runtime
        assert orthogonality(q, numpy.float64) < LIMIT
    assert f.closed
    with pytest.raises(ValueError) as e:
        starfact.ormqr(f, a)
    assert "'factors'" in str(e.value)
    # factors of a runtime used with another: refused by name
    f2 = starfact.geqrf(a, nb=16)
    with starfact.Runtime(ncpus=1) as rt2:
        assert f2.closed  # the default runtime was closed, and its factors with it
        f3 = starfact.geqrf(a, nb=16, runtime=rt2)
    assert f3.closed


torch = None


def _torch():
    global torch  # pylint: disable=global-statement
    torch = pytest.importorskip("torch")
    return torch


@pytest.mark.parametrize("dtype", DTYPES)
def test_torch_cpu(rng, dtype):
    t = _torch()
    m, n = 3 * NB + 7, NB + 3
    a = tall(rng, m, n, dtype)
    b = tall(rng, m, 2, dtype)
    ta, tb = t.from_numpy(a.copy()), t.from_numpy(b.copy())
    q, r = starfact.qr(ta, nb=NB)
    assert isinstance(q, t.Tensor) and isinstance(r, t.Tensor) and q.shape == (m, n) and r.shape == (n, n)
    assert orthogonality(q.numpy(), dtype) < LIMIT and qr_residual(a, q.numpy(), r.numpy(), dtype) < LIMIT
    x, residues, rank, _ = starfact.lstsq(ta, tb, nb=NB)
    assert isinstance(x, t.Tensor) and isinstance(residues, t.Tensor) and rank == n
    assert lstsq_residual(a, x.numpy(), b, dtype) < LIMIT
    f = starfact.geqrf(ta, nb=NB, tree="binary")
    assert isinstance(f.qr, t.Tensor)
    c = starfact.ormqr(f, starfact.ormqr(f, tb, "T"))
    assert isinstance(c, t.Tensor) and numpy.abs(c.numpy() - b).max() < 100 * m * numpy.finfo(dtype).eps
    assert t.equal(ta, t.from_numpy(a)) and t.equal(tb, t.from_numpy(b))  # inputs untouched
    qf, rf = starfact.qr(ta.t().contiguous().t(), mode="full", nb=NB)  # a column-major tensor
    assert qf.shape == (m, m) and qr_residual(a, qf.numpy(), rf.numpy(), dtype) < LIMIT
    d = starfact.ormqr(f, tb.t(), "N", side="R")  # b^T Q = (Q^T b)^T
    assert isinstance(d, t.Tensor) and d.shape == (2, m)
    assert numpy.abs(d.numpy().T - starfact.ormqr(f, tb, "T").numpy()).max() < 100 * m * numpy.finfo(dtype).eps
    wide, bw = numpy.ascontiguousarray(a.T), tall(rng, n, 2, dtype)  # n x m, n < m: the minimum-norm solution
    xw, residues_w, rank_w, _ = starfact.lstsq(t.from_numpy(wide), t.from_numpy(bw), nb=NB)
    assert isinstance(xw, t.Tensor) and xw.shape == (m, 2) and rank_w == n and tuple(residues_w.shape) == (0,)
    x_np = numpy.linalg.lstsq(wide.astype(numpy.float64), bw.astype(numpy.float64), rcond=None)[0]
    assert norm1(xw.numpy() - x_np) / (norm1(x_np) * m * eps(dtype)) < LIMIT
