"""Group fairness a model is held to: the notions (fairlearn's names), their cells, the formulation block that
holds a tree to them, the relabelling that repairs a tree's leaves, and the disparities of predictions.

>>> import numpy as np
>>> from optitrees.fairness import DemographicParity, disparity
>>> disparity(DemographicParity(), [1, 0, 1, 0], [1, 1, 0, 0], sensitive_features=["a", "a", "b", "b"])
1.0
"""

from .cells import ParityCells, group_codes, stratum_codes
from .constraint import TOLERANCE, GroupParity
from .metrics import disparities, disparity
from .notions import (ConditionalStatisticalParity, DemographicParity, EqualizedOdds, FalsePositiveRateParity,
                      ParityNotion, TruePositiveRateParity)

__all__ = ["ParityNotion", "DemographicParity", "TruePositiveRateParity", "FalsePositiveRateParity", "EqualizedOdds",
           "ConditionalStatisticalParity", "disparity", "disparities", "GroupParity", "ParityCells", "group_codes",
           "stratum_codes", "TOLERANCE"]
