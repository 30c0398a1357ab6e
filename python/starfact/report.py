"""The report of the mixed-precision solve (``starfact::SolveReport``)."""
from dataclasses import dataclass


@dataclass(frozen=True)
class SolveReport:
    """What ``posv(..., factor=...)`` did.

    Attributes:
        path: "direct" (the factorization in the matrix's precision, no refinement), "refined" (classical
            refinement reached the tolerance), "gmres" (GMRES preconditioned by the low-precision factor did),
            "fallback" (neither did: the float64 factorization was used), "failed" (fallback off).
        factor: the precision of the factor the refinement used ("fp32", "tf32", ...).
        iterations: classical refinement steps.
        gmres_iterations: GMRES iterations (products with a) over every column and restart.
        backward_error: the largest column's ||b - a x|| / (||a|| ||x|| + ||b||) (infinity norms) of the returned
            x; 0 when not measured (the direct path).
        tolerance: the backward error the solve was held to.
        low_info: the last low-precision factorization's info (> 0: it broke down).
        seconds: wall time of the whole solve; factor_seconds: of which the scaling, conversion, low-precision
            factorization and first solve.
        factorizations: low-precision factorizations run (more than one after a breakdown, each with a larger
            diagonal shift); shift: the diagonal shift of the last one (of the scaled matrix, whose diagonal is 1).
        reason: why the refined answer was not returned (fallback, failed), or that the plan ran the float64
            factorization (path "direct" at orders where the low precision does not pay); empty otherwise.
        low_tiles, off_diagonal_tiles: with tile_tolerance, the off-diagonal tiles the last low-precision
            factorization updated in its tensor-core arithmetic (the others in float32), of all; -1 and 0 without.
        skipped_tasks: tasks of low-precision factorizations that broke down which did not run (a factorization
            stops at its breakdown, since its factor is discarded); 0 when none broke down.
    """

    path: str
    factor: str
    iterations: int
    gmres_iterations: int
    backward_error: float
    tolerance: float
    low_info: int
    seconds: float
    factor_seconds: float
    factorizations: int = 0
    shift: float = 0.0
    reason: str = ""
    low_tiles: int = -1
    off_diagonal_tiles: int = 0
    skipped_tasks: int = 0

    @classmethod
    def from_c(cls, r):
        """From the C ABI's starfact_c_solve_report."""
        return cls(path=r.path.decode(), factor=r.factor.decode(), iterations=r.iterations,
                   gmres_iterations=r.gmres_iterations, backward_error=r.backward_error, tolerance=r.tolerance,
                   low_info=r.low_info, seconds=r.seconds, factor_seconds=r.factor_seconds,
                   factorizations=r.factorizations, shift=r.shift, reason=r.reason.decode(errors="replace"),
                   low_tiles=r.low_tiles, off_diagonal_tiles=r.off_diagonal_tiles, skipped_tasks=r.skipped_tasks)
