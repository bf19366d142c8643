"""Backend-neutral solve options; raw solver options come last and win."""

from __future__ import annotations

import math
import sys
import threading
import time
from dataclasses import dataclass, field
from ..budget import remaining

__all__ = ["SolveOptions", "ProgressPrinter", "DEFAULT_MIP_GAP"]

#: The relative optimality gap every backend stops at unless told otherwise (HiGHS's, Gurobi's and CPLEX's own
#: default; SCIP, CBC and GLPK default to 0), so that the same call means the same thing on every backend.
DEFAULT_MIP_GAP = 1e-4


@dataclass
class SolveOptions:
    """Options every backend understands.

    Parameters
    ----------
    time_limit : float, optional
        Wall-clock limit in seconds (``None``: no limit).
    mip_gap : float, optional
        Relative optimality gap at which to stop (``None``: :data:`DEFAULT_MIP_GAP`,
        1e-4, on every backend). A backend's "optimal" is passed on only when its
        bound is within this gap (:mod:`optitrees.solvers.verify`).
    threads : int, optional
    seed : int, default=0
        Random seed handed to the solver, for reproducible runs.
    integrality_tol : float, optional
        Integrality tolerance to impose on the solver. ``solve`` sets it from
        the formulation (``Formulation.integrality_tol``): big-M and ``eps`` are
        sized for it, and a solver with a looser default (CPLEX and Gurobi use
        1e-5) could otherwise close the forwarding gap.
    verbose : bool, default=False
        Stream the solver's own log.
    progress : bool, default=True
        Without ``verbose``, print one concise progress line to stderr every
        ``progress_interval`` seconds once a solve has run that long.
    progress_interval : float, default=10.0
    solver_options : dict
        Raw options passed to the solver last, so they override the above.
    deadline : float, optional
        Absolute ``time.perf_counter()`` by which the solve must end (the
        estimators' whole-fit budget); backends give the solver
        ``min(time_limit, deadline - now)`` right before it starts.
    """

    time_limit: float | None = None
    mip_gap: float | None = None
    threads: int | None = None
    seed: int = 0
    integrality_tol: float | None = None
    verbose: bool = False
    progress: bool = True
    progress_interval: float = 10.0
    solver_options: dict = field(default_factory=dict)
    deadline: float | None = None

    def remaining(self) -> float | None:
        """Seconds the solver may run from now: the time limit, cut by the deadline (``None``: no limit)."""
        limits = [] if self.time_limit is None else [float(self.time_limit)]
        if self.deadline is not None:
            limits.append(remaining(self.deadline))
        return min(limits) if limits else None

    def __post_init__(self):
        if self.time_limit is not None and not (self.time_limit >= 0 and math.isfinite(self.time_limit)):
            raise ValueError(f"time_limit must be a non-negative number, got {self.time_limit!r}")
        if self.mip_gap is None:
            self.mip_gap = DEFAULT_MIP_GAP
        if not 0 <= self.mip_gap < 1:
            raise ValueError(f"mip_gap must be in [0, 1), got {self.mip_gap!r}")
        if self.threads is not None and (int(self.threads) != self.threads or self.threads < 1):
            raise ValueError(f"threads must be a positive integer, got {self.threads!r}")
        if self.integrality_tol is not None and not 0 < self.integrality_tol < 0.5:
            raise ValueError(f"integrality_tol must be in (0, 0.5), got {self.integrality_tol!r}")
        if int(self.seed) != self.seed or self.seed < 0:
            raise ValueError(f"seed must be a non-negative integer, got {self.seed!r}")
        self.solver_options = dict(self.solver_options or {})


class ProgressPrinter:
    """Concise progress lines for long solves, and the incumbent / bound trace of the solve.

    Used as a context manager around a solve. ``update(**info)`` records the
    latest incumbent / bound / nodes (HiGHS's callbacks feed it) and appends
    ``(seconds, incumbent, bound)`` to :attr:`trace` when either changed; a
    background timer prints ``optitrees[solver] 20s: incumbent ..., bound ...,
    gap ...`` every ``interval`` seconds, so a long solve is never silent and
    a short one prints nothing.
    """

    #: The printers in progress, innermost last: only the innermost prints (a solve inside a fit speaks for it).
    _stack: list = []
    _stack_lock = threading.Lock()

    def __init__(self, solver: str, options: SolveOptions, stream=None):
        self.solver = solver
        self.enabled = options.progress and not options.verbose
        self.interval = options.progress_interval
        self.stream = stream or sys.stderr
        self.info: dict = {}
        self.trace: list[tuple[float, float | None, float | None]] = []
        self._stop = threading.Event()
        self._thread = None
        self._t0 = time.perf_counter()

    def update(self, **info):
        self.info.update(info)
        point = (_finite(self.info.get("incumbent")), _finite(self.info.get("bound")))
        if not self.trace or self.trace[-1][1:] != point:
            self.trace.append((time.perf_counter() - self._t0, *point))

    def line(self) -> str:
        el = time.perf_counter() - self._t0
        parts = [f"optitrees[{self.solver}] {el:.0f}s"]
        i = self.info
        if i.get("incumbent") is not None and math.isfinite(i["incumbent"]):
            parts.append(f"incumbent {i['incumbent']:.6g}")
        if i.get("bound") is not None and math.isfinite(i["bound"]):
            parts.append(f"bound {i['bound']:.6g}")
        if i.get("gap") is not None and math.isfinite(i["gap"]):
            parts.append(f"gap {100 * i['gap']:.2f}%")
        if i.get("nodes") is not None:
            parts.append(f"nodes {int(i['nodes'])}")
        if len(parts) == 1:
            parts.append("solving (verbose=True shows the solver log)")
        return ", ".join(parts)

    def _run(self):
        while not self._stop.wait(self.interval):
            with ProgressPrinter._stack_lock:
                innermost = bool(ProgressPrinter._stack) and ProgressPrinter._stack[-1] is self
            if innermost:
                print(self.line(), file=self.stream, flush=True)

    def __enter__(self):
        self._t0 = time.perf_counter()
        with ProgressPrinter._stack_lock:
            ProgressPrinter._stack.append(self)
        if self.enabled and self.interval > 0:
            self._thread = threading.Thread(target=self._run, daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        with ProgressPrinter._stack_lock:
            if self in ProgressPrinter._stack:
                ProgressPrinter._stack.remove(self)
        if self._thread is not None:
            self._thread.join()
        return False


def _finite(v):
    return float(v) if v is not None and math.isfinite(v) else None
