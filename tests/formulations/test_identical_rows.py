"""Rows identical in features with different labels: what every tree pays for them, by hand and by brute force,
and the bounds built on it (the loss-optimal trees' layers below the root, OCT and OCT-H)."""

import numpy as np
import pytest

from _support import ROOT, fit_quiet
from optitrees import OCTClassifier, OCTHClassifier
from optitrees.formulations.identical_rows import label_weights, least_node_loss, misclassified_weight
from optitrees.formulations.loss_optimal.solution import tree_objective
from optitrees.formulations.oct.solution import identical_rows_bound
from optitrees.formulations.loss_optimal.root_bounds import root_layer_bound
from test_root_bounds import _problem, _random_trees, estimators_of_the_class


def test_misclassified_weight_by_hand():
    X = np.array([[0.0, 1.0], [0.0, 1.0], [0.0, 1.0], [1.0, 0.0], [1.0, 0.0], [2.0, 2.0]])
    y = np.array([0, 1, 1, 0, 1, 0])
    assert misclassified_weight(X, y) == 2.0                    # one of the first three, one of the next two
    assert misclassified_weight(X, y, np.array([3.0, 1, 1, 0.5, 2, 7])) == 2.0 + 0.5
    assert misclassified_weight(np.array([[-0.0], [0.0]]), np.array([0, 1])) == 1.0    # -0.0 is 0.0
    assert misclassified_weight(np.zeros((0, 2)), np.zeros(0)) == 0.0


def test_label_weights_sum_each_groups_weight_per_label():
    counts = label_weights(np.array([[1.0], [0.0], [1.0], [1.0]]), np.array([-1, 1, 1, -1]), [1.0, 2.0, 4.0, 8.0])
    assert counts.tolist() == [[0.0, 2.0], [9.0, 4.0]]         # rows sorted by X, labels by value


@pytest.mark.parametrize("loss", ["logistic", "hinge", "misclassification"])
def test_least_node_loss_is_the_least_over_every_node_value(loss):
    eps = 1e-3
    fn = {"logistic": lambda m: np.logaddexp(0.0, -m), "hinge": lambda m: np.maximum(0.0, 1.0 - m),
          "misclassification": lambda m: (m < eps / 2).astype(float)}[loss]
    s = np.concatenate([np.linspace(-8, 8, 160_001), [np.log(2.5 / 0.7), np.log(0.7 / 2.5)]])
    counts = np.array([[2.5, 0.7], [1.0, 1.0], [0.3, 4.0]])
    brute = sum(float(np.min(a * fn(s) + b * fn(-s))) for a, b in counts)
    assert least_node_loss(counts, loss) == pytest.approx(brute, rel=1e-7, abs=1e-9)
    assert least_node_loss(counts, loss) <= brute + 1e-12
    # a group of one label adds nothing: its loss has infimum 0 (or is 0 at a large enough margin)
    assert least_node_loss(np.vstack([counts, [[0.0, 3.0]]]), loss) == least_node_loss(counts, loss)
    assert least_node_loss(counts[:, :1], loss) == 0.0          # one label: nothing to pay


def _duplicated(n=30, p=3, seed=0):
    """Continuous rows, each repeated with the other label at a third of the rows."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    y = np.where(X[:, 0] - 0.5 * X[:, 1] + 0.3 * rng.normal(size=n) > 0, 1, 0)
    return np.vstack([X, X[: n // 3]]), np.concatenate([y, 1 - y[: n // 3]])


@pytest.mark.parametrize("estimator", estimators_of_the_class())
def test_the_root_layer_bound_with_identical_rows_below_is_below_every_tree_and_above_the_root_alone(estimator):
    X, y = _duplicated()
    problem = _problem(estimator, X, y)
    bound, source = root_layer_bound(problem)
    assert "10 groups of identical rows with both labels" in source
    unique = _problem(estimator, X[:30], y[:30])
    root_only, _ = root_layer_bound(unique)
    rng = np.random.default_rng(1)
    objectives = [tree_objective(problem, tree) for tree in _random_trees(problem, rng, 300)]
    assert min(objectives) >= bound - 1e-9
    spec = problem.spec
    counts = label_weights(problem.data.X, problem.data.y, problem.data.weight)
    below = sum(spec.C[h] * least_node_loss(counts, spec.losses[h]) for h in range(1, spec.depth))
    assert below > 0 and bound > root_only


def test_oct_reaches_the_identical_rows_bound_when_a_tree_can_isolate_every_distinct_row():
    """Four distinct values of one feature, each with both labels: a depth-2 tree isolates each, so the optimum
    (ConTree's, proven) is the identical rows' bound."""
    X = np.repeat([[0.0], [1.0], [2.0], [3.0]], 5, axis=0)
    y = np.array([1, 1, 1, 0, 0] * 2 + [0, 0, 0, 0, 1] + [0, 1, 1, 1, 1])
    est = OCTClassifier(max_depth=2, time_limit=30).fit(X, y)
    problem = est._prepare(X, y)[0]
    bound, source = identical_rows_bound(problem)
    assert bound == pytest.approx((2 + 2 + 1 + 1) / 9) and source.startswith("rows identical")   # L_hat: 9 zeros
    assert est.fit_report_.certified_by == "contree" and est.objective_ == pytest.approx(bound)


def test_octh_reports_the_identical_rows_bound_where_its_lp_bound_is_zero():
    X, y = _duplicated(40, 3, seed=2)
    est = fit_quiet(OCTHClassifier(max_depth=2, max_features=None, time_limit=60, solver_options=ROOT,
                                   warm_start="tao", random_state=0), X, y)
    problem = est._prepare(X, y)[0]
    bound, _ = identical_rows_bound(problem)
    assert bound > 0 and est.fit_report_.bound >= bound - 1e-12
    assert est.fit_report_.bound_source.startswith("rows identical") and est.objective_ >= bound
    assert identical_rows_bound(_problem(OCTHClassifier(max_depth=2), X[:40], y[:40])) is None
