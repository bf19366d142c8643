"""A budget on what the features a model reads cost to measure (``feature_costs=``, ``max_feature_cost=``).

A model *reads* feature ``j`` when any of its splits, leaf models or score-card rules has a nonzero weight on it.
With a cost ``c_j >= 0`` per feature and a budget ``B``, the model must keep

    sum_j c_j u_j <= B,    u_j = 1 when the model reads feature j            (feature_cost)

``max_total_features`` is the case ``c_j = 1``. In a MIP, :func:`add_feature_budget` adds ``u[F]`` binary (the
set ``F`` holds the features) and links it to every variable group through which the family reads features
(:class:`FeatureUse`, given by the family's ``feature_use``):

    x[..., k] <= u[j(k)]                  a binary selector (OCT's a[t, j], OCT-H's delta[t, j], a score's a[j])
    -M u[j(k)] <= x[..., k] <= M u[j(k)]  a bounded weight |x| <= M (the loss-optimal trees' w[t, j])

where ``j(k)`` is the feature the ``k``-th entry of the group's ``J`` axis reads (itself, or a candidate rule's
feature). :class:`FeatureBudget` holds the costs and the budget, reads the features of a fitted model (a
:class:`~optitrees.trees.Tree` or a :class:`~optitrees.scorecard.ScoreCard`), checks it and reports it, and picks
the affordable features a start is grown on.
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Real

import numpy as np

from ..mip import Formulation, VariableGroup
from ..mip.expressions import Data
from ..scorecard import ScoreCard
from ..trees import LeafModel, Tree

__all__ = ["FeatureUse", "FeatureBudget", "add_feature_budget", "features_read", "TOLERANCE"]

#: How far past the budget a model's cost may lie and still keep it (floating-point sums of the costs).
TOLERANCE = 1e-9


@dataclass(frozen=True)
class FeatureUse:
    """A variable group through which a model reads features: ``group`` (its dims include ``"J"``), ``bound``
    (``None``: a binary selector, ``x <= u``; else ``|x| <= bound * u``) and ``features`` (the feature index each
    position along ``J`` reads; ``None``: position ``k`` reads feature ``k``)."""

    group: VariableGroup
    bound: float | None = None
    features: np.ndarray | None = None


def add_feature_budget(f: Formulation, uses, costs, budget: float, labels) -> VariableGroup:
    """The feature-cost block (module docstring) on ``f``: ``feature_read[F]`` binary over the features
    ``labels``, its link rows to each of ``uses`` (``reads_<group>`` and, for bounded weights,
    ``reads_<group>_neg``) and the row ``feature_cost: sum_j c_j u_j <= budget``. Returns ``u``."""
    costs = np.asarray(costs, float)
    f.add_set("F", labels)
    u = f.add_variables("feature_read", ("F",), 0.0, 1.0, domain="binary")
    for use in uses:
        group = use.group
        n_columns = group.shape[group.dims.index("J")]
        reads = np.arange(n_columns) if use.features is None else np.asarray(use.features, int)
        u_read = (u * Data(reads[:, None] == np.arange(len(labels))[None, :], ("J", "F"))).sum("F")
        scale = 1.0 if use.bound is None else float(use.bound)
        f.add_constraints(f"reads_{group.name}", group - scale * u_read <= 0, equation="x <= M u")
        if use.bound is not None:
            f.add_constraints(f"reads_{group.name}_neg", -group - scale * u_read <= 0, equation="-x <= M u")
    if "one" not in f.sets:
        f.add_set("one", np.array([0]))
    f.add_constraints("feature_cost", (u * Data(costs[None, :], ("one", "F"))).sum("F") <= float(budget),
                      equation="sum_j c_j u_j <= B")
    return u


def features_read(model, n_features: int) -> np.ndarray:
    """Mask of the features ``model`` reads: a tree's splits and linear leaves with a nonzero weight on them, a
    score card's rules with nonzero points."""
    mask = np.zeros(n_features, bool)
    if isinstance(model, Tree):
        nodes = ~model.is_leaf
        if model.leaf_model in (LeafModel.LINEAR, LeafModel.LINEAR_VALUE):
            nodes = np.ones_like(nodes)
        mask |= (np.asarray(model.weights)[nodes] != 0).any(axis=0)
    elif isinstance(model, ScoreCard):
        mask[model.features[model.points != 0]] = True
    else:
        raise TypeError(f"cannot read the features of a {type(model).__name__}")
    return mask


def _costs(feature_costs, names) -> np.ndarray:
    p = len(names)
    if isinstance(feature_costs, dict):
        unknown = [k for k in feature_costs if str(k) not in set(map(str, names))]
        if unknown:
            raise ValueError(f"feature_costs names features the data do not have: {unknown}")
        index = {str(n): j for j, n in enumerate(names)}
        costs = np.zeros(p)
        for key, value in feature_costs.items():
            costs[index[str(key)]] = _one_cost(value, key)
        return costs
    if isinstance(feature_costs, str) or any(isinstance(c, (bool, np.bool_)) for c in np.ravel(
            np.asarray(feature_costs, dtype=object))):
        raise ValueError(f"feature_costs must be numbers, one per feature, or a dict of them by feature name; got "
                         f"{feature_costs!r}")
    try:
        costs = np.asarray(feature_costs, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"feature_costs must be numbers, one per feature, or a dict of them by feature name: "
                         f"{exc}") from None
    if costs.ndim != 1 or len(costs) != p:
        raise ValueError(f"feature_costs has shape {costs.shape}; the data have {p} features")
    for j, c in enumerate(costs):
        _one_cost(c, names[j])
    return costs


