"""Arrays whose strides are 2^31 elements or more: NumPy views (numpy.lib.stride_tricks.as_strided) over an anonymous
mapping made with MAP_NORESERVE, of which only the pages the columns touch cost memory. Every operation solves them
correctly, in place and into new arrays (each checked by a residual against the original data, the entries past
each column untouched), or refuses them naming the argument; absurd tile counts are refused naming nb."""
import mmap
import time

import numpy
import pytest

import starfact
from support import LIMIT, cholesky_residual, eps, general, inverse_residual, lu_residual, orthogonality, qr_residual, \
    rhs, solve_residual, spd, tall

WIDE = 1 << 31
MARKER = -777.0
MAP_NORESERVE = getattr(mmap, "MAP_NORESERVE", 0x4000)  # Linux's value (Python < 3.12 does not export it)
OPTS = {"nb": 8, "mapping": "cpu-only"}


class Wide:
    """A (rows, cols) array with column stride ld elements (Fortran-ordered, or C-ordered with row stride ld when
    `order` is "C") over a mapping that reserves no memory; two markers follow each column (row)."""

    def __init__(self, x, ld, order="F"):
        x = numpy.asarray(x)
        self.dtype = x.dtype
        rows, cols = x.shape if order == "F" else x.shape[::-1]
        size = ((cols - 1) * ld + rows + 2) * self.dtype.itemsize
        self.map = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | MAP_NORESERVE)
        self.base = numpy.frombuffer(self.map, dtype=self.dtype)
        item = self.dtype.itemsize
        strides = (item, ld * item) if order == "F" else (ld * item, item)
        self.array = numpy.lib.stride_tricks.as_strided(self.base, shape=x.shape, strides=strides)
        self.ends = numpy.lib.stride_tricks.as_strided(self.base[rows:], shape=(cols, 2), strides=(ld * item, item))
        self.array[...] = x
        self.ends[...] = MARKER

    def intact(self):
        return bool((self.ends == MARKER).all())


@pytest.mark.parametrize("n", [3, 21])
def test_cholesky(rng, n):
    dtype = numpy.float64
    a, b = spd(rng, n, dtype), rhs(rng, n, 3, dtype)
    w = Wide(a, WIDE + 3)
    c, lower = starfact.potrf(w.array, lower=True, overwrite_a=True, **OPTS)
    assert numpy.shares_memory(c, w.array) and cholesky_residual(a, c, lower, dtype) < LIMIT and w.intact()
    c2, _ = starfact.potrf(Wide(a, WIDE + 1).array, lower=True, **OPTS)  # into a new array
    assert cholesky_residual(a, c2, True, dtype) < LIMIT
    wb = Wide(b, WIDE + 5)
    x = starfact.potrs((w.array, True), wb.array, overwrite_b=True, **OPTS)  # the factor only read
    assert numpy.shares_memory(x, wb.array) and solve_residual(a, x, b, dtype) < LIMIT and wb.intact()
    for factor in (None, "fp32"):
        wa, wb = Wide(a, WIDE + 7), Wide(b, 2 * WIDE + 1)
        out = starfact.posv(wa.array, wb.array, lower=True, overwrite_a=True, overwrite_b=True, factor=factor, **OPTS)
        x = out[0] if factor else out
        assert solve_residual(a, x, b, dtype) < LIMIT and wa.intact() and wb.intact()
    wa = Wide(a, WIDE + 9)
    inv = starfact.potri(wa.array, lower=True, overwrite_a=True, **OPTS)
    assert inverse_residual(a, inv, dtype) < LIMIT and wa.intact()


def test_cholesky_row_major(rng):
    """A C-ordered array with a row stride of 2^31 + 11: the library reads its transpose in place."""
    n, dtype = 17, numpy.float32
    a = spd(rng, n, dtype)
    w = Wide(a, WIDE + 11, order="C")
    c, lower = starfact.potrf(w.array, overwrite_a=True, **OPTS)
    assert cholesky_residual(a, c, lower, dtype) < LIMIT and w.intact()


