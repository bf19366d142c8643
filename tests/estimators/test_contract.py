"""scikit-learn's API contract for every estimator."""

import warnings

from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import Binarizer
from sklearn.utils.estimator_checks import parametrize_with_checks

from optitrees import (GeneralizedRiskScoreClassifier, LossOptimalTreeClassifier, MARGOTClassifier, OCTClassifier,
                       OCTHClassifier, OLCTClassifier, OLCTClassifierCV, RiskScoreClassifier, TAOClassifier,
                       TMOClassifier, C45Classifier, UCTDTClassifier, RuleSetClassifier, ContextualTreeClassifier,
                       ContextualTreeRegressor, CARTRegressor, TAORegressor, OptimalTreeRegressor, LossOptimalTreeRegressor)


# sklearn's Pipeline itself fails these two (it sets `steps` during fit); they are not about our estimator
_PIPELINE_OWN = {"check_estimators_overwrite_params": "Pipeline sets steps in fit",
                 "check_dont_overwrite_parameters": "Pipeline sets steps in fit"}


# scikit-learn's weight-equivalence check sets an estimator's ``cv`` to index splits of the input rows; the rule
# sets' ``cv`` is a number of folds drawn from the distinct rows (tests/estimators/test_weights.py checks the
# equivalence with repeated rows itself)
_CV_FOLDS_ONLY = {"check_sample_weight_equivalence_on_dense_data": "cv is a number of folds over the distinct rows"}


# the check gives class 0 weight 1000 and the others 1e-4 on noisy blobs and expects 87% of the test points
# predicted 0; the optimal depth-2 tree keeps every class-0 training point right and still carves leaves that are
# pure in the light classes (weighted objective 0.79 < 1 for "all class 0"), so 74-78% of the test points get 0.
# tests/estimators/test_weights.py checks that class weights move these trees as they should
_EXACT_TREE_CLASS_WEIGHT = {"check_class_weight_classifiers": "optimal trees carve pure light-class leaves"}


def _expected_failures(est):
    if hasattr(est, "steps"):
        return _PIPELINE_OWN
    if isinstance(est, RuleSetClassifier):
        return _CV_FOLDS_ONLY
    exact_tree = isinstance(est, (OCTClassifier, OCTHClassifier)) and est.min_samples_leaf == 1
    return _EXACT_TREE_CLASS_WEIGHT if exact_tree else {}


