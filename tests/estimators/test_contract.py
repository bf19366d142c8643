"""scikit-learn's API contract for every estimator."""

import warnings

from sklearn.utils.estimator_checks import parametrize_with_checks

from optitrees import LossOptimalTreeClassifier, MARGOTClassifier, OCTClassifier, OCTHClassifier, OLCTClassifier


# A wall-clock limit makes the returned incumbent depend on timing, which would
# make checks that fit twice and compare flaky; the depth-2 case stops on a
# node limit instead (deterministic), with a generous time limit as a guard.
@parametrize_with_checks([OLCTClassifier(max_depth=1, time_limit=10, refine=False),
                          OLCTClassifier(max_depth=2, time_limit=60, tangents="V0",
                                         solver_options={"mip_max_nodes": 20}),
                          MARGOTClassifier(max_depth=1, time_limit=30, solver_options={"mip_max_nodes": 20}),
                          MARGOTClassifier(max_depth=1, solver="scip", time_limit=30),
                          LossOptimalTreeClassifier(max_depth=2, loss=["misclassification", "hinge"],
                                                    regularizer=None, time_limit=60,
                                                    solver_options={"mip_max_nodes": 20}),
                          OCTClassifier(max_depth=2, alpha=0.01, time_limit=60, solver_options={"mip_max_nodes": 20}),
                          OCTHClassifier(max_depth=2, alpha=0.01, time_limit=60, solver_options={"mip_max_nodes": 20})])
def test_sklearn_contract(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # time-limit notes on random data
        check(estimator)