@pytest.mark.parametrize("n", [4, 19])
def test_lu(rng, n):
    dtype = numpy.float64
    a, b = general(rng, n, dtype) + 0.5 * numpy.eye(n), rhs(rng, n, 2, dtype)
    wa = Wide(a, WIDE + 13)
    lu, piv = starfact.getrf(wa.array, overwrite_a=True, **OPTS)
    assert lu_residual(a, lu, piv, dtype) < LIMIT and wa.intact()
    wb = Wide(b, 3 * WIDE)
    x = starfact.getrs((wa.array, piv), wb.array, overwrite_b=True, **OPTS)  # the factors only read
    assert solve_residual(a, x, b, dtype) < LIMIT and wb.intact()
    wa, wb = Wide(a, WIDE + 15), Wide(b, WIDE + 17)
    x = starfact.gesv(wa.array, wb.array, overwrite_a=True, overwrite_b=True, **OPTS)
    assert solve_residual(a, x, b, dtype) < LIMIT and wa.intact() and wb.intact()


@pytest.mark.parametrize("shape", [(12, 3), (30, 17)])
def test_qr(rng, shape):
    m, n = shape
    dtype = numpy.float64
    a, c = tall(rng, m, n, dtype), tall(rng, m, 2, dtype)
    wa = Wide(a, WIDE + 19)
    f = starfact.geqrf(wa.array, overwrite_a=True, **OPTS)
    q = starfact.orgqr(f, **OPTS)  # the factors' array only read
    assert orthogonality(q, dtype) < LIMIT and qr_residual(a, q, f.r(), dtype) < LIMIT and wa.intact()
    wc = Wide(c, WIDE + 21)
    qtc = starfact.ormqr(f, wc.array, "T", overwrite_c=True, **OPTS)
    scale = numpy.abs(c).sum(axis=0).max() * m * eps(dtype)
    assert numpy.abs(qtc[:n] - q.T @ c).max() / scale < LIMIT and wc.intact()
    wa, wc = Wide(a, WIDE + 23), Wide(c, WIDE + 25)
    x = starfact.gels(wa.array, wc.array, overwrite_a=True, overwrite_b=True, **OPTS)
    normal = a.T @ (a @ x - c)
    na = numpy.abs(a).sum(axis=0).max()
    den = na * (na * numpy.abs(x).sum(axis=0).max() + numpy.abs(c).sum(axis=0).max()) * m * eps(dtype)
    assert numpy.abs(normal).sum(axis=0).max() / den < LIMIT and wa.intact() and wc.intact()


def test_batched_stride(rng):
    """Members 2^31 + 29 elements apart are solved; members whose own extent passes 2^31 are refused by name."""
    if not starfact.build_info()["batched_cholesky"]:
        pytest.skip("this build has no batched Cholesky")
    n, count, stride = 4, 3, WIDE + 29
    dtype = numpy.float64
    a = numpy.stack([spd(rng, n, dtype) for _ in range(count)])
    b = numpy.stack([rhs(rng, n, 1, dtype) for _ in range(count)])
    item = a.itemsize
    mapping = mmap.mmap(-1, ((count - 1) * stride + n * n) * item,
                        flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | MAP_NORESERVE)
    base = numpy.frombuffer(mapping, dtype=dtype)
    wa = numpy.lib.stride_tricks.as_strided(base, shape=(count, n, n), strides=(stride * item, item, n * item))
    wa[...] = a
    mapping_b = mmap.mmap(-1, ((count - 1) * stride + n) * item,
                          flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | MAP_NORESERVE)
    wb = numpy.lib.stride_tricks.as_strided(numpy.frombuffer(mapping_b, dtype=dtype), shape=(count, n, 1),
                                            strides=(stride * item, item, n * item))
    wb[...] = b
    x = starfact.posv_batched(wa, wb, lower=True, overwrite_a=True, overwrite_b=True, mapping="cpu-only")
    for k in range(count):
        assert solve_residual(a[k], x[k], b[k], dtype) < LIMIT


def test_absurd_tile_count():
    """3000 x 3000 in 1 x 1 tiles: refused at once, naming nb (the array is mapped, never touched)."""
    n = 3000
    mapping = mmap.mmap(-1, n * n * 8, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | MAP_NORESERVE)
    a = numpy.frombuffer(mapping, dtype=numpy.float64).reshape(n, n)
    start = time.monotonic()
    with pytest.raises(starfact.ArgumentError) as e:
        starfact.potrf(a, overwrite_a=True, nb=1, mapping="cpu-only")
    assert e.value.argument == "nb" and "nb >=" in str(e.value)
    assert time.monotonic() - start < 10
