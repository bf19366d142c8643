"""Any Pyomo solver: SCIP (pyscipopt), HiGHS, Gurobi, CPLEX, CBC, GLPK.

A :class:`~optitrees.formulations.Formulation` is compiled with ``to_pyomo()``;
a Pyomo model (possibly one the user modified) is solved as it is. Solvers
registered in Pyomo's newer interface (``pyomo.contrib.solver``: HiGHS, SCIP,
Gurobi) are driven through it, the others through the legacy ``SolverFactory``.

Every backend gets the same neutral options in its own spelling (GLPK's time
limit in whole seconds, as glpsol takes it), reports the same statuses (its own
words are kept in ``checks["solver_status"]``), and its node count where the
solver exposes one. Gurobi runs through ``gurobi_persistent``, which takes
quadratic objectives (MIQP); Gurobi and SCIP report the incumbent / bound
trace (:mod:`~optitrees.solvers.pyomo_traces`), the others the end point. GLPK's command line takes no integrality
tolerance: its solutions are polished and checked like every other
(:mod:`optitrees.solvers.verify`).
"""

from __future__ import annotations

import atexit
import functools
import math
import shutil
import tempfile
import time
from dataclasses import dataclass, field

import numpy as np

from .options import ProgressPrinter, SolveOptions
from .plan import SolvePlan
from .pyomo_traces import solver_trace
from .results import SolverResult, TerminationCondition, classify_solution, relative_gap

__all__ = ["PyomoBackend", "PYOMO_SOLVERS"]


@dataclass(frozen=True)
class PyomoSolverSpec:
    """How to reach one solver through Pyomo.

    ``options`` maps the neutral options (``seed``, ``integrality_tol`` and,
    for legacy solvers, ``time_limit``, ``mip_gap``, ``threads``) to the
    solver's own names.
    """

    name: str
    pyomo_name: str
    contrib: bool
    install_hint: str
    supports_miqp: bool
    options: dict = field(default_factory=dict)
    warm_start: bool = True
    defaults: object = None  # callable returning solver options the user's options override
    #: The time limit in whole seconds (glpsol rejects "60.0"), rounded up so the solver never gets less time
    #: than it was given.
    whole_seconds: bool = False
    #: What the solver's own options cannot express (said in the result's message).
    caveat: str = ""


