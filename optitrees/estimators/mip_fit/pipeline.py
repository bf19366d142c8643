"""The one MIP fit of every MIP estimator: :class:`MIPFit`, one method per stage, within one time budget.

``MIPFit(settings, hooks, budget).run(problem, training)`` runs, for every model family (loss-optimal trees, OCT,
risk score cards, the oblique regression tree), the stages its plan (:mod:`.fit_plan`, decided when the fit is made,
``fit_report_.plan``) runs, each within the share of the time limit the plan gives it (the solve's stages are in
:mod:`.solving`):

1. :meth:`~MIPFit.presolve` and :meth:`~MIPFit.exact`: what the estimator settles before the MIP (a score card's
   multiplier, a held-out ``C``) and a dedicated exact search (ConTree for OCT; a parity constraint's own,
   :func:`.parity.fair_exact`) whose proof ends the fit;
2. :meth:`~MIPFit.backend_plan`: the MIP's size, counted from the problem where the family can, and the backend's plan for
   it (:meth:`backend.plan <optitrees.solvers.highs.HighsBackend.plan>`): whether the solver can get past its root
   in the time the solve would get, and the options it adds for a model of that size;
3. :meth:`~MIPFit.reduce`: where the full model is out of reach, the MIP of weighted representative rows
   (:mod:`.reduce`) in reach; the report says which rows the MIP saw (``mip_rows``);
4. :meth:`~MIPFit.starts`: the greedy start and, as ``warm_start`` asks, TAO and TMO (their share of the budget,
   :class:`~optitrees.budget.Shares`), each scored by the exact objective; the best, refined on every row where
   that lowers it (a start of its own, :mod:`.start_refinement`), is handed to the solver; then
   :meth:`~MIPFit.family_bound`, the family's own lower bound (no MIP needed);
5. :meth:`~MIPFit.build`: the family's formulation with the user's ``constraints`` hook, within the budget (a
   build the budget cannot finish is left, :func:`~optitrees.budget.call_until`); with a hook, before the
   starts, so that a hook that fails does so first, and each start is completed for the variable groups the
   hook added (:meth:`~MIPFit.start_vector`);
6. :meth:`~MIPFit.neighbourhoods`, for a tree family: MIP rounds near the best start, the first with every row
   routed as it routes them (the refit), then each with the rows nearest to its splits set free, each on the rows
   that can bind, each tree refined and kept when its exact objective is lower (:mod:`.neighbourhood`;
   ``Shares.neighbourhood`` of the solve's time);
   :meth:`~MIPFit.solve`: the full MIP, warm-started by their best tree, until the budget less a reserve; the
   solver's model decoded and checked against its solution, and the best of its earlier incumbents by the exact
   objective (:mod:`.incumbents`);
7. :meth:`~MIPFit.refine`: the family's local improvement (TAO, an exact intercept) of the solver's model;
8. :func:`.bounds.fit_bound`: the best valid lower bound on the returned model's exact objective, from an exact
   search, the solver (when it saw every row) and the family's own bound, with its source;
9. the report (the end of :meth:`~MIPFit.run`): every candidate scored by the exact training objective, the best
   returned; its status (a proof in a problem the presolve narrowed says so, :mod:`.restriction`), bound and notes.

An estimator supplies :class:`~.settings.FitSettings` and :class:`~.settings.FitHooks`; it reads :class:`MIPFitOutcome`.
"""

from __future__ import annotations


from ...budget import Budget, call_until, remaining
from ...mip import BuildInterrupted, build_deadline
from ...solvers import SolverResult
from ...solvers.options import DEFAULT_MIP_GAP
from ...solvers.plan import SolvePlan
from ...solvers.registry import get_backend
from ...solvers.results import SolveStatus, TerminationCondition
from ...solvers.verify import gap_closed
from .._report import ExactSearch, FitLog, FitReport
from .bounds import LowerBound, fit_bound
from .certified import certified, unconstrained_optimum
from .feature_costs import affordable_exact, affordable_models, budget_report, start_problem
from .fit_plan import Stage, plan_fit
from .held import keeps_every_constraint
from .monotone import monotone_models, monotone_report
from .neighbourhood import ROUND_SHARE
from .notes import formulation_summary, status_notes
from .outcome import MIPFitOutcome
from .parity import fair_candidates, fair_exact, fair_starts
from .reduce import ReducedRows, reduce_to_reach
from .restriction import certificate, claimed_outcome, restriction_of
from .solving import SolveStages
from .start_refinement import refined_start
from .hook import build_with_hook
from .settings import FitHooks, FitSettings

