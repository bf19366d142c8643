"""Regression trees: seed 003's CART with its stopping and pruning rules, TAO, and the optimal tree by STreeD."""

import numpy as np
import pytest
from sklearn.datasets import load_diabetes
from sklearn.tree import DecisionTreeRegressor

from _support import within_limit
from optitrees import CARTRegressor, FitOutcome


@pytest.fixture
def data():
    return load_diabetes(return_X_y=True)


def test_cost_complexity_is_scikit_learns_minimal_cost_complexity(data):
    X, y = data
    for alpha in (10.0, 50.0):
        ours = CARTRegressor(pruning="cost_complexity", ccp_alpha=alpha, random_state=0).fit(X, y)
        ref = DecisionTreeRegressor(ccp_alpha=alpha, random_state=0).fit(X, y)
        assert ours.tree_.n_leaves == ref.get_n_leaves()
        np.testing.assert_array_equal(ours.predict(X), ref.predict(X))


def test_stopping_rules(data):
    X, y = data
    full = CARTRegressor(pruning="none", random_state=0).fit(X, y)
    assert np.allclose(full.predict(X), y)                  # one instance (or one value) per leaf
    shallow = CARTRegressor(max_depth=2, pruning="none").fit(X, y)
    assert shallow.get_depth() == 2 and shallow.tree_.n_leaves == 4
    big_leaves = CARTRegressor(min_samples_leaf=40, pruning="none").fit(X, y)
    assert big_leaves.tree_.value[big_leaves.tree_.is_leaf, 0].min() >= 40
    wide = CARTRegressor(min_samples_split=100, pruning="none").fit(X, y)
    inner = ~wide.tree_.is_leaf
    assert wide.tree_.value[inner, 0].min() >= 100


def test_t_test_merges_leaves_whose_means_do_not_differ():
    rng = np.random.default_rng(0)
    x = rng.uniform(size=400)
    # one real step at 0.5; the noise alone makes the grown tree split further
    y = np.where(x > 0.5, 3.0, 0.0) + rng.normal(0, 1, 400)
    X = x[:, None]
    grown = CARTRegressor(max_depth=3, pruning="none", random_state=0).fit(X, y)
    pruned = CARTRegressor(max_depth=3, random_state=0).fit(X, y)
    assert grown.tree_.n_leaves == 8 and pruned.tree_.n_leaves < 8
    assert pruned.tree_.threshold[0] == pytest.approx(0.5, abs=0.02)         # the real step is kept
    strict = CARTRegressor(max_depth=3, p_value_threshold=1e-12, random_state=0).fit(X, y)
    assert 2 <= strict.tree_.n_leaves <= pruned.tree_.n_leaves             # p of the real step: ndtr(-42) = 0
    assert strict.tree_.threshold[0] == pytest.approx(0.5, abs=0.02)


def test_printed_tree_gives_the_predictions(data):
    X, y = data
    reg = CARTRegressor(max_depth=3, random_state=0).fit(X, y)
    text = reg.export_text()
    assert "value: " in text
    # evaluate the printed tree: follow its lines
    import re

    lines = text.splitlines()

    def predict_row(x):
        i, depth = 0, 0
        while True:
            line = lines[i]
            m = re.match(r"^((?:\|   )*)\|--- (?:value: (\S+)|x(\d+) (<=|>) +(\S+))", line)
            assert m and len(m.group(1)) // 4 == depth
            if m.group(2) is not None:
                return float(m.group(2))
            j, thr = int(m.group(3)), float(m.group(5))
            if x[j] <= thr:
                i, depth = i + 1, depth + 1
            else:                                    # skip to the matching "> thr" line at this depth
                i += 1
                prefix = "|   " * depth + "|--- "
                while not (lines[i].startswith(prefix) and " >  " in lines[i]):
                    i += 1
                i, depth = i + 1, depth + 1

    assert [predict_row(x) for x in X] == reg.predict(X).tolist()


def test_bad_parameters(data):
    X, y = data
    with pytest.raises(ValueError, match="pruning"):
        CARTRegressor(pruning="pessimistic").fit(X, y)
    with pytest.raises(ValueError, match="p_value_threshold"):
        CARTRegressor(p_value_threshold=2.0).fit(X, y)


