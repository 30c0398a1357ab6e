"""The tests' own checks fail on wrong answers: a residual test that cannot fail would prove nothing."""
import numpy
import pytest

import starfact
from support import LIMIT, NB, cholesky_residual, general, inverse_residual, lu_residual, rhs, solve_residual, spd


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
def test_residuals_reject_wrong_answers(rng, dtype):
    n = 2 * NB + 3
    a = spd(rng, n, dtype)
    b = rhs(rng, n, 2, dtype)
    c, lower = starfact.potrf(a, lower=True, nb=NB)
    x = starfact.posv(a, b, nb=NB)
    inv = starfact.potri(a, nb=NB)
    g = general(rng, n, dtype)
    lu, piv = starfact.getrf(g, nb=NB)
    assert cholesky_residual(a, c, lower, dtype) < LIMIT  # right answers pass ...
    assert solve_residual(a, x, b, dtype) < LIMIT
    assert inverse_residual(a, inv, dtype) < LIMIT
    assert lu_residual(g, lu, piv, dtype) < LIMIT
    # ... answers wrong in one entry (by 1 %, 10 % for x's largest) do not
    c2 = c.copy()
    c2[n - 1, n - 1] *= 1.01
    assert cholesky_residual(a, c2, lower, dtype) >= LIMIT
    assert cholesky_residual(a, c, not lower, dtype) >= LIMIT  # the wrong triangle
    x2 = x.copy()
    x2[numpy.unravel_index(numpy.abs(x).argmax(), x.shape)] *= 1.1
    assert solve_residual(a, x2, b, dtype) >= LIMIT
    inv2 = inv.copy()
    inv2[1, 1] *= 1.01
    assert inverse_residual(a, inv2, dtype) >= LIMIT
    piv2 = piv.copy()
    j = int(numpy.nonzero(piv != numpy.arange(n))[0][0])
    piv2[j] = j  # one interchange dropped
    assert lu_residual(g, lu, piv2, dtype) >= LIMIT
