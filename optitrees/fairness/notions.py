"""The group-fairness notions a model can be held to, named as fairlearn names them.

Each notion is a set of *conditions* (row subsets) within which the positive-prediction rate of every group must be
within ``difference_bound`` of every other group's (seed 002's fairness constraints on the leaves' predictions,
written as a bound on the largest difference between any two groups, so more than two groups are allowed)::

    |rate(c, g) - rate(c, h)| <= delta      every condition c, every two groups g, h with rows in c

    rate(c, g) = sum_{i in c, g} v_i [prediction_i = positive] / sum_{i in c, g} v_i

with the rows' sample weights ``v``. The notions:

* :class:`DemographicParity`: every row (fairlearn's ``demographic_parity_difference``);
* :class:`TruePositiveRateParity` (equal opportunity): the positive rows (``true_positive_rate_difference``);
* :class:`FalsePositiveRateParity` (predictive equality): the negative rows (``false_positive_rate_difference``);
* :class:`EqualizedOdds`: the positive rows and the negative rows (``equalized_odds_difference``, the larger of the
  two differences);
* :class:`ConditionalStatisticalParity`: the rows of each value of a legitimate feature (no fairlearn metric).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np

__all__ = ["ParityNotion", "DemographicParity", "TruePositiveRateParity", "FalsePositiveRateParity", "EqualizedOdds",
           "ConditionalStatisticalParity", "REPORTED", "MAX_STRATA"]

#: The most distinct values the legitimate feature of :class:`ConditionalStatisticalParity` may take (each is a
#: condition of its own; a continuous feature must be binned first).
MAX_STRATA = 64


@dataclass(frozen=True)
class ParityNotion(ABC):
    """A group-fairness notion with its bound ``difference_bound`` (a share: 0.05 = 5 points of rate)."""

    difference_bound: float = 0.05

    #: The notion's name in reports (fairlearn's, where it has one).
    name = "parity"

    def __post_init__(self):
        bound = self.difference_bound
        if isinstance(bound, bool) or not isinstance(bound, Real) or not np.isfinite(bound) or not 0 <= bound <= 1:
            raise ValueError(f"{type(self).__name__}: difference_bound must be a number in [0, 1], got {bound!r}")

    @abstractmethod
    def conditions(self, y01: np.ndarray, strata: np.ndarray | None = None) -> tuple[list[str], np.ndarray]:
        """``(labels, member)``: the notion's conditions, ``member[k, i]`` whether row ``i`` is in condition
        ``k`` (``y01``: 1 for the positive class; ``strata``: the legitimate feature's value code per row)."""

    @property
    def legitimate_feature(self):
        """The feature the notion conditions on (``None``: none)."""
        return None


def _on(y01, *wanted):
    y01 = np.asarray(y01)
    return np.stack([y01 == w for w in wanted])


@dataclass(frozen=True)
class DemographicParity(ParityNotion):
    """Demographic (statistical) parity: the share of rows predicted positive in every group."""

    name = "demographic_parity"

    def conditions(self, y01, strata=None):
        return ["all rows"], np.ones((1, len(y01)), bool)


@dataclass(frozen=True)
class TruePositiveRateParity(ParityNotion):
    """Equal opportunity: the true-positive rate (positive rows predicted positive) in every group."""

    name = "true_positive_rate_parity"

    def conditions(self, y01, strata=None):
        return ["positive rows"], _on(y01, 1)


@dataclass(frozen=True)
class FalsePositiveRateParity(ParityNotion):
    """Predictive equality: the false-positive rate (negative rows predicted positive) in every group."""

    name = "false_positive_rate_parity"

    def conditions(self, y01, strata=None):
        return ["negative rows"], _on(y01, 0)


@dataclass(frozen=True)
class EqualizedOdds(ParityNotion):
    """Equalized odds: both the true- and the false-positive rate (fairlearn's ``equalized_odds_difference`` is
    the larger of the two differences)."""

    name = "equalized_odds"

    def conditions(self, y01, strata=None):
        return ["positive rows", "negative rows"], _on(y01, 1, 0)


@dataclass(frozen=True)
class ConditionalStatisticalParity(ParityNotion):
    """Conditional statistical parity: demographic parity among the rows of each value of a legitimate feature
    ``legitimate`` (a column name of ``X`` or its index; at most :data:`MAX_STRATA` distinct values)."""

    legitimate: str | int | None = None
    name = "conditional_statistical_parity"

    def __post_init__(self):
        super().__post_init__()
        ok = isinstance(self.legitimate, str) or (isinstance(self.legitimate, Integral)
                                                  and not isinstance(self.legitimate, bool))
        if not ok:
            raise ValueError("ConditionalStatisticalParity needs legitimate=<a column name or index of X>, got "
                             f"{self.legitimate!r}")

    @property
    def legitimate_feature(self):
        return self.legitimate

    def conditions(self, y01, strata=None):
        if strata is None:
            raise ValueError("ConditionalStatisticalParity needs the legitimate feature's values")
        values = np.unique(strata)
        return [f"stratum {int(v)}" for v in values], np.asarray(strata)[None, :] == values[:, None]


#: The notions every fairness report measures (besides the one a fit was held to).
REPORTED = (DemographicParity, TruePositiveRateParity, FalsePositiveRateParity, EqualizedOdds)
