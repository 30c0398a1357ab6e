"""Batched Cholesky (orders up to 128) and LU (up to 32) on 3-D arrays: every member's residual < 60, both
precisions, both triangles, 1-D and 2-D right-hand sides, in place where the layout allows, failing members."""
import numpy
import pytest

import starfact
from support import DTYPES, LIMIT, cholesky_residual, general, lu_residual, solve_residual, spd

_INFO = starfact.build_info()
pytestmark = pytest.mark.skipif(not (_INFO["batched_cholesky"] and _INFO["batched_lu"]),
                                reason="a build without the batched modules (STARFACT_ONLY_FEATURES)")


def batch_of(make, rng, count, n, dtype):
    return numpy.stack([make(rng, n, dtype) for _ in range(count)]) if count else numpy.zeros((0, n, n), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [1, 7, 32, 77, 128])
@pytest.mark.parametrize("lower", [False, True])
def test_posv_batched(rng, dtype, n, lower):
    count = 9
    a = batch_of(spd, rng, count, n, dtype)
    for shape in ((count, n), (count, n, 3)):
        b = rng.uniform(-0.5, 0.5, shape).astype(dtype)
        x = starfact.posv_batched(a, b, lower=lower, chunk=4)
        assert x.shape == b.shape and x.dtype == dtype
        for k in range(count):
            assert solve_residual(a[k], x[k], b[k], dtype) < LIMIT
    c, low = starfact.potrf_batched(a, lower=lower)
    assert low is lower
    for k in range(count):
        assert cholesky_residual(a[k], c[k], lower, dtype) < LIMIT


@pytest.mark.parametrize("dtype", DTYPES)
def test_posv_batched_in_place(rng, dtype):
    count, n = 6, 20
    a = batch_of(spd, rng, count, n, dtype)
    b = rng.uniform(-0.5, 0.5, (count, n)).astype(dtype)
    a_in, b_in = a.copy(), b.copy()
    x = starfact.posv_batched(a_in, b_in, overwrite_a=True, overwrite_b=True)
    assert x is b_in
    for k in range(count):
        assert solve_residual(a[k], x[k], b[k], dtype) < LIMIT
        assert cholesky_residual(a[k], a_in[k], False, dtype) < LIMIT  # C order, upper: factored in place
    x = starfact.posv_batched(a, b)
    assert x is not b and numpy.array_equal(b, b_in * 0 + b)


@pytest.mark.parametrize("dtype", DTYPES)
def test_failing_members(rng, dtype):
    count, n = 7, 12
    a = batch_of(spd, rng, count, n, dtype)
    a[2, 4, 4] = -1
    a[5, 0, 0] = -1
    b = rng.uniform(-0.5, 0.5, (count, n)).astype(dtype)
    with pytest.raises(starfact.LinAlgError) as e:
        starfact.posv_batched(a, b)
    assert e.value.info == 5 and list(e.value.infos) == [0, 0, 5, 0, 0, 1, 0]
    x, infos = starfact.posv_batched(a, b, check=False)
    assert list(infos) == [0, 0, 5, 0, 0, 1, 0]
    assert numpy.array_equal(x[2], b[2])  # a failing member keeps its b
    assert solve_residual(a[0], x[0], b[0], dtype) < LIMIT
    g = batch_of(general, rng, count, n, dtype)
    g[3, :, 6] = 0
    with pytest.raises(starfact.LinAlgError) as e:
        starfact.gesv_batched(g, b)
    assert e.value.info == 7 and list(numpy.nonzero(e.value.infos)[0]) == [3]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [1, 5, 16, 32])
def test_lu_batched(rng, dtype, n):
    count = 11
    a = batch_of(general, rng, count, n, dtype)
    lu, piv = starfact.getrf_batched(a)
    assert piv.shape == (count, n) and piv.dtype == numpy.int32
    for k in range(count):
        assert lu_residual(a[k], lu[k], piv[k], dtype) < LIMIT
    for shape in ((count, n), (count, n, 4)):
        b = rng.uniform(-0.5, 0.5, shape).astype(dtype)
        x = starfact.gesv_batched(a, b)
        y = starfact.getrs_batched((lu, piv), b)
        for k in range(count):
            assert solve_residual(a[k], x[k], b[k], dtype) < LIMIT
            assert solve_residual(a[k], y[k], b[k], dtype) < LIMIT


def test_batched_errors(rng):
    a = batch_of(spd, rng, 3, 4, numpy.float64)
    with pytest.raises(ValueError) as e:
        starfact.posv_batched(a, numpy.ones((3, 5)))
    assert "'b'" in str(e.value)
    with pytest.raises(ValueError) as e:
        starfact.posv_batched(a[:, :, :3], numpy.ones((3, 4)))
    assert "'a'" in str(e.value)
    with pytest.raises(TypeError) as e:
        starfact.posv_batched(a.astype(numpy.int64), numpy.ones((3, 4)))
    assert "'a'" in str(e.value)
    with pytest.raises(ValueError):
        starfact.posv_batched(batch_of(spd, rng, 2, 129, numpy.float64), numpy.ones((2, 129)))
    with pytest.raises(ValueError):
        starfact.gesv_batched(batch_of(general, rng, 2, 33, numpy.float64), numpy.ones((2, 33)))
    lu, piv = starfact.getrf_batched(batch_of(general, rng, 3, 4, numpy.float64))
    bad = piv.copy()
    bad[1, 2] = 0
    with pytest.raises(ValueError) as e:
        starfact.getrs_batched((lu, bad), numpy.ones((3, 4)))
    assert "'piv'" in str(e.value)


def test_empty_batch():
    x = starfact.posv_batched(numpy.zeros((0, 3, 3)), numpy.zeros((0, 3)))
    assert x.shape == (0, 3)


@pytest.mark.parametrize("dtype", DTYPES)
def test_batched_layouts(rng, dtype):
    """Members in Fortran order, every other member of a larger batch, and transposed views: read right (one copy
    where the layout is not the library's)."""
    count, n = 8, 9
    a = batch_of(spd, rng, 2 * count, n, dtype)
    g = batch_of(general, rng, 2 * count, n, dtype)
    b = rng.uniform(-0.5, 0.5, (2 * count, n, 2)).astype(dtype)
    for view in (lambda x: x[::2], lambda x: numpy.asfortranarray(x[::2]),
                 lambda x: numpy.ascontiguousarray(x[::2].transpose(0, 2, 1)).transpose(0, 2, 1)):
        a_in, g_in, b_in = view(a), view(g), view(b)
        for lower in (False, True):
            x = starfact.posv_batched(a_in, b_in, lower=lower)
            for k in range(count):
                assert solve_residual(a[2 * k], x[k], b[2 * k], dtype) < LIMIT
        x = starfact.gesv_batched(g_in, b_in)
        for k in range(count):
            assert solve_residual(g[2 * k], x[k], b[2 * k], dtype) < LIMIT
        assert numpy.array_equal(a_in, a[::2]) and numpy.array_equal(b_in, b[::2])
