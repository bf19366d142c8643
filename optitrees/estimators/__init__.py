"""scikit-learn estimators, one module per model family."""

from ._loss_optimal import LossOptimalTreeClassifier, MARGOTClassifier, OLCTClassifier
from ._oct import OCTClassifier, OCTHClassifier
from ._risk_scores import GeneralizedRiskScoreClassifier, RiskScoreClassifier

__all__ = ["LossOptimalTreeClassifier", "OLCTClassifier", "MARGOTClassifier", "OCTClassifier", "OCTHClassifier",
           "RiskScoreClassifier", "GeneralizedRiskScoreClassifier"]
