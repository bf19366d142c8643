"""Any Pyomo solver: SCIP (pyscipopt), HiGHS, Gurobi, CPLEX, CBC, GLPK.

A :class:`~optitrees.formulations.Formulation` is compiled with ``to_pyomo()``;
a Pyomo model (possibly one the user modified) is solved as it is. Solvers
registered in Pyomo's newer interface (``pyomo.contrib.solver``: HiGHS, SCIP,
Gurobi) are driven through it, the others through the legacy ``SolverFactory``.
"""

from __future__ import annotations

import atexit
import functools
import shutil
import tempfile
import time
from dataclasses import dataclass, field

import numpy as np

from .options import ProgressPrinter, SolveOptions
from .plan import SolvePlan
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
    "gurobi": PyomoSolverSpec("gurobi", "gurobi_direct", True, "pip install 'optitrees[gurobi]' (gurobipy)",
                              True, {"seed": "Seed", "integrality_tol": "IntFeasTol"}),
    "cplex": PyomoSolverSpec("cplex", "cplex_direct", False, "pip install 'optitrees[cplex]' (cplex)", True,
                             {"time_limit": "timelimit", "mip_gap": "mip_tolerances_mipgap",
                              "threads": "threads", "seed": "randomseed",
                              "integrality_tol": "mip_tolerances_integrality"}),
    "cbc": PyomoSolverSpec("cbc", "cbc", False, "apt-get install coinor-cbc (the cbc executable)", False,
                           {"time_limit": "sec", "mip_gap": "ratio", "threads": "threads",
                            "seed": "randomCbcSeed", "integrality_tol": "integerTolerance"}),
    "glpk": PyomoSolverSpec("glpk", "glpk", False, "apt-get install glpk-utils (the glpsol executable)", False,
                            {"time_limit": "tmlim", "mip_gap": "mipgap"}, warm_start=False),
}


def _factory(spec):
    import pyomo.environ  # noqa: F401  (registers the solver plugins)

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


def _legacy_termination(tc):
    from pyomo.opt import TerminationCondition as P

    T = TerminationCondition
    return {
        P.optimal: T.OPTIMAL, P.globallyOptimal: T.OPTIMAL, P.maxTimeLimit: T.TIME_LIMIT,
        P.infeasible: T.INFEASIBLE, P.infeasibleOrUnbounded: T.INFEASIBLE, P.unbounded: T.UNBOUNDED,
        P.userInterrupt: T.INTERRUPTED, P.error: T.ERROR, P.solverFailure: T.ERROR,
        P.licensingProblems: T.ERROR,
    }.get(tc, T.OTHER)


def _node_count(opt):
    """Nodes from the solver object underneath, when the backend exposes it."""
    model = getattr(opt, "_solver_model", None)
    for getter in ("getNNodes",):  # pyscipopt
        if hasattr(model, getter):
            return int(getattr(model, getter)())
    if hasattr(model, "getInfo"):  # highspy
        return int(model.getInfo().mip_node_count)
    if hasattr(model, "NodeCount"):  # gurobipy
        return int(model.NodeCount)
    return None


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
                res = opt.solve(m, **kwargs)
                t2 = time.perf_counter()
                termination = _contrib_termination(res.termination_condition)
                sol = str(getattr(res.solution_status, "name", res.solution_status))
                has = sol in ("feasible", "optimal")
                if has:
                    res.solution_loader.load_vars()
                objective = res.incumbent_objective if has else None
                bound = res.objective_bound
            else:
                neutral = {"time_limit": remaining, "mip_gap": options.mip_gap,
                           "threads": options.threads, "seed": options.seed,
                           "integrality_tol": options.integrality_tol}
                raw = {self.spec.options[k]: v for k, v in neutral.items()
                       if v is not None and k in self.spec.options}
                raw.update(options.solver_options)
                kwargs = dict(tee=bool(options.verbose), load_solutions=False, options=raw)
                if warm:
                    kwargs["warmstart"] = True
                res = opt.solve(m, **kwargs)
                t2 = time.perf_counter()
                termination = _legacy_termination(res.solver.termination_condition)
                has = len(res.solution) > 0
                if has:
                    m.solutions.load_from(res)
                import pyomo.environ as pyo

                objective = float(pyo.value(next(m.component_data_objects(pyo.Objective, active=True)))) if has else None
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
        return SolverResult(
            solver=self.name, solver_version=self.version(opt), termination=termination,
            solution_status=solution, objective=objective, bound=bound, gap=relative_gap(objective, bound),
            node_count=_node_count(opt),
            timings={"build": build_time, "handoff": t1 - t0, "solve": t2 - t1},
            solution_source=source, x=x, message=str(termination.value),
            trace=[(t2 - t1, objective, bound)],
        )
