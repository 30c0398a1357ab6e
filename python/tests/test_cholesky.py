"""potrf, potrs, posv, potri on NumPy arrays: scaled residuals < 60 on fresh random inputs, both precisions, C and
Fortran order, strided and padded layouts, n = 1, n < nb, n = nb, n not a multiple of nb; in place where the layout
allows."""
import numpy
import pytest

import starfact
from support import DTYPES, LIMIT, NB, ORDERS, cholesky_residual, inverse_residual, layout, padded, rhs, \
    solve_residual, spd


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", ORDERS)
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("lower", [False, True])
def test_potrf_potrs(rng, dtype, n, order, lower):
    a = spd(rng, n, dtype)
    b = rhs(rng, n, 3, dtype)
    a_in = layout(a, order)
    c, low = starfact.potrf(a_in, lower=lower, nb=NB)
    assert low is lower and c.dtype == dtype and isinstance(c, numpy.ndarray)
    assert c is not a_in and numpy.array_equal(a_in, a)  # overwrite_a=False leaves a alone
    assert cholesky_residual(a, c, lower, dtype) < LIMIT
    x = starfact.potrs((c, lower), layout(b, order), nb=NB)
    assert x.shape == b.shape and x.dtype == dtype
    assert solve_residual(a, x, b, dtype) < LIMIT


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", ORDERS)
@pytest.mark.parametrize("nrhs", [None, 1, 5])
@pytest.mark.parametrize("order", ["C", "F"])
def test_posv(rng, dtype, n, nrhs, order):
    a = spd(rng, n, dtype)
    b = rhs(rng, n, nrhs, dtype)
    for lower in (False, True):
        x = starfact.posv(layout(a, order), layout(b, order), lower=lower, nb=NB)
        assert x.shape == b.shape and x.dtype == dtype
        assert solve_residual(a, x, b, dtype) < LIMIT


@pytest.mark.parametrize("dtype", DTYPES)
def test_posv_default_tiling(rng, dtype):
    """The plan's tile size (256 on CPUs): n above and below it."""
    for n in (100, 300):
        a = spd(rng, n, dtype)
        b = rhs(rng, n, 2, dtype)
        assert solve_residual(a, starfact.posv(a, b), b, dtype) < LIMIT


@pytest.mark.parametrize("dtype", DTYPES)
def test_only_the_named_triangle_is_read(rng, dtype):
    n = 3 * NB + 7
    a = spd(rng, n, dtype)
    b = rhs(rng, n, 2, dtype)
    for lower in (False, True):
        junk = a.copy()
        junk[numpy.triu_indices(n, 1) if lower else numpy.tril_indices(n, -1)] = numpy.nan
        c, _ = starfact.potrf(junk, lower=lower, nb=NB)
        assert cholesky_residual(a, numpy.nan_to_num(c), lower, dtype) < LIMIT
        assert solve_residual(a, starfact.posv(junk, b, lower=lower, nb=NB), b, dtype) < LIMIT


@pytest.mark.parametrize("dtype", DTYPES)
def test_in_place(rng, dtype):
    """overwrite_a with the layout the factor needs (C order for the upper factor, Fortran order for the lower) and
    overwrite_b with a Fortran-ordered or 1-D b: the caller's arrays are written and returned."""
    n = 2 * NB + 3
    a = spd(rng, n, dtype)
    for lower, order in ((False, "C"), (True, "F")):
        a_in = layout(a, order)
        c, _ = starfact.potrf(a_in, lower=lower, overwrite_a=True, nb=NB)
        assert c is a_in
        assert cholesky_residual(a, c, lower, dtype) < LIMIT
    for nrhs in (None, 4):
        b = rhs(rng, n, nrhs, dtype)
        b_in = layout(b, "F")
        a_in = layout(a, "C")
        x = starfact.posv(a_in, b_in, overwrite_a=True, overwrite_b=True, nb=NB)
        assert x is b_in
        assert solve_residual(a, x, b, dtype) < LIMIT
        assert cholesky_residual(a, a_in, False, dtype) < LIMIT  # a holds the factor
        b_in = layout(b, "F")
        c = starfact.potrf(a, nb=NB)
        assert starfact.potrs(c, b_in, overwrite_b=True, nb=NB) is b_in
        assert solve_residual(a, b_in, b, dtype) < LIMIT


@pytest.mark.parametrize("dtype", DTYPES)
def test_layouts_needing_a_copy(rng, dtype):
    """overwrite_a=True with a layout the library cannot work on in place (the other order, strided, negative
    strides, read-only): one copy is factored, and the caller's array is left as it was."""
    n = 2 * NB + 5
    a = spd(rng, n, dtype)
    for order in ("F", "strided", "reversed"):
        a_in = layout(a, order)
        c, _ = starfact.potrf(a_in, lower=False, overwrite_a=True, nb=NB)
        assert c is not a_in and numpy.array_equal(a_in, a)
        assert cholesky_residual(a, c, False, dtype) < LIMIT
    ro = layout(a, "C")
    ro.flags.writeable = False
    c, _ = starfact.potrf(ro, overwrite_a=True, nb=NB)
    assert c is not ro and cholesky_residual(a, c, False, dtype) < LIMIT


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ["C", "F", "strided", "reversed", "padded_C", "padded_F"])
def test_posv_any_layout(rng, dtype, order):
    n = 2 * NB + 9
    a = spd(rng, n, dtype)
    b = rhs(rng, n, 3, dtype)

    def lay(x):
        return padded(x, order[-1]) if order.startswith("padded") else layout(x, order)

    a_in, b_in = lay(a), lay(b)
    x = starfact.posv(a_in, b_in, nb=NB)
    assert numpy.array_equal(a_in, a) and numpy.array_equal(b_in, b)
    assert solve_residual(a, x, b, dtype) < LIMIT
    c = starfact.potrf(a_in, nb=NB)
    assert solve_residual(a, starfact.potrs(c, b_in, nb=NB), b, dtype) < LIMIT


@pytest.mark.parametrize("dtype", DTYPES)
def test_padded_in_place(rng, dtype):
    """A sub-block of a larger array (leading dimension above n) is factored in place."""
    n = NB + 11
    a = spd(rng, n, dtype)
    a_in = padded(a, "F")
    c, _ = starfact.potrf(a_in, lower=True, overwrite_a=True, nb=NB)
    assert c is a_in and numpy.shares_memory(c, a_in)
    assert cholesky_residual(a, c, True, dtype) < LIMIT


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", ORDERS)
def test_potri(rng, dtype, n):
    a = spd(rng, n, dtype)
    for lower, order in ((False, "C"), (True, "F"), (True, "C")):
        inv = starfact.potri(layout(a, order), lower=lower, nb=NB)
        assert numpy.allclose(inv, inv.T)
        assert inverse_residual(a, inv, dtype) < LIMIT
    tri = starfact.potri(a, lower=True, symmetrize=False, nb=NB)
    full = numpy.tril(tri) + numpy.tril(tri, -1).T
    assert inverse_residual(a, full, dtype) < LIMIT


def test_empty():
    a = numpy.zeros((0, 0))
    c, _ = starfact.potrf(a)
    assert c.shape == (0, 0)
    assert starfact.posv(a, numpy.zeros(0)).shape == (0,)


def test_lists_are_read():
    x = starfact.posv([[4.0, 2.0], [2.0, 3.0]], [1.0, 2.0])
    assert numpy.allclose(numpy.array([[4.0, 2.0], [2.0, 3.0]]) @ x, [1.0, 2.0])
