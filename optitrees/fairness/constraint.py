"""A fit held to a parity notion: the block its formulation gets, the check every returned tree passes and the
repair of one that does not (its leaves relabelled, :mod:`.relabel`), and the figures of its report.

:class:`GroupParity` is written on the rows the MIP fit sees (identical rows merged only within one group and one
stratum, so every cell keeps its rows' weight); the tree it checks is routed on those rows.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ..trees import Tree
from .block import add_group_parity
from .cells import ParityCells
from .notions import REPORTED, ParityNotion
from .relabel import fair_leaf_labels

__all__ = ["GroupParity", "TOLERANCE"]

#: How far past its bound a disparity may lie and the model still keep it (floating-point sums of equal rates).
TOLERANCE = 1e-9


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

    def add_to(self, f) -> None:
        """The parity block (:func:`~.block.add_group_parity`) on ``f``'s routing and leaf labels."""
        add_group_parity(f, self.cells, self.bound)

    def disparity(self, tree: Tree, X) -> float:
        return self.cells.disparity(tree.predict(X) == 1)

    def keeps(self, tree: Tree, X) -> bool:
        """Whether ``tree`` (routing the rows ``X``) keeps the bound."""
        return self.disparity(tree, X) <= self.bound + TOLERANCE

    def repair(self, tree: Tree, X) -> Tree:
        """``tree`` when it keeps the bound; else the same splits with the fair labels of least error."""
        return tree if self.keeps(tree, X) else self.relabel(tree, X)

    def relabel(self, tree: Tree, X) -> Tree:
        """The same splits with the leaves' fair labels of least error (:func:`~.relabel.fair_leaf_labels`)."""
        reached = tree.apply(X)
        leaves = np.flatnonzero(tree.is_leaf)
        position = np.searchsorted(leaves, reached)
        labels = fair_leaf_labels(position, self.y01, self.objective_weight, self.cells, self.bound, len(leaves))
        label = tree.label.copy()
        label[leaves] = labels
        return replace(tree, label=label)

    def report(self, tree: Tree, X) -> dict:
        """``{notion name: disparity}`` on the rows: the four reported notions (:data:`~.notions.REPORTED`) and the
        one held, with ``"bound"``, the notion ``"held"`` and whether the tree ``"keeps"`` it."""
        positive = tree.predict(X) == 1
        out = {}
        for kind in REPORTED:
            cells = ParityCells.create(kind(), self.y01, self.groups, self.group_labels, self.cells.weight)
            out[kind.name] = cells.disparity(positive)
        out[self.notion.name] = self.cells.disparity(positive)
        out.update(held=self.notion.name, bound=self.bound, keeps=bool(out[self.notion.name] <= self.bound + TOLERANCE))
        return out