# A wall-clock limit makes the returned incumbent depend on timing, which would
# make checks that fit twice and compare flaky; the depth-2 cases stop on a
# node limit instead (deterministic), with a generous time limit as a guard. The
# MIP trees start from TAO here: the default start (best of greedy, TAO and a
# 100-tree TMO) costs seconds per fit, and these checks fit hundreds of times.
# HiGHS's root work on the big-M trees is long whatever the node limit (per fit
# on the checks' blobs: OCT-H 16-18 s, the combined losses 7 s, OCT by MIP 3.5 s),
# so those stop at node limit 0: HiGHS returns the handed start, and the checks
# still run the whole fit (start, model, handoff, decoding, status). The
# generalized score card, the depth-1 MARGOT and the squared-loss regressor
# solve their root node only too (the card ran to its 20 s time limit on the
# checks' random labels), and the depth-2 OLCT starts from the greedy tree and
# skips the TAO refinement after its solve (a TAO start and the refinement took
# 85% of each fit; test_olct_classifier checks both).
# The estimators are checked on HiGHS: the same estimator on SCIP ran the same API code on another backend at
# 21 s of CPU a run (test_loss_optimal_classifier and test_cut_loop check SCIP's exact MARGOT against HiGHS's).
# OLCT is checked once, at depth 2 (a depth-1 entry ran the same estimator's API on a smaller model); the
# depth-2 MIPs meet three-class data too (one tree per class).
@parametrize_with_checks([OLCTClassifier(max_depth=2, time_limit=60, tangents="V0", warm_start="greedy", refine=False,
                                         solver_options={"mip_max_nodes": 0}),
                          # the held-out choice of C over two candidates and two folds, then a depth-1 OLCT fit (the
                          # API is OLCT's, checked above at depth 2; 13 -> 8 s of CPU)
                          OLCTClassifierCV(max_depth=1, Cs=(0.1, 1.0), n_folds=2, time_limit=60, tangents="V0",
                                           warm_start="greedy", refine=False, solver_options={"mip_max_nodes": 0}),
                          MARGOTClassifier(max_depth=1, time_limit=30, warm_start="tao",
                                           solver_options={"mip_max_nodes": 0}),
                          LossOptimalTreeClassifier(max_depth=2, loss=["misclassification", "hinge"],
                                                    regularizer=None, time_limit=60, warm_start="greedy",
                                                    refine=False, solver_options={"mip_max_nodes": 0}),
                          OCTClassifier(max_depth=2, alpha=0.01, time_limit=60, warm_start="tao",
                                        solver_options={"mip_max_nodes": 20}),
                          OCTClassifier(max_depth=2, min_samples_leaf=2, exact_search="mip", time_limit=60,
                                        warm_start="tao", solver_options={"mip_max_nodes": 0}),
                          TAOClassifier(max_depth=2, oblique=True, alpha=0.01, random_state=0),
                          # alpha > 0 as above: with alpha = 0 the tree carves pure light-class leaves (0.74 of the
                          # test points get class 0 with or without the tree-wide budget)
                          TAOClassifier(max_depth=2, oblique=True, alpha=0.01, max_total_features="auto",
                                        random_state=0),
                          TMOClassifier(max_depth=2, n_estimators=4, n_generations=1, random_state=0),
                          OCTHClassifier(max_depth=2, alpha=0.01, time_limit=60, warm_start="tao",
                                         solver_options={"mip_max_nodes": 0}),
                          C45Classifier(),
                          RuleSetClassifier(n_rules=3, n_estimators=10, random_state=0),
                          ContextualTreeClassifier(n_estimators=5, max_epochs=3, hidden_layer_sizes=(8,),
                                                   random_state=0),
                          ContextualTreeRegressor(n_estimators=5, max_epochs=3, hidden_layer_sizes=(8,),
                                                  random_state=0),
                          UCTDTClassifier(n_iterations=20, random_state=0),
                          CARTRegressor(max_depth=4, random_state=0),
                          CARTRegressor(pruning="cost_complexity", ccp_alpha=0.01, min_samples_leaf=3, random_state=0),
                          TAORegressor(max_depth=3, random_state=0),
                          OptimalTreeRegressor(max_depth=2, n_thresholds=8),
                          OptimalTreeRegressor(max_depth=2, n_thresholds=8, linear_leaves=True, lasso_penalty=0.1),
                          LossOptimalTreeRegressor(max_depth=2, time_limit=60, solver_options={"mip_max_nodes": 0}),
                          # depth 1 (one linear leaf): the cut loop re-solves MIPs at depth 2, 3-4 s a round here
                          LossOptimalTreeRegressor(max_depth=1, loss="squared", time_limit=60,
                                                   solver_options={"mip_max_nodes": 0}),
                          # the parallel search (n_jobs=2, a process pool per fit) is checked in test_uct_dt_classifier
                          UCTDTClassifier(n_iterations=20, policy="c45b", random_state=0),
                          C45Classifier(search_uncertainty=0.1, propagation_uncertainty=0.1,
                                        evaluation_uncertainty=0.1),
                          GeneralizedRiskScoreClassifier(n_rules=1, max_score=3, tangents="V1", time_limit=20,
                                                         solver_options={"mip_max_nodes": 0}),
                          # RiskScoreClassifier takes binary features only: checked behind a Binarizer
                          make_pipeline(Binarizer(threshold=0.0),
                                        RiskScoreClassifier(n_rules=2, min_score=-3, max_score=3, tangents="V1",
                                                            time_limit=20))],
                         expected_failed_checks=_expected_failures)
def test_sklearn_contract(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # time-limit notes on random data
        check(estimator)
