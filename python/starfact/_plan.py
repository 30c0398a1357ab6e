"""The plan of a call, without running it: ``starfact.plan("posv", a, b, factor="tf32")`` says what the call with
those arguments would run (tile size, streams, task mapping, diagonal kernel, panel solve, arithmetic and refinement,
QR tree and inner block, whether it is one task). The library's one planning entry answers (starfact_c_plan, the
same that the operation's own call asks)."""
import ctypes
from dataclasses import dataclass
from typing import Optional

from . import _args, _arrays, _clib, _ops, _runtime
from .errors import argument_type_error, argument_value_error

_OPERATIONS = ("potrf", "potrs", "posv", "potri", "getrf", "getrs", "gesv", "geqrf", "gels")
_SOLVES = ("potrs", "posv", "getrs", "gesv", "gels")
_INTS = ("m", "n", "nrhs", "nb", "streams")


@dataclass(frozen=True)
class Plan:
    """How a call runs (starfact::Plan). Fields that do not apply to the operation are None.

    op, element ("fp64", "fp32", "c64", "c128"), m, n, nrhs; mapping (the options'), tasks (what tasks on nb x nb tiles get),
    residency ("host", "device"), nb (tile size), streams (CUDA workers per GPU the plan is tuned for), one_task
    (the whole matrix is one tile), arithmetic (the factorization's), refined (posv: a lower factor and
    refinement), diag and panel (Cholesky kernels), tree and ib (QR). ``str(plan)`` is the line the drivers print.
    """
    op: str
    element: str
    m: int
    n: int
    nrhs: int
    mapping: str
    tasks: str
    residency: str
    nb: int
    streams: int
    one_task: bool
    arithmetic: str
    refined: bool
    diag: Optional[str]
    panel: Optional[str]
    tree: Optional[str]
    ib: Optional[int]
    line: str = ""

    @classmethod
    def parse(cls, line):
        """The Plan of the library's one line (key=value pairs)."""
        fields = {}
        for pair in line.split():
            key, value = pair.split("=", 1)
            if value == "-":
                fields[key] = None
            elif key in _INTS or key == "ib":
                fields[key] = int(value)
            elif value in ("yes", "no"):
                fields[key] = value == "yes"
            else:
                fields[key] = value
        return cls(line=line, **fields)

    def __str__(self):
        return self.line


def _matrix(v, name):
    """The C description of a 1-D or 2-D array (its shape, dtype and device; the memory is not read)."""
    rows = v.shape[0]
    cols = 1 if v.ndim == 1 else v.shape[1]
    return _clib.Matrix(v.data or 1, rows, cols, max(1, rows), v.dtype_code, v.device)


def plan(op, a, b=None, *, nb=None, mapping=None, variant=None, panel=None, diag=None, factor=None, residency=None,
         tree=None, ib=None, always_low=None, runtime=None, machine=None):
    """The plan of ``starfact.<op>(a, b, ...)`` with these keyword arguments, without running it.

    Args:
        op: "potrf", "potrs", "posv", "potri", "getrf", "getrs", "gesv", "geqrf" or "gels".
        a: the matrix (any array the operation takes: only its shape, dtype and device are read); b: the
            right-hand sides of the solves (potrs, posv, getrs, gesv, gels), else None.
        nb, mapping, variant, panel, diag, factor, residency, tree, ib, always_low: as the operation takes them.
        runtime: the :class:`starfact.Runtime` whose workers the plan is for (None: the running one, started if
            needed); machine: ``(cpu_workers, cuda_workers, cuda_devices)`` to plan for another machine instead
            (then no runtime is started).

    Returns:
        a :class:`Plan`; ``str(plan)`` is the one line the drivers print.
    """
    if not isinstance(op, str):
        raise argument_type_error("op", "a str", type(op).__name__)
    if op not in _OPERATIONS:
        raise argument_value_error("op", "must be one of %s (got %r)" % (", ".join(_OPERATIONS), op))
    va = _arrays.view(a, "a", (2,), _arrays.NUMBERS)  # (complex a: the library says which operations take it)
    if op in _SOLVES:
        if b is None:
            raise argument_value_error("b", "is needed: %s solves with it" % op)
        vb = _arrays.view(b, "b", (1, 2), _arrays.NUMBERS)
        mb = _matrix(vb, "b")
    else:
        if b is not None:
            raise argument_value_error("b", "must be None: %s has no right-hand sides" % op)
        mb = None
    ma = _matrix(va, "a")
    opts = _ops.options(nb=nb, mapping=mapping, variant=variant, panel=panel, diag=diag, factor=factor,
                        residency=residency, tree=tree, ib=ib)
    refine = None
    if always_low is not None:
        refine = _clib.Refinement()
        _clib.lib.starfact_c_refinement_init(ctypes.byref(refine))
        refine.always_low = int(_args.flag("always_low", always_low))
    buf = ctypes.create_string_buffer(1024)
    args = (op.encode(), ctypes.byref(ma), _ops.pointer(mb), ctypes.byref(opts), _ops.pointer(refine), buf,
            ctypes.sizeof(buf))
    if machine is not None:
        if not isinstance(machine, (tuple, list)) or len(machine) != 3:
            raise argument_type_error("machine", "a (cpu_workers, cuda_workers, cuda_devices) tuple",
                                      type(machine).__name__)
        counts = [_args.integer("machine", x, 0) for x in machine]
        c_machine = _clib.Machine(*counts)
        _clib.check(_clib.lib.starfact_c_plan(None, ctypes.byref(c_machine), *args))
    else:
        rt, handle = _runtime.enter(runtime)
        try:
            _clib.check(_clib.lib.starfact_c_plan(handle, None, *args))
        finally:
            rt._leave()  # pylint: disable=protected-access
    return Plan.parse(buf.value.decode())
