""":class:`OLCTClassifierCV`: OLCT whose loss weights ``C`` are chosen on held-out rows within the fit (seed 002,
Section 3.3: ``C_h in {10^i, i = -2, ..., 2}`` by cross-validation)."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import Interval

from ...algorithms.loss_optimal.held_out import choose_C
from ...formulations.loss_optimal.model import per_layer
from ._loss_optimal import _fill
from ._loss_optimal_presets import OLCTClassifier

__all__ = ["OLCTClassifierCV"]

#: The seed's grid of loss weights, ``10^i`` for ``i = -2..2`` (one value for every layer).
DEFAULT_CS = (0.01, 0.1, 1.0, 10.0, 100.0)


class OLCTClassifierCV(OLCTClassifier):
    """OLCT (seed 002, 3.17) with the loss weight ``C`` chosen on held-out rows, then fitted as
    :class:`OLCTClassifier` with it.

    The seed tunes ``C_h`` by cross-validation over ``{10^i, i = -2..2}`` before each final fit. Here the choice
    is part of ``fit`` and of its ``time_limit``: each candidate's greedy tree
    (:func:`~optitrees.algorithms.loss_optimal.greedy.greedy_tree`) is fitted on ``n_folds - 1`` stratified
    folds and scored by the weighted mean log loss of its leaves on the held-out fold
    (:func:`~optitrees.algorithms.loss_optimal.held_out.choose_C`; the folds are drawn over the fit's distinct
    rows, so a row and its copies are held out together); the candidate of least mean loss is then
    the ``C`` of the whole fit (starts, MIP, refinement), whose exact objective (3.17) with that ``C`` is what
    ``objective_`` reports. At most ``cv_share`` of the time limit goes to the choice; folds it does not reach
    are left out and every candidate is compared on the same folds. When the limit comes during the first fold,
    the candidates that fold reached are compared on it (``cv_results_["candidates_scored"]``); with none, the
    middle candidate (``1.0`` in the default grid, OLCT's default) is used and ``cv_results_["folds_scored"]``
    is 0.

    Why: on thousands of rows OLCT's default ``C = 1`` barely regularizes (the loss sums a term per row against
    ``||w||_1 <= 10``). In ``bench/scale.py --part loss`` (depth 2, 60 s fits, 4,000-28,000 rows of a2a, a4a,
    phishing, spambase and adult, three splits) OLCT's trees beat the greedy tree's training objective in 35 of
    36 fits but were 0.09 points of test balanced accuracy below it on average, most on 4,000 rows of the adult
    family. This estimator chose ``C = 0.1`` in 33 of the 36 fits; its trees beat their greedy tree in 36 of 36,
    at +0.01 +- 0.09 points of test balanced accuracy, and their test log loss was 0.009 below OLCT's.

    Parameters
    ----------
    max_depth : int, default=2
    Cs : sequence, default=(0.01, 0.1, 1.0, 10.0, 100.0)
        Candidate loss weights, from the strongest regularization up (ties go to the earlier one); each a
        scalar for every layer or one value per layer.
    n_folds : int, default=4
        Folds (the seed's 4; fewer when a class has fewer rows, none with one row: then the middle candidate).
    cv_share : float, default=0.2
        Share of ``time_limit`` the choice may use (without a limit every fold is scored).
    tangents, univariate, max_features, max_total_features, weight_bound, refine
        As in :class:`OLCTClassifier` (``"auto"``: the budget per hyperplane is chosen after ``C``, with it,
        and the tree-wide budget after both).
{solver_doc}

{attributes_doc}
    C_ : ndarray of shape (max_depth,)
        Two classes: the chosen loss weight of each layer (with more, each of ``estimators_`` has its own).
    cv_results_ : dict
        Two classes: ``"C"`` (the candidates, per layer), ``"mean_held_out_loss"`` (per candidate, ``nan``
        when not compared), ``"folds_scored"`` and ``"candidates_scored"``.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = OLCTClassifierCV(max_depth=1, Cs=(0.1, 1.0), time_limit=10, random_state=0).fit(X[:120], y[:120])
    >>> float(clf.C_[0]) in (0.1, 1.0), clf.cv_results_["folds_scored"]
    (True, 4)
    """

    _parameter_constraints = {key: value for key, value in OLCTClassifier._parameter_constraints.items()
                              if key != "C"}
    _parameter_constraints.update({"Cs": ["array-like"], "n_folds": [Interval(Integral, 2, None, closed="left")],
                                   "cv_share": [Interval(Real, 0, 1, closed="right")]})

    _presolve_stage = "held-out C and budget"

    def __init__(self, max_depth=2, *, Cs=DEFAULT_CS, n_folds=4, cv_share=0.2, tangents="V3", univariate=False,
                 max_features="auto", max_total_features=None, weight_bound=10.0, refine=True, warm_start=True,
                 solver="highs", time_limit=60.0, mip_gap=1e-4, threads=None, random_state=None, verbose=False,
                 solver_options=None, forbidden_features=None, constraints=None, class_weight=None, feature_costs=None,
                 max_feature_cost=None, monotonic_cst=None):
        self.max_depth = max_depth
        self.Cs = Cs
        self.n_folds = n_folds
        self.cv_share = cv_share
        self.tangents = tangents
        self.univariate = univariate
        self.max_features = max_features
        self.max_total_features = max_total_features
        self.weight_bound = weight_bound
        self.refine = refine
        self.warm_start = warm_start
        self.solver = solver
        self.time_limit = time_limit
        self.mip_gap = mip_gap
        self.threads = threads
        self.random_state = random_state
        self.verbose = verbose
        self.solver_options = solver_options
        self.forbidden_features = forbidden_features
        self.constraints = constraints
        self.class_weight = class_weight
        self.feature_costs = feature_costs
        self.max_feature_cost = max_feature_cost
        self.monotonic_cst = monotonic_cst

    def _candidates(self) -> list:
        """``Cs`` checked: a non-empty sequence of scalars or per-layer sequences (``ValueError`` names the bad
        one)."""
        candidates = list(self.Cs)
        if not candidates:
            raise ValueError("Cs must hold at least one candidate C")
        depth = int(self.max_depth)
        return [per_layer(c, depth, f"Cs[{k}]") for k, c in enumerate(candidates)]

    def _loss_weights(self):
        """The chosen ``C_`` once fitted; before, the fallback (the middle candidate)."""
        chosen = getattr(self, "C_", None)
        if chosen is not None:
            return chosen
        candidates = self._candidates()
        return candidates[len(candidates) // 2]

    def _presolve_plan(self, n_rows):
        """``cv_share`` for ``C``, then the shares of the feature budgets (:meth:`HeldOutChoices._presolve_plan`)."""
        share, why = super()._presolve_plan(n_rows)
        return float(self.cv_share) + share, "C" + (" and " + why if why else " chosen on held-out folds")

    def _presolve(self, problem, budget):
        """Choose ``C`` on held-out folds (at most ``cv_share`` of the budget); the problem with that ``C``."""
        candidates = self._candidates()
        deadline = budget.until(self.cv_share)
        choice = choose_C(problem, candidates, lambda p: self._fitter(p, deadline=deadline), n_folds=self.n_folds,
                          fallback=len(candidates) // 2, random_state=self._seed, deadline=deadline)
        self.C_ = np.array(choice.C)
        self.cv_results_ = {"C": [np.array(c) for c in choice.candidates], "mean_held_out_loss": choice.mean_loss,
                            "folds_scored": choice.folds_scored, "candidates_scored": choice.candidates_scored}
        # then the feature budget of max_features="auto", with that C (its own share of the budget), and the
        # tree-wide budget
        return self._tree_wide(self._choose_budget(problem.with_C(choice.C), budget), budget)

    def _report_checks(self, problem):
        """The chosen ``C`` and the folds it was chosen on, beside the family's checks."""
        return {**super()._report_checks(problem), "C": [float(c) for c in problem.spec.C],
                "cv_folds_scored": self.cv_results_["folds_scored"]}

    def _fit(self, X, y, sample_weight, budget):
        for name in ("C_", "cv_results_"):            # an earlier fit's choice is not this one's
            self.__dict__.pop(name, None)
        return super()._fit(X, y, sample_weight, budget)


OLCTClassifierCV.__doc__ = _fill(OLCTClassifierCV.__doc__)
