"""The QR's breakdowns from Python: NaN or Inf in a raises starfact.LinAlgError (info = its column + 1) from qr, geqrf,
gels, lstsq and their _async forms with every tree; the Cholesky QR raises it for cond >= 1e16, a zero column, two
equal columns (for cond 1e14 and 1e15 it raises it or returns an orthogonal Q with a small residual) and a scaled near the ends of the range (the message saying overflow or underflow, not rank
deficiency); gels and lstsq solve a and b scaled by 1e-300 and 1e+300 as they solve them unscaled."""
import numpy
import pytest

import starfact
from support import DTYPES, LIMIT, NB, orthogonality, qr_residual, tall

TREES = ["flat", "binary", "domains=2", "panel", "cholqr"]


def _nb(tree):
    return 2 * NB if tree == "cholqr" else NB // 4  # cholqr: one tile column; the others: several


def _raises(call, info=None, words=(), absent=()):
    with pytest.raises(starfact.LinAlgError) as e:
        call()
    assert isinstance(e.value, numpy.linalg.LinAlgError)
    if info is not None:
        assert e.value.info == info, str(e.value)
    else:
        assert e.value.info > 0, str(e.value)
    for word in words:
        assert word in str(e.value), str(e.value)
    for word in absent:
        assert word not in str(e.value), str(e.value)
    return e.value


def _conditioned(rng, m, n, cond):
    u, _ = numpy.linalg.qr(rng.standard_normal((m, n)))
    v, _ = numpy.linalg.qr(rng.standard_normal((n, n)))
    return (u * numpy.geomspace(1, 1 / cond, n)) @ v.T


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("tree", TREES)
@pytest.mark.parametrize("bad", [numpy.nan, numpy.inf])
def test_nonfinite(rng, dtype, tree, bad):
    m, n = 4 * NB + 3, 20
    a = tall(rng, m, n, dtype)
    column = int(rng.integers(0, n))
    a[int(rng.integers(0, m)), column] = bad
    b = tall(rng, m, 2, dtype)
    nb = _nb(tree)
    for call in (lambda: starfact.qr(a, tree=tree, nb=nb), lambda: starfact.geqrf(a, tree=tree, nb=nb),
                 lambda: starfact.geqrf_async(a, tree=tree, nb=nb).wait(),
                 lambda: starfact.qr_async(a, tree=tree, nb=nb).wait(),
                 lambda: starfact.gels(a, b, tree=tree, nb=nb), lambda: starfact.lstsq(a, b, tree=tree, nb=nb),
                 lambda: starfact.lstsq_async(a, b, tree=tree, nb=nb).wait()):
        _raises(call, column + 1, words=("Inf",))
    # Wide matrices too (their Householder trees), NaN beyond the diagonal's columns.
    if tree != "cholqr":
        w = tall(rng, 20, 50, dtype)
        w[3, 41] = bad
        _raises(lambda: starfact.geqrf(w, tree=tree, nb=nb), 42)


@pytest.mark.parametrize("dtype", DTYPES)
def test_cholqr_rank_deficient(rng, dtype):
    m, n, nb = 600, 40, 64
    b = tall(rng, m, 2, dtype)
    if dtype == numpy.float64:
        # Ill-conditioned but of full rank (cond below 1 / eps): reported, or factored into an orthogonal Q with a
        # small residual (the shifted passes may recover such a matrix where the data's rounding lets them); never
        # a wrong Q called a success.
        for cond in (1e14, 1e15):
            a = _conditioned(rng, m, n, cond)
            try:
                q, r = starfact.qr(a, tree="cholqr", nb=nb)
            except starfact.LinAlgError as e:
                assert "rank deficient" in str(e), str(e)
            else:
                assert orthogonality(q, dtype) < LIMIT and qr_residual(a, q, r, dtype) < LIMIT, cond
    cases = [_conditioned(rng, m, n, 1e16)] if dtype == numpy.float64 else []
    zero = tall(rng, m, n, dtype)
    zero[:, 17] = 0
    cases.append(zero)
    for integers in (False, True):  # small integers: a^T a computed exactly, exactly singular
        equal = tall(rng, m, n, dtype)
        if integers:
            equal = numpy.round(equal * 6)
        equal[:, 23] = equal[:, 5]
        cases.append(equal)
    for a in cases:
        a = a.astype(dtype)
        for call in (lambda: starfact.qr(a, tree="cholqr", nb=nb), lambda: starfact.geqrf(a, tree="cholqr", nb=nb),
                     lambda: starfact.geqrf_async(a, tree="cholqr", nb=nb).wait(),
                     lambda: starfact.gels(a, b, tree="cholqr", nb=nb),
                     lambda: starfact.lstsq_async(a, b, tree="cholqr", nb=nb).wait()):
            _raises(call, words=("rank deficient",))
    _raises(lambda: starfact.geqrf(zero.astype(dtype), tree="cholqr", nb=nb), 18)
    # The Householder trees factor it.
    q, r = starfact.qr(cases[-1].astype(dtype), tree="flat", nb=nb)
    assert orthogonality(q, dtype) < LIMIT and qr_residual(cases[-1], q, r, dtype) < LIMIT


