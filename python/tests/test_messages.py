"""Errors the library finds (the C ABI, the C++ library below it) speak Python: the message names the Python
function and quotes the Python argument, the one ``e.argument`` holds, never a name of the C ABI or of the C++ API
(B, lda, refine.max_iterations, batched::posv)."""
import re

import numpy
import pytest

import starfact
from support import spd

FOREIGN = re.compile(r"'[A-Z]+'|refine\.|starfact::|\blda\b|\bldb\b|stride[A-Z]|batched::|async::|'ipiv'|'n'")


def _message(call, argument, function):
    with pytest.raises(starfact.ArgumentError) as e:
        call()
    text = str(e.value)
    assert e.value.argument == argument, text
    assert text.startswith("starfact.%s: argument '%s' " % (function, argument)), text
    assert not FOREIGN.search(text), text
    return text


@pytest.mark.parametrize("name, value", [("max_iterations", -1), ("gmres_iterations", -2), ("gmres_restart", 0),
                                         ("stall_ratio", 2.0), ("tolerance", float("nan")),
                                         ("shift_retries", -1), ("time_budget", -1.0)])
def test_refinement_settings(rng, name, value):
    a = spd(rng, 8, numpy.float64)
    b = numpy.ones(8)
    _message(lambda: starfact.posv(a, b, factor="fp32", **{name: value}), name, "posv")


def _batch(rng, count, n):
    return numpy.stack([spd(rng, n, numpy.float64) for _ in range(count)])


def test_batched_orders(rng):
    if not starfact.build_info()["batched_cholesky"] or not starfact.build_info()["batched_lu"]:
        pytest.skip("batched modules not built")
    big = _batch(rng, 2, 129)
    text = _message(lambda: starfact.posv_batched(big, numpy.ones((2, 129))), "a", "posv_batched")
    assert "128" in text
    _message(lambda: starfact.potrf_batched(big), "a", "potrf_batched")
    lu33 = _batch(rng, 2, 33)
    _message(lambda: starfact.gesv_batched(lu33, numpy.ones((2, 33))), "a", "gesv_batched")
    _message(lambda: starfact.getrf_batched(lu33), "a", "getrf_batched")
    piv = numpy.tile(numpy.arange(33, dtype=numpy.int32), (2, 1))
    _message(lambda: starfact.getrs_batched((lu33, piv), numpy.ones((2, 33))), "lu", "getrs_batched")


def test_batched_mapping_without_workers(rng):
    if starfact.cuda_device_count() > 0 or not starfact.build_info()["batched_cholesky"]:
        pytest.skip("a GPU is present, or no batched Cholesky")
    a = _batch(rng, 3, 5)
    _message(lambda: starfact.posv_batched(a, numpy.ones((3, 5)), mapping="gpu-only"), "mapping", "posv_batched")


def test_messages_of_other_errors_kept():
    """A message that names no argument (a runtime failure) goes through unchanged."""
    from starfact import _clib  # pylint: disable=import-outside-toplevel
    assert _clib.python_message("starfact: StarPU failed") == "starfact: StarPU failed"
    assert _clib.python_message("starfact::batched_gesv: argument 'stride_piv' must be >= n = 4 (got 3)") == \
        "starfact.gesv_batched: argument 'piv' must be >= n = 4 (got 3)"
    assert _clib.python_message("starfact::posv: argument 'b_out' is null", "posv_async") == \
        "starfact.posv_async: argument 'b' is null"


def test_option_strings(rng):
    """The options' strings are parsed below the C ABI: their errors are the called function's."""
    a = spd(rng, 8, numpy.float64)
    _message(lambda: starfact.potrf(a, variant="lookahead=-1"), "variant", "potrf")
    _message(lambda: starfact.gesv(a, numpy.ones(8), mapping="sideways"), "mapping", "gesv")