# ---------------------------------------------------------------- TAO for regression trees
def test_tao_regressor_solves_the_xor_greedy_growth_misses():
    from optitrees import TAORegressor

    rng = np.random.default_rng(0)
    X = rng.uniform(size=(1000, 3))
    # an XOR of x0 and x1 (no single split of either gains) and a small step on x2, which greedy growth takes first
    y = ((X[:, 0] > 0.5) ^ (X[:, 1] > 0.5)).astype(float) + 0.5 * (X[:, 2] > 0.8)
    tao = TAORegressor(max_depth=3, random_state=0).fit(X, y)
    assert tao.start_objective_ > 0.2 and tao.objective_ < 0.05                   # 0.2255 -> 0.0391
    assert tao.fit_report_.starts == {"CART": tao.start_objective_}


def test_tao_regression_step_by_brute_force():
    """A depth-1 TAO step is the best stump: every threshold of every feature tried by hand."""
    from optitrees.algorithms.regression.tao_regression import best_routing_split

    rng = np.random.default_rng(1)
    X = rng.integers(0, 6, size=(30, 2)).astype(float)
    L, R, v = rng.uniform(size=30), rng.uniform(size=30), rng.uniform(0.5, 2, size=30)
    cost, j, c = best_routing_split(X, L, R, v, np.array([True, True]), min_leaf=0)
    brute = min((float(np.dot(v, np.where(X[:, f] <= t, L, R))), f, t) for f in (0, 1)
                for t in np.unique(X[:, f])[:-1] + 0.5)
    assert cost == pytest.approx(brute[0]) and (j, c) == (brute[1], brute[2])
    cost0, j0, _ = best_routing_split(X, L, R, v, np.array([False, True]), min_leaf=0)
    assert j0 == 1 and cost0 >= cost


def test_tao_regressor_never_worse_than_cart_and_keeps_its_budget(data):
    import time

    from optitrees import TAORegressor

    X, y = data
    for depth in (2, 3, 4):
        tao = TAORegressor(max_depth=depth, random_state=0).fit(X, y)
        assert tao.objective_ <= tao.start_objective_ + 1e-9
        assert tao.objective_ == pytest.approx(np.mean((y - tao.predict(X)) ** 2))
    rng = np.random.default_rng(0)
    Xb = rng.normal(size=(20000, 20))
    yb = Xb[:, 0] * Xb[:, 1] + rng.normal(size=20000)
    t0 = time.perf_counter()
    tao = TAORegressor(max_depth=8, max_passes=50, time_limit=0.5).fit(Xb, yb)
    assert within_limit(time.perf_counter() - t0, 0.5) and tao.objective_ <= tao.start_objective_


# ---------------------------------------------------------------- the optimal tree (STreeD)
def test_optimal_tree_beats_greedy_and_reports_its_proof(data):
    pytest.importorskip("pystreed")
    from optitrees import OptimalTreeRegressor

    X, y = data
    X = X[:, :4]
    ort = OptimalTreeRegressor(max_depth=2).fit(X, y)
    cart = CARTRegressor(max_depth=2, pruning="none").fit(X, y)
    assert ort.proven_ and str(ort.fit_report_.outcome) == "proven optimal" and ort.fit_report_.bound == ort.objective_
    assert ort.objective_ <= cart.fit_report_.objective + 1e-9
    coarse = OptimalTreeRegressor(max_depth=2, n_thresholds=4).fit(X, y)
    assert str(coarse.fit_report_.outcome) != "proven optimal" and coarse.objective_ >= ort.objective_ - 1e-9
    with pytest.raises(ValueError, match="whole-number sample weights"):
        OptimalTreeRegressor().fit(X, y, sample_weight=np.full(len(y), 0.5))
    repeated = OptimalTreeRegressor(max_depth=2).fit(X, y, sample_weight=np.full(len(y), 2))
    np.testing.assert_allclose(repeated.predict(X), ort.predict(X))


def test_optimal_tree_keeps_its_budget():
    pytest.importorskip("pystreed")
    import time

    from optitrees import OptimalTreeRegressor

    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 10))
    y = X[:, 0] * X[:, 1] + rng.normal(size=3000)
    t0 = time.perf_counter()
    ort = OptimalTreeRegressor(max_depth=3, time_limit=1.0).fit(X, y)     # every threshold: minutes of search
    assert within_limit(time.perf_counter() - t0, 1.0)
    assert not ort.proven_ and ort.fit_report_.outcome is FitOutcome.TRUNCATED
    assert ort.fit_report_.method in ("cart", "streed") and np.isfinite(ort.predict(X)).all()


