"""The base of every MIP classifier: the parameters all share, and the family's hooks of the one MIP fit.

``fit`` validates the parameters (declared once per estimator in ``_parameter_constraints``, the model's own rules
in its family's ``Spec.create``) and the data before anything is built, then runs the MIP fit of
:mod:`optitrees.estimators.mip_fit` (starts, reduce, build, solve, refine, bound, report) within the time limit,
and keeps what it returns: the model, ``solver_result_``, ``method_`` (``greedy``, ``tao``, ``tmo``, ``mip`` or
``mip+tao``) and ``fit_report_``; each kind of event has its warning class (:mod:`optitrees.exceptions`).

An estimator provides its family (:class:`~optitrees.formulations.MIPFamily`), its scaling, ``_make_spec`` /
``_make_problem``, ``_starts(problem, deadline, methods)`` (the greedy start and those of ``methods``), and
optionally ``_presolve`` (settle the problem before the build), ``_exact_search`` and ``_refine``; its shares of
the budget (:class:`~optitrees.budget.Shares`) and the solver options it chose per backend (``_solver_defaults``).
"""

from __future__ import annotations

from dataclasses import replace
from numbers import Integral, Real

import numpy as np

from sklearn.base import clone
from sklearn.utils.validation import _num_samples
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions

from ...budget import Shares
from ...exceptions import warn
from ...fairness import GroupParity, ParityNotion, group_codes, stratum_codes
from ...scaling import ScaledData
from ...solvers import SolveOptions
from ...solvers.registry import get_backend
from .._base import CLASS_WEIGHT_CONSTRAINT, OptitreesClassifier
from .._input import resolve_features, resolve_forbidden
from .._report import ExactSearch
from ..mip_fit import FitHooks, FitSettings, MIPFit, StartChoice
from ..mip_fit.hook import build_with_hook
from ..mip_fit.settings import is_false
from ._model_constraints import ModelConstraints

__all__ = ["MIPClassifier"]


