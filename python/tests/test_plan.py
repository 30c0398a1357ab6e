"""starfact.plan: the plan of a call through the Python door (the C ABI's starfact_c_plan) is the planning entry's,
row by row of the table tests/plan_table.txt (written and checked by tests/test_plan.cpp through the C++ doors)."""
import os

import numpy as np
import pytest

import starfact

TABLE = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "plan_table.txt")
SOLVES = ("potrs", "posv", "getrs", "gesv", "gels")


def table_rows():
    # The table is a CUDA build's: a build without CUDA has no fused potf2 kernel and plans cuSOLVER for the diagonal
    # tiles (as tests/test_plan.cpp reads it).
    fused = starfact.built_with_cuda()
    with open(TABLE) as f:
        for line in f:
            machine, factor, plan = line.rstrip("\n").split(" ", 2)
            if not fused:
                plan = plan.replace("diag=fused", "diag=cusolver")
            yield tuple(int(x) for x in machine.split(",")), factor, plan


def arrays(p):
    """Arrays of the plan's shape and dtype that are never read (the plan reads shapes only)."""
    dtype = np.float32 if p.element == "fp32" else np.float64
    a = np.broadcast_to(np.zeros((), dtype), (p.m, p.n))
    b = np.broadcast_to(np.zeros((), dtype), (max(p.m, p.n) if p.op == "gels" else p.n, p.nrhs))
    return a, (b if p.op in SOLVES else None)


def test_every_row_of_the_table_plans_alike_from_python():
    rows = 0
    for machine, factor, line in table_rows():
        expected = starfact.Plan.parse(line)
        a, b = arrays(expected)
        got = starfact.plan(expected.op, a, b, mapping=expected.mapping,
                            factor=None if factor == "native" else factor,
                            residency="device" if expected.residency == "device" else None, machine=machine)
        assert str(got) == line
        assert got == expected
        rows += 1
    assert rows > 1000


def test_the_plan_reads_as_its_fields():
    a = np.broadcast_to(np.zeros(()), (8192, 8192))
    b = np.zeros((8192, 1))
    p = starfact.plan("posv", a, b, factor="tf32", mapping="gpu-only", residency="device", machine=(8, 4, 1))
    # below 16384 a tf32 factor does not pay on a GPU: the double factorization, one whole-matrix task
    assert (p.op, p.nb, p.one_task, p.refined, p.arithmetic) == ("posv", 8192, True, False, "fp64")
    assert p.tree is None and p.ib is None
    assert "nb=8192" in repr(p) and str(p).startswith("op=posv element=fp64 m=8192 n=8192 nrhs=1")
    q = starfact.plan("geqrf", np.zeros((300, 20)), machine=(2, 0, 0))
    assert q.tree in ("flat", "binary") or q.tree.startswith("domains=")
    assert q.ib == 32 and q.nb == 192


def test_the_running_runtime_is_the_default_machine():
    p = starfact.plan("potrf", np.eye(50))
    assert p.nb >= 1 and p.op == "potrf"


@pytest.mark.parametrize("call, name", [
    (lambda: starfact.plan("lu", np.eye(3)), "op"),
    (lambda: starfact.plan(3, np.eye(3)), "op"),
    (lambda: starfact.plan("posv", np.eye(3)), "b"),
    (lambda: starfact.plan("potrf", np.eye(3), np.eye(3)), "b"),
    (lambda: starfact.plan("potrf", np.zeros((3, 4))), "a"),
    (lambda: starfact.plan("potrf", np.eye(3), machine=(1, 2)), "machine"),
    (lambda: starfact.plan("potrf", np.eye(3), nb=-1), "nb"),
])
def test_bad_arguments_name_themselves(call, name):
    with pytest.raises((TypeError, ValueError)) as e:
        call()
    assert repr(name) in str(e.value) or name in str(e.value)