@pytest.mark.parametrize("dtype", DTYPES)
def test_cholqr_range(rng, dtype):
    m, n, nb = 300, 24, 32
    big = 1e30 if dtype == numpy.float32 else 1e300
    b = tall(rng, m, 2, dtype)
    for scale, word in ((big, "overflow"), (1 / big, "underflow")):
        a = (_conditioned(rng, m, n, 10) * scale).astype(dtype)
        for call in (lambda: starfact.qr(a, tree="cholqr", nb=nb), lambda: starfact.geqrf(a, tree="cholqr", nb=nb)):
            _raises(call, words=(word,), absent=("rank deficient",))
        # gels scales a first, as LAPACK's gels: it solves.
        x = starfact.gels(a, b, tree="cholqr", nb=nb)
        expected = numpy.linalg.lstsq(a.astype(numpy.float64) / scale, b.astype(numpy.float64), rcond=None)[0] / scale
        assert numpy.abs(x - expected).max() <= 1e3 * numpy.finfo(dtype).eps * numpy.abs(expected).max()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("tree", ["auto", "flat", "binary", "cholqr"])
@pytest.mark.parametrize("shape", [(90, 20), (20, 50)])
def test_gels_scaled(rng, dtype, tree, shape):
    m, n = shape
    if tree == "cholqr" and m < n:
        return
    big = numpy.finfo(dtype).max / 16 if dtype == numpy.float32 else 1e300
    tiny = numpy.finfo(dtype).tiny / 4  # subnormal entries
    a0 = _conditioned(rng, max(m, n), min(m, n), 10)
    a0 = a0 if m >= n else a0.T
    b0 = tall(rng, m, 3, numpy.float64)
    x0 = numpy.linalg.lstsq(a0, b0, rcond=None)[0]
    for sa, sb in ((1 / big, 1 / big), (big, big), (1 / big, 1.0), (1.0, 1 / big), (big, 1.0), (tiny, tiny)):
        if dtype == numpy.float32 and (sa * sb == 1 / big or sa == big and sb == 1.0):
            continue  # x of magnitude big: beyond float's range
        a = (a0 * sa).astype(dtype)
        b = (b0 * sb).astype(dtype)
        with numpy.errstate(over="ignore"):  # residues beyond the range are Inf
            x, residues, rank, _ = starfact.lstsq(a, b, tree=tree, nb=16 if tree != "cholqr" else 128)
        assert rank == min(m, n)
        expected = x0 * (sb / sa)
        scale = numpy.abs(expected).max()
        assert numpy.all(numpy.isfinite(x)), (sa, sb)
        assert numpy.abs(x.astype(numpy.float64) - expected).max() <= 1e3 * numpy.finfo(dtype).eps * scale, (sa, sb)
        if m > n:  # the residual's squared norms (those within the dtype's range), scaled back with x
            with numpy.errstate(over="ignore"):
                ref = (((b0 - a0 @ x0) * sb) ** 2).sum(axis=0)
            inside = (ref < numpy.finfo(dtype).max / 2) & (ref > numpy.finfo(dtype).tiny / numpy.finfo(dtype).eps)
            assert numpy.allclose(residues[inside], ref[inside], rtol=1e-3 if dtype == numpy.float32 else 1e-9)


def test_qr_async(rng):
    m, n = 3 * NB + 7, NB + 3
    a = tall(rng, m, n, numpy.float64)
    job = starfact.qr_async(a, nb=NB)
    q, r = job.wait()
    assert job.info == 0 and q.shape == (m, n) and r.shape == (n, n)
    assert orthogonality(q, numpy.float64) < LIMIT and qr_residual(a, q, r, numpy.float64) < LIMIT
    (r_only,) = starfact.qr_async(a, mode="r", nb=NB).wait()
    assert r_only.shape == (m, n)