class MIPClassifier(ModelConstraints, OptitreesClassifier):
    """Base of the MIP estimators: parameters shared by all, and the fit template (see the module docstring).

    A family plugs in by setting ``_family`` and ``_scaling`` and defining
    :meth:`_make_spec`, :meth:`_make_problem` and :meth:`_starts` (the others
    have defaults).
    """

    #: The model family (build / start / decode / finalize / objective).
    _family = None
    #: A :class:`~optitrees.scaling.Scaling` (or its value) or ``None``: the scaling the family is formulated on.
    _scaling = None
    _binary = True
    #: How the fit divides the time limit (starts, the reserve after the solve ...).
    _shares = Shares()
    #: What ``warm_start=True`` means for the family.
    _default_start = "greedy"
    #: Name of :meth:`_presolve`'s stage in ``fit_report_.stages``.
    _presolve_stage = "presolve"
    #: Solver options the family solves with per backend unless ``solver_options`` says otherwise (measured by
    #: ``bench/solver_settings.py``), e.g. ``{"highs": {"presolve": "off"}}``.
    _solver_defaults: dict = {}
    #: Per backend, options for a solve handed a start (added to ``_solver_defaults``).
    _solver_defaults_with_start: dict = {}
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
        **ModelConstraints.PARAMETERS,
        "fairness": [HasMethods(["conditions"]), None],
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

    def _fit_settings(self) -> FitSettings:
        """The fit's settings from the parameters."""
        return FitSettings(
            estimator=type(self).__name__, family=self._family, solver=self.solver, mip_gap=self.mip_gap,
            threads=self.threads, seed=self._seed, verbose=bool(self.verbose),
            solver_options=dict(self.solver_options or {}), family_options=self._solver_defaults,
            family_options_with_start=self._solver_defaults_with_start,
            shares=self._shares, start_methods=self._start_methods, hand_start=not is_false(self.warm_start),
            constraints=self.constraints, feature_budget=self._feature_budget(), monotone=self._monotone(),
            greedy_name=self._greedy_name,
            refine_name=self._refine_name, presolve_stage=self._presolve_stage)

    def _solve_options(self) -> dict:
        """Options every solve of this fit shares (the greedy steps of a start too): the family's for the backend
        under the user's."""
        return self._fit_settings().solve_options()

    def _prepare(self, X, y, sample_weight=None, sensitive_features=None):
        """Check the solver settings and the data (parameters are validated first); return the family's
        problem on the weighted, merged rows (:meth:`OptitreesEstimator._fit_data`), those rows and the parity
        constraint of ``fairness`` on them (``None`` without one). Nothing is built yet."""
        SolveOptions(mip_gap=self.mip_gap, threads=self.threads, solver_options=self.solver_options or {})
        get_backend(self.solver)
        notion = getattr(self, "fairness", None)
        groups = None if notion is None else group_codes(sensitive_features, _num_samples(X))
        training = self._fit_data(X, y, sample_weight, keys=None if groups is None else groups[0])
        names = self._feature_names()
        parity = None if notion is None else self._parity(notion, training, groups[1], names)
        data = ScaledData.create(training.X, training.y, self._scaling, names, training.weight)
        spec = self._make_spec(resolve_forbidden(self.forbidden_features, names), len(self.classes_))
        problem = self._make_problem(spec, data)
        costs = self._feature_budget()                                   # checked before anything is built
        if costs is not None and costs.holds:
            if self._family.feature_use is None:
                raise ValueError(f"{type(self).__name__} takes no feature budget (max_feature_cost)")
            allowed = np.ones(len(names), bool)
            allowed[list(spec.forbidden)] = False
            costs.check_reachable(self._family.fewest_features(problem), allowed)
        if self._monotone() is not None:
            if len(self.classes_) != 2:
                raise ValueError(f"monotonic_cst needs two classes; y has {len(self.classes_)}")
        return problem, training, parity

    def _parity(self, notion, training, group_labels, names) -> GroupParity:
        """The parity constraint of ``notion`` on the fit's rows (two classes; the positive one is
        ``classes_[1]``)."""
        if not isinstance(notion, ParityNotion):
            raise ValueError("fairness must be a notion of optitrees.fairness (DemographicParity(difference_bound="
                             f"0.05), EqualizedOdds(...), ...), got {notion!r}")
        if len(self.classes_) != 2:
            raise ValueError(f"a fairness constraint needs two classes; y has {len(self.classes_)}")
        strata = None
        if notion.legitimate_feature is not None:
            (j,) = resolve_features(notion.legitimate_feature, names, "legitimate feature")
            strata = stratum_codes(training.X[:, j])
        y01 = (np.asarray(training.y) > 0).astype(np.int64)              # class index 1, or +1 of {-1, +1}
        return GroupParity.create(notion, y01, training.keys[:, 0], group_labels, training.sample_weight,
                                  training.weights, strata)

    def _build(self, problem, parity=None):
        return build_with_hook(self._family, problem, self.constraints, parity, self._feature_budget(),
                               self._monotone())

    def build_formulation(self, X, y, sample_weight=None, sensitive_features=None):
        """The formulation ``fit`` would solve for ``(X, y)``, with the ``fairness`` block (given the groups
        ``sensitive_features``) and the ``constraints`` hook applied.

        Its index set ``J`` holds the feature names, so exported files read
        ``w(1,serum_sodium)``. The estimator itself is left unfitted.
        """
        est = clone(self)
        est._validate_params()
        problem, _, parity = est._prepare(X, y, sample_weight, sensitive_features)
        return est._build(problem, parity)

    def _refine(self, problem, model, deadline):
        """An improved model from the solver's, found before ``deadline`` (a ``time.perf_counter()`` value,
        ``None``: no limit; ``None`` returned: this family has no refinement)."""
        return None

    def _presolve(self, problem, budget):
        """The problem with what a search before the build decides (e.g. a score card's multiplier)."""
        return problem

    def _presolve_plan(self, n_rows: int) -> tuple[float, str]:
        """``(share, why)``: the share of the time limit :meth:`_presolve`'s choices on held-out folds may use on
        ``n_rows`` training rows, and what they choose (``(0.0, "")``: nothing; the fit's plan reports it)."""
        return 0.0, ""

    def _exact_search(self, problem, budget, log) -> ExactSearch | None:
        """A dedicated exact search that replaces the MIP where it applies: ``None``, or its
        :class:`ExactSearch` (a model found without a proof becomes a start); ``log`` takes notes (why the
        search did not apply)."""
        return None

    def _parity_starts(self, problem, parity, deadline) -> dict:
        """Starts the family finds for a parity constraint (``{}``: none beyond the others relabelled)."""
        return {}

    def _parity_exact(self, problem, parity, budget, log) -> ExactSearch | None:
        """The family's exact search under a parity constraint (``None``: it has none)."""
        return None

    def _report_checks(self, problem) -> dict:
        """What the family adds to the report's ``checks`` (e.g. the multiplier a score card's MIP fixed)."""
        return {}

    @property
    def _start_methods(self) -> tuple:
        """The starts to compute: always the greedy one, then what ``warm_start`` asks for (nothing more
        with ``warm_start=False``: the greedy model is only the fallback then)."""
        return StartChoice.methods(self.warm_start, self._default_start)

    # -------------------------------------------------------------- fit
    def _fit(self, X, y, sample_weight, budget, sensitive_features=None):
        """Validate, then the MIP fit (:class:`~optitrees.estimators.mip_fit.MIPFit`) within ``budget``; keep
        what it returns. The parameters are those of :meth:`OptitreesEstimator.fit` (and ``sensitive_features``,
        the groups of ``fairness``)."""
        self._validate_params()
        prepared, training, parity = self._prepare(X, y, sample_weight, sensitive_features)
        budget.lap("validate")
        share, why = self._presolve_plan(len(training.y))
        settings = replace(self._fit_settings(), parity=parity, presolve_share=share, presolve_why=why)
        fit = MIPFit(settings, FitHooks(
            starts=self._starts, refine=self._refine, exact_search=self._exact_search, presolve=self._presolve,
            report_checks=self._report_checks, parity_starts=self._parity_starts,
            parity_exact=self._parity_exact), budget)
        outcome = fit.run(prepared, training)
        for kind, note in fit.notes:
            warn(note, kind)
        self.objective_ = outcome.objective
        self.start_objectives_ = outcome.start_objectives
        self.warm_start_objective_ = outcome.start_objectives[outcome.start_name]
        self.greedy_objective_ = outcome.start_objectives["greedy"]
        self.method_ = outcome.method
        self.solver_result_ = outcome.solver_result
        self.formulation_summary_ = outcome.formulation_summary
        self._store(outcome.problem, outcome.model)
        self.fit_report_ = outcome.report
        return self
