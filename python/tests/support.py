"""What the package's tests share: random matrices and the scaled residuals the C++ tests use (limit 60), and the
CUDA device-array libraries (PyTorch, CuPy, JAX) of the device tests, each skipping the test where it cannot run."""
import numpy
import pytest

import starfact

LIMIT = 60.0
DTYPES = (numpy.float32, numpy.float64)
NB = 32  # the tile size the tests force, so that n = 1, n < nb, n = nb and n not a multiple of nb all occur
ORDERS = (1, NB - 5, NB, 3 * NB + 7)


def eps(dtype):
    return float(numpy.finfo(dtype).eps)


CDTYPES = (numpy.complex64, numpy.complex128)


def hermitian(rng, n, dtype):
    """A random Hermitian matrix, real and imaginary parts uniform in [-0.5, 0.5] off the diagonal, plus n on the
    (real) diagonal: positive definite and well conditioned."""
    g = rng.uniform(-0.5, 0.5, (n, n)) + 1j * rng.uniform(-0.5, 0.5, (n, n))
    return ((g + g.conj().T) / 2 + n * numpy.eye(n)).astype(dtype)


def spd(rng, n, dtype):
    """A random symmetric matrix, entries uniform in [-0.5, 0.5], plus n on the diagonal (SPD, well conditioned)."""
    a = rng.uniform(-0.5, 0.5, (n, n))
    a = (a + a.T) / 2 + n * numpy.eye(n)
    return a.astype(dtype)


def general(rng, n, dtype):
    """A random square matrix, entries uniform in [-0.5, 0.5] (pivoting matters)."""
    return rng.uniform(-0.5, 0.5, (n, n)).astype(dtype)


def rhs(rng, n, nrhs, dtype):
    """Right-hand sides: (n,) for nrhs None, else (n, nrhs)."""
    shape = (n,) if nrhs is None else (n, nrhs)
    return rng.uniform(-0.5, 0.5, shape).astype(dtype)


def norm1(x):
    x = numpy.asarray(x, dtype=numpy.float64)
    return numpy.linalg.norm(x.reshape(x.shape[0], -1), 1)


def cholesky_residual(a, c, lower, dtype):
    """||A - L L^T||_1 / (||A||_1 n eps) for the factor in the `lower` triangle of c (upper: U^T U)."""
    a = numpy.asarray(a, dtype=numpy.float64)
    c = numpy.asarray(c, dtype=numpy.float64)
    n = a.shape[0]
    l = numpy.tril(c) if lower else numpy.triu(c).T
    return norm1(a - l @ l.T) / (norm1(a) * n * eps(dtype))


def solve_residual(a, x, b, dtype):
    """||A X - B||_1 / (||A||_1 ||X||_1 n eps)."""
    a = numpy.asarray(a, dtype=numpy.float64)
    x = numpy.asarray(x, dtype=numpy.float64)
    b = numpy.asarray(b, dtype=numpy.float64)
    n = a.shape[0]
    den = norm1(a) * norm1(x) * n * eps(dtype)
    return norm1(a @ x - b) / den if den > 0 else norm1(a @ x - b)


def inverse_residual(a, inv, dtype):
    """||A X - I||_1 / (||A||_1 ||X||_1 n eps)."""
    a = numpy.asarray(a, dtype=numpy.float64)
    inv = numpy.asarray(inv, dtype=numpy.float64)
    n = a.shape[0]
    return norm1(a @ inv - numpy.eye(n)) / (norm1(a) * norm1(inv) * n * eps(dtype))


def lu_residual(a, lu, piv, dtype):
    """||P A - L U||_1 / (||A||_1 n eps) for getrf's lu and 0-based piv (row i interchanged with piv[i])."""
    a = numpy.asarray(a, dtype=numpy.float64)
    lu = numpy.asarray(lu, dtype=numpy.float64)
    n = a.shape[0]
    pa = a.copy()
    for i, p in enumerate(numpy.asarray(piv)):
        pa[[i, p]] = pa[[p, i]]
    l = numpy.tril(lu, -1) + numpy.eye(n)
    u = numpy.triu(lu)
    return norm1(pa - l @ u) / (norm1(a) * n * eps(dtype))


