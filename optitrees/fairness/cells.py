"""The cells of a parity constraint: each (condition, group) pair with rows, its rows and their weights.

A notion (:mod:`.notions`) names its conditions; the sensitive features name the groups. Every quantity a fair
model is held to is a rate per cell, ``rate(q) = sum_{i in q} v_i p_i / W_q`` with ``p_i`` 1 when row ``i`` is
predicted positive and ``W_q = sum_{i in q} v_i`` (cells of no weight are left out: their rate is undefined), and
the disparity of a condition is the largest rate of its cells less the smallest.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd

from .notions import MAX_STRATA, ParityNotion

__all__ = ["ParityCells", "group_codes", "stratum_codes"]


def group_codes(sensitive_features, n_rows: int) -> tuple[np.ndarray, list[str]]:
    """``(code per row, group labels)``: the groups of ``sensitive_features`` (one value per row, or several
    columns whose combinations are the groups, as fairlearn forms them).

    Raises
    ------
    ValueError
        Not one entry per row, missing values, or a single group.
    """
    if sensitive_features is None:
        raise ValueError("a fairness constraint needs sensitive_features=<the group of each row> in fit")
    frame = pd.DataFrame(sensitive_features) if np.ndim(sensitive_features) == 2 else \
        pd.DataFrame({"group": np.asarray(sensitive_features, dtype=object).ravel()
                      if not isinstance(sensitive_features, pd.Series) else sensitive_features.to_numpy()})
    if len(frame) != n_rows:
        raise ValueError(f"sensitive_features has {len(frame)} rows; X has {n_rows}")
    if frame.isna().to_numpy().any():
        raise ValueError("sensitive_features has missing values: give every row a group")
    keys = frame.astype(str).agg(",".join, axis=1) if frame.shape[1] > 1 else frame.iloc[:, 0].astype(str)
    codes, labels = pd.factorize(keys, sort=True)
    if len(labels) < 2:
        raise ValueError(f"sensitive_features holds a single group ({labels[0]!r}): parity needs at least two")
    return codes.astype(np.int64), [str(v) for v in labels]


def stratum_codes(column) -> np.ndarray:
    """The value code of each row of the legitimate feature (at most :data:`~.notions.MAX_STRATA` values)."""
    column = np.asarray(column, dtype=float)
    if np.isnan(column).any():
        raise ValueError("the legitimate feature of ConditionalStatisticalParity has missing values")
    values, codes = np.unique(column, return_inverse=True)
    if len(values) > MAX_STRATA:
        raise ValueError(f"the legitimate feature of ConditionalStatisticalParity takes {len(values)} values; at most "
                         f"{MAX_STRATA} are conditions of their own (bin it first)")
    return codes.astype(np.int64)


@dataclass(frozen=True)
class ParityCells:
    """The cells of one notion on some rows.

    Attributes
    ----------
    notion : ParityNotion
    condition_labels, group_labels : list of str
    condition : ndarray of int of shape (n_cells,)
        Each cell's condition.
    group : ndarray of int of shape (n_cells,)
    member : ndarray of bool of shape (n_cells, n_rows)
        The rows of each cell.
    weight : ndarray of shape (n_rows,)
        Each row's sample weight ``v_i`` (not the class weights of the objective).
    """

    notion: ParityNotion
    condition_labels: list
    group_labels: list
    condition: np.ndarray
    group: np.ndarray
    member: np.ndarray
    weight: np.ndarray

    @classmethod
    def create(cls, notion: ParityNotion, y01, groups, group_labels, weight=None, strata=None) -> "ParityCells":
        """The cells of ``notion`` on rows with positive labels ``y01 == 1``, group codes ``groups`` (labels
        ``group_labels``), sample weights ``weight`` (ones) and legitimate-feature codes ``strata``."""
        y01, groups = np.asarray(y01), np.asarray(groups, np.int64)
        weight = np.ones(len(y01)) if weight is None else np.asarray(weight, float)
        labels, in_condition = notion.conditions(y01, strata)
        in_group = groups[None, :] == np.arange(len(group_labels))[:, None]
        member = in_condition[:, None, :] & in_group[None, :, :]            # (conditions, groups, rows)
        total = (member * weight).sum(axis=2)
        kept = np.argwhere(total > 0)
        return cls(notion, list(labels), list(group_labels), kept[:, 0], kept[:, 1],
                   member[kept[:, 0], kept[:, 1]], weight)

    @property
    def n_cells(self) -> int:
        return len(self.condition)

    @property
    def n_conditions(self) -> int:
        return len(self.condition_labels)

    @cached_property
    def totals(self) -> np.ndarray:
        """``W_q`` per cell (computed once: every rate divides by it)."""
        return self.member.astype(float) @ self.weight

    def cell_labels(self) -> list[str]:
        return [f"{self.condition_labels[k]}: {self.group_labels[g]}" for k, g in zip(self.condition, self.group)]

    def rates(self, positive) -> np.ndarray:
        """Each cell's rate of rows predicted positive (``positive``: bool per row)."""
        return (self.member.astype(float) @ (self.weight * np.asarray(positive, float))) / self.totals

    def differences(self, positive) -> np.ndarray:
        """Per condition, the largest rate of its cells less the smallest (0 for a condition of one cell)."""
        rates = self.rates(positive)
        hi = np.full(self.n_conditions, -np.inf)
        lo = np.full(self.n_conditions, np.inf)
        np.maximum.at(hi, self.condition, rates)
        np.minimum.at(lo, self.condition, rates)
        return np.where(np.isfinite(hi), hi - lo, 0.0)

    def disparity(self, positive) -> float:
        """The notion's disparity: the largest difference over its conditions."""
        return float(self.differences(positive).max(initial=0.0))
