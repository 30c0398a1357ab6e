"""Batched Cholesky and LU of complex64 and complex128 members (3-D arrays): Hermitian positive definite members with
complex off-diagonal entries through posv_batched and potrf_batched, both triangles, 1-D and 2-D right-hand sides;
general members through gesv_batched, getrf_batched and getrs_batched; every member's scaled residual < 60, n = 1 and
n not a power of two; failing members reported per member, the others solved."""
import numpy
import pytest

import starfact
from support import LIMIT
from test_complex import CDTYPES, cholesky_residual, general, hermitian, lu_residual, solve_residual

_INFO = starfact.build_info()
pytestmark = pytest.mark.skipif(not (_INFO["batched_cholesky"] and _INFO["batched_lu"]),
                                reason="a build without the batched modules (STARFACT_ONLY_FEATURES)")


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("n", [1, 7, 45])
@pytest.mark.parametrize("lower", [False, True])
def test_posv_batched_complex(rng, dtype, n, lower):
    count = 6
    a = numpy.stack([hermitian(rng, n, dtype) for _ in range(count)])
    for shape in ((count, n), (count, n, 3)):
        b = (rng.uniform(-0.5, 0.5, shape) + 1j * rng.uniform(-0.5, 0.5, shape)).astype(dtype)
        x = starfact.posv_batched(a, b, lower=lower, chunk=4)
        assert x.shape == b.shape and x.dtype == dtype
        for k in range(count):
            assert solve_residual(a[k], x[k].reshape(n, -1), b[k].reshape(n, -1), dtype) < LIMIT
    c, low = starfact.potrf_batched(a, lower=lower)
    assert low is lower and c.dtype == dtype
    for k in range(count):
        assert cholesky_residual(a[k], c[k], lower, dtype) < LIMIT


@pytest.mark.parametrize("dtype", CDTYPES)
def test_posv_batched_complex_failing_member(rng, dtype):
    n, count = 9, 5
    a = numpy.stack([hermitian(rng, n, dtype) for _ in range(count)])
    a[2, 4, 4] = -n
    b = general(rng, n, dtype, 2)
    bs = numpy.stack([b] * count)
    with pytest.raises(starfact.LinAlgError) as e:
        starfact.posv_batched(a, bs, lower=True)
    assert e.value.info == 5 and list(e.value.infos) == [0, 0, 5, 0, 0]
    x, infos = starfact.posv_batched(a, bs, lower=True, check=False)
    assert list(infos) == [0, 0, 5, 0, 0]
    assert numpy.array_equal(x[2], bs[2])  # the failed member keeps its b
    for k in (0, 1, 3, 4):
        assert solve_residual(a[k], x[k], b, dtype) < LIMIT


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("n", [1, 5, 32])
def test_lu_batched_complex(rng, dtype, n):
    count = 7
    a = numpy.stack([general(rng, n, dtype) for _ in range(count)])
    lu, piv = starfact.getrf_batched(a)
    assert lu.dtype == dtype and piv.shape == (count, n)
    for k in range(count):
        assert lu_residual(a[k], lu[k], piv[k], dtype) < LIMIT
    for shape in ((count, n), (count, n, 2)):
        b = (rng.uniform(-0.5, 0.5, shape) + 1j * rng.uniform(-0.5, 0.5, shape)).astype(dtype)
        x = starfact.gesv_batched(a, b)
        y = starfact.getrs_batched((lu, piv), b)
        for k in range(count):
            assert solve_residual(a[k], x[k].reshape(n, -1), b[k].reshape(n, -1), dtype) < LIMIT
            assert solve_residual(a[k], y[k].reshape(n, -1), b[k].reshape(n, -1), dtype) < LIMIT


@pytest.mark.parametrize("dtype", CDTYPES)
def test_gesv_batched_complex_singular_member(rng, dtype):
    n, count = 6, 4
    a = numpy.stack([general(rng, n, dtype) for _ in range(count)])
    a[1][:, 3] = 0
    b = numpy.stack([general(rng, n, dtype, 0) for _ in range(count)])
    _, infos = starfact.gesv_batched(a, b, check=False)
    assert list(infos) == [0, 4, 0, 0]
    with pytest.raises(starfact.LinAlgError) as e:
        starfact.getrf_batched(a)
    assert e.value.info == 4


@pytest.mark.parametrize("dtype", CDTYPES)
def test_batched_complex_mixed_dtypes_refused(rng, dtype):
    a = numpy.stack([hermitian(rng, 4, dtype)] * 2)
    with pytest.raises(TypeError) as e:
        starfact.posv_batched(a, numpy.ones((2, 4)))
    assert "argument 'b'" in str(e.value)
