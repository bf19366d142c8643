"""The convex fits inside the library stop at their iteration limits on purpose: their "failed to converge" warnings
never reach the user, whatever the user's filters; the user's own scikit-learn fits still warn."""

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import LinearSVC

from optitrees import MARGOTClassifier
from optitrees.algorithms.liblinear import liblinear_fit


def hard_data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 8)) * np.array([1, 100, 1, 1e3, 1, 1, 10, 1])
    y = (X[:, 0] + rng.normal(size=300) > 0).astype(int)
    return X, y


def convergence_warnings(record):
    return [w for w in record if issubclass(w.category, ConvergenceWarning) and "converge" in str(w.message)
            and "optitrees" not in w.category.__module__]


def test_the_librarys_fits_are_quiet_under_a_users_always_filter_and_the_users_own_are_not():
    X, y = hard_data()
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        liblinear_fit(LinearSVC(max_iter=2, dual=True), X, y)
        MARGOTClassifier(max_depth=1, time_limit=5, solver_options={"mip_max_nodes": 0}).fit(X, y)
    assert convergence_warnings(record) == []
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        LinearSVC(max_iter=2, dual=True).fit(X, y)                         # the user's own fit
    # attributed where scikit-learn itself attributes it (its own module, stacklevel 1): nothing in between
    assert len(convergence_warnings(record)) == 1 and record[0].filename.endswith("sklearn/svm/_base.py")
