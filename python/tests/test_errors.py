"""Errors: bad arguments raise TypeError / ValueError naming the argument, numerical failures raise
starfact.LinAlgError (a numpy.linalg.LinAlgError) with LAPACK's info; nothing crashes."""
import numpy
import pytest

import starfact
from support import NB, general, rhs, spd


def _raises(exc, argument, call):
    with pytest.raises(exc) as e:
        call()
    assert "'%s'" % argument in str(e.value), str(e.value)
    if hasattr(e.value, "argument"):
        assert e.value.argument == argument
    return e.value


# (complex64 and complex128 go to the Cholesky and the LU: test_complex.py; clongdouble does not)
@pytest.mark.parametrize("dtype", [numpy.int64, numpy.int32, numpy.clongdouble, numpy.float16, numpy.bool_])
def test_wrong_dtype(dtype):
    a = numpy.eye(4, dtype=dtype)
    b = numpy.ones(4, dtype=dtype)
    good = numpy.eye(4)
    for f in (lambda: starfact.potrf(a), lambda: starfact.posv(a, good[:, 0]), lambda: starfact.gesv(a, good),
              lambda: starfact.getrf(a), lambda: starfact.potri(a)):
        _raises(TypeError, "a", f)
    for f in (lambda: starfact.posv(good, b), lambda: starfact.gesv(good, b),
              lambda: starfact.potrs(starfact.potrf(good), b)):
        _raises(TypeError, "b", f)


def test_mixed_dtypes():
    a = numpy.eye(4)
    b = numpy.ones(4, dtype=numpy.float32)
    _raises(TypeError, "b", lambda: starfact.posv(a, b))
    _raises(TypeError, "b", lambda: starfact.gesv(a, b))


def test_wrong_shapes():
    _raises(ValueError, "a", lambda: starfact.potrf(numpy.ones((3, 4))))
    _raises(ValueError, "a", lambda: starfact.potrf(numpy.ones(4)))
    _raises(ValueError, "a", lambda: starfact.gesv(numpy.ones((2, 2, 2)), numpy.ones(2)))
    _raises(ValueError, "b", lambda: starfact.posv(numpy.eye(4), numpy.ones(5)))
    _raises(ValueError, "b", lambda: starfact.gesv(numpy.eye(4), numpy.ones((3, 2))))
    _raises(ValueError, "b", lambda: starfact.posv(numpy.eye(4), numpy.ones((4, 2, 1))))
    _raises(TypeError, "a", lambda: starfact.posv(None, numpy.ones(4)))
    _raises(TypeError, "a", lambda: starfact.posv("text", numpy.ones(4)))


def test_bad_options():
    a = numpy.eye(8)
    _raises(ValueError, "nb", lambda: starfact.potrf(a, nb=-1))
    _raises(TypeError, "nb", lambda: starfact.potrf(a, nb="32"))
    _raises(TypeError, "nb", lambda: starfact.potrf(a, nb=2.5))
    _raises(ValueError, "mapping", lambda: starfact.potrf(a, mapping="everywhere"))
    _raises(ValueError, "variant", lambda: starfact.posv(a, numpy.ones(8), variant="sideways"))
    _raises(ValueError, "panel", lambda: starfact.potrf(a, panel="x"))
    _raises(ValueError, "diag", lambda: starfact.potrf(a, diag="x"))
    _raises(ValueError, "residency", lambda: starfact.potrf(a, residency="moon"))
    _raises(TypeError, "mapping", lambda: starfact.potrf(a, mapping=3))
    _raises(TypeError, "lower", lambda: starfact.potrf(a, lower="yes"))
    _raises(ValueError, "variant", lambda: starfact.gesv(a, numpy.ones(8), variant="left"))


def test_options_the_machine_cannot_run():
    """A GPU mapping or device tiles without a GPU: ValueError naming the option (never a crash)."""
    if starfact.cuda_device_count() > 0:
        pytest.skip("a GPU is present")
    a = numpy.eye(8)
    _raises(ValueError, "mapping", lambda: starfact.potrf(a, mapping="gpu-only"))
    _raises(ValueError, "residency", lambda: starfact.potrf(a, residency="device"))


