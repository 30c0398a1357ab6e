"""getrf, getrs, gesv on NumPy arrays: ||P A - L U|| and solve residuals < 60, both precisions, C and Fortran order,
n = 1, n < nb, n = nb, n not a multiple of nb; SciPy's 0-based pivots."""
import numpy
import pytest

import starfact
from support import DTYPES, LIMIT, NB, ORDERS, general, layout, lu_residual, padded, rhs, solve_residual


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", ORDERS)
@pytest.mark.parametrize("order", ["C", "F"])
def test_getrf_getrs(rng, dtype, n, order):
    a = general(rng, n, dtype)
    b = rhs(rng, n, 4, dtype)
    a_in = layout(a, order)
    lu, piv = starfact.getrf(a_in, nb=NB)
    assert numpy.array_equal(a_in, a)
    assert lu.dtype == dtype and piv.dtype == numpy.int32 and piv.shape == (n,)
    assert ((piv >= numpy.arange(n)) & (piv < n)).all()
    assert lu_residual(a, lu, piv, dtype) < LIMIT
    x = starfact.getrs((lu, piv), layout(b, order), nb=NB)
    assert solve_residual(a, x, b, dtype) < LIMIT


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", ORDERS)
@pytest.mark.parametrize("nrhs", [None, 1, 6])
@pytest.mark.parametrize("order", ["C", "F", "strided"])
def test_gesv(rng, dtype, n, nrhs, order):
    a = general(rng, n, dtype)
    b = rhs(rng, n, nrhs, dtype)
    x = starfact.gesv(layout(a, order), layout(b, order), nb=NB)
    assert x.shape == b.shape
    assert solve_residual(a, x, b, dtype) < LIMIT


@pytest.mark.parametrize("dtype", DTYPES)
def test_gesv_default_tiling(rng, dtype):
    for n in (100, 300):
        a = general(rng, n, dtype)
        b = rhs(rng, n, 2, dtype)
        assert solve_residual(a, starfact.gesv(a, b), b, dtype) < LIMIT


@pytest.mark.parametrize("dtype", DTYPES)
def test_in_place(rng, dtype):
    n = 2 * NB + 1
    a = general(rng, n, dtype)
    a_in = layout(a, "F")
    lu, piv = starfact.getrf(a_in, overwrite_a=True, nb=NB)
    assert lu is a_in and lu_residual(a, lu, piv, dtype) < LIMIT
    b = rhs(rng, n, 3, dtype)
    b_in = layout(b, "F")
    assert starfact.getrs((lu, piv), b_in, overwrite_b=True, nb=NB) is b_in
    assert solve_residual(a, b_in, b, dtype) < LIMIT
    padded_a = padded(a, "F")
    b_in = layout(b, "F")
    x = starfact.gesv(padded_a, b_in, overwrite_a=True, overwrite_b=True, nb=NB)
    assert x is b_in and solve_residual(a, x, b, dtype) < LIMIT


@pytest.mark.parametrize("dtype", DTYPES)
def test_pivots_interoperate_with_lapack_convention(rng, dtype):
    """getrs takes pivots of any integer array type, as getrf gives them (0-based, piv[i] >= i)."""
    n = NB + 3
    a = general(rng, n, dtype)
    b = rhs(rng, n, None, dtype)
    lu, piv = starfact.getrf(a, nb=NB)
    for p in (piv, piv.astype(numpy.int64), list(piv)):
        x = starfact.getrs((lu, p if not isinstance(p, list) else numpy.array(p)), b, nb=NB)
        assert solve_residual(a, x, b, dtype) < LIMIT
