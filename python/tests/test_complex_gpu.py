"""Complex CUDA device arrays (PyTorch, CuPy, JAX) through the Cholesky and the LU: results of the caller's type and
dtype on the caller's device, residuals < 60 against the host copies; the Cholesky on device-resident tiles (CUDA
workers, gpu-only too) or, with residency="host", on host tiles; the LU likewise (gpu-only too). Skipped without a CUDA build, a CUDA device, or the
array library."""
import numpy
import pytest

import starfact
from support import CDTYPES, LIMIT, NB, cupy_cuda, hermitian, jax_gpu, needs_cuda, torch_cuda
from test_complex import cholesky_residual, general, lu_residual, solve_residual

pytestmark = needs_cuda


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("options", [{}, {"mapping": "gpu-only"}, {"residency": "host"}])
def test_torch_cuda_cholesky(rng, dtype, options):
    torch = torch_cuda()
    n = 3 * NB + 7
    a, b = hermitian(rng, n, dtype), general(rng, n, dtype, 3)
    ta, tb = (torch.from_numpy(x.copy()).cuda() for x in (a, b))
    for lower in (False, True):
        c, lw = starfact.potrf(ta, lower=lower, nb=NB, **options)
        assert isinstance(c, torch.Tensor) and c.is_cuda and c.dtype == ta.dtype
        assert cholesky_residual(a, c.cpu().numpy(), lower, dtype) < LIMIT
        x = starfact.potrs((c, lw), tb, nb=NB, **options)
        assert x.is_cuda and x.dtype == tb.dtype and solve_residual(a, x.cpu().numpy(), b, dtype) < LIMIT
        x = starfact.posv(ta, tb, lower=lower, nb=NB, **options)
        assert x.is_cuda and solve_residual(a, x.cpu().numpy(), b, dtype) < LIMIT
    x = starfact.posv(ta, tb, **options)  # the plan's tiles: one tile on the device
    assert solve_residual(a, x.cpu().numpy(), b, dtype) < LIMIT
    assert torch.equal(ta.cpu(), torch.from_numpy(a)) and torch.equal(tb.cpu(), torch.from_numpy(b))
    bad = hermitian(rng, n, dtype)
    bad[40, 40] = -1000
    with pytest.raises(starfact.LinAlgError) as e:
        starfact.potrf(torch.from_numpy(bad).cuda(), nb=NB, **options)
    assert e.value.info == 41


@pytest.mark.parametrize("dtype", CDTYPES)
def test_torch_cuda_lu(rng, dtype):
    torch = torch_cuda()
    n = 3 * NB + 7
    g, b = general(rng, n, dtype), general(rng, n, dtype, 2)
    tg, tb = (torch.from_numpy(x.copy()).cuda() for x in (g, b))
    lu, piv = starfact.getrf(tg, nb=NB)
    assert lu.is_cuda and lu.dtype == tg.dtype and piv.is_cuda
    assert lu_residual(g, lu.cpu().numpy(), piv.cpu().numpy(), dtype) < LIMIT
    x = starfact.getrs((lu, piv), tb, nb=NB)
    assert x.is_cuda and solve_residual(g, x.cpu().numpy(), b, dtype) < LIMIT
    x = starfact.gesv(tg, tb)
    assert x.is_cuda and solve_residual(g, x.cpu().numpy(), b, dtype) < LIMIT
    # in place on a column-major tensor
    tf = torch.from_numpy(g.T.copy()).cuda().t()
    lu, piv = starfact.getrf(tf, overwrite_a=True, nb=NB)
    assert lu.data_ptr() == tf.data_ptr() and lu_residual(g, lu.cpu().numpy(), piv.cpu().numpy(), dtype) < LIMIT
    x = starfact.gesv(tg, tb, mapping="gpu-only")
    assert x.is_cuda and solve_residual(g, x.cpu().numpy(), b, dtype) < LIMIT


@pytest.mark.parametrize("dtype", CDTYPES)
def test_cupy_complex(rng, dtype):
    cupy = cupy_cuda()
    n = 2 * NB + 3
    a, g, b = hermitian(rng, n, dtype), general(rng, n, dtype), general(rng, n, dtype, 2)
    ca, cg, cb = cupy.asarray(a), cupy.asarray(g), cupy.asarray(b)
    x = starfact.posv(ca, cb, nb=NB)
    assert isinstance(x, cupy.ndarray) and x.dtype == dtype and solve_residual(a, cupy.asnumpy(x), b, dtype) < LIMIT
    x = starfact.gesv(cg, cb, nb=NB)
    assert isinstance(x, cupy.ndarray) and solve_residual(g, cupy.asnumpy(x), b, dtype) < LIMIT


@pytest.mark.parametrize("dtype", CDTYPES)
def test_jax_complex(rng, dtype):
    jax, gpu = jax_gpu()
    n = 2 * NB + 3
    a, g, b = hermitian(rng, n, dtype), general(rng, n, dtype), general(rng, n, dtype, 2)
    ja, jg, jb = (jax.device_put(x, gpu) for x in (a, g, b))
    for lower in (False, True):
        x = starfact.posv(ja, jb, lower=lower, nb=NB)
        assert x.dtype == dtype and solve_residual(a, numpy.asarray(x), b, dtype) < LIMIT
    x = starfact.gesv(jg, jb, nb=NB)
    assert solve_residual(g, numpy.asarray(x), b, dtype) < LIMIT
    numpy.testing.assert_array_equal(numpy.asarray(ja), a)
