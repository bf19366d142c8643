"""Helpers shared by test modules (importable because pytest puts tests/ on the path)."""

import warnings

import pytest

from optitrees import solvers

needs_scip = pytest.mark.skipif("scip" not in solvers.available(), reason="SCIP (pyscipopt) not installed")


def fit_quiet(est, X, y):
    """Fit with the estimators' status warnings (time limit, fallback) silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return est.fit(X, y)