def layout(x, order):
    """x in the memory order 'C', 'F', or 'strided' (every other row and column of a larger array, neither axis
    of unit stride), or 'reversed' (negative strides)."""
    if order in ("C", "F"):
        return numpy.array(x, order=order)
    if order == "strided":
        big = numpy.zeros(tuple(2 * s for s in x.shape), dtype=x.dtype)
        big[tuple(slice(None, None, 2) for _ in x.shape)] = x
        return big[tuple(slice(None, None, 2) for _ in x.shape)]
    if order == "reversed":
        r = numpy.array(x[tuple(slice(None, None, -1) for _ in x.shape)])
        return r[tuple(slice(None, None, -1) for _ in x.shape)]
    raise ValueError(order)


def padded(x, order):
    """x as a sub-block of a larger array of the given order (a leading dimension above its rows)."""
    big = numpy.zeros(tuple(s + 3 for s in x.shape), dtype=x.dtype, order=order)
    big[tuple(slice(0, s) for s in x.shape)] = x
    return big[tuple(slice(0, s) for s in x.shape)]


def tall(rng, m, n, dtype):
    """A random m x n matrix, entries uniform in [-0.5, 0.5] (full rank with probability one)."""
    return rng.uniform(-0.5, 0.5, (m, n)).astype(dtype)


def orthogonality(q, dtype):
    """||I - Q^T Q||_1 / (m eps) for an m x k Q."""
    q = numpy.asarray(q, dtype=numpy.float64)
    m, k = q.shape
    return norm1(numpy.eye(k) - q.T @ q) / (max(1, m) * eps(dtype))


def qr_residual(a, q, r, dtype):
    """||A - Q R||_1 / (||A||_1 m eps)."""
    a = numpy.asarray(a, dtype=numpy.float64)
    q = numpy.asarray(q, dtype=numpy.float64)
    r = numpy.asarray(r, dtype=numpy.float64)
    return norm1(a - q @ r) / (norm1(a) * a.shape[0] * eps(dtype))


def lstsq_residual(a, x, b, dtype):
    """The normal equations' residual ||A^T (A X - B)||_1 / (||A||_1 (||A||_1 ||X||_1 + ||B||_1) m eps), as the
    C++ tests' gels_residual."""
    a = numpy.asarray(a, dtype=numpy.float64)
    x = numpy.asarray(x, dtype=numpy.float64)
    b = numpy.asarray(b, dtype=numpy.float64)
    na = norm1(a)
    return norm1(a.T @ (a @ x - b)) / (na * (na * norm1(x) + norm1(b)) * a.shape[0] * eps(dtype))


# CUDA device arrays: the tests that take them skip without a CUDA build of starfact and a CUDA device.
needs_cuda = pytest.mark.skipif(not starfact.built_with_cuda() or starfact.cuda_device_count() == 0,
                                reason="needs a CUDA build of starfact and a CUDA device")


def torch_cuda():
    """PyTorch with CUDA; the test skips without it."""
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA")
    return torch


def cupy_cuda():
    """CuPy with a device; the test skips without it."""
    cupy = pytest.importorskip("cupy")
    try:
        if cupy.cuda.runtime.getDeviceCount() == 0:
            pytest.skip("cupy sees no device")
    except Exception:  # pylint: disable=broad-except
        pytest.skip("cupy cannot reach a device")
    return cupy


def jax_gpu():
    """JAX (64-bit types enabled) and its first GPU; the test skips without one."""
    jax = pytest.importorskip("jax")
    try:
        gpus = jax.devices("gpu")
    except RuntimeError:
        gpus = []
    if not gpus:
        pytest.skip("jax has no GPU")
    jax.config.update("jax_enable_x64", True)
    return jax, gpus[0]
