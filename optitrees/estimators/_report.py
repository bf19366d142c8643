"""What one fit did, in one attribute written once at its end: ``fit_report_`` (:class:`FitReport`).

Every estimator sets it as the last step of ``fit``. It says which model was
returned and how it was found (the method, the engine that searched, who
proved it optimal), the exact training objective of every start and
candidate, the seconds of each stage against the time limit, the data the
model saw (rows given, distinct rows after merging duplicates, weighted or
not), the agreement checks between a solver's solution and the decoded model,
and every note the fit made (fallbacks, time limits, engines that could not
take the data). The solver's own result (``solver_result_``) is written by the
solver interface alone.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..enums import TextEnum
from ..solvers.options import ProgressPrinter, SolveOptions

__all__ = ["FitOutcome", "FitReport", "FitLog", "FitProgress", "ExactSearch"]


class FitOutcome(TextEnum):
    """How far the returned model's claim goes."""

    #: An exact engine proved the returned model optimal in the exact training objective, within the fit's relative
    #: gap (``mip_gap``, default 1e-4, as a solver's "optimal"; :func:`~optitrees.solvers.verify.gap_closed`).
    PROVEN_OPTIMAL = "proven optimal"
    #: An exact engine proved the returned model optimal in a problem the fit itself narrowed (features it chose,
    #: a per-split budget it chose: ``fit_report_.restriction``); a better model may read other features.
    PROVEN_RESTRICTED = "proven optimal in the restricted problem"
    #: An exact method stopped before a proof (time or node limit, or optimal only in a surrogate objective).
    NOT_PROVEN = "not proven optimal"
    #: A heuristic (TAO, TMO, C4.5, UCT-DT, rule sets, contextual trees) that ran to its own end.
    HEURISTIC = "heuristic"
    #: A heuristic whose stages the time limit ended early (each returned its best so far).
    TRUNCATED = "heuristic, cut short by the time limit"

    @property
    def proven(self) -> bool:
        """Whether an exact engine proved the model optimal, in the user's problem or in the fit's restricted one."""
        return self in (FitOutcome.PROVEN_OPTIMAL, FitOutcome.PROVEN_RESTRICTED)


class FitProgress(ProgressPrinter):
    """A line on stderr every 10 s of a long fit: ``optitrees[TMOClassifier] 20s of 30 s, stages done: validate``.

    While a solve inside the fit prints its own progress line (incumbent,
    bound, gap), this one is silent (only the innermost printer speaks).
    """

    def __init__(self, estimator: str, budget, stream=None):
        super().__init__(estimator, SolveOptions(), stream)
        self.budget = budget

    def line(self) -> str:
        limit = "" if self.budget.seconds is None else f" of {self.budget.seconds:g} s"
        done = ", ".join(self.budget.stages) or "none yet"
        return f"optitrees[{self.solver}] {self.budget.elapsed:.0f}s{limit}, stages done: {done}"


class FitLog:
    """Notes a fit collects on its way (hooks add theirs); they end up in :attr:`FitReport.notes`."""

    def __init__(self):
        self.notes: list[str] = []

    def note(self, text: str) -> None:
        self.notes.append(text)


@dataclass(frozen=True)
class ExactSearch:
    """What a dedicated exact search (ConTree for OCT) returned: its best model, whether it proved it optimal,
    its seconds, its name, and a valid lower bound on the exact training objective when it knows one."""

    model: object
    proven: bool
    seconds: float
    engine: str
    bound: float | None = None


