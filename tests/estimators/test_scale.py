"""Features measured at any scale (1e-12 to 1e12) give the same predictions on every estimator."""

import numpy as np
import pytest
from _support import estimator_id, fit_quiet, quick_data, quick_estimators

from optitrees import LossOptimalTreeClassifier, LossOptimalTreeRegressor, OCTHClassifier

# RiskScoreClassifier scores 0/1 (or integer) features as points x value: scaled features are not its input
CASES = [c for c in quick_estimators() if c[1] != "binary"]


@pytest.mark.parametrize("case", CASES, ids=estimator_id)
def test_predictions_do_not_depend_on_the_features_units(case):
    estimator, kind = case
    # a node-limited MIP solve changes its incumbent with the last bits of the scaled data (X * 1e-12 standardizes
    # to X's values up to rounding); solved to optimality, every scale gives the same model
    n = 60
    if isinstance(estimator, OCTHClassifier):
        estimator.set_params(solver_options=None, mip_gap=0)
        n = 40                                                                  # 0.1 s a fit (1.7-2.6 s at 60)
    if isinstance(estimator, (LossOptimalTreeClassifier, LossOptimalTreeRegressor)):
        estimator.set_params(max_depth=1, solver_options=None, mip_gap=0)       # 0.1 s
    X, y = quick_data(kind, n=n)
    expected = fit_quiet(estimator, X, y).predict(X)
    for scale in (1e-12, 1e12):
        got = fit_quiet(estimator, X * scale, y).predict(X * scale)
        if kind == "target":
            np.testing.assert_allclose(got, expected, rtol=1e-6, err_msg=f"scale {scale}")
        else:
            np.testing.assert_array_equal(got, expected, err_msg=f"scale {scale}")
