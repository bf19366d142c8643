"""optitrees: interpretable classifiers learned by optimization.

Estimators (:mod:`optitrees.estimators`) fit trees and score cards by
mixed-integer programs (:mod:`optitrees.formulations`, on the container of
:mod:`optitrees.mip`) solved by HiGHS or any Pyomo solver
(:mod:`optitrees.solvers`), with the heuristics of :mod:`optitrees.algorithms`;
fitted models are :class:`~optitrees.trees.Tree` or
:class:`~optitrees.scorecard.ScoreCard` objects, printed and drawn by
:mod:`optitrees.export` (text, dict, SQL, figures); fitted estimators save to
JSON and load back with :func:`save_model` / :func:`load_model`.

>>> from optitrees import OLCTClassifier, formulations, solvers
"""

from . import algorithms, exceptions, export, formulations, solvers
from .estimators import (C45Classifier, CARTRegressor, ContextualTreeClassifier, ContextualTreeRegressor, FitOutcome,
                         FitReport, GeneralizedRiskScoreClassifier, LossOptimalTreeClassifier, LossOptimalTreeRegressor,
                         MARGOTClassifier, OCTClassifier, OCTHClassifier, OLCTClassifier, OLCTClassifierCV,
                         OptimalTreeRegressor, RiskScoreClassifier, RuleSetClassifier, TAOClassifier, TAORegressor,
                         TMOClassifier, UCTDTClassifier)
from .mip import Formulation
from .persistence import load_model, save_model
from .rule_set import RuleSet
from .scorecard import ScoreCard
from .solvers import solve
from .topology import Topology
from .trees import Tree
from ._version import __version__


__all__ = ["LossOptimalTreeClassifier", "OLCTClassifier", "OLCTClassifierCV", "MARGOTClassifier", "OCTClassifier",
           "OCTHClassifier", "RiskScoreClassifier", "GeneralizedRiskScoreClassifier", "TAOClassifier", "TMOClassifier",
           "C45Classifier", "UCTDTClassifier", "RuleSetClassifier", "ContextualTreeClassifier",
           "ContextualTreeRegressor", "CARTRegressor", "TAORegressor", "OptimalTreeRegressor",
           "LossOptimalTreeRegressor", "FitReport", "FitOutcome",
           "ScoreCard", "RuleSet", "Tree", "Topology", "Formulation",
           "save_model", "load_model",
           "algorithms", "exceptions", "export", "formulations", "solvers", "solve", "__version__"]