def test_bad_factor_pairs():
    a = numpy.eye(4)
    with pytest.raises(TypeError):
        starfact.potrs(a, numpy.ones(4))
    with pytest.raises(TypeError):
        starfact.getrs(a, numpy.ones(4))
    lu, piv = starfact.getrf(a)
    _raises(ValueError, "piv", lambda: starfact.getrs((lu, piv[:3]), numpy.ones(4)))
    _raises(ValueError, "piv", lambda: starfact.getrs((lu, numpy.array([4, 1, 2, 3])), numpy.ones(4)))
    _raises(ValueError, "piv", lambda: starfact.getrs((lu, numpy.array([0, 0, 2, 3])), numpy.ones(4)))
    _raises(TypeError, "piv", lambda: starfact.getrs((lu, numpy.zeros(4)), numpy.ones(4)))


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
def test_not_positive_definite(rng, dtype):
    """The leading minor of order k fails: LinAlgError with info = k, from every Cholesky entry point and the
    submit forms; the runtime stays usable."""
    n = 3 * NB + 7
    for k in (1, NB, NB + 3, n):
        a = spd(rng, n, dtype)
        a[k - 1, k - 1] = -1.0
        b = rhs(rng, n, 2, dtype)
        for call in (lambda: starfact.potrf(a, nb=NB), lambda: starfact.posv(a, b, nb=NB),
                     lambda: starfact.potri(a, nb=NB), lambda: starfact.posv_async(a, b, nb=NB).wait()):
            with pytest.raises(starfact.LinAlgError) as e:
                call()
            assert isinstance(e.value, numpy.linalg.LinAlgError)
            assert e.value.info == k, str(e.value)
    a = spd(rng, n, dtype)
    a[5, 5] = numpy.nan
    with pytest.raises(starfact.LinAlgError) as e:
        starfact.potrf(a, nb=NB)
    assert e.value.info == 6
    c = starfact.potrf(spd(rng, n, dtype), nb=NB)  # still works
    assert c[0].shape == (n, n)


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
def test_singular(rng, dtype):
    """An exactly zero column j: U[j, j] is zero, LinAlgError with info = j + 1."""
    n = 2 * NB + 3
    for j in (0, NB - 1, n - 1):
        a = general(rng, n, dtype)
        a[:, j] = 0
        with pytest.raises(starfact.LinAlgError) as e:
            starfact.getrf(a, nb=NB)
        assert e.value.info == j + 1
        with pytest.raises(starfact.LinAlgError) as e:
            starfact.gesv(a, rhs(rng, n, None, dtype), nb=NB)
        assert e.value.info == j + 1


def test_device_arrays_without_cuda():
    """An object claiming CUDA memory through the CUDA Array Interface: a clear error in a build without CUDA (or
    for a pointer that is not device memory), never a crash."""
    host = numpy.eye(4)

    class Fake:
        __cuda_array_interface__ = {"shape": (4, 4), "typestr": "<f8", "data": (host.ctypes.data, False),
                                    "version": 3, "strides": None}

    with pytest.raises((starfact.NotBuiltError, ValueError)) as e:
        starfact.potrf(Fake())
    assert "'a'" in str(e.value)

    class FakeDLPack:  # a DLPack producer of CUDA memory, whose capsule must never be read in a CPU build
        def __dlpack_device__(self):
            return (2, 0)

        def __dlpack__(self, stream=None, max_version=None):
            return host.__dlpack__()

    if not starfact.built_with_cuda():
        with pytest.raises(starfact.NotBuiltError) as e:
            starfact.posv(numpy.eye(4), FakeDLPack())
        assert e.value.argument == "b"


def test_runtime_argument():
    with pytest.raises(TypeError):
        starfact.potrf(numpy.eye(2), runtime="cpu")