def test_a_stopped_search_of_every_threshold_returns_the_quick_search_when_it_is_better():
    """The first search (16 thresholds per feature) proves its tree in a fraction of a second; the search of
    every midpoint is stopped by the limit (4 s), so the quick tree (better than CART's here) is returned. (At
    2 s the first search's quarter of the budget, 0.5 s, was too little for its 0.37 s on a loaded machine.)"""
    pytest.importorskip("pystreed")
    from optitrees import OptimalTreeRegressor
    from optitrees.algorithms.regression.streed import fit_streed

    rng = np.random.default_rng(1)
    X = rng.normal(size=(3000, 10))
    y = np.sign(X[:, 0]) * np.sign(X[:, 1]) + 0.3 * rng.normal(size=3000)     # an XOR greedy growth misses
    ort = OptimalTreeRegressor(max_depth=2, time_limit=4.0).fit(X, y)
    quick, proven = fit_streed(X, y, 2, 16)
    assert proven and not ort.proven_
    cart = CARTRegressor(max_depth=2, pruning="none").fit(X, y)
    quick_mse = float(np.mean((quick.predict(X) - y) ** 2))
    assert quick_mse < cart.fit_report_.objective
    assert ort.objective_ <= quick_mse + 1e-12 and ort.fit_report_.method == "streed"
    assert "first search" in " ".join(ort.fit_report_.notes)


def test_linear_leaves_by_brute_force_and_printed():
    """Depth 1 with linear leaves and no penalty: the tree's squared error is the least over every midpoint of
    every feature of the two least-squares fits, and the text, the dict and SQL give its predictions."""
    pytest.importorskip("pystreed")
    import json
    import sqlite3

    import pandas as pd

    from export._printed import tree_dict_predictions, tree_text_predictions
    from optitrees import OptimalTreeRegressor

    rng = np.random.default_rng(3)
    X = rng.uniform(-1, 1, size=(60, 2))
    y = np.where(X[:, 0] > 0.3, 2.0 * X[:, 1] + 1.0, -X[:, 1]) + 0.05 * rng.normal(size=60)
    ort = OptimalTreeRegressor(max_depth=1, linear_leaves=True).fit(X, y)
    assert ort.proven_ and ort.tree_.leaf_model.value == "linear value"

    def sse(rows):
        A = np.column_stack([X[rows], np.ones(rows.sum())])
        coef = np.linalg.lstsq(A, y[rows], rcond=None)[0]
        return float(np.sum((A @ coef - y[rows]) ** 2))

    best = sse(np.ones(60, bool))
    for j in range(2):
        values = np.unique(X[:, j])
        for c in (values[:-1] + values[1:]) / 2:
            best = min(best, sse(X[:, j] <= c) + sse(X[:, j] > c))
    assert ort.objective_ * 60 == pytest.approx(best, rel=1e-6)
    assert ort.fit_report_.bound == ort.objective_
    frame = pd.DataFrame(X, columns=["x0", "x1"])
    predicted = ort.predict(X)
    np.testing.assert_allclose(tree_text_predictions(ort.export_text(), frame).astype(float), predicted,
                               rtol=1e-4, atol=1e-4)                      # the text rounds to short numbers
    d = json.loads(json.dumps(ort.to_dict()))
    np.testing.assert_allclose(tree_dict_predictions(d, frame).astype(float), predicted, rtol=1e-12, atol=1e-12)
    with sqlite3.connect(":memory:") as con:
        frame.to_sql("data", con, index=False)
        got = [r[0] for r in con.execute(f"SELECT {ort.export_sql()} AS prediction FROM data")]
    np.testing.assert_allclose(got, predicted, rtol=1e-12, atol=1e-12)
    sparse = OptimalTreeRegressor(max_depth=1, linear_leaves=True, lasso_penalty=0.5).fit(X, y)
    assert np.count_nonzero(sparse.tree_.weights[sparse.tree_.is_leaf]) < \
        np.count_nonzero(ort.tree_.weights[ort.tree_.is_leaf])
    assert str(sparse.fit_report_.outcome) == "not proven optimal" and sparse.fit_report_.bound is None
    assert "plus its penalties" in " ".join(sparse.fit_report_.notes)
