"""The Hermitian positive definite inverse (potri) of complex64 and complex128 matrices from Python: fresh random
Hermitian matrices with complex off-diagonal entries and a real diagonal, only the named triangle read (NaN in the
other, an imaginary part on the diagonal, change nothing), the full Hermitian inverse equal to numpy.linalg.inv to the
precision expected, the scaled residual ||A X - I||_1 / (||A||_1 ||X||_1 n eps) < 60, n = 1, n < nb, n = nb, n not a
multiple of nb, C and Fortran order; symmetrize=False (LAPACK's one triangle); the _async form; LinAlgError with
LAPACK's info; PyTorch tensors."""
import numpy
import pytest

import starfact
from support import CDTYPES, LIMIT, NB, ORDERS, eps, hermitian, layout


def norm1(x):
    return numpy.linalg.norm(numpy.asarray(x, dtype=numpy.complex128), 1)


def inverse_residual(a, x, dtype):
    """||A X - I||_1 / (||A||_1 ||X||_1 n eps)."""
    a = numpy.asarray(a, dtype=numpy.complex128)
    x = numpy.asarray(x, dtype=numpy.complex128)
    n = a.shape[0]
    return norm1(a @ x - numpy.eye(n)) / (norm1(a) * norm1(x) * n * eps(dtype))


def only_triangle(a, lower):
    """a with NaN in the triangle that must not be read and an imaginary part on its diagonal (taken as zero)."""
    n = a.shape[0]
    given = a + 0.25j * numpy.eye(n, dtype=a.dtype)
    other = numpy.triu(numpy.ones((n, n), bool), 1) if lower else numpy.tril(numpy.ones((n, n), bool), -1)
    given[other] = numpy.nan
    return given


def close_to_numpy(a, x, dtype):
    """Whether x equals numpy.linalg.inv(a) to the precision a well-conditioned inverse has."""
    ref = numpy.linalg.inv(numpy.asarray(a, dtype=numpy.complex128))
    cond = numpy.linalg.cond(numpy.asarray(a, dtype=numpy.complex128), 1)
    return norm1(x - ref) / norm1(ref) < LIMIT * a.shape[0] * eps(dtype) * cond


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("n", ORDERS)
@pytest.mark.parametrize("lower", [False, True])
@pytest.mark.parametrize("order", ["C", "F"])
def test_potri(rng, dtype, n, lower, order):
    a = hermitian(rng, n, dtype)
    x = starfact.potri(layout(only_triangle(a, lower), order), lower=lower, nb=NB)
    assert isinstance(x, numpy.ndarray) and x.dtype == dtype and x.shape == (n, n)
    assert numpy.array_equal(x, x.conj().T)  # Hermitian, its diagonal real
    assert inverse_residual(a, x, dtype) < LIMIT
    assert close_to_numpy(a, x, dtype)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_potri_one_triangle_and_async(rng, dtype):
    n = 3 * NB + 7
    a = hermitian(rng, n, dtype)
    for lower in (False, True):
        given = only_triangle(a, lower)
        before = given.copy()
        tri = starfact.potri(given, lower=lower, symmetrize=False, nb=NB)
        other = numpy.triu(numpy.ones((n, n), bool), 1) if lower else numpy.tril(numpy.ones((n, n), bool), -1)
        assert numpy.isnan(tri[other]).all()  # a's entries, as LAPACK's potri leaves them
        t = numpy.tril(tri) if lower else numpy.triu(tri)
        full = t + (numpy.tril(tri, -1) if lower else numpy.triu(tri, 1)).conj().T
        assert inverse_residual(a, full, dtype) < LIMIT
        assert numpy.array_equal(given, before, equal_nan=True)  # a untouched (overwrite_a=False)
    x = starfact.potri_async(a, nb=NB).wait()  # the plan's mapping, the whole of a read as its upper triangle
    assert inverse_residual(a, x, dtype) < LIMIT and close_to_numpy(a, x, dtype)
    x = starfact.potri(a, lower=True)  # the plan's tiles
    assert inverse_residual(a, x, dtype) < LIMIT


@pytest.mark.parametrize("dtype", CDTYPES)
def test_potri_not_positive_definite(rng, dtype):
    n = 60
    for k in (0, NB - 1, NB, n - 1):
        a = hermitian(rng, n, dtype)
        a[k, k] = -1
        with pytest.raises(starfact.LinAlgError) as e:
            starfact.potri(a, nb=NB)
        assert e.value.info == k + 1
    with pytest.raises(starfact.ArgumentError) as e:
        starfact.potri(hermitian(rng, 8, dtype), variant="left")
    assert e.value.argument == "variant"


@pytest.mark.parametrize("dtype", CDTYPES)
def test_potri_torch(rng, dtype):
    torch = pytest.importorskip("torch")
    n = 2 * NB + 5
    a = hermitian(rng, n, dtype)
    for lower in (False, True):
        x = starfact.potri(torch.from_numpy(a.copy()), lower=lower, nb=NB)
        assert isinstance(x, torch.Tensor) and x.dtype == (torch.complex64 if dtype == numpy.complex64
                                                           else torch.complex128)
        x = x.numpy()
        assert numpy.array_equal(x, x.conj().T)
        assert inverse_residual(a, x, dtype) < LIMIT