@functools.lru_cache(maxsize=None)
def _ipopt_options_file() -> str:
    """An Ipopt options file that keeps MUMPS off its METIS ordering (AMD instead).

    The METIS bundled in pyscipopt's wheels corrupts the heap on some convex
    quadratic models (SCIP's NLP heuristics call Ipopt, Ipopt calls MUMPS,
    MUMPS calls METIS); the interpreter then aborts or hangs inside ``free``
    (seen on MARGOT of depth 3, see scipopt/PySCIPOpt#1234). AMD ordering
    avoids that code path and keeps every NLP heuristic.
    """
    folder = tempfile.mkdtemp(prefix="optitrees-ipopt-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    path = f"{folder}/ipopt.opt"
    with open(path, "w") as f:
        f.write("mumps_pivot_order 0\n")
    return path


def _scip_defaults() -> dict:
    return {"nlpi/ipopt/optfile": _ipopt_options_file()}


PYOMO_SOLVERS = {
    "highs": PyomoSolverSpec("highs", "highs", True, "pip install highspy", False,
                             {"seed": "random_seed", "integrality_tol": "mip_feasibility_tolerance"},
                             warm_start=False),
    "scip": PyomoSolverSpec("scip", "scip_direct", True, "pip install 'optitrees[scip]' (pyscipopt)", True,
                            {"seed": "randomization/randomseedshift", "integrality_tol": "numerics/feastol"},
                            defaults=_scip_defaults),
    # gurobi_persistent takes quadratic objectives; contrib's gurobi_direct is linear only
    "gurobi": PyomoSolverSpec("gurobi", "gurobi_persistent", True, "pip install 'optitrees[gurobi]' (gurobipy)",
                              True, {"seed": "Seed", "integrality_tol": "IntFeasTol"}),
    "cplex": PyomoSolverSpec("cplex", "cplex_direct", False, "pip install 'optitrees[cplex]' (cplex)", True,
                             {"time_limit": "timelimit", "mip_gap": "mip_tolerances_mipgap",
                              "threads": "threads", "seed": "randomseed",
                              "integrality_tol": "mip_tolerances_integrality"}),
    # CBC's "sec" counts CPU seconds unless told otherwise: on a busy machine a 60 s limit took 85 s of wall time
    "cbc": PyomoSolverSpec("cbc", "cbc", False, "apt-get install coinor-cbc (the cbc executable)", False,
                           {"time_limit": "sec", "mip_gap": "ratio", "threads": "threads",
                            "seed": "randomCbcSeed", "integrality_tol": "integerTolerance"},
                           defaults=lambda: {"timeMode": "elapsed"}),
    "glpk": PyomoSolverSpec("glpk", "glpk", False, "apt-get install glpk-utils (the glpsol executable)", False,
                            {"time_limit": "tmlim", "mip_gap": "mipgap"}, warm_start=False, whole_seconds=True,
                            caveat="glpsol takes no integrality tolerance (GLPK uses 1e-5)"),
}


class _GurobiEnvCountFilter:
    """Drops Pyomo's "release_license() with -1 remaining environment clients" warning: Pyomo's persistent
    Gurobi interface releases its shared environment once per solver object and miscounts its clients (seen
    on every solve with a new solver object, Pyomo 6.10); the licence is released all the same."""

    @staticmethod
    def filter(record) -> bool:
        return "release_license() with" not in record.getMessage()


def _factory(spec):
    import logging

    import pyomo.environ  # noqa: F401  (registers the solver plugins)

    if spec.name == "gurobi":
        log = logging.getLogger("pyomo.contrib.solver.solvers.gurobi.gurobi_direct_base")
        if not any(isinstance(f, _GurobiEnvCountFilter) for f in log.filters):
            log.addFilter(_GurobiEnvCountFilter())
    if spec.contrib:
        from pyomo.contrib.solver.common.factory import SolverFactory

        return SolverFactory(spec.pyomo_name)
    import pyomo.environ as pyo

    return pyo.SolverFactory(spec.pyomo_name)


def _contrib_termination(tc):
    from pyomo.contrib.solver.common.results import TerminationCondition as P

    T = TerminationCondition
    return {
        P.convergenceCriteriaSatisfied: T.OPTIMAL, P.maxTimeLimit: T.TIME_LIMIT,
        P.provenInfeasible: T.INFEASIBLE, P.locallyInfeasible: T.INFEASIBLE,
        P.infeasibleOrUnbounded: T.INFEASIBLE, P.unbounded: T.UNBOUNDED,
        P.interrupted: T.INTERRUPTED, P.error: T.ERROR, P.licensingProblems: T.ERROR,
    }.get(tc, T.OTHER)


_NO_SOLUTION = (TerminationCondition.INFEASIBLE, TerminationCondition.UNBOUNDED)


def _legacy_termination(tc):
    from pyomo.opt import TerminationCondition as P

    T = TerminationCondition
    return {
        P.optimal: T.OPTIMAL, P.globallyOptimal: T.OPTIMAL, P.maxTimeLimit: T.TIME_LIMIT,
        P.infeasible: T.INFEASIBLE, P.infeasibleOrUnbounded: T.INFEASIBLE, P.unbounded: T.UNBOUNDED,
        P.userInterrupt: T.INTERRUPTED, P.error: T.ERROR, P.solverFailure: T.ERROR,
        P.licensingProblems: T.ERROR,
    }.get(tc, T.OTHER)


def _node_count(opt, results=None):
    """Nodes from the solver object underneath (or a legacy solver's results), when the backend exposes them."""
    model = getattr(opt, "_solver_model", None)
    try:
        if hasattr(model, "getNNodes"):  # pyscipopt
            return int(model.getNNodes())
        if hasattr(model, "getInfo"):  # highspy
            return int(model.getInfo().mip_node_count)
        if hasattr(model, "NodeCount"):  # gurobipy
            return int(model.NodeCount)
        if hasattr(model, "solution") and hasattr(model.solution, "progress"):  # cplex
            return int(model.solution.progress.get_num_nodes_processed())
    except Exception:   # a model whose solve failed has no statistics
        return None
    if results is not None:     # CBC's log, through the legacy results
        try:
            nodes = results.solver.statistics.branch_and_bound.number_of_bounded_subproblems
            return None if nodes is None else int(nodes)
        except (AttributeError, TypeError, ValueError):
            return None
    return None


def _solver_has_primal(results) -> bool:
    """Whether a legacy result's solution carries a value for every variable it names."""
    solution = results.solution(0)
    values = [v.get("Value") for v in solution.variable.values()]
    return bool(values) and all(v is not None for v in values)


def _legacy_solution(model, results) -> tuple[bool, float | None]:
    """Load a legacy solver's solution into ``model``: ``(has_solution, objective)``.

    CPLEX hands back a "solution" with no values for an infeasible model and a results object with an error
    status for a node limit; neither is a solution.
    """
    import pyomo.environ as pyo

    from pyomo.opt import SolverStatus

    if len(results.solution) == 0:
        return False, None
    if results.solver.status in (SolverStatus.error, SolverStatus.aborted) and _solver_has_primal(results):
        # CPLEX stopped by a node limit with a solution: Pyomo maps it to an error and refuses to load it
        results.solver.status = SolverStatus.warning
    try:
        model.solutions.load_from(results)
        value = pyo.value(next(model.component_data_objects(pyo.Objective, active=True)), exception=False)
    except (ValueError, RuntimeError):
        return False, None
    if value is None or not math.isfinite(float(value)):
        return False, None
    return True, float(value)


class PyomoBackend:
    """Solve through Pyomo with the solver described by ``spec``."""

    def __init__(self, spec: PyomoSolverSpec):
        self.spec = spec
        self.name = spec.name
        self.supports_mip = True
        self.supports_miqp = spec.supports_miqp
        self.supports_warm_start = spec.warm_start
        #: Whether the library's own searches over LPs (a risk score's cutting planes) run on this backend.
        self.hosts_lp_search = False
        self.install_hint = spec.install_hint

    def available(self) -> tuple[bool, str]:
        try:
            opt = _factory(self.spec)
            ok = bool(opt.available()) if self.spec.contrib else bool(opt.available(exception_flag=False))
        except Exception as exc:  # a broken install is "unavailable", with the reason
            return False, f"{type(exc).__name__}: {exc}"
        return ok, "" if ok else f"not installed: {self.spec.install_hint}"

    @staticmethod
    def plan(n_rows: int, n_cols: int, nnz: int | None = None, seconds: float | None = None) -> SolvePlan:
        """Every model is started (no estimate of these solvers' root times is known), with no added options."""
        return SolvePlan()

    def version(self, opt=None) -> str:
        try:
            v = (opt or _factory(self.spec)).version()
        except Exception:
            return ""
        return ".".join(str(p) for p in v) if isinstance(v, tuple) else str(v or "")

    def _failed(self, exc, opt, t0, t1, build_time) -> SolverResult:
        """The result of a solver that raised: status ``error``, its first line as the message."""
        first = (str(exc).strip().splitlines() or [""])[0]
        t2 = time.perf_counter()
        return SolverResult(
            solver=self.name, solver_version=self.version(opt), termination=TerminationCondition.ERROR,
            timings={"build": build_time, "handoff": t1 - t0, "solve": t2 - t1},
            message=f"error; {self.name} failed: {type(exc).__name__}: {first}",
            checks={"solver_status": type(exc).__name__})

    def solve(self, model, options: SolveOptions, start=None, build_time: float = 0.0) -> SolverResult:
        """Solve a Formulation or a Pyomo model.

        ``start`` is a column vector (for models built from a Formulation) or
        ``True`` to use the variables' current values as the warm start.
        """
        from ..mip import Formulation

        t0 = time.perf_counter()
        if isinstance(model, Formulation):
            build_time = model.build_time
            m = model.to_pyomo()
        else:
            m = model
        columns = getattr(m, "_optitrees_columns", None)
        if start is not None and start is not False:
            if start is not True:
                if columns is None:
                    raise ValueError("a start vector needs a model built by Formulation.to_pyomo(); "
                                     "set variable values and pass warm_start=True instead")
                for v, val in zip(columns, np.asarray(start, float)):
                    v.set_value(float(val), skip_validation=True)
        warm = start is not None and start is not False and self.spec.warm_start
        opt = _factory(self.spec)
        remaining = options.remaining()
        t1 = time.perf_counter()
        trace = solver_trace(self.name, opt, t1)
        with ProgressPrinter(self.name, options):
            if self.spec.contrib:
                neutral = {"seed": int(options.seed), "integrality_tol": options.integrality_tol}
                raw = dict(self.spec.defaults()) if self.spec.defaults else {}
                raw.update({self.spec.options[k]: v for k, v in neutral.items()
                            if v is not None and k in self.spec.options})
                raw.update(options.solver_options)
                kwargs = dict(tee=bool(options.verbose), load_solutions=False,
                              raise_exception_on_nonoptimal_result=False, solver_options=raw)
                if remaining is not None:
                    kwargs["time_limit"] = float(remaining)
                if options.mip_gap is not None:
                    kwargs["rel_gap"] = float(options.mip_gap)
                if options.threads is not None:
                    kwargs["threads"] = int(options.threads)
                if warm:
                    kwargs["warmstart_discrete_vars"] = True
                try:
                    res = opt.solve(m, **kwargs)
                except Exception as exc:  # a licence, a size limit, a crashed executable: a result, not a crash
                    return self._failed(exc, opt, t0, t1, build_time)
                t2 = time.perf_counter()
                termination = _contrib_termination(res.termination_condition)
                solver_status = str(getattr(res.termination_condition, "name", res.termination_condition))
                sol = str(getattr(res.solution_status, "name", res.solution_status))
                has = sol in ("feasible", "optimal")
                if has:
                    res.solution_loader.load_vars()
                objective = res.incumbent_objective if has else None
                bound = res.objective_bound
            else:
                if remaining is not None and self.spec.whole_seconds:
                    remaining = max(1, math.ceil(remaining))
                neutral = {"time_limit": remaining, "mip_gap": options.mip_gap,
                           "threads": options.threads, "seed": options.seed,
                           "integrality_tol": options.integrality_tol}
                raw = dict(self.spec.defaults()) if self.spec.defaults else {}
                raw.update({self.spec.options[k]: v for k, v in neutral.items()
                            if v is not None and k in self.spec.options})
                raw.update(options.solver_options)
                kwargs = dict(tee=bool(options.verbose), load_solutions=False, options=raw)
                if warm:
                    kwargs["warmstart"] = True
                try:
                    res = opt.solve(m, **kwargs)
                except Exception as exc:
                    return self._failed(exc, opt, t0, t1, build_time)
                t2 = time.perf_counter()
                termination = _legacy_termination(res.solver.termination_condition)
                solver_status = str(res.solver.termination_condition)
                has, objective = (False, None) if termination in _NO_SOLUTION else _legacy_solution(m, res)
                if has and termination == TerminationCondition.ERROR:
                    termination = TerminationCondition.OTHER    # a limit Pyomo calls an error (CPLEX's node limit)
                lb = res.problem.lower_bound
                bound = float(lb) if lb is not None and np.isfinite(float(lb)) else None
        if objective is not None:
            objective = float(objective)
        if bound is not None:
            bound = float(bound) if np.isfinite(float(bound)) else None
        x = None
        if has and columns is not None:
            x = np.array([np.nan if v.value is None else float(v.value) for v in columns])
        solution, source = classify_solution(has, termination, x, start)
        notes = [termination.value]
        if start is not None and start is not False and not warm:
            notes.append(f"{self.name} through Pyomo takes no warm start: the start was not handed over")
        if self.spec.caveat:
            notes.append(self.spec.caveat)
        return SolverResult(
            solver=self.name, solver_version=self.version(opt), termination=termination,
            solution_status=solution, objective=objective, bound=bound, gap=relative_gap(objective, bound),
            node_count=_node_count(opt, None if self.spec.contrib else res),
            timings={"build": build_time, "handoff": t1 - t0, "solve": t2 - t1},
            solution_source=source, x=x, message="; ".join(notes),
            trace=trace + [(t2 - t1, objective, bound)], checks={"solver_status": solver_status},
        )
