"""OCT / OCT-H (Bertsimas & Dunn): optimum equals a brute-force enumeration of axis-aligned trees."""

import numpy as np
import pytest

from optitrees.algorithms.oct.cart import cart_tree, greedy_oblique_tree
from optitrees.formulations.oct.model import feature_epsilons, oct, octh
from optitrees.formulations.oct.solution import decode, start
from optitrees.solvers import solve
from _oct_brute import brute_force_oct


def _tiny(seed=0, n=10, p=2, k=3):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 6, size=(n, p)).astype(float) / 5.0      # [0, 1], ties included
    y = rng.integers(0, k, size=n)
    y[:k] = np.arange(k)
    return X, y


@pytest.mark.parametrize("depth,alpha,n_min,seed", [(1, 0.0, 1, 0), (1, 0.05, 3, 1), (2, 0.0, 1, 2),
                                                    (2, 0.1, 2, 3), (2, 0.02, 3, 4)])
def test_oct_equals_brute_force(depth, alpha, n_min, seed):
    X, y = _tiny(seed, n=9 if depth == 2 else 12)
    f = oct(X, y, depth=depth, alpha=alpha, min_samples_leaf=n_min)
    res = solve(f, mip_gap=0, time_limit=120)
    assert res.status == "optimal"
    expected = brute_force_oct(X, y, depth, alpha, n_min)
    assert res.objective == pytest.approx(expected, abs=1e-7)
    tree, checks = decode(f, res.x)
    assert checks["routing_mismatches"] == 0
    errors = (tree.predict(X) != y).sum()
    assert errors / f.problem.L_hat + alpha * tree.n_splits() == pytest.approx(expected, abs=1e-7)
    assert checks["objective_recomputed"] == pytest.approx(expected, abs=1e-7)


def test_octh_never_worse_than_oct():
    X, y = _tiny(5, n=12)
    a = solve(oct(X, y, depth=2), mip_gap=0, time_limit=120)
    b = solve(octh(X, y, depth=2), mip_gap=0, time_limit=120)
    assert b.objective <= a.objective + 1e-9


def test_unused_split_sends_points_right():
    X, y = _tiny(6, n=12)
    f = oct(X, y, depth=2, alpha=10.0)        # any split costs more than it can save
    res = solve(f, mip_gap=0)
    v = f.values(res.x)
    assert res.objective == pytest.approx(1.0)
    assert np.all(v["d"] < 0.5)
    assert np.all(np.argmax(v["z"], axis=1) == len(f.sets["L"]) - 1)   # rightmost leaf


def test_warm_starts_are_feasible_and_priced():
    X, y = _tiny(7, n=30)
    starts = ((oct, lambda: cart_tree(X, y, 2, 2, random_state=0).with_counts(X, y)),
              (octh, lambda: greedy_oblique_tree(X, y, 2, 3, 2, random_state=0)))
    for build, make in starts:
        f = build(X, y, depth=2, min_samples_leaf=2)
        tree = make()
        x = start(f, tree)
        assert f.violation(x) < 1e-9
        complexity = tree.n_features_used() if build is octh else tree.n_splits()
        expected = (tree.predict(X) != y).sum() / f.problem.L_hat + f.problem.spec.alpha * complexity
        assert f.objective_value(x) == pytest.approx(expected)


def test_start_embeds_a_shallower_tree_with_unused_splits():
    X, y = _tiny(8, n=30)
    f = oct(X, y, depth=3)
    stump = cart_tree(X, y, 1, random_state=0).with_counts(X, y)
    x = start(f, stump)
    assert f.violation(x) < 1e-9
    v = f.values(x)
    assert v["d"].sum() == 1 and v["d"][0] == 1                          # only the root splits
    tree, checks = decode(f, x)
    assert checks["routing_mismatches"] == 0 and tree.n_splits() == 1
    assert np.array_equal(tree.predict(X), stump.predict(X))


