"""Multi-class fits of binary tree families: one tree per class against the rest, within one budget.

The loss-optimal trees of seed 002 (3.12) are binary: each layer's linear
classifiers separate two classes, and seed 002 leaves the multi-class tree to
future work. For ``K > 2`` classes the estimator fits ``K`` trees, tree ``k``
on class ``k`` (+1) against all the others (-1), each with its own greedy /
TAO / TMO starts and MIP as in the binary fit, and predicts the class whose
tree gives the largest leaf score (:class:`~optitrees.trees.OneVsRestTrees`).
The ``K`` fits share the time limit: each gets an equal share of what is left
when it starts. ``class_weight="balanced"`` balances each binary tree (class
``k`` against the rest, as scikit-learn's ``OneVsRestClassifier`` around a
balanced estimator); a ``dict`` weighs the rows of each class in every tree.
Their objective is the sum of the ``K`` binary objectives (3.12), each exact,
so the sum is optimal when all ``K`` are proven optimal.

Under a feature budget (``max_feature_cost``) the ``K`` trees read features from one affordable set, the first
ones of the multi-class l1-logistic path that fit in the budget together (:func:`shared_features`), so the features
of all ``K`` trees keep it; a proof is then a proof among trees on those features (the report's ``restriction``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.base import clone

from ..trees import OneVsRestTrees
from ._report import FitOutcome, FitReport
from .mip_fit.feature_costs import affordable_features

__all__ = ["more_than_two_classes", "fit_one_vs_rest"]


def more_than_two_classes(y) -> bool:
    """Whether ``y`` holds more than two labels (``False`` when it cannot be read: the binary fit says why)."""
    try:
        return len(np.unique(np.asarray(y).ravel())) > 2
    except (TypeError, ValueError):
        return False


def fit_one_vs_rest(estimator, X, y, sample_weight, budget):
    """Fit ``estimator`` (a binary family) on ``K > 2`` classes as ``K`` one-vs-rest trees; returns it.

    Sets ``classes_``, ``estimators_`` (the ``K`` fitted binary estimators;
    estimator ``k``'s positive class ``True`` is ``classes_[k]``),
    ``one_vs_rest_`` (their trees), ``tree_ = None``, ``objective_`` (the sum of
    their objectives), ``feature_importances_`` (their mean) and ``fit_report_``.
    """
    estimator._validate_params()
    for name in [k for k in vars(estimator) if k.endswith("_") and not k.startswith("_")]:
        delattr(estimator, name)                         # nothing of an earlier fit survives
    balanced = isinstance(estimator.class_weight, str) and estimator.class_weight == "balanced"
    training = estimator._fit_data(X, y, sample_weight, binary=False, class_weight=not balanced)
    budget.lap("validate")
    K = len(estimator.classes_)
    names = getattr(estimator, "feature_names_in_", None)
    X_fit = training.X if names is None else pd.DataFrame(training.X, columns=names)
    if estimator._monotone() is not None:
        raise ValueError(f"monotonic_cst needs two classes; y has {K}")
    costs = estimator._feature_budget()
    shared = None if costs is None or not costs.holds else shared_features(estimator, costs, training)
    budget.lap("affordable features")
    fits = []
    for k in range(K):
        sub = clone(estimator)
        left = budget.remaining()
        sub.set_params(time_limit=None if left is None else left / (K - k),
                       class_weight="balanced" if balanced else None)
        if shared is not None:
            sub.set_params(forbidden_features=[int(j) for j in np.flatnonzero(~shared)] or None)
        fits.append(sub.fit(X_fit, training.y == k, sample_weight=training.weights))
        budget.lap(f"class {estimator.classes_[k]}")
    estimator.estimators_ = fits
    estimator.one_vs_rest_ = OneVsRestTrees(tuple(f.tree_ for f in fits))
    estimator.tree_ = None
    estimator.objective_ = float(sum(f.objective_ for f in fits))
    importances = np.mean([f.feature_importances_ for f in fits], axis=0)
    total = importances.sum()
    estimator.feature_importances_ = importances / total if total > 0 else importances
    estimator.fit_report_ = _report(estimator, fits, budget, training, costs, shared)
    return estimator


def shared_features(estimator, costs, training) -> np.ndarray:
    """Mask of the features the one-vs-rest trees may read under the feature budget ``costs``: along the
    l1-logistic path of all classes (a stratified sample of ``ORDER_ROWS`` rows beyond that), each allowed feature
    whose cost fits in what the budget has left."""
    return affordable_features(costs, training.X, training.y, training.weights, estimator._allowed_features(),
                               estimator._seed)


def _cost_report(costs, fits) -> dict | None:
    """The report's ``feature_cost`` of the ``K`` trees together (a feature read by several is paid once)."""
    if costs is None:
        return None
    return costs.report_read(np.any([costs.read(f.tree_) for f in fits], axis=0))


def _report(estimator, fits, budget, training, costs=None, shared=None) -> FitReport:
    reports = [f.fit_report_ for f in fits]
    proven = all(r.outcome.proven for r in reports)
    restrictions = [f"class {c}: {r.restriction}" for c, r in zip(estimator.classes_, reports)
                    if r.restriction is not None]
    if shared is not None:
        restrictions.insert(0, "trees on the features the budget affords together {"
                            + ", ".join(costs.names[j] for j in np.flatnonzero(shared)) + "}")
    bounds = [r.bound for r in reports]
    classes = estimator.classes_
    methods = sorted({r.method for r in reports})
    notes = (f"{len(fits)} one-vs-rest trees: tree k scores class k against the rest; the prediction is the "
             "class with the largest score, the objective the sum of the trees' objectives",)
    notes += tuple(f"class {c}: {n}" for c, r in zip(classes, reports) for n in r.notes)
    return FitReport(
        estimator=type(estimator).__name__,
        outcome=(FitOutcome.NOT_PROVEN if not proven else FitOutcome.PROVEN_RESTRICTED if restrictions
                 else FitOutcome.PROVEN_OPTIMAL), restriction="; ".join(restrictions) or None,
        method="one-vs-rest " + "/".join(methods), returned="model", objective=estimator.objective_,
        seconds=budget.elapsed, time_limit=budget.seconds, rows=training.n_input_rows,
        distinct_rows=len(training.y), weighted=training.weighted,
        objectives={f"class {c}": r.objective for c, r in zip(classes, reports)} | {"returned": estimator.objective_},
        solved_by=next((r.solved_by for r in reports if r.solved_by), None),
        certified_by=reports[0].certified_by if proven else None,
        bound=float(sum(bounds)) if all(b is not None for b in bounds) else None,
        stages=dict(budget.stages), notes=notes, feature_cost=_cost_report(costs, fits))
