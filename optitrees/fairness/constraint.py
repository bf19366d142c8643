"""A fit held to a parity notion: the block its formulation gets, the check every returned model passes and the
repair of one that does not (a tree's leaves relabelled, :mod:`.relabel`; a score card's threshold moved,
:mod:`.threshold`), and the figures of its report.

:class:`GroupParity` is written on the rows the MIP fit sees (identical rows merged only within one group and one
stratum, so every cell keeps its rows' weight); the tree it checks is routed on those rows.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ..scorecard import ScoreCard
from ..trees import LeafModel, Tree
from .block import add_group_parity, add_row_parity
from .cells import ParityCells
from .notions import REPORTED, ParityNotion
from .relabel import fair_leaf_choices, fair_leaf_labels
from .threshold import fair_threshold

__all__ = ["GroupParity", "TOLERANCE", "predicted_positive"]

#: How far past its bound a disparity may lie and the model still keep it (floating-point sums of equal rates).
TOLERANCE = 1e-9
#: The quantiles of a linear leaf's training scores its threshold may move to when its tree is made fair.
SHIFTS = np.linspace(0.1, 0.9, 9)


def predicted_positive(model: Tree | ScoreCard, X) -> np.ndarray:
    """Whether ``model`` predicts each row of ``X`` positive: a tree's class index 1, a score card's log-odds above
    0 (as the estimators predict)."""
    if isinstance(model, ScoreCard):
        return model.decision_function(X) > 0
    return model.predict(X) == 1


@dataclass(frozen=True)
class GroupParity:
    """``notion`` held on rows with positive labels ``y01``, groups ``groups`` (labels ``group_labels``), sample
    weights ``sample_weight``, objective weights ``objective_weight`` (the sample weights times the class weights)
    and legitimate-feature codes ``strata``."""

    notion: ParityNotion
    cells: ParityCells
    y01: np.ndarray
    objective_weight: np.ndarray
    groups: np.ndarray
    group_labels: list
    strata: np.ndarray | None = None

    @classmethod
    def create(cls, notion, y01, groups, group_labels, sample_weight, objective_weight, strata=None):
        cells = ParityCells.create(notion, y01, groups, group_labels, sample_weight, strata)
        return cls(notion, cells, np.asarray(y01), np.asarray(objective_weight, float), np.asarray(groups),
                   list(group_labels), strata)

    @property
    def bound(self) -> float:
        return float(self.notion.difference_bound)

    def add_to(self, f, family=None) -> None:
        """The parity block on ``f``: written in the rows' predicted-positive binaries where the family
        (``family.predicted_positive``) predicts row by row (:func:`~.block.add_row_parity`), else in the routing
        and the leaves' labels (:func:`~.block.add_group_parity`)."""
        if family is not None and family.predicted_positive is not None:
            add_row_parity(f, self.cells, self.bound, family.predicted_positive(f))
        else:
            add_group_parity(f, self.cells, self.bound)

    def disparity(self, model: Tree | ScoreCard, X) -> float:
        return self.cells.disparity(predicted_positive(model, X))

    def keeps(self, model: Tree | ScoreCard, X) -> bool:
        """Whether ``model`` (a tree routing the rows ``X``, or a score card) keeps the bound."""
        return self.disparity(model, X) <= self.bound + TOLERANCE

    def repair(self, model: Tree | ScoreCard, X) -> Tree | ScoreCard:
        """``model`` when it keeps the bound; else a tree's splits with the fair labels of least error
        (:meth:`relabel`), a score card's points with the fair threshold of least error (:meth:`rethreshold`)."""
        if self.keeps(model, X):
            return model
        return self.rethreshold(model, X) if isinstance(model, ScoreCard) else self.relabel(model, X)

    @staticmethod
    def repair_text(model: Tree | ScoreCard) -> str:
        """What :meth:`repair` changes in ``model``, for a fit's notes."""
        return "its intercept was moved" if isinstance(model, ScoreCard) else "its leaves were relabelled"

    def rethreshold(self, card: ScoreCard, X) -> ScoreCard:
        """The card's rules and points with the intercept of least error that keeps the bound on the rows ``X``
        (:func:`~.threshold.fair_threshold`), rounded to a short number that predicts every row alike."""
        c = fair_threshold(card.totals(X), self.y01, self.objective_weight, self.cells, self.bound, -card.intercept)
        return replace(card, intercept=-c).with_readable_intercept(X)

    def relabel(self, tree: Tree, X) -> Tree:
        """The same splits with the leaves' fair labels of least error (:func:`~.relabel.fair_leaf_labels`); a
        linear leaf keeps its model, moves its threshold (its intercept shifted to put the threshold at one of
        :data:`SHIFTS` quantiles of its rows' scores) or becomes a constant negative or positive leaf (weights 0,
        intercept -1 or +1), whichever the fair choice of least error says (:func:`~.relabel.fair_leaf_choices`)."""
        reached = tree.apply(X)
        leaves = np.flatnonzero(tree.is_leaf)
        position = np.searchsorted(leaves, reached)
        if tree.leaf_model is LeafModel.LINEAR:
            return self._rethresholded(tree, X, leaves, position, reached)
        labels = fair_leaf_labels(position, self.y01, self.objective_weight, self.cells, self.bound, len(leaves))
        label = tree.label.copy()
        label[leaves] = labels
        return replace(tree, label=label)

    def _rethresholded(self, tree, X, leaves, position, reached) -> Tree:
        """:meth:`relabel` of a tree with linear leaves."""
        score = tree.leaf_scores(X, reached)
        thresholds = np.zeros((len(leaves), len(SHIFTS)))
        for k in range(len(leaves)):                               # a few leaves: one quantile call each
            mine = score[position == k]
            if mine.size:
                thresholds[k] = np.quantile(mine, SHIFTS)
        own = score > 0
        options = np.column_stack([own, np.zeros_like(own), np.ones_like(own), score[:, None] > thresholds[position]])
        chosen = fair_leaf_choices(position, options, self.y01, self.objective_weight, self.cells, self.bound,
                                   len(leaves))
        weights, intercept = tree.weights.copy(), tree.intercept.copy()
        for k, option in enumerate(chosen):
            t = leaves[k]
            if option in (1, 2):                                   # a constant leaf
                weights[t], intercept[t] = 0.0, (1.0 if option == 2 else -1.0)
            elif option > 2:                                       # the threshold moved to a quantile
                intercept[t] -= thresholds[k, option - 3]
        fixed = tree.with_nodes(np.arange(tree.n_nodes), weights=weights, intercept=intercept)
        # a row exactly on a moved threshold may land on the other side in floating point: checked, else constant
        return fixed if self.keeps(fixed, X) else self._constant(tree, leaves)

    def _constant(self, tree, leaves) -> Tree:
        """Every leaf the constant of least error (negative or positive): every cell gets the same rate."""
        weights, intercept = tree.weights.copy(), tree.intercept.copy()
        positive = self.objective_weight @ (self.y01 == 1) > self.objective_weight @ (self.y01 != 1)
        weights[leaves], intercept[leaves] = 0.0, (1.0 if positive else -1.0)
        return tree.with_nodes(np.arange(tree.n_nodes), weights=weights, intercept=intercept)

    def report(self, model: Tree | ScoreCard, X) -> dict:
        """``{notion name: disparity}`` on the rows: the four reported notions (:data:`~.notions.REPORTED`) and the
        one held, with ``"bound"``, the notion ``"held"`` and whether the model ``"keeps"`` it."""
        positive = predicted_positive(model, X)
        out = {}
        for kind in REPORTED:
            cells = ParityCells.create(kind(), self.y01, self.groups, self.group_labels, self.cells.weight)
            out[kind.name] = cells.disparity(positive)
        out[self.notion.name] = self.cells.disparity(positive)
        out.update(held=self.notion.name, bound=self.bound, keeps=bool(out[self.notion.name] <= self.bound + TOLERANCE))
        return out
