"""The public registry of estimators: the names the command line and studies use, and the classes saved files may
hold (:mod:`optitrees.persistence`)."""

from __future__ import annotations

from .forest._contextual_classifier import ContextualTreeClassifier
from .forest._contextual_regressor import ContextualTreeRegressor
from .forest._rule_set import RuleSetClassifier
from .mip._held_out_c import OLCTClassifierCV
from .mip._loss_optimal import LossOptimalTreeClassifier
from .mip._loss_optimal_presets import MARGOTClassifier, OLCTClassifier
from .mip._loss_optimal_regressor import LossOptimalTreeRegressor
from .mip._oct import OCTClassifier, OCTHClassifier
from .mip._risk_scores import GeneralizedRiskScoreClassifier, RiskScoreClassifier
from .search._c45 import C45Classifier
from .search._local_search import TAOClassifier
from .search._tmo import TMOClassifier
from .search._regression_tree import CARTRegressor, OptimalTreeRegressor, TAORegressor
from .search._uct_dt import UCTDTClassifier

__all__ = ["ESTIMATORS"]

#: every estimator of the library by its command-line name
ESTIMATORS = {
    "olct": OLCTClassifier, "olct-cv": OLCTClassifierCV, "margot": MARGOTClassifier,
    "loss-optimal": LossOptimalTreeClassifier, "oct": OCTClassifier, "octh": OCTHClassifier,
    "risk-score": RiskScoreClassifier, "generalized-risk-score": GeneralizedRiskScoreClassifier,
    "tao": TAOClassifier, "tmo": TMOClassifier, "c45": C45Classifier, "uct-dt": UCTDTClassifier,
    "rule-set": RuleSetClassifier, "contextual-tree": ContextualTreeClassifier,
    "contextual-tree-regressor": ContextualTreeRegressor, "cart-regressor": CARTRegressor,
    "tao-regressor": TAORegressor, "optimal-tree-regressor": OptimalTreeRegressor,
    "loss-optimal-regressor": LossOptimalTreeRegressor,
}
