"""The names files of format version 1 gave the classes they hold, and where each now lives.

Version 1 named a class by its module path, ``module:QualName`` (``optitrees.trees._tree:Tree``), so every move of a
module had to be listed for old files to load. Version 2 names it by its public name alone (``Tree``,
``OLCTClassifier``: :func:`~._allowed.qualified`), which no move of a module changes. The tables here are frozen:
they translate version-1 names (including those written before the moves they list) to public names, and nothing is
added to them when a module moves.
"""

from __future__ import annotations

__all__ = ["MOVED_MODULES", "MOVED_CLASSES", "VERSION_1_NAMES", "public_name_of"]

#: modules of saved classes that have since moved (files written before the move name the old module)
MOVED_MODULES = {
    "optitrees.algorithms.policy_network": "optitrees.algorithms.contextual.policy_network",
    "optitrees.algorithms.contextual_bandit": "optitrees.algorithms.contextual.bandit",
    "optitrees.algorithms.risk_search": "optitrees.algorithms.risk_scores.beam_search",
    "optitrees.algorithms.regression_pruning": "optitrees.algorithms.regression.t_test_pruning",
    "optitrees.algorithms.uct_dt": "optitrees.algorithms.uct_dt.tree_search",
    "optitrees.algorithms.c45": "optitrees.algorithms.c45.induction",
    # the estimators in families (sub-packages of optitrees.estimators)
    "optitrees.estimators._held_out_c": "optitrees.estimators.mip._held_out_c",
    "optitrees.estimators._loss_optimal": "optitrees.estimators.mip._loss_optimal",
    "optitrees.estimators._loss_optimal_presets": "optitrees.estimators.mip._loss_optimal_presets",
    "optitrees.estimators._loss_optimal_regressor": "optitrees.estimators.mip._loss_optimal_regressor",
    "optitrees.estimators._oct": "optitrees.estimators.mip._oct",
    "optitrees.estimators._risk_scores": "optitrees.estimators.mip._risk_scores",
    "optitrees.estimators._local_search": "optitrees.estimators.search._local_search",
    "optitrees.estimators._uct_dt": "optitrees.estimators.search._uct_dt",
    "optitrees.estimators._c45": "optitrees.estimators.search._c45",
    "optitrees.estimators._regression_tree": "optitrees.estimators.search._regression_tree",
    "optitrees.estimators._contextual_classifier": "optitrees.estimators.forest._contextual_classifier",
    "optitrees.estimators._contextual_regressor": "optitrees.estimators.forest._contextual_regressor",
    "optitrees.estimators._rule_set": "optitrees.estimators.forest._rule_set",
}

#: classes that moved out of a module that still exists, by their old saved names (after :data:`MOVED_MODULES`)
MOVED_CLASSES = {
    "optitrees.estimators.search._local_search:TMOClassifier": "optitrees.estimators.search._tmo:TMOClassifier",
}

#: every class a version-1 file may name, by the module path it was saved under last, to its public name
VERSION_1_NAMES = {
    "optitrees.trees._tree:Tree": "Tree",
    "optitrees.trees._one_vs_rest:OneVsRestTrees": "OneVsRestTrees",
    "optitrees.scorecard:ScoreCard": "ScoreCard",
    "optitrees.rule_set:Rule": "Rule",
    "optitrees.rule_set:RuleSet": "RuleSet",
    "optitrees.solvers.results:SolverResult": "SolverResult",
    "optitrees.estimators._report:FitReport": "FitReport",
    "optitrees.fairness.notions:DemographicParity": "DemographicParity",
    "optitrees.fairness.notions:TruePositiveRateParity": "TruePositiveRateParity",
    "optitrees.fairness.notions:FalsePositiveRateParity": "FalsePositiveRateParity",
    "optitrees.fairness.notions:EqualizedOdds": "EqualizedOdds",
    "optitrees.fairness.notions:ConditionalStatisticalParity": "ConditionalStatisticalParity",
    "optitrees.algorithms.contextual.bandit:TrainingHistory": "TrainingHistory",
    "optitrees.algorithms.contextual.policy_network:PolicyNetwork": "PolicyNetwork",
    "optitrees.estimators._report:FitOutcome": "FitOutcome",
    "optitrees.solvers.results:SolutionStatus": "SolutionStatus",
    "optitrees.solvers.results:TerminationCondition": "TerminationCondition",
    "optitrees.trees._tree:LeafModel": "LeafModel",
    "optitrees.estimators.search._regression_tree:RegressionPruning": "RegressionPruning",
    "optitrees.formulations.oblique_regression:RegressionLoss": "RegressionLoss",
    "optitrees.scaling:Scaling": "Scaling",
    "optitrees.estimators.mip._loss_optimal_presets:OLCTClassifier": "OLCTClassifier",
    "optitrees.estimators.mip._held_out_c:OLCTClassifierCV": "OLCTClassifierCV",
    "optitrees.estimators.mip._loss_optimal_presets:MARGOTClassifier": "MARGOTClassifier",
    "optitrees.estimators.mip._loss_optimal:LossOptimalTreeClassifier": "LossOptimalTreeClassifier",
    "optitrees.estimators.mip._oct:OCTClassifier": "OCTClassifier",
    "optitrees.estimators.mip._oct:OCTHClassifier": "OCTHClassifier",
    "optitrees.estimators.mip._risk_scores:RiskScoreClassifier": "RiskScoreClassifier",
    "optitrees.estimators.mip._risk_scores:GeneralizedRiskScoreClassifier": "GeneralizedRiskScoreClassifier",
    "optitrees.estimators.search._local_search:TAOClassifier": "TAOClassifier",
    "optitrees.estimators.search._tmo:TMOClassifier": "TMOClassifier",
    "optitrees.estimators.search._c45:C45Classifier": "C45Classifier",
    "optitrees.estimators.search._uct_dt:UCTDTClassifier": "UCTDTClassifier",
    "optitrees.estimators.forest._rule_set:RuleSetClassifier": "RuleSetClassifier",
    "optitrees.estimators.forest._contextual_classifier:ContextualTreeClassifier": "ContextualTreeClassifier",
    "optitrees.estimators.forest._contextual_regressor:ContextualTreeRegressor": "ContextualTreeRegressor",
    "optitrees.estimators.search._regression_tree:CARTRegressor": "CARTRegressor",
    "optitrees.estimators.search._regression_tree:TAORegressor": "TAORegressor",
    "optitrees.estimators.search._regression_tree:OptimalTreeRegressor": "OptimalTreeRegressor",
    "optitrees.estimators.mip._loss_optimal_regressor:LossOptimalTreeRegressor": "LossOptimalTreeRegressor",
}


def public_name_of(saved: str) -> str | None:
    """The public name of the class a version-1 file names ``saved`` (``module:QualName``, its module possibly one
    that has since moved), or ``None``."""
    module, _, rest = saved.partition(":")
    moved = f"{MOVED_MODULES.get(module, module)}:{rest}"
    return VERSION_1_NAMES.get(moved) or VERSION_1_NAMES.get(MOVED_CLASSES.get(moved, ""))
