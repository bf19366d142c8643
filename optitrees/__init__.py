"""optitrees: interpretable classifiers learned by mixed-integer optimization.

>>> from optitrees import OLCTClassifier, formulations, solvers
"""

from . import formulations, solvers
from .estimators import (LossOptimalTreeClassifier, MARGOTClassifier, OCTClassifier, OCTHClassifier,
                         GeneralizedRiskScoreClassifier, OLCTClassifier, RiskScoreClassifier)
from .solvers import solve
from .topology import Topology
from .scorecard import ScoreCard
from .tree import LabelTree, ObliqueTree

__version__ = "0.1.0"

__all__ = ["LossOptimalTreeClassifier", "OLCTClassifier", "MARGOTClassifier", "OCTClassifier", "OCTHClassifier",
           "RiskScoreClassifier", "GeneralizedRiskScoreClassifier", "ScoreCard",
           "ObliqueTree", "LabelTree", "Topology", "formulations", "solvers", "solve", "__version__"]
