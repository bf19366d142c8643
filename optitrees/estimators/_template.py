"""The one fit template of every MIP estimator.

``fit`` runs, for every model family, the same steps within one time budget
(``time_limit`` covers all of them):

1. *validate*: the parameters (declared once per estimator in
   ``_parameter_constraints``, the model's own rules in its family's
   ``Spec.create``) and the data, before anything is built;
2. *warm start*: the greedy start and, as ``warm_start`` asks, TAO and TMO
   starts (within their share of the budget), the best by the exact
   objective kept and handed to the solver;
3. *build*: the family's formulation, then the user's ``constraints`` hook
   and ``forbidden_features``; a build the budget cannot finish is left
   (:func:`~optitrees.algorithms.budget.call_until`) and the best start is
   returned with status ``time_limit_no_solution``. With HiGHS, a time limit
   and no ``constraints`` the model is built before the starts: when HiGHS
   could not solve its root LP in half the time the solve would get, it is
   not solved and the starts get the whole budget (:mod:`._mip_reach`; a
   family that counts its model's size builds nothing then);
4. *solve*: until the budget, less a reserve for what follows;
5. *decode and check agreement*: the solver's model, its routing / rules
   against the solution, its recomputed objective;
6. *refine*: the family's local improvement of the solver's model on the
   exact objective (TAO for trees, the exact intercept for score cards);
7. *report*: every candidate (start, solver, refined) is finalized (user's
   units, short numbers that change no training prediction) and scored by the
   exact training objective; the best is returned, ``solver_result_`` says
   which (``returned``, ``objectives``) beside the solve's own status,
   ``method_`` names the method that produced it (``greedy``, ``tao``, ``tmo``,
   ``mip`` or ``mip+tao``), and each kind of event has its warning class
   (:mod:`optitrees.exceptions`).

An estimator provides its family (:class:`~optitrees.formulations.MIPFamily`),
its scaling, ``_make_spec`` / ``_make_problem``, ``_starts(problem, deadline,
methods)`` (the greedy start and those of ``methods``), and optionally
``_presolve`` (settle the problem before the build), ``_exact_search``,
``_refine`` and ``_solve``.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import clone
from sklearn.utils._param_validation import Interval, StrOptions

from .. import solvers as _solvers
from ..algorithms.budget import call_until
from ..exceptions import WarmStartWarning, warn
from ..mip import BuildInterrupted, build_deadline
from ..scaling import ScaledData
from ..solvers import SolveOptions, SolverResult
from ..solvers.highs import BIG_MODEL_NONZEROS, UNTIMED_STEPS_OFF
from ..solvers.results import SolveStatus, TerminationCondition
from ..solvers.registry import get_backend
from ._base import CLASS_WEIGHT_CONSTRAINT, OptitreesClassifier
from ._earlier_incumbents import best_earlier_incumbent, polisher
from ._fit_notes import agreement_notes, status_notes
from ._input import resolve_features
from ._mip_reach import build_first, reach_matters
from ._report import ExactSearch, FitLog, FitOutcome, FitReport

__all__ = ["MIPClassifier"]

class MIPClassifier(OptitreesClassifier):
    """Base of the MIP estimators: parameters shared by all, and the fit template (see the module docstring).

    A family plugs in by setting ``_family`` and ``_scaling`` and defining
    :meth:`_make_spec`, :meth:`_make_problem` and :meth:`_starts` (the others
    have defaults).
    """

    #: The model family (build / start / decode / finalize / objective).
    _family = None
    #: ``"standard"``, ``"unit"`` or ``None``: the scaling the family is formulated on.
    _scaling = None
    _binary = True
    #: Share of the budget the warm starts may use (TMO: ``_tmo_share``), and the share kept after the solve.
    _start_share = 0.25
    _tmo_share = 0.4
    _reserve = 0.05
    #: Share of the budget kept after the starts when no MIP follows them.
    _reserve_after_starts = 0.1
    #: What ``warm_start=True`` means for the family.
    _default_start = "greedy"
    #: Name of :meth:`_presolve`'s stage in ``fit_report_.stages``.
    _presolve_stage = "presolve"
    #: HiGHS options the family solves with unless ``solver_options`` says otherwise (measured by
    #: ``bench/solver_settings.py``).
    _highs_defaults: dict = {}
    #: How the solver's model is refined (reported in ``method_``), and what the greedy start is called.
    _refine_name = "refit"
    _greedy_name = "greedy"

    _parameter_constraints = {
        "warm_start": ["boolean", StrOptions({"greedy", "tao", "tmo", "best"})],
        "solver": [str],
        "time_limit": [Interval(Real, 0, None, closed="left"), None],
        "mip_gap": [Interval(Real, 0, 1, closed="left"), None],
        "threads": [Interval(Integral, 1, None, closed="left"), None],
        "random_state": [Interval(Integral, 0, None, closed="left"), None],
        "verbose": ["boolean"],
        "solver_options": [dict, None],
        "forbidden_features": ["array-like", str, Integral, None],
        "constraints": [callable, None],
        "class_weight": CLASS_WEIGHT_CONSTRAINT,
    }

    # -------------------------------------------------------- the family's hooks
    def _make_spec(self, forbidden: tuple, n_classes: int):
        """The family's typed spec from the parameters (its ``create`` checks them), ``forbidden`` feature indices."""
        raise NotImplementedError(f"{type(self).__name__} must define _make_spec")

    def _make_problem(self, spec, data: ScaledData):
        """The family's problem: the spec with the (scaled, weighted) training data."""
        raise NotImplementedError(f"{type(self).__name__} must define _make_problem")

    def _starts(self, problem, deadline, methods) -> dict:
        """``{name: model}``: the greedy start and those of ``methods``, each computed before ``deadline``."""
        raise NotImplementedError(f"{type(self).__name__} must define _starts")

    def _store(self, problem, model) -> None:
        """Keep the returned model (``tree_`` or ``score_card_``) and what is read from it."""
        raise NotImplementedError(f"{type(self).__name__} must define _store")

    # ------------------------------------------------------------ the steps
    @property
    def _seed(self) -> int:
        return 0 if self.random_state is None else int(self.random_state)

    def _solve_options(self) -> dict:
        """Options every solve of this fit shares (the greedy steps of a start too)."""
        raw = {**(self._highs_defaults if self.solver == "highs" else {}), **(self.solver_options or {})}
        return dict(solver=self.solver, mip_gap=self.mip_gap, threads=self.threads, seed=self._seed,
                    verbose=bool(self.verbose), solver_options=raw)

    def _prepare(self, X, y, sample_weight=None):
        """Check the solver settings and the data (parameters are validated first); return the family's
        problem on the weighted, merged rows (:meth:`OptitreesEstimator._fit_data`) and those rows. Nothing is
        built yet."""
        SolveOptions(mip_gap=self.mip_gap, threads=self.threads, solver_options=self.solver_options or {})
        get_backend(self.solver)
        training = self._fit_data(X, y, sample_weight)
        names = self._feature_names()
        data = ScaledData.create(training.X, training.y, self._scaling, names, training.weight)
        spec = self._make_spec(resolve_features(self.forbidden_features, names), len(self.classes_))
        return self._make_problem(spec, data), training

    def _build(self, problem):
        f = self._family.build(problem)
        if self.constraints is not None:
            self.constraints(f)
        return f

    def _build_matrix(self, problem):
        """:meth:`_build` with the constraint matrix assembled (what the build's time is spent on)."""
        f = self._build(problem)
        f.matrix
        return f

    def _build_matrix_by(self, problem, deadline, matrix=True):
        """:meth:`_build_matrix` (without ``matrix``: :meth:`_build`), stopped between groups once ``deadline``
        passes (``None`` then): a build the fit stopped waiting for ends soon instead of running on after ``fit``
        returns."""
        with build_deadline(deadline):
            try:
                return self._build_matrix(problem) if matrix else self._build(problem)
            except BuildInterrupted:
                return None

    def build_formulation(self, X, y, sample_weight=None):
        """The formulation ``fit`` would solve for ``(X, y)``, with the ``constraints`` hook applied.

        Its index set ``J`` holds the feature names, so exported files read
        ``w(1,serum_sodium)``. The estimator itself is left unfitted.
        """
        est = clone(self)
        est._validate_params()
        return est._build(est._prepare(X, y, sample_weight)[0])

    def _solve(self, f, start, budget):
        options = self._solve_options()
        if self.solver == "highs" and f.matrix.nnz > BIG_MODEL_NONZEROS:   # the user's solver_options still win
            options["solver_options"] = {**UNTIMED_STEPS_OFF, **options["solver_options"]}
        return _solvers.solve(f, warm_start=start, deadline=budget.solve_deadline(self._reserve),
                              polish_deadline=budget.deadline, **options)

    def _refine(self, problem, model, budget):
        """An improved model from the solver's (``None``: this family has no refinement)."""
        return None

    def _presolve(self, problem, budget):
        """The problem with what a search before the build decides (e.g. a score card's multiplier)."""
        return problem

    def _exact_search(self, problem, budget, log) -> ExactSearch | None:
        """A dedicated exact search that replaces the MIP where it applies: ``None``, or its
        :class:`ExactSearch` (a model found without a proof becomes a start); ``log`` takes notes (why the
        search did not apply)."""
        return None

    def _report_checks(self, problem) -> dict:
        """What the family adds to the report's ``checks`` (e.g. the multiplier a score card's MIP fixed)."""
        return {}

    @property
    def _start_methods(self) -> tuple:
        """The starts to compute: always the greedy one, then what ``warm_start`` asks for (nothing more
        with ``warm_start=False``: the greedy model is only the fallback then)."""
        if _is_false(self.warm_start):
            return ("greedy",)
        choice = self._default_start if isinstance(self.warm_start, (bool, np.bool_)) else self.warm_start
        return {"greedy": ("greedy",), "tao": ("greedy", "tao"), "tmo": ("greedy", "tmo"),
                "best": ("greedy", "tao", "tmo")}[choice]

    def _start_deadline(self, budget):
        return budget.starts_until(self._start_share_of_time())

    def _start_share_of_time(self) -> float:
        return self._tmo_share if "tmo" in self._start_methods else self._start_share

    # -------------------------------------------------------------- fit
    def _fit(self, X, y, sample_weight, budget):
        """The fit template (module docstring: validate, exact search, warm starts, build, solve, decode,
        refine, report) within ``budget``; the parameters are those of :meth:`OptitreesEstimator.fit`."""
        self._validate_params()
        log = FitLog()
        family = self._family
        prepared, training = self._prepare(X, y, sample_weight)
        budget.lap("validate")
        problem = self._presolve(prepared, budget)
        if problem is not prepared:
            budget.lap(self._presolve_stage)
        exact = self._exact_search(problem, budget, log)
        if exact is not None:
            budget.lap("exact search")
            if exact.proven:
                return self._certified(problem, training, exact, budget, log)
        f, unsolved, summary = build_first(self, problem, budget) if reach_matters(self, budget) else (None,) * 3
        # a MIP out of reach gives its time to the starts, but for what follows them: each start made readable
        # and scored (loss-optimal trees on 30k rows: 0.3-0.45 s a start)
        starts_by = budget.before_end(self._reserve_after_starts) if unsolved else self._start_deadline(budget)
        starts = self._starts(problem, starts_by, self._start_methods)
        if exact is not None:
            starts[exact.engine] = exact.model
        finals = {name: family.finalize(problem, m) for name, m in starts.items()}
        start_objectives = {name: family.objective(problem, m) for name, m in finals.items()}
        start_name = min(start_objectives, key=start_objectives.get)
        label = self._greedy_name if start_name == "greedy" else start_name
        budget.lap("starts")
        notes = []
        # the MIP is built only within the budget (30,000 x 123 at depth 2: 3.2 s with its matrix); a user hook
        # must see it, so with ``constraints`` it is always built
        if f is None and unsolved is None:
            build_by = None if self.constraints is not None else budget.before_end(self._reserve)
            built, f = call_until(build_by, self._build_matrix_by, problem, build_by)
            budget.lap("build")
        built = f is not None
        checks, agreement = {}, []
        if built:
            x0 = family.start(f, starts[start_name])
            violation = f.violation(x0)
            feasible = violation <= 1e-6
            if not feasible:
                notes.append((WarmStartWarning, f"the {label} start violates the model by {violation:.3g}"
                              + (" (a user constraint?); it is not returned" if self.constraints is not None
                                 else "; the solver starts without it")))
            # without user constraints a start the MIP cannot express (e.g. N_min) is still a valid model
            candidates = {"start": finals[start_name]} if feasible or self.constraints is None else {}
            result = self._solve(f, x0 if not _is_false(self.warm_start) and feasible else None, budget)
        else:
            candidates = {"start": finals[start_name]}
            result = SolverResult(solver=self.solver, termination=TerminationCondition.TIME_LIMIT,
                                  message=unsolved or "the time limit ended while the MIP was built; it was not solved")
        budget.lap("solve")
        checks.update(result.checks)
        if result.x is not None and np.all(np.isfinite(result.x)):
            model, decoded = family.decode(f, result.x)
            reference = result.objective if result.objective is not None else f.objective_value(result.x)
            decoded["objective_discrepancy"] = abs(decoded["objective_recomputed"] - reference)
            checks.update(decoded)
            agreement = agreement_notes(checks)          # said only when the solver's model is returned
            candidates["solver"] = family.finalize(problem, model)
            earlier = best_earlier_incumbent(family, problem, f, result,
                                             family.objective(problem, candidates["solver"]),
                                             budget.before_end(0.03), polisher(f, self.threads, self._seed))
            if earlier is not None:
                model, candidates["solver"], value, age = earlier
                log.note(f"the solver's incumbent found {age} before its last has a lower exact objective "
                         f"({value:.6g}): it is the solver's model")
            refined = self._refine(problem, model, budget)
            if refined is not None and (self.constraints is None or f.violation(family.start(f, refined)) <= 1e-6):
                candidates["refined"] = family.finalize(problem, refined)
            budget.lap("refine")
        if not candidates:
            raise RuntimeError(f"no model satisfies the constraints: the solver found none ({result.status}) "
                               "and the warm start violates them")
        objectives = {k: start_objectives[start_name] if k == "start" else family.objective(problem, m)
                      for k, m in candidates.items()}
        best = min(objectives.values())
        # on ties: the solver's own model before the start, unless the solver just returned the start
        order = ("start", "solver", "refined") if result.solution_source == "warm_start" else \
            ("solver", "start", "refined")
        returned = next(k for k in order if k in objectives and objectives[k] <= best + 1e-9 * max(1.0, abs(best)))
        if returned != "start":
            notes += agreement
        # a MIP that was not solved (out of reach, or its build cut by the deadline) is said once, with its reason
        notes += status_notes(result, returned, objectives, label, unsolved or (None if built else result.message))
        # bounds by who found them, in the order they ran: the exact search's (ConTree on weights rounded down),
        # the MIP's
        found = [] if exact is None else [(exact.engine, exact.bound)]
        found.append((result.solver, result.bound if built else None))
        bounds = {name: b for name, b in found if b is not None}
        proven_by = [name for name, b in bounds.items() if objectives[returned] <= b + 1e-6 * max(1.0, abs(b))]
        proven = bool(proven_by)
        known = list(bounds.values())
        bound = objectives[returned] if proven else (max(known) if known else None)
        if result.status is SolveStatus.OPTIMAL and not proven and result.bound is not None:
            log.note(f"the MIP is solved to optimality in its own objective (bound {result.bound:.6g}), which "
                     f"underestimates the exact one (the returned model's is {objectives[returned]:.6g}): the "
                     "returned model is not proven optimal")
        for kind, note in notes:
            warn(note, kind)
        self.objective_ = objectives[returned]
        self.warm_start_objective_ = start_objectives[start_name]
        self.greedy_objective_ = start_objectives["greedy"]
        self.start_objectives_ = start_objectives
        self.method_ = {"start": start_name, "solver": "mip", "refined": f"mip+{self._refine_name}"}[returned]
        self.solver_result_ = result
        self.formulation_summary_ = f.summary() if built else f"{summary}\nnot solved" if summary else \
            "no MIP built: the time limit ended while it was built"
        self._store(problem, candidates[returned])
        budget.lap("report")
        self.fit_report_ = FitReport(
            estimator=type(self).__name__, outcome=FitOutcome.PROVEN_OPTIMAL if proven else FitOutcome.NOT_PROVEN,
            method=self.method_, returned=returned, objective=objectives[returned], seconds=budget.elapsed,
            time_limit=self.time_limit, rows=training.n_input_rows, distinct_rows=len(training.y),
            weighted=training.weighted, starts=start_objectives,
            objectives={**objectives, "returned": objectives[returned]},
            solved_by=result.solver if built else None, certified_by=proven_by[0] if proven else None,
            bound=bound, stages=dict(budget.stages), checks={**checks, **self._report_checks(problem)},
            notes=tuple(dict.fromkeys(log.notes + [note for _, note in notes])))
        return self

    def _certified(self, problem, training, exact, budget, log):
        """Finish a fit whose model an exact search proved optimal: no MIP is built."""
        from ..solvers.results import SolutionStatus

        model, seconds, engine = exact.model, exact.seconds, exact.engine
        family = self._family
        final = family.finalize(problem, model)
        greedy = family.finalize(problem, self._starts(problem, None, ("greedy",))["greedy"])
        objective = family.objective(problem, final)
        greedy_objective = family.objective(problem, greedy)
        budget.lap("starts")
        self.solver_result_ = SolverResult(
            solver=engine, solver_version=_version(engine), termination=TerminationCondition.OPTIMAL,
            solution_status=SolutionStatus.OPTIMAL, objective=objective, bound=objective, gap=0.0,
            timings={"solve": seconds}, solution_source="solver", message=f"optimal, certified by {engine}",
            trace=[(seconds, objective, objective)])
        self.objective_, self.greedy_objective_ = objective, greedy_objective
        self.warm_start_objective_ = greedy_objective
        self.start_objectives_ = {"greedy": greedy_objective}
        self.method_ = engine
        self.formulation_summary_ = f"no MIP built: {engine} found the optimum and proved it"
        self._store(problem, final)
        budget.lap("report")
        self.fit_report_ = FitReport(
            estimator=type(self).__name__, outcome=FitOutcome.PROVEN_OPTIMAL, method=engine, returned="solver",
            objective=objective, seconds=budget.elapsed, time_limit=self.time_limit, rows=training.n_input_rows,
            distinct_rows=len(training.y), weighted=training.weighted, starts={"greedy": greedy_objective},
            objectives={"start": greedy_objective, "solver": objective, "returned": objective}, solved_by=engine,
            certified_by=engine, bound=objective, stages=dict(budget.stages), checks=self._report_checks(problem),
            notes=tuple(log.notes + [f"optimal, certified by {engine}"]))
        return self


def _is_false(flag) -> bool:
    """``False`` given as a Python or a numpy boolean (``np.False_`` is not ``False``)."""
    return isinstance(flag, (bool, np.bool_)) and not flag


def _version(engine):
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version({"contree": "pycontree"}.get(engine, engine))
    except PackageNotFoundError:
        return ""
