"""What an estimator hands the MIP fit: its settings (:class:`FitSettings`), its hooks (:class:`FitHooks`) and
the starts ``warm_start`` asks for (:class:`StartChoice`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np

from ...budget import Shares
from ...formulations import MIPFamily
from ...solvers.plan import SolvePlan, family_options
from ...solvers.registry import get_backend

__all__ = ["FitSettings", "FitHooks", "StartChoice", "is_false"]


class StartChoice:
    """What ``warm_start`` asks for, as the tuple of start methods (the greedy start is always computed)."""

    #: ``warm_start`` value -> the starts computed
    METHODS = {"greedy": ("greedy",), "tao": ("greedy", "tao"), "tmo": ("greedy", "tmo"),
               "best": ("greedy", "tao", "tmo")}

    @staticmethod
    def methods(warm_start, default: str) -> tuple:
        """``False``: only the greedy fallback; ``True``: the family's ``default``; a name: that choice.

        >>> StartChoice.methods(True, "best"), StartChoice.methods(False, "best"), StartChoice.methods("tao", "x")
        (('greedy', 'tao', 'tmo'), ('greedy',), ('greedy', 'tao'))
        """
        if is_false(warm_start):
            return ("greedy",)
        return StartChoice.METHODS[default if isinstance(warm_start, (bool, np.bool_)) else warm_start]


def is_false(flag) -> bool:
    """``False`` given as a Python or a numpy boolean (``np.False_`` is not ``False``)."""
    return isinstance(flag, (bool, np.bool_)) and not flag


@dataclass(frozen=True)
class FitSettings:
    """What a MIP fit is asked to do (an estimator's parameters, resolved).

    Attributes
    ----------
    estimator : str
        The estimator's class name (the report's).
    family : MIPFamily
    solver : str
        The solver name of :func:`optitrees.solvers.solve`.
    mip_gap, threads, seed, verbose, solver_options
        The solve's options; ``solver_options`` are the user's raw options (they win).
    family_options, family_options_with_start : Mapping
        Options the family chose per backend (``{"highs": {"presolve": "off"}}``), under the user's; the second
        only for a solve handed a start (a primal heuristic a start makes redundant).
    shares : Shares
    start_methods : tuple
        The starts to compute (:class:`StartChoice`).
    hand_start : bool
        Whether the best start is handed to the solver (``warm_start`` not ``False``).
    constraints : callable or None
        The user's hook on the built formulation.
    parity : GroupParity or None
        A fairness notion the model is held to (:class:`optitrees.fairness.GroupParity`): its block is added to the
        formulation before the user's hook, every start and candidate is checked on the fit's rows and repaired
        (its leaves relabelled) where it does not keep it.
    feature_budget : FeatureBudget or None
        Costs of the features and a budget on what the model reads
        (:class:`optitrees.formulations.feature_budget.FeatureBudget`): its block is added to the formulation, the
        starts are grown on affordable features, and a candidate over the budget is not returned.
    monotone : MonotoneConstraint or None
        ``monotonic_cst`` (:class:`optitrees.monotonicity.MonotoneConstraint`): its block where the family's MIP holds
        it, every start and candidate checked and repaired or left out where it is not monotone.
    greedy_name, refine_name : str
        What the greedy start and the refinement are called in ``method_`` and the notes.
    presolve_stage : str
        The name of the presolve's stage in the report.
    presolve_share : float
        The share of the time limit the presolve's choices on held-out folds may use, as the estimator plans them
        for its parameters and training rows (0: it has nothing to choose; :mod:`.fit_plan`).
    presolve_why : str
        What the presolve chooses, or why it chooses nothing (the plan's words).
    """

    estimator: str
    family: MIPFamily
    solver: str
    mip_gap: float | None = None
    threads: int | None = None
    seed: int = 0
    verbose: bool = False
    solver_options: Mapping = field(default_factory=dict)
    family_options: Mapping = field(default_factory=dict)
    family_options_with_start: Mapping = field(default_factory=dict)
    shares: Shares = Shares()
    start_methods: tuple = ("greedy",)
    hand_start: bool = True
    constraints: Callable | None = None
    parity: object | None = None
    feature_budget: object | None = None
    monotone: object | None = None
    greedy_name: str = "greedy"
    refine_name: str = "refit"
    presolve_stage: str = "presolve"
    presolve_share: float = 0.0
    presolve_why: str = ""

    @property
    def whole_model(self) -> bool:
        """Whether the MIP must see every row as it is (a user's rows or a parity constraint): no representative
        rows, no neighbourhood rounds on some rows."""
        return self.constraints is not None or self.parity is not None

    def solve_options(self, plan: SolvePlan | None = None, backend=None, with_start: bool = True) -> dict:
        """Keyword arguments of :func:`~optitrees.solvers.solve`: the backend's options for the model's size
        (``plan``), under the family's (and, when a start is handed over, its options for a solve from a start),
        under the user's (``backend``: the solver's, looked up when not given)."""
        backend = get_backend(self.solver) if backend is None else backend
        raw = {**(plan.options if plan is not None else {}), **family_options(backend, self.family_options),
               **(family_options(backend, self.family_options_with_start) if with_start else {}),
               **dict(self.solver_options)}
        return dict(solver=self.solver, mip_gap=self.mip_gap, threads=self.threads, seed=self.seed,
                    verbose=bool(self.verbose), solver_options=raw)


def _none(*args):
    return None


@dataclass(frozen=True)
class FitHooks:
    """What an estimator plugs into the fit.

    Attributes
    ----------
    starts : callable
        ``starts(problem, deadline, methods) -> {name: model}``: the greedy start and those of ``methods``, each
        computed before ``deadline``.
    refine : callable
        ``refine(problem, model, deadline) -> model or None``: an improved model from the solver's, found before
        ``deadline`` (a ``time.perf_counter()`` value, ``None``: no limit).
    exact_search : callable
        ``exact_search(problem, budget, log) -> ExactSearch or None``.
    presolve : callable
        ``presolve(problem, budget) -> problem``: the problem with what a search before the build decides.
    report_checks : callable
        ``report_checks(problem) -> dict``: what the family adds to the report's checks.
    parity_starts : callable
        ``parity_starts(problem, parity, deadline) -> {name: model}``: starts a family finds for a parity constraint
        (:class:`optitrees.fairness.GroupParity`), each keeping it, before ``deadline``.
    parity_exact : callable
        ``parity_exact(problem, parity, budget, log) -> ExactSearch or None``: a family's exact search for the
        optimum under a parity constraint (:func:`~.parity.fair_exact`); a proof ends the fit.
    """

    starts: Callable
    refine: Callable = _none
    exact_search: Callable = _none
    presolve: Callable = lambda problem, budget: problem
    report_checks: Callable = lambda problem: {}
    parity_starts: Callable = lambda problem, parity, deadline: {}
    parity_exact: Callable = lambda problem, parity, budget, log: None
