"""Direct HiGHS backend: the whole model in one ``passModel`` call (the default)."""

from __future__ import annotations

import time
import types

import numpy as np

from ..mip import new_highs
from .highs_run import GRACE, watched_run, when_idle
from .options import ProgressPrinter, SolveOptions
from .plan import SolvePlan
from .results import SolutionStatus, SolverResult, TerminationCondition, classify_solution, relative_gap

__all__ = ["HighsBackend", "configured_highs", "UNTIMED_STEPS_OFF", "BIG_MODEL_NONZEROS", "BIG_MODEL_ROWS",
           "root_lp_seconds", "root_lp_out_of_reach"]

#: HiGHS options that turn off the steps of its MIP solver that check no time limit and, on big models, run on
#: long after it, in a thread a fit has to leave running at its deadline: the MIP presolve; feasibility jump;
#: symmetry detection; and the LP presolve of its heuristics' sub-problems (``mip_root_presolve_only``: the root's
#: randomized rounding, which HiGHS runs after the root LP whatever time is left, then starts its LP from the
#: root basis). Seconds HiGHS ran on after a fit of adult's 30,000 rows, depth 2, 10 s, with the estimator's
#: own HiGHS options / with these too: OLCT 47.8 / 3.1 (feasibility jump), MARGOT 15.0 / 5.0, OCT-H 12.9 / 0.0.
#: What is left is the randomized rounding itself (its propagation, and loading and factoring its LP).
UNTIMED_STEPS_OFF = types.MappingProxyType({"presolve": "off", "mip_heuristic_run_feasibility_jump": False,
                                           "mip_detect_symmetry": False, "mip_root_presolve_only": True})

#: Nonzeros above which HiGHS runs a model with :data:`UNTIMED_STEPS_OFF` (:meth:`HighsBackend.plan`): every
#: loss-optimal model of 4,000 rows and more (1.0-1.9M at depth 2); the models of seed 002's Table 3.3 (at most
#: 216,440) keep HiGHS's heuristics.
BIG_MODEL_NONZEROS = 300_000

#: Model rows above which HiGHS runs a model with :data:`UNTIMED_STEPS_OFF` whatever its nonzeros: on cpu_act's
#: 4,608 training rows, the oblique regression tree at depth 3 (135,322 rows) kept HiGHS's presolve running over
#: 190 s past a 10 s limit; on adult's 30,000 rows at depth 2 (300,315 rows, 10M nonzeros) with a 3 s limit over
#: 300 s, and without it HiGHS ended after 36 s (18 s in feasibility jump, 4 s in symmetry detection), with neither
#: after 23 s.
BIG_MODEL_ROWS = 20_000

#: Seconds per unit of ``columns x (rows + columns)`` that :func:`root_lp_seconds` assumes. HiGHS's dual simplex
#: solved the LP relaxations of the tree models (presolve off, one thread, from the slack basis) in about one
#: iteration per column (0.8-1.4), each costing time in proportion to rows + columns: 5.6e-9 to 9.6e-9 s per unit
#: on the machine the benchmarks ran on (OLCT depth 2 on adult 500-2,000 rows, a2a, spambase and phishing 2,000-4,000;
#: MARGOT and OCT-H on adult 1,000-2,000: 0.7-25.6 s). The lowest of them. Half of it let HiGHS start on OLCT depth 2
#: over 4,000 rows of phishing in a 60 s fit (21,293 columns x 181,016: 10.8 s estimated, within half of the solve's
#: 35.6 s), whose root LP did not finish in those 35.6 s: 560 MiB of HiGHS's memory and the starts' time, for nothing.
ROOT_LP_SECONDS_PER_UNIT = 5.6e-9


def root_lp_seconds(n_rows: int, n_cols: int) -> float:
    """A low estimate of the seconds HiGHS's dual simplex needs to solve the root LP of a model with ``n_rows``
    rows and ``n_cols`` columns: :data:`ROOT_LP_SECONDS_PER_UNIT` x columns x (rows + columns).

    >>> round(root_lp_seconds(216_261, 28_932), 1)     # OLCT depth 2 on 4,000 rows of adult: 50 s measured
    39.7
    """
    return ROOT_LP_SECONDS_PER_UNIT * float(n_cols) * (float(n_rows) + float(n_cols))


def root_lp_out_of_reach(n_rows: int, n_cols: int, seconds: float) -> str | None:
    """Why HiGHS is not to be started on a model of this size when its solve gets ``seconds``: its root LP would
    take more than half of them (:func:`root_lp_seconds`, a low estimate), leaving no time to search; ``None``
    when it may start. Started, HiGHS holds its working memory (1 GB for OLCT depth 2 on 4,000 rows of adult)
    and, at a deadline its root cannot reach, runs on after the fit in the thread left behind.

    >>> root_lp_out_of_reach(216_261, 28_932, 120.0) is None
    True
    >>> for part in root_lp_out_of_reach(216_261, 28_932, 60.0).split(" (estimated), "):
    ...     print(part)
    HiGHS's root LP of 216,261 rows x 28,932 columns needs 39.7 s or more
    over half the 60 s the solve would get
    """
    needed = root_lp_seconds(n_rows, n_cols)
    if needed <= 0.5 * seconds:
        return None
    return (f"HiGHS's root LP of {n_rows:,} rows x {n_cols:,} columns needs {needed:.3g} s or more (estimated), "
            f"over half the {max(seconds, 0.0):.3g} s the solve would get")


