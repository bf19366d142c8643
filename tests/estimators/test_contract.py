"""scikit-learn's API contract for every estimator."""

import warnings

from sklearn.utils.estimator_checks import parametrize_with_checks

from optitrees import OLCTClassifier


@parametrize_with_checks([OLCTClassifier(max_depth=1, time_limit=10, refine=False),
                          OLCTClassifier(max_depth=2, time_limit=2, tangents="V0")])
def test_sklearn_contract(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # time-limit notes on random data
        check(estimator)