@dataclass(frozen=True)
class FitReport:
    """What one ``fit`` did (see the module docstring).

    Attributes
    ----------
    estimator : str
    outcome : FitOutcome
    method : str
        What produced the returned model: ``greedy``, ``tao``, ``tmo``, ``mip``,
        ``mip+tao``, ``mip neighbourhood``, ``contree``, ``search`` ..., or the heuristic's name.
    returned : str
        Which candidate was returned: ``start``, ``neighbourhood`` (the MIP's rounds near the start),
        ``solver`` or ``refined`` (MIP estimators), ``model`` (the others).
    objective : float or None
        Exact training objective of the returned model (``None`` where the family defines none).
    starts : dict
        Exact training objective of each start (``greedy``, ``tao``, ``tmo``, ``search`` ...).
    objectives : dict
        Exact training objective of each candidate (``start``, ``solver``, ``refined``) and the ``returned`` one.
    solved_by : str or None
        The engine that searched for the optimum (``highs``, ``scip``, ``contree`` ...; ``None``: none did).
    certified_by : str or None
        Who proved the returned model optimal in the exact training objective (within the fit's ``mip_gap``),
        or ``None``.
    bound : float or None
        A valid lower bound on the exact training objective of every model the fit searched (the MIP's
        best bound, an exact search's bound, a family's own bound; at most the objective); ``None``
        where none is known (the heuristics).
    bound_source : str or None
        Who found ``bound``: the solver (``highs`` ...), an exact search (``contree``), the family's own bound
        (``root layer (logistic, all 30,000 rows)``, with ``+ ... groups of identical rows with both labels in
        layer 2`` where such rows exist; ``rows identical in features with different labels`` for OCT and OCT-H)
        or ``non-negative objective``.
    restriction : str or None
        What the fit narrowed the posed problem to before its MIP or exact search (``"trees on features {a, b}"``,
        a per-split budget it chose): a proof is then among those models only
        (:mod:`~optitrees.estimators.mip_fit.restriction`); ``None``: the user's problem.
    mip_rows : int or None
        Rows the MIP saw: ``distinct_rows``, or fewer weighted representative rows when the full MIP was out of
        reach; ``None`` when no MIP was solved.
    stages : dict
        Seconds of each stage, in order (``validate``, ``presolve`` (a score card's search), ``exact search``,
        ``reduce``, ``starts``, ``start refinement``, ``bound``, ``build``, ``neighbourhood search``, ``solve``,
        ``refine``, ``report`` for the MIP estimators).
    plan : dict or None
        The MIP estimators' plan of the fit, decided before any stage ran
        (:mod:`~optitrees.estimators.mip_fit.fit_plan`): per stage, whether it ``"runs"``, the ``"share"`` of the
        time limit it may use and ``"why"``; ``None`` for the other estimators.
    seconds : float
        The whole fit.
    time_limit : float or None
    rows, distinct_rows : int
        Rows given, and rows the model was fitted on (identical rows of one label merged).
    weighted : bool
        Some row weighed other than 1 (``sample_weight``, ``class_weight``, or identical rows merged).
    checks : dict
        Agreement of the solver's solution with the decoded model (``routing_mismatches``,
        ``objective_recomputed``, ``objective_discrepancy``, ``polished`` ...).
    notes : tuple of str
        Every note of the fit, in order.
    fairness : dict or None
        A fit held to a parity notion (``fairness=``): the returned model's disparity on the training rows per
        notion (demographic parity, true- and false-positive rate parity, equalized odds, and the notion held), the
        notion ``"held"``, its ``"bound"`` and whether the model ``"keeps"`` it
        (:meth:`optitrees.fairness.GroupParity.report`); ``bound`` and ``certified_by`` are then those of the
        constrained problem.
    feature_cost : dict or None
        A fit given ``feature_costs`` or ``max_feature_cost``: what the features the returned model reads cost
        (``"cost"``), the ``"budget"`` (``None``: none), whether the model ``"keeps"`` it and the ``"features"`` it
        reads (:meth:`optitrees.formulations.feature_budget.FeatureBudget.report`); ``bound`` and ``certified_by``
        are then those of the problem with the budget.
    monotonicity : dict or None
        A fit given ``monotonic_cst``: the constrained features' ``"signs"``, whether the returned model
        ``"keeps"`` them, whether that check is ``"exact"`` (a proof over all of feature space) and the number of
        ``"violations"`` found (:meth:`optitrees.monotonicity.MonotoneConstraint.report`).
    """

    estimator: str
    outcome: FitOutcome
    method: str
    returned: str
    objective: float | None
    seconds: float
    time_limit: float | None
    rows: int
    distinct_rows: int
    weighted: bool
    starts: dict = field(default_factory=dict)
    objectives: dict = field(default_factory=dict)
    solved_by: str | None = None
    certified_by: str | None = None
    bound: float | None = None
    stages: dict = field(default_factory=dict)
    checks: dict = field(default_factory=dict)
    notes: tuple = ()
    bound_source: str | None = None
    mip_rows: int | None = None
    restriction: str | None = None
    fairness: dict | None = None
    feature_cost: dict | None = None
    monotonicity: dict | None = None
    plan: dict | None = None

    @property
    def gap(self) -> float | None:
        """The gap: ``(objective - bound) / max(|objective|, 1e-9)`` in the exact training objective, how far the
        returned model may be from the optimum (the solver's "MIP gap", in the MIP's own objective, is
        ``solver_result_.gap``)."""
        if self.bound is None or self.objective is None:
            return None
        return max(0.0, self.objective - self.bound) / max(abs(self.objective), 1e-9)

    def __str__(self) -> str:
        def fmt(v):
            return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.6g}"

        limit = "no time limit" if self.time_limit is None else f"time limit {self.time_limit:g} s"
        lines = [f"{self.estimator}: {self.outcome.value}, by {self.method} (returned: {self.returned}), "
                 f"objective {fmt(self.objective)}",
                 f"  data: {self.rows} rows, {self.distinct_rows} distinct" + (", weighted" if self.weighted else ""),
                 f"  time: {self.seconds:.2f} s of {limit}; " + ", ".join(f"{k} {v:.2f}" for k, v in
                                                                        self.stages.items())]
        if self.plan:
            lines.append("  plan: " + ", ".join(name + ("" if step["share"] is None else
                                                       (" at least " if name == "solve" else " ")
                                                       + f"{100 * step['share']:.0f}%")
                                                for name, step in self.plan.items() if step["runs"])
                         + "; off: " + (", ".join(name for name, step in self.plan.items() if not step["runs"])
                                        or "none"))
        if self.starts:
            lines.append("  starts: " + ", ".join(f"{k} {fmt(v)}" for k, v in self.starts.items()))
        if self.solved_by or self.certified_by:
            lines.append(f"  solved by {self.solved_by or '-'}; "
                         + (f"certified optimal by {self.certified_by}" if self.certified_by else "not certified"))
        if self.restriction is not None:
            lines.append(f"  the fit narrowed the problem to {self.restriction}: a bound or proof holds among those "
                         "models only")
        if self.fairness is not None:
            held = self.fairness["held"]
            lines.append(f"  fairness: {held} {self.fairness[held]:.4g} (bound {self.fairness['bound']:g}, "
                         + ("kept" if self.fairness["keeps"] else "NOT kept") + "); "
                         + ", ".join(f"{k} {v:.4g}" for k, v in self.fairness.items()
                                     if k not in (held, "held", "bound", "keeps")))
        if self.feature_cost is not None:
            cost, budget = self.feature_cost["cost"], self.feature_cost["budget"]
            lines.append(f"  feature cost: {cost:.6g}" + ("" if budget is None else f" (budget {budget:g}, "
                         + ("kept" if self.feature_cost["keeps"] else "NOT kept") + ")") + "; reads "
                         + (", ".join(self.feature_cost["features"]) or "no feature"))
        if self.monotonicity is not None:
            signs = ", ".join(f"{k} {'+' if v > 0 else '-'}" for k, v in self.monotonicity["signs"].items())
            lines.append(f"  monotone in {signs}: " + ("kept" if self.monotonicity["keeps"] else "NOT kept")
                         + (" (proved over all of feature space)" if self.monotonicity["exact"] else
                            " (no violation found by a search; not a proof)"))
        if self.mip_rows is not None and self.mip_rows != self.distinct_rows:
            lines.append(f"  the MIP saw {self.mip_rows} weighted representative rows of {self.distinct_rows}")
        if self.bound is not None and not self.certified_by:
            lines.append(f"  lower bound {fmt(self.bound)}" + ("" if self.bound_source is None else
                                                              f" ({self.bound_source})")
                         + ("" if self.objective is None else f", gap {100 * self.gap:.2f}% (exact objective)"))
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)
