"""The Householder fall-back of the Cholesky QR from Python (fallback=True, the tree "cholqr+fallback"): what the
Cholesky QR refuses (a zero column, two equal integer columns with an exactly singular a^T a, entries too large to
square, cond beyond its range) is factored by a Householder tree: qr and geqrf give an orthonormal Q and
||a - Q R|| / (||a|| n eps) < 60, QRFactors.fallback names the breakdown, gels and lstsq solve; without it the
breakdown is raised as before. Both dtypes, m not a multiple of nb, n = 1."""
import numpy
import pytest

import starfact
from support import DTYPES, LIMIT, eps, norm1, orthogonality, tall


def _residual_n(a, q, r, dtype):
    """||A - Q R||_1 / (||A||_1 n eps) (a zero A: ||Q R||_1)."""
    a = numpy.asarray(a, dtype=numpy.float64)
    q = numpy.asarray(q, dtype=numpy.float64)
    r = numpy.asarray(r, dtype=numpy.float64)
    den = norm1(a) * a.shape[1] * eps(dtype)
    return norm1(a - q @ r) / den if den > 0 else norm1(a - q @ r)  # a zero a: Q R must be zero


def _inputs(rng, m, n, dtype):
    """(name, a, the word the breakdown's reason holds) for each input the Cholesky QR refuses."""
    zero = tall(rng, m, n, dtype)
    zero[:, n // 2] = 0
    equal = numpy.round(tall(rng, m, n, numpy.float64) * 6)  # small integers: a^T a exact, exactly singular
    if n > 1:
        equal[:, n - 1] = equal[:, 0]
    else:
        equal[:] = 0
    big = (tall(rng, m, n, numpy.float64) * (1e30 if dtype == numpy.float32 else 1e300))
    return [("zero column", zero.astype(dtype), ("rank deficient", "underflow")),
            ("equal columns", equal.astype(dtype), ("rank deficient", "underflow")),
            ("too large", big.astype(dtype), ("overflow",))]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(130, 1, 32), (301, 24, 32), (600, 40, 64)])
def test_fallback_factors(rng, dtype, shape):
    m, n, nb = shape
    for name, a, words in _inputs(rng, m, n, dtype):
        f = starfact.geqrf(a, tree="cholqr", nb=nb, fallback=True)
        assert f.fallback is not None and any(w in f.fallback for w in words), (name, f.fallback)
        q = starfact.orgqr(f)
        r = f.r()
        assert orthogonality(q, dtype) < LIMIT, name
        assert _residual_n(a, q, r, dtype) < LIMIT, name
        q, r = starfact.qr(a, tree="cholqr", nb=nb, fallback=True)
        assert orthogonality(q, dtype) < LIMIT and _residual_n(a, q, r, dtype) < LIMIT, name
        # The tree's own text form asks for it too; without it the breakdown is raised.
        q, r = starfact.qr_async(a, tree="cholqr+fallback", nb=nb).wait()
        assert _residual_n(a, q, r, dtype) < LIMIT, name
        with pytest.raises(starfact.LinAlgError) as e:
            starfact.geqrf(a, tree="cholqr", nb=nb)
        assert any(w in str(e.value) for w in words), str(e.value)


@pytest.mark.parametrize("dtype", DTYPES)
def test_fallback_not_needed(rng, dtype):
    a = tall(rng, 301, 24, dtype)
    f = starfact.geqrf(a, tree="cholqr", nb=32, fallback=True)
    assert f.fallback is None
    assert f.tree == "cholqr+fallback"


@pytest.mark.parametrize("dtype", DTYPES)
def test_fallback_gels(rng, dtype):
    m, n, nb = 600, 40, 64
    cond = 1e6 if dtype == numpy.float32 else 1e15  # beyond the Cholesky QR's rank check, within Householder's
    u, _ = numpy.linalg.qr(rng.standard_normal((m, n)))
    v, _ = numpy.linalg.qr(rng.standard_normal((n, n)))
    a = ((u * numpy.geomspace(1, 1 / cond, n)) @ v.T).astype(dtype)
    b = tall(rng, m, 2, dtype)
    with pytest.raises(starfact.LinAlgError) as e:
        starfact.gels(a, b, tree="cholqr", nb=nb)
    for word in ("rank deficient", "overflowing or underflowing", "fallback=True"):
        assert word in str(e.value), str(e.value)
    for solve in (lambda: starfact.gels(a, b, tree="cholqr", nb=nb, fallback=True),
                  lambda: starfact.lstsq(a, b, tree="cholqr", nb=nb, fallback=True)[0]):
        x = numpy.asarray(solve(), dtype=numpy.float64)
        a64, b64 = a.astype(numpy.float64), b.astype(numpy.float64)
        # The normal equations' residual, as the C++ tests: ||A^T (A X - B)|| / (||A|| (||A|| ||X|| + ||B||) m eps).
        g = a64.T @ (a64 @ x - b64)
        den = norm1(a64) * (norm1(a64) * norm1(x) + norm1(b64)) * m * eps(dtype)
        assert norm1(g) / den < LIMIT


def test_fallback_argument(rng):
    a = tall(rng, 100, 10, numpy.float64)
    with pytest.raises(TypeError):
        starfact.geqrf(a, tree="cholqr", fallback="yes")
