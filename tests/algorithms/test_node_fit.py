"""Per-node fits of loss-optimal trees: l1-logistic, linear SVM, univariate, budgets, forbidden features."""

import numpy as np
import pytest
from scipy.optimize import minimize

import time

from optitrees.algorithms import node_fit
from optitrees.algorithms.node_fit import (L1LogisticSolver, LIBLINEAR_SECONDS_PER_ENTRY, LIBLINEAR_SETUP_PASSES, SVM_MAX_ITER,
                                           fit_l1_logistic, fit_linear_svm, node_fitter, node_objective,
                                           svm_iterations_within)
from optitrees.formulations.loss_optimal.model import LossOptimalSpec


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 4))
    y = np.where(X[:, 0] - 0.5 * X[:, 1] + 0.3 * rng.normal(size=80) > 0, 1.0, -1.0)
    return X, y


@pytest.mark.parametrize("solver", list(L1LogisticSolver)[1:], ids=lambda s: s.value)
def test_l1_logistic_is_the_minimizer_of_its_objective(data, solver, monkeypatch):
    """glum (the fast extra) and scipy's L-BFGS-B (the core's fallback) both reach the minimum."""
    monkeypatch.setattr(node_fit, "l1_logistic_solver", solver)
    X, y = data
    C = 2.0
    w, b = fit_l1_logistic(X, y, C)

    def objective(w, b):
        return np.abs(w).sum() + C * np.logaddexp(0, -y * (X @ w + b)).sum()

    # reference: w = u - v with u, v >= 0 (smooth), solved to high accuracy by L-BFGS-B
    def smooth(z):
        u, v, beta = z[:4], z[4:8], z[8]
        m = y * (X @ (u - v) + beta)
        g = -C * y / (1 + np.exp(m))
        return u.sum() + v.sum() + C * np.logaddexp(0, -m).sum(), np.r_[1 + X.T @ g, 1 - X.T @ g, g.sum()]

    ref = minimize(smooth, np.zeros(9), jac=True, method="L-BFGS-B", bounds=[(0, None)] * 8 + [(None, None)],
                   options={"ftol": 1e-14, "gtol": 1e-10, "maxiter": 10000})
    assert objective(w, b) == pytest.approx(ref.fun, rel=1e-4)
    assert objective(w, b) >= ref.fun - 1e-6


def test_the_two_solvers_agree_on_a_weighted_sparse_node(monkeypatch):
    """On weighted rows with most features irrelevant, glum and L-BFGS-B give the same objective (to 1e-6) and the
    same support."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(400, 12))
    y = np.where(X[:, 0] - X[:, 3] + 0.5 * rng.logistic(size=400) > 0, 1.0, -1.0)
    weight = np.where(rng.random(400) < 0.1, 20.0, 1.0)
    found = {}
    for solver in (L1LogisticSolver.GLUM, L1LogisticSolver.LBFGSB):
        monkeypatch.setattr(node_fit, "l1_logistic_solver", solver)
        w, b = fit_l1_logistic(X, y, 0.05, sample_weight=weight)
        found[solver] = (np.abs(w).sum() + 0.05 * weight @ np.logaddexp(0, -y * (X @ w + b)), w != 0)
    (glum, glum_support), (lbfgsb, lbfgsb_support) = found.values()
    assert lbfgsb == pytest.approx(glum, rel=1e-6)
    assert np.array_equal(glum_support, lbfgsb_support) and 0 < glum_support.sum() < 12


def test_degenerate_nodes_get_constant_models(data):
    X, y = data
    w, b = fit_l1_logistic(X[:5], np.ones(5), 1.0)
    assert np.all(w == 0) and b == pytest.approx(np.log(5.5 / 0.5))
    w, b = fit_linear_svm(X[:3], -np.ones(3), 1.0)
    assert np.all(w == 0) and b == -1.0


def test_budget_forbidden_and_univariate(data):
    X, y = data
    spec = LossOptimalSpec.create(2, "logistic", "l1", C=10.0, feature_selection="hard", max_features=[2, 1])
    allowed = np.array([False, True, True, True])
    fit = node_fitter(spec, 0, allowed)
    w0, _ = fit(X, y, 0)
    assert np.count_nonzero(w0) <= 2 and w0[0] == 0
    w1, _ = fit(X, y, 1)
    assert np.count_nonzero(w1) == 1 and w1[0] == 0
    # the univariate fit is the best single allowed feature by the node's objective
    obj = node_objective(spec, 1)
    for j in (1, 2, 3):
        wj, bj = fit_l1_logistic(X[:, [j]], y, 10.0)
        w = np.zeros(4)
        w[j] = wj[0]
        assert obj(X, y, w1, _) <= obj(X, y, w, bj) + 1e-6


def test_svm_iterations_fit_the_seconds_left():
    entries = 30000 * 104
    one_pass = LIBLINEAR_SECONDS_PER_ENTRY * entries
    assert svm_iterations_within(None, entries) == SVM_MAX_ITER
    assert svm_iterations_within((LIBLINEAR_SETUP_PASSES + 40.5) * one_pass, entries) == 40
    assert svm_iterations_within(0.0, entries) == svm_iterations_within(-3.0, entries) == 1
    assert svm_iterations_within(1e6, entries) == SVM_MAX_ITER


def test_an_svm_fitted_near_the_deadline_is_capped_to_the_time_left(data):
    X, y = data
    spec = LossOptimalSpec.create(2, "hinge", "l2", C=10.0)
    capped = node_fitter(spec, 0, deadline=time.perf_counter() - 1.0)(X, y, 0)
    one_pass = fit_linear_svm(X, y, 10.0 / (2 * spec.lam[0]), 0, max_seconds=0.0)
    full = node_fitter(spec, 0)(X, y, 0)
    np.testing.assert_array_equal(capped[0], one_pass[0])
    assert capped[1] == one_pass[1]
    assert not np.allclose(capped[0], full[0])              # one pass is not the converged fit


def test_node_objective_by_hand():
    spec = LossOptimalSpec.create(1, "hinge", "l2", C=3.0, lam=0.5, feature_selection="soft", alpha=0.25)
    X = np.array([[1.0, 0.0], [0.0, 2.0]])
    y = np.array([1.0, -1.0])
    w, b = np.array([0.5, 0.0]), 0.0
    # hinge: max(0, 1 - 0.5) + max(0, 1 - 0) = 1.5; C * 1.5 + 0.5 * 0.25 + 0.25 * 1
    assert node_objective(spec, 0)(X, y, w, b) == pytest.approx(4.5 + 0.125 + 0.25)


@pytest.mark.parametrize("time_limit", [0.15, 0.5])
@pytest.mark.parametrize("model", ["OLCTClassifier", "LossOptimalTreeClassifier"])
def test_the_first_fit_of_a_process_imports_nothing_in_an_abandoned_worker(model, time_limit):
    """A multi-class fit with a short limit abandons node fits at the deadline; were glum (tabmat, polars) first
    imported in such a worker, the next class's input check would meet a half-imported polars."""
    import subprocess
    import sys

    script = ("import warnings; warnings.simplefilter('ignore')\n"
              "from sklearn.datasets import load_iris\n"
              f"from optitrees import {model}\n"
              "X, y = load_iris(return_X_y=True)\n"
              f"print(len({model}(time_limit={time_limit}).fit(X, y).predict(X)))\n")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0 and result.stdout.strip() == "150", result.stderr[-2000:]