def configured_highs(options: SolveOptions):
    """A ``highspy.Highs`` with every option a solve of ``options`` sets: the one place they are set.

    Output (``verbose``), ``mip_rel_gap``, ``random_seed``, ``threads``, the
    integrality tolerance and the raw ``solver_options`` (last, so they win).
    HiGHS sizes one process-wide task scheduler at its first run, and a later
    run whose ``threads`` differs fails before solving (status ``kNotset``:
    a risk score fitted with ``threads=1`` after any default fit got no LP
    solved). So an explicit ``threads`` re-creates the scheduler when no HiGHS
    run of this process is in progress, and is otherwise left to the scheduler
    as it is.
    """
    import highspy

    h = new_highs(options.verbose)
    if options.mip_gap is not None:
        h.setOptionValue("mip_rel_gap", float(options.mip_gap))
    if options.threads is not None:
        if when_idle(lambda: highspy.Highs.resetThreadScheduler(False)):
            h.setOptionValue("threads", int(options.threads))
    h.setOptionValue("random_seed", int(options.seed))
    if options.integrality_tol is not None:
        h.setOptionValue("mip_feasibility_tolerance", float(options.integrality_tol))
    for key, value in options.solver_options.items():
        if h.setOptionValue(key, value) == highspy.HighsStatus.kError:
            raise ValueError(f"HiGHS rejected option {key}={value!r}")
    return h


def _status_map():
    import highspy

    S = highspy.HighsModelStatus
    T = TerminationCondition
    return {
        S.kOptimal: T.OPTIMAL, S.kTimeLimit: T.TIME_LIMIT, S.kInfeasible: T.INFEASIBLE,
        S.kUnbounded: T.UNBOUNDED, S.kUnboundedOrInfeasible: T.INFEASIBLE,
        S.kInterrupt: T.INTERRUPTED, S.kHighsInterrupt: T.INTERRUPTED,
        S.kIterationLimit: T.OTHER, S.kSolutionLimit: T.OTHER, S.kObjectiveBound: T.OTHER,
        S.kObjectiveTarget: T.OTHER, S.kMemoryLimit: T.ERROR, S.kSolveError: T.ERROR,
        S.kModelError: T.ERROR, S.kLoadError: T.ERROR, S.kPresolveError: T.ERROR,
        S.kPostsolveError: T.ERROR, S.kModelEmpty: T.OPTIMAL, S.kNotset: T.ERROR, S.kUnknown: T.OTHER,
    }


