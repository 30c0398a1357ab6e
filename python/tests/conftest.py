"""pytest set-up: one base seed per run, from which each test derives its random generator by its own name, so that a
test run alone draws what it drew in the full run. As in the C++ tests (tests/seeds.hpp): STARFACT_TEST_SEED=N
replays a run, "random" draws a fresh base seed, and without it the base seed is 24301."""
import os
import random
import zlib

import numpy
import pytest

_seed_text = os.environ.get("STARFACT_TEST_SEED", "24301")
BASE_SEED = random.SystemRandom().randrange(1, 1 << 30) if _seed_text == "random" else int(_seed_text)


def pytest_report_header(config):  # pylint: disable=unused-argument
    return "seed: %d (STARFACT_TEST_SEED=%d replays this run)" % (BASE_SEED, BASE_SEED)


@pytest.fixture
def rng(request):
    """A NumPy generator seeded by the base seed and the test's name."""
    return numpy.random.default_rng([BASE_SEED, zlib.crc32(request.node.nodeid.encode())])


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):  # pylint: disable=unused-argument
    outcome = yield
    report = outcome.get_result()
    if report.failed:
        report.sections.append(("replay", "STARFACT_TEST_SEED=%d python3 -m pytest '%s'" % (BASE_SEED, item.nodeid)))