def test_feature_epsilons():
    X = np.array([[0.0, 0.5], [0.25, 0.5], [1.0, 0.5]])
    assert np.allclose(feature_epsilons(X), [0.25, 1.0])


@pytest.mark.parametrize("kwargs,match", [(dict(depth=0), "depth"), (dict(alpha=-1), "alpha"),
                                          (dict(min_samples_leaf=0), "min_samples_leaf"),
                                          (dict(min_samples_leaf=100), "exceeds")])
def test_bad_input(kwargs, match):
    X, y = _tiny()
    with pytest.raises(ValueError, match=match):
        oct(X, y, **kwargs)


def test_rejects_unscaled_features():
    X, y = _tiny()
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        oct(X * 3, y)


def test_the_integrality_tolerance_is_a_tenth_of_the_split_margin():
    """A z within the tolerance of 1 relaxes a left row by about the tolerance: it must stay below eps_min, the
    gap a point keeps from a split (on 400 continuous rows eps_min is about 1e-6, HiGHS's own default)."""
    from optitrees.formulations.oct.model import integrality_tolerance

    assert integrality_tolerance(0.005) == 1e-6 and integrality_tolerance(1e-6) == pytest.approx(1e-7)
    assert integrality_tolerance(1e-14) == 1e-10                      # the least HiGHS accepts
    rng = np.random.default_rng(0)
    X = rng.random((400, 3))
    y = (X[:, 0] > 0.5).astype(int)
    eps_min = feature_epsilons(X).min()
    assert 1e-9 < eps_min < 1e-5
    assert oct(X, y, depth=1).integrality_tol == pytest.approx(0.1 * eps_min)
    assert octh(X, y, depth=1).integrality_tol == 1e-6               # OCT-H's margin mu is 0.005


@pytest.mark.parametrize("seed", [8, 9])
def test_octh_with_one_feature_per_split_is_oct(seed):
    """The budget row (3.14) with ``B = 1`` leaves single-feature splits: the optimum is the brute-force OCT's,
    and a budget of two lies between it and the unbudgeted OCT-H."""
    X, y = _tiny(seed, n=9, p=3)
    one = solve(octh(X, y, depth=2, max_features=1), mip_gap=0, time_limit=120)
    two = solve(octh(X, y, depth=2, max_features=2), mip_gap=0, time_limit=120)
    free = solve(octh(X, y, depth=2), mip_gap=0, time_limit=120)
    assert one.status == two.status == free.status == "optimal"
    assert one.objective == pytest.approx(brute_force_oct(X, y, 2, 0.0, 1), abs=1e-7)
    assert free.objective - 1e-9 <= two.objective <= one.objective + 1e-9
    f = octh(X, y, depth=2, max_features=2)
    w = f.values(solve(f, mip_gap=0, time_limit=120).x)["w"]
    assert np.all(np.count_nonzero(np.abs(w) > 1e-9, axis=1) <= 2)


def test_an_octh_weight_whose_indicator_is_off_decodes_to_zero():
    """HiGHS left OCT-H weights near 1e-9 where their l0 indicator was 0 (heart, depth 3, a budget of 3: a printed
    split of 5 features); the decoded tree drops them and keeps the budget, and its start is feasible."""
    X, y = _tiny(8, n=9, p=3)
    f = octh(X, y, depth=2, max_features=1)
    res = solve(f, mip_gap=0, time_limit=120)
    x = res.x.copy()
    w, delta, d = f.variables["w"], f.variables["delta"], f.variables["d"]
    used = np.flatnonzero(x[d.columns] > 0.5)
    assert used.size                                                  # a split to put a stray weight in
    t = used[0]
    j = int(np.flatnonzero(x[delta.columns[t]] < 0.5)[0])
    x[w.columns[t, j]] = 1e-9
    tree, checks = decode(f, x)
    assert (np.count_nonzero(tree.weights, axis=1) <= 1).all() and checks["routing_mismatches"] == 0
    assert f.violation(start(f, tree)) < 1e-7
