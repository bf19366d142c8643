"""A fit held to ``monotonic_cst``: the block a family's formulation gets, the check every returned model passes
and the repair of one that does not.

* The MIPs that can hold it get its bounds or rows, so a proof is a proof under the constraint: the loss-optimal
  trees (no split reads a constrained feature, each leaf weighs it with its sign; their spec carries the signs, so
  every node fit of their starts and refinements keeps it too) and the risk scores (``MIPFamily.monotone``: the
  points on a constrained feature take its sign).
* Label-leaf trees are held by their leaves: a start or candidate that is not monotone gets the monotone leaf
  labels of least error (:mod:`.relabel`): region by region for an axis-aligned tree (OCT), by the order of its
  splits' subtrees for an oblique one (OCT-H, whose MIP holds that order too:
  :func:`~optitrees.formulations.oct.blocks.add_monotone_order`).
* Any other model that is not proved monotone is repaired where it can be: a linear leaf's or a score's weight of
  the wrong sign set to 0 (a split reading a constrained feature cannot be repaired, and such a model is not
  returned).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ..scorecard import ScoreCard
from ..trees import LeafModel, Tree
from .check import check_monotonic
from .relabel import monotone_relabel

__all__ = ["MonotoneConstraint"]


@dataclass(frozen=True)
class MonotoneConstraint:
    """The signs ``signs`` (one per feature, -1 / 0 / +1) over the features ``names``."""

    signs: np.ndarray
    names: tuple

    @property
    def constrained(self) -> np.ndarray:
        return self.signs != 0

    def on_columns(self, features) -> "MonotoneConstraint":
        """The constraint on columns that each read the feature ``features[k]`` (a score's candidate rules)."""
        features = np.asarray(features, np.int64)
        return MonotoneConstraint(self.signs[features], tuple(self.names[j] for j in features))

    def add_to(self, f, family) -> None:
        """The family's monotone block on ``f`` (nothing for a family held by its leaves)."""
        if family.monotone is not None:
            family.monotone(f, self.signs)

    def check(self, model, X=None):
        """:func:`~.check.check_monotonic` of ``model`` (``X``: rows a search moves)."""
        return check_monotonic(model, self.signs, X)

    def keeps(self, model, X=None) -> bool:
        """Whether ``model`` is *proved* monotone: a search that finds no violation is not enough (a linear-leaf
        tree whose splits read a constrained feature, an oblique label tree)."""
        return self.check(model, X).proven

    def repair(self, model, X, y01, weight=None):
        """``model`` when it keeps the constraint; else the model repaired (module docstring), or ``None`` when it
        cannot be."""
        if self.keeps(model, X):
            return model
        if isinstance(model, Tree) and model.leaf_model is LeafModel.LABEL:
            return monotone_relabel(model, self.signs, X, y01, weight)
        if isinstance(model, ScoreCard):
            moves = np.where(model.per_unit | model.greater, 1, -1) * model.points
            wrong = self.signs[model.features] * moves < 0
            return replace(model, points=np.where(wrong, 0, model.points))
        if isinstance(model, Tree) and model.leaf_model in (LeafModel.LINEAR, LeafModel.LINEAR_VALUE):
            if (model.weights[~model.is_leaf][:, self.constrained] != 0).any():
                return None
            weights = model.weights.copy()
            leaves = model.is_leaf
            wrong = (self.signs[None, :] * weights < 0) & leaves[:, None]
            weights[wrong] = 0.0
            fixed = model.with_nodes(np.arange(model.n_nodes), weights=weights)
            return fixed if self.keeps(fixed, X) else None
        return None

    def report(self, model, X=None) -> dict:
        """``{"signs", "exact", "keeps", "violations"}``: the constrained features' signs by name, whether the
        check is a proof, whether no violation was found and how many were."""
        found = self.check(model, X)
        return {"signs": {self.names[j]: int(self.signs[j]) for j in np.flatnonzero(self.signs)},
                "exact": found.exact, "keeps": found.keeps, "violations": len(found.violations)}
