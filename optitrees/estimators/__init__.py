"""scikit-learn estimators, one module per model family.

Every estimator stands on :class:`~._base.OptitreesEstimator` (input checks,
labels, weights, feature names, the budget, tags); the MIP estimators run one
fit template (:mod:`._template`); every fit ends by writing ``fit_report_``
(:class:`FitReport`).
"""

from ._report import FitOutcome, FitReport
from .forest._contextual_classifier import ContextualTreeClassifier
from .forest._contextual_regressor import ContextualTreeRegressor
from .forest._rule_set import RuleSetClassifier
from .mip._held_out_c import OLCTClassifierCV
from .mip._loss_optimal import LossOptimalTreeClassifier
from .mip._loss_optimal_presets import MARGOTClassifier, OLCTClassifier
from .mip._loss_optimal_regressor import LossOptimalTreeRegressor
from .mip._oct import OCTClassifier, OCTHClassifier
from .mip._risk_scores import GeneralizedRiskScoreClassifier, RiskScoreClassifier
from .mip._template import MIPClassifier
from .search._c45 import C45Classifier
from .search._local_search import TAOClassifier
from .search._tmo import TMOClassifier
from .search._regression_tree import CARTRegressor, OptimalTreeRegressor, RegressionPruning, TAORegressor
from .search._uct_dt import UCTDTClassifier

__all__ = ["LossOptimalTreeClassifier", "OLCTClassifier", "OLCTClassifierCV", "MARGOTClassifier", "OCTClassifier",
           "OCTHClassifier", "RiskScoreClassifier", "GeneralizedRiskScoreClassifier", "TAOClassifier", "TMOClassifier",
           "MIPClassifier", "C45Classifier", "UCTDTClassifier", "RuleSetClassifier",
           "ContextualTreeClassifier", "ContextualTreeRegressor", "CARTRegressor", "TAORegressor",
           "OptimalTreeRegressor", "LossOptimalTreeRegressor", "RegressionPruning", "FitReport", "FitOutcome"]