class HighsBackend:
    """Solve a :class:`~optitrees.formulations.Formulation` with highspy directly.

    Capabilities: MIP yes, quadratic objective with integers no (HiGHS solves
    continuous QPs only), warm start yes (``setSolution``).
    """

    name = "highs"
    supports_mip = True
    supports_miqp = False
    supports_warm_start = True
    #: Whether the library's own searches over LPs (a risk score's cutting planes) run on this backend.
    hosts_lp_search = True
    install_hint = "pip install highspy"

    @staticmethod
    def available() -> tuple[bool, str]:
        try:
            import highspy  # noqa: F401  (availability probe)
        except ImportError as exc:  # pragma: no cover - highspy is a core dependency
            return False, f"highspy cannot be imported ({exc})"
        return True, ""

    @staticmethod
    def plan(n_rows: int, n_cols: int, nnz: int | None = None, seconds: float | None = None) -> SolvePlan:
        """What HiGHS does with a model of ``n_rows`` x ``n_cols`` (``nnz`` nonzeros, ``None``: not counted) when its
        solve gets ``seconds`` (``None``: no limit): it is not started when its root LP would take more than half of
        them (:func:`root_lp_out_of_reach`), and a big model (:data:`BIG_MODEL_NONZEROS`, :data:`BIG_MODEL_ROWS`)
        runs with :data:`UNTIMED_STEPS_OFF`.

        >>> HighsBackend.plan(216_261, 28_932, 1_500_000, 60.0).reachable
        False
        >>> sorted(HighsBackend.plan(2_000, 500, 20_000, 60.0).options)
        []
        >>> HighsBackend.plan(2_000, 500, 400_000, None).options["presolve"]
        'off'
        """
        why = None if seconds is None else root_lp_out_of_reach(n_rows, n_cols, seconds)
        big = n_rows > BIG_MODEL_ROWS or (nnz is not None and nnz > BIG_MODEL_NONZEROS)
        return SolvePlan(reachable=why is None, why=why, options=UNTIMED_STEPS_OFF if big else SolvePlan().options)

    @staticmethod
    def version() -> str:
        h = new_highs()
        return f"{h.versionMajor()}.{h.versionMinor()}.{h.versionPatch()}"

    def solve(self, formulation, options: SolveOptions, start=None) -> SolverResult:
        t0 = time.perf_counter()
        h = configured_highs(options)
        formulation.to_highs(names=False, start=start, highs=h)
        remaining = options.remaining()
        if remaining is not None and "time_limit" not in options.solver_options:
            h.setOptionValue("time_limit", float(remaining))
        limit = _option(h, "time_limit")
        t1 = time.perf_counter()

        mip = bool(formulation.integrality.any())
        setup = formulation.build_time + (t1 - t0)
        if mip and remaining is not None and remaining < setup:
            return self._not_started(formulation, start, remaining, setup,
                                     {"build": formulation.build_time, "handoff": t1 - t0, "solve": 0.0})
        progress = ProgressPrinter(self.name, options)
        with progress:           # entered first: HiGHS's callbacks write the trace relative to its start
            run = watched_run(h, mip, progress, nonzeros=formulation.matrix.nnz,
                              deadline=bool(np.isfinite(limit)))
            finished = run.wait(limit + GRACE if np.isfinite(limit) else None)
        t2 = time.perf_counter()
        timings = {"build": formulation.build_time, "handoff": t1 - t0, "solve": t2 - t1}
        if not finished:
            return self._abandoned(formulation, run, start, timings, progress)

        done = run.outcome()
        termination = _status_map().get(done.model_status, TerminationCondition.OTHER)
        x = done.x
        if x is not None and x.shape != (formulation.n_cols,):
            x = None
        objective = done.objective if x is not None else None
        if mip:
            bound = done.mip_dual_bound if np.isfinite(done.mip_dual_bound) else None
        else:
            bound = objective if termination == TerminationCondition.OPTIMAL else None
        solution, source = classify_solution(x is not None, termination, x, start)
        return SolverResult(
            solver=self.name, solver_version=self.version(), termination=termination,
            solution_status=solution, objective=objective, bound=bound,
            gap=relative_gap(objective, bound) if mip else (0.0 if solution == SolutionStatus.OPTIMAL else None),
            node_count=done.mip_node_count if mip else 0,
            timings=timings, solution_source=source, x=x, message=termination.value,
            checks={"solver_status": done.status_text},
            trace=progress.trace + ([(t2 - t1, objective, bound)] if mip else []),
            pool=run.earlier(x),
        )

    def _not_started(self, formulation, start, remaining, setup, timings) -> SolverResult:
        """The MIP is not run when less time is left than building and handing it over took: HiGHS's own set-up
        (its MIP data, symmetry detection, feasibility jump, the root LP's start) checks no time limit and
        takes longer still (adult at 30,000 rows, depth 3: 3-4 s past a deadline it was started at), so the
        run would only outlive the fit. The start, when there is one, is returned as the incumbent, as HiGHS
        returns it when its time limit ends the search before anything better is found."""
        x = np.array(start, dtype=float) if isinstance(start, np.ndarray) else None
        solution, source = classify_solution(x is not None, TerminationCondition.TIME_LIMIT, x, start)
        return SolverResult(
            solver=self.name, solver_version=self.version(), termination=TerminationCondition.TIME_LIMIT,
            solution_status=solution, objective=None if x is None else float(formulation.objective_value(x)),
            node_count=0, timings=timings, solution_source=source, x=x, checks={"not_started": True},
            message=f"not started: {remaining:.3g} s were left, less than the {setup:.3g} s the model took to "
                    "build and hand over")

    def _abandoned(self, formulation, run, start, timings, progress) -> SolverResult:
        """The result of a solve HiGHS did not end by its time limit: the last incumbent and bound its
        callbacks reported. (Some root steps of HiGHS's MIP solver -- its cut separators on big-M rows, for
        one -- check no limit; the run is killed with its process, or, run in a thread, told to stop at its next
        check: :mod:`~optitrees.solvers.highs_run`.)"""
        x = run.incumbent
        if x is not None and x.shape != (formulation.n_cols,):
            x = None
        objective = float(formulation.objective_value(x)) if x is not None else None
        bound = run.bound
        solution, source = classify_solution(x is not None, TerminationCondition.TIME_LIMIT, x, start)
        return SolverResult(
            solver=self.name, solver_version=self.version(), termination=TerminationCondition.TIME_LIMIT,
            solution_status=solution, objective=objective, bound=bound, gap=relative_gap(objective, bound),
            node_count=run.nodes, timings=timings, solution_source=source, x=x, pool=run.earlier(x),
            message="HiGHS ran past its time limit in a step that does not check it; it was stopped at the "
                    "deadline and its last reported incumbent is used",
            trace=progress.trace + [(timings["solve"], objective, bound)],
        )


def _option(h, name):
    """An option's value (``getOptionValue`` returns ``(status, value)`` in some highspy versions)."""
    value = h.getOptionValue(name)
    return value[1] if isinstance(value, tuple) else value