def _one_cost(value, name) -> float:
    if isinstance(value, bool) or not isinstance(value, (Real, np.number)):
        raise ValueError(f"the cost of feature {name!r} must be a number, got {value!r}")
    value = float(value)
    if not np.isfinite(value) or value < 0:
        raise ValueError(f"the cost of feature {name!r} must be finite and >= 0, got {value!r}")
    return value


@dataclass(frozen=True)
class FeatureBudget:
    """Costs ``costs`` of the features ``names`` and the budget ``budget`` on the features a model reads
    (``None``: costs reported, nothing held)."""

    costs: np.ndarray
    budget: float | None
    names: tuple

    @classmethod
    def create(cls, feature_costs, max_feature_cost, names) -> "FeatureBudget | None":
        """The budget of an estimator's ``feature_costs`` (``None``: a unit cost each; a sequence, one per
        feature; a dict by feature name, unnamed features costing 0) and ``max_feature_cost`` (``None``: no
        budget); ``None`` when neither is given.

        Raises
        ------
        ValueError
            A cost is negative, not finite or not a number; the costs do not match the features; the budget is
            negative or not finite.
        """
        if feature_costs is None and max_feature_cost is None:
            return None
        names = tuple(str(n) for n in names)
        costs = np.ones(len(names)) if feature_costs is None else _costs(feature_costs, names)
        if max_feature_cost is not None:
            if isinstance(max_feature_cost, bool) or not isinstance(max_feature_cost, (Real, np.number)) \
                    or not np.isfinite(max_feature_cost) or max_feature_cost < 0:
                raise ValueError(f"max_feature_cost must be a finite number >= 0, got {max_feature_cost!r}")
            max_feature_cost = float(max_feature_cost)
        return cls(costs, max_feature_cost, names)

    @property
    def holds(self) -> bool:
        """Whether there is a budget to keep."""
        return self.budget is not None

    def read(self, model) -> np.ndarray:
        """Mask of the features ``model`` reads (:func:`features_read`)."""
        return features_read(model, len(self.names))

    def cost(self, model) -> float:
        """What the features ``model`` reads cost."""
        return float(self.costs[self.read(model)].sum())

    def keeps(self, model) -> bool:
        """Whether ``model`` keeps the budget (always, without one)."""
        return self.budget is None or self.cost(model) <= self.budget + TOLERANCE

    def add_to(self, f: Formulation, uses) -> None:
        """The block of :func:`add_feature_budget` on ``f`` for the family's ``uses`` (nothing without a budget)."""
        if self.budget is not None:
            add_feature_budget(f, uses, self.costs, self.budget, list(self.names))

    def cheapest(self, count: int, allowed=None) -> np.ndarray:
        """Indices of the ``count`` cheapest allowed features (ties: lower index first)."""
        allowed = np.ones(len(self.names), bool) if allowed is None else np.asarray(allowed, bool)
        candidates = np.flatnonzero(allowed)
        return candidates[np.argsort(self.costs[candidates], kind="stable")[:count]]

    def most_affordable(self, allowed=None) -> int:
        """The most allowed features the budget can pay for together (the cheapest first): how far an ordering of
        the features needs to go."""
        allowed = np.ones(len(self.names), bool) if allowed is None else np.asarray(allowed, bool)
        if self.budget is None:
            return int(allowed.sum())
        costs = np.sort(self.costs[allowed])
        return int(np.searchsorted(np.cumsum(costs), self.budget + TOLERANCE, side="right"))

    def check_reachable(self, fewest: int, allowed=None) -> None:
        """Raise ``ValueError`` when no ``fewest`` allowed features fit in the budget (a model that must read that
        many, e.g. a generalized score's rules, cannot keep it)."""
        if self.budget is None or fewest <= 0:
            return
        cheapest = self.cheapest(fewest, allowed)
        if len(cheapest) < fewest or self.costs[cheapest].sum() > self.budget + TOLERANCE:
            raise ValueError(f"the model reads at least {fewest} features, and the {fewest} cheapest allowed cost "
                             f"{self.costs[cheapest].sum():g}, over max_feature_cost={self.budget:g}")

    def affordable(self, order, allowed=None, fewest: int = 0) -> np.ndarray:
        """Mask of the features a start may read: along ``order`` (e.g. the l1-logistic path's), every allowed
        feature whose cost still fits in what the budget has left (free features always do). When that gives fewer
        than ``fewest`` features, the ``fewest`` cheapest come first (:meth:`check_reachable` says they fit)."""
        allowed = np.ones(len(self.names), bool) if allowed is None else np.asarray(allowed, bool)
        if self.budget is None:
            return allowed.copy()
        kept = self._along(order, allowed, np.zeros(len(self.names), bool))
        if kept.sum() < fewest:
            kept = np.zeros(len(self.names), bool)
            kept[self.cheapest(fewest, allowed)] = True
            kept = self._along(order, allowed, kept)
        return kept

    def _along(self, order, allowed, kept) -> np.ndarray:
        kept = kept.copy()
        left = self.budget - self.costs[kept].sum()
        for j in order:
            if allowed[j] and not kept[j] and self.costs[j] <= left + TOLERANCE:
                kept[j] = True
                left -= self.costs[j]
        return kept

    def report(self, model) -> dict:
        """``{"cost", "budget", "keeps", "features"}`` of ``model``: what its features cost, the budget (``None``
        without one), whether it keeps it, and the names of the features it reads."""
        return self.report_read(self.read(model))

    def report_read(self, read) -> dict:
        """:meth:`report` of the features of the mask ``read`` (several models' features together: each paid
        once)."""
        read = np.asarray(read, bool)
        cost = float(self.costs[read].sum())
        return {"cost": cost, "budget": self.budget,
                "keeps": bool(self.budget is None or cost <= self.budget + TOLERANCE),
                "features": [self.names[j] for j in np.flatnonzero(read)]}