__all__ = ["MIPFit", "MIPFitOutcome"]


class MIPFit(SolveStages):
    """One fit of a MIP estimator (module docstring), stage by stage within ``budget``, as its :attr:`plan`
    says."""

    def __init__(self, settings: FitSettings, hooks: FitHooks, budget: Budget):
        self.settings, self.hooks, self.budget, self.family = settings, hooks, budget, settings.family
        #: Which stages run and the share of the time limit each may use, decided before any runs (:mod:`.fit_plan`).
        self.plan = plan_fit(settings, budget.seconds)
        #: The solver's backend, looked up (and its availability checked) once per fit.
        self.backend = get_backend(settings.solver)
        self.log, self.fair_found = FitLog(), None       # fair_found: a parity constraint's exact search, unproven
        self.notes: list = []                  # (warning class, text), raised by the estimator at its end

    # ------------------------------------------------------------------ stages
    def presolve(self, problem):
        """The problem with what the estimator settles before the MIP (its stage is named in the settings)."""
        settled = self.hooks.presolve(problem, self.budget)
        if settled is not problem:
            self.budget.lap(self.settings.presolve_stage)
        return settled

    def exact(self, problem) -> ExactSearch | None:
        """The estimator's exact search, if it has one."""
        found = self.hooks.exact_search(problem, self.budget, self.log)
        if found is not None:
            self.budget.lap("exact search")
        return found

    def solve_seconds(self, start_share: float) -> float | None:
        """Seconds the solve would get after starts that may use ``start_share`` of the budget (``None``: no
        limit)."""
        if self.budget.seconds is None:
            return None
        return remaining(self.budget.solve_deadline(self.plan.share(Stage.RESERVE))) - start_share * self.budget.seconds

    def backend_plan(self, problem) -> tuple[SolvePlan | None, object]:
        """``(plan, size)``: the backend's plan for the full model counted from ``problem`` (``(None, None)``
        without a time limit, when the family cannot count it, or when a user's constraints ask for the full model
        whatever its size)."""
        if self.budget.seconds is None or self.family.size is None or self.settings.constraints is not None:
            return None, None
        size = self.family.size(problem)
        seconds = self.solve_seconds(self._start_share_if_any())
        return self.backend.plan(size.n_rows, size.n_cols, None, seconds), size

    def _start_share_if_any(self) -> float:
        """The share the starts may use beyond the greedy one (none when only the greedy start runs)."""
        return self.plan.share(Stage.STARTS) if set(self.settings.start_methods) - {"greedy"} else 0.0

    def starts(self, problem, exact: ExactSearch | None, starts_by) -> tuple[dict, dict, dict, str]:
        """``(starts, finals, objectives, best name)``: every start (the problem's units), finalized (the user's)
        and scored by the exact objective."""
        costs = self.settings.feature_budget
        grown_on = start_problem(self.family, costs, problem, starts_by, self.settings.seed)
        starts = self.hooks.starts(grown_on, starts_by, self.settings.start_methods)
        if exact is not None:
            starts[exact.engine] = exact.model
        starts.update(affordable_exact(self, problem, grown_on, exact))
        starts = fair_starts(self.settings.parity, self.hooks, problem, starts, starts_by, self.fair_found)
        finals = {name: self.family.finalize(problem, m) for name, m in starts.items()}
        starts, finals = monotone_models(self.settings.monotone, self.family, problem,
                                         *affordable_models(costs, starts, finals, self.log), self.log)
        objectives = {name: self.family.objective(problem, m) for name, m in finals.items()}
        self.budget.lap("starts")
        best = min(objectives, key=objectives.get)
        refined = refined_start(self, problem, best, starts[best], objectives[best])
        refined = None if refined is None or not keeps_every_constraint(self.settings, refined[2], problem) \
            else refined
        if refined is not None:                                   # a start of its own, the best
            best = refined[0]
            starts[best], finals[best], objectives[best] = refined[1:]
        return starts, finals, objectives, best

    def reduce(self, problem, plan: SolvePlan | None, size) -> ReducedRows:
        """The rows the MIP sees: all of them, or, where the backend's plan puts the full model out of reach,
        weighted representative rows whose model is in reach (:func:`.reduce.reduce_to_reach`)."""
        if plan is None or plan.reachable:
            return ReducedRows.whole(problem)
        if self.settings.parity is not None:       # representative rows would change every group's rates
            return ReducedRows.out_of_reach(problem, f"the MIP was not solved: {plan.why}; a parity constraint "
                                            "needs every row, so its time went to the starts (held to the "
                                            "constraint by their leaves' labels)", size)
        backend = self.backend
        seconds = self.solve_seconds(self._start_share_if_any())
        if self.plan.runs(Stage.NEIGHBOURHOOD):
            # sized for one neighbourhood round, the MIP's search at these sizes: on the rows that put the full
            # MIP's root LP at half the solve's time, HiGHS explored no node (phishing and adult, 4,000 rows)
            seconds *= self.plan.share(Stage.NEIGHBOURHOOD) * ROUND_SHARE
        reduced, fewest = reduce_to_reach(problem, self.family.size,
                                          lambda s: backend.plan(s.n_rows, s.n_cols, None, seconds),
                                          seed=self.settings.seed)
        self.budget.lap("reduce")
        if reduced is not None:
            self.log.note(f"the full MIP is out of reach ({plan.why}); the MIP was solved on {reduced.describe()}")
            return reduced
        reduced_too = "" if fewest is None else f"; so is the MIP of {fewest:,} representative rows"
        return ReducedRows.out_of_reach(problem, f"the MIP was not solved: {plan.why}{reduced_too}; its time went to "
                                        "the starts", size)

    def build(self, rows: ReducedRows):
        """The formulation of the MIP's rows with the user's hook, or ``None`` when the budget ended first."""
        by = None if self.settings.constraints is not None else self.budget.before_end(self.plan.share(Stage.RESERVE))
        built, f = call_until(by, self._build_by, rows.problem, by)
        self.budget.lap("build")
        return f if built else None

    def _build_by(self, problem, deadline):
        with build_deadline(deadline):
            try:
                f = build_with_hook(self.family, problem, self.settings.constraints, self.settings.parity,
                                    self.settings.feature_budget, self.settings.monotone)
                plan = self._plan_of(f)
                if plan is not None and not plan.reachable:       # a family that cannot count its size
                    self._unreachable = plan.why
                    return f
                f.matrix
                return f
            except BuildInterrupted:
                return None

    def _plan_of(self, f):
        """The backend's plan for a built model, read from its groups before the matrix is assembled (``None``
        when the size was counted before, or the user's constraints ask for the model whatever its size)."""
        if self.family.size is not None or self.settings.constraints is not None:
            return None
        return self.backend.plan(f.n_rows, f.n_cols, None, self.solve_seconds(0.0))

    def family_bound(self, problem) -> LowerBound | None:
        """The family's own bound (``MIPFamily.lower_bound``), computed before the build within its share of the
        budget (it needs no MIP; the time is the solve's), or ``None``."""
        if not self.plan.runs(Stage.BOUND):
            return None
        own = self.family.lower_bound(problem, self.budget.until(self.plan.share(Stage.BOUND)))
        self.budget.lap("bound")
        return None if own is None else LowerBound(float(own[0]), own[1])

    # --------------------------------------------------------------------- run
    def run(self, prepared, training) -> MIPFitOutcome:
        """Every stage in order (module docstring)."""
        settings, family, budget = self.settings, self.family, self.budget
        problem = self.presolve(prepared)
        restricted = restriction_of(prepared, problem)
        exact = self.exact(problem)
        if exact is not None:
            proven, exact = unconstrained_optimum(self, problem, exact)
            if proven:
                return certified(self, problem, training, exact, restricted)
        self.fair_found = fair_exact(self, problem)
        if self.fair_found is not None and self.fair_found.proven:
            return certified(self, problem, training, self.fair_found, restricted)
        if budget.seconds is not None and self.solve_seconds(self._start_share_if_any()) <= 0:
            rows = ReducedRows.out_of_reach(problem, "the MIP was not solved: no time is left for it after the "
                                            "starts", None)
        else:
            rows = self.reduce(problem, *self.backend_plan(problem))
        self._unreachable = None
        # the user's hook runs (and fails, if it does) before any start is computed
        early = None if rows.unsolved or settings.constraints is None else self.build(rows)
        # a MIP out of reach gives the starts its time, but for what follows them: each start made readable, scored
        starts_by = budget.before_end(settings.shares.after_starts) if rows.unsolved else \
            budget.starts_until(self.plan.share(Stage.STARTS))
        starts, finals, start_objectives, start_name = self.starts(problem, exact, starts_by)
        label = settings.greedy_name if start_name == "greedy" else start_name
        own = self.family_bound(problem)
        f = early if early is not None or rows.unsolved else self.build(rows)
        unsolved = rows.unsolved or (None if self._unreachable is None else
                                     f"the MIP was not solved: {self._unreachable}; its time went to the starts")
        checks, agreement = {}, []
        if f is not None and unsolved is None:
            others = sorted((n for n in starts if n != start_name), key=start_objectives.get)
            candidates, result, agreement = self._solve_and_refine(problem, f, rows, starts[start_name],
                                                                   finals[start_name], label, checks,
                                                                   [(n, starts[n]) for n in others])
        else:
            candidates = {"start": finals[start_name]}
            message = unsolved or "the time limit ended while the MIP was built; it was not solved"
            result = SolverResult(solver=settings.solver, termination=TerminationCondition.TIME_LIMIT, message=message)
            if unsolved is None:
                unsolved = message
            budget.lap("solve")
        if not candidates:
            raise RuntimeError(f"no model satisfies the constraints: the solver found none ({result.status}) "
                               "and the warm start violates them")
        candidates = fair_candidates(settings.parity, candidates, problem, self.log)
        candidates = affordable_models(settings.feature_budget, candidates, candidates, self.log, "model")[1]
        candidates = monotone_models(settings.monotone, family, problem, candidates, None, self.log, "model")[0]
        if not candidates:
            raise RuntimeError("no model keeps the feature budget and monotonicity: the solver's does not, nor a start")
        objectives = {k: start_objectives[start_name] if k == "start" else family.objective(problem, m)
                      for k, m in candidates.items()}
        best = min(objectives.values())
        # on ties: the solver's own model before the start, unless the solver just returned the start
        order = ("start", "neighbourhood", "solver", "refined") if result.solution_source == "warm_start" else \
            ("solver", "neighbourhood", "start", "refined")
        returned = next(k for k in order if k in objectives and objectives[k] <= best + 1e-9 * max(1.0, abs(best)))
        if returned != "start":
            self.notes += agreement
        self.notes += status_notes(result, returned, objectives, label, unsolved, budget.seconds is not None)
        value, model = objectives[returned], candidates[returned]
        lower, bound_notes = fit_bound(value, result, rows.whole_rows, exact, own)
        self.log.notes.extend(bound_notes)
        # proven as the library proves a solver's claim (solvers.verify): within the relative gap the fit asked for
        proven = gap_closed(value, lower.value, DEFAULT_MIP_GAP if settings.mip_gap is None else settings.mip_gap)
        if result.status is SolveStatus.OPTIMAL and not proven and result.bound is not None and rows.whole_rows \
                and value > result.bound:             # (a model below the bound lies outside its class: noted above)
            self.log.note(f"the MIP is solved to optimality in its own objective (bound {result.bound:.6g}), which "
                          f"underestimates the exact one (the returned model's is {value:.6g}): the "
                          "returned model is not proven optimal")
        method = {"start": start_name, "solver": "mip", "refined": f"mip+{settings.refine_name}",
                  "neighbourhood": "mip neighbourhood"}[returned]
        summary = formulation_summary(f, rows.size, unsolved)
        budget.lap("report")
        report = FitReport(
            estimator=settings.estimator, outcome=claimed_outcome(proven, restricted), restriction=restricted,
            method=method, returned=returned, objective=value, seconds=budget.elapsed,
            time_limit=budget.seconds, rows=training.n_input_rows, distinct_rows=len(training.y),
            weighted=training.weighted, starts=start_objectives, objectives={**objectives, "returned": value},
            solved_by=result.solver if f is not None and unsolved is None else None,
            certified_by=certificate(lower.source, restricted) if proven else None,
            bound=min(value, lower.value), bound_source=lower.source,
            mip_rows=None if unsolved is not None else rows.n_rows,
            fairness=None if settings.parity is None else settings.parity.report(model, problem.data.X_original),
            feature_cost=budget_report(settings.feature_budget, model),
            monotonicity=monotone_report(settings.monotone, model, problem),
            stages=dict(budget.stages), plan=self.plan.as_report(), checks={**checks, **self.hooks.report_checks(problem)},
            notes=tuple(dict.fromkeys(self.log.notes + [note for _, note in self.notes])))
        return MIPFitOutcome(problem=problem, model=model, objective=value,
                             start_objectives=start_objectives, start_name=start_name, method=method,
                             solver_result=result, formulation_summary=summary, report=report)
