"""TMO (Algorithm 3): the seed's encoding, the repairs of crossover, and the evolution."""

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.tree import DecisionTreeClassifier

from _support import LOADED_MACHINE_MARGIN
from optitrees.algorithms.local_search.tmo import LEAF, NIL, crossover, decode, encode, tmo_label_tree
from optitrees.trees import Tree, from_sklearn


def _figure_3_10():
    """The seed's unbalanced tree of depth 3: splits at 0, 2 and 5 (0-based), a leaf at 1 and at 6."""
    #            0
    #         1     2
    #             5   6          (4, 3 missing below the leaf 1)
    #           l   l
    left = [1, -1, 3, 5, -1, -1, -1]
    right = [2, -1, 4, 6, -1, -1, -1]
    W = np.zeros((7, 3))
    W[0, 0] = W[2, 1] = W[3, 2] = 1.0
    thr = [0.5, 0, 1.5, 2.5, 0, 0, 0]
    return Tree(left, right, W, thr, value=np.zeros((7, 2)), label=[0, 1, 0, 0, 1, 0, 1])


def test_encoding_of_figure_3_10():
    code = encode(_figure_3_10(), 3)
    assert code == [(0, 0.5), LEAF, (1, 1.5), NIL, NIL, (2, 2.5), LEAF]


def test_round_trip_of_a_cart_tree():
    X, y = load_breast_cancer(return_X_y=True)
    cart = from_sklearn(DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y))
    ft = decode(encode(cart, 3), X, y, 2, np.random.default_rng(0))
    assert np.array_equal(ft.predict(X), cart.predict(X))


def test_decode_repairs_crossover_structures():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3))
    y = (X[:, 0] > 0).astype(int)
    # nil/branch (Figure 3.14): a split at 4 under the leaf 2 -> 2 becomes a split, its other child 5 a leaf
    ft = decode([(0, 0.0), LEAF, NIL, (1, 0.0), NIL, NIL, NIL], X, y, 2, rng)
    assert ft.active.tolist() == [True, True, False, True, False, False, False]
    # branch/nil (Figure 3.13): a split at 3 with a missing child 6 -> 3 becomes a leaf, its subtree missing
    ft = decode([(0, 0.0), (1, 0.0), (2, 0.0), (1, 1.0), NIL, NIL, NIL], X, y, 2, rng)
    assert ft.active.tolist() == [True, True, False, True, False, False, False]


def test_crossover_takes_each_node_from_one_parent():
    a, b = [(0, 1.0)] * 7, [(1, 2.0)] * 7
    rng = np.random.default_rng(0)
    assert crossover(a, b, 0.0, rng) == a and crossover(a, b, 1.0, rng) == b
    mixed = crossover(a, b, 0.75, np.random.default_rng(1))
    assert set(mixed) == {(0, 1.0), (1, 2.0)}


def test_evolution_improves_and_parallel_runs_agree():
    X, y = load_breast_cancer(return_X_y=True)
    X, y = X[:250], y[:250]
    one, h1 = tmo_label_tree(X, y, 2, n_estimators=12, n_generations=3, random_state=0)
    two, h2 = tmo_label_tree(X, y, 2, n_estimators=12, n_generations=3, random_state=0, n_jobs=2)
    assert h1 == h2 and np.array_equal(one.W, two.W) and np.array_equal(one.thr, two.thr)
    assert all(b >= a for a, b in zip(h1, h1[1:])) and len(h1) == 4
    assert np.mean(one.predict(X) == y) == pytest.approx(h1[-1])


def test_a_passed_deadline_stops_the_forest_population_and_generations():
    import time

    X, y = load_breast_cancer(return_X_y=True)
    t0 = time.perf_counter()
    best, history = tmo_label_tree(X, y, 3, n_estimators=100, n_generations=5, random_state=0,
                                   deadline=time.perf_counter() - 1.0)
    # one forest chunk and one individual, no generation (the full search takes far longer than the margin)
    assert time.perf_counter() - t0 < 1.0 + LOADED_MACHINE_MARGIN
    assert len(history) == 1
    assert np.mean(best.predict(X) == y) == pytest.approx(history[0])


def test_a_deadline_sizes_the_population_to_the_budget():
    import time

    from optitrees.algorithms.local_search import tmo

    calls = []

    def make(item):
        calls.append(item)
        time.sleep(0.05)
        return item

    population = tmo._initial_population(make, list(range(100)), 1, time.perf_counter() + 0.3)
    assert 3 <= len(population) <= 10 and population == list(range(len(population))) == calls


def test_the_population_gets_a_partner_while_the_search_has_time():
    """An individual slower than the population's share still gets a second one (a generation needs a partner;
    alone, TMO returned with most of its time unused), unless the whole search's deadline has passed."""
    import time

    from optitrees.algorithms.local_search import tmo

    def make(item):
        time.sleep(0.2)
        return item

    now = time.perf_counter()
    assert tmo._initial_population(make, list(range(9)), 1, now + 0.1, now + 5.0) == [0, 1]
    now = time.perf_counter()
    assert tmo._initial_population(make, list(range(9)), 1, now + 0.1, now + 0.15) == [0]


def test_the_population_leaves_the_generations_their_share_of_the_budget():
    """With G generations the population grows for 1 / (1 + G) of the time left: each generation costs
    about as much as making the population (one TAO run per individual)."""
    import time

    from optitrees.algorithms.local_search.tmo import _population_deadline

    assert _population_deadline(None, 5) is None
    now = time.perf_counter()
    assert _population_deadline(now + 12.0, 5) == pytest.approx(now + 2.0, abs=0.05)
    assert _population_deadline(now - 1.0, 5) == pytest.approx(now, abs=0.05)
    X, y = load_breast_cancer(return_X_y=True)
    # 8 s: the population stops at 2 s, and a generation (a TAO run per individual grown by then) fits in the
    # 6 s left even on a loaded machine (with 3 s, none finished once beside two busy workers)
    best, history = tmo_label_tree(X, y, 3, n_estimators=400, n_generations=3, random_state=0,
                                   deadline=time.perf_counter() + 8.0)
    assert len(history) >= 2                              # generations ran within the budget


def test_a_bootstrap_sample_is_its_distinct_rows_weighted_by_the_draws():
    """The loss-optimal TMO's bootstrap problem holds each drawn row once, weighted by its draws: the same
    exact objective as the sample with its duplicates, on fewer rows."""
    from dataclasses import replace

    from optitrees import OLCTClassifier
    from optitrees.algorithms.local_search.tmo import _bootstrapped
    from optitrees.algorithms.loss_optimal.greedy import greedy_tree
    from optitrees.algorithms.node_fit import node_fitter
    from optitrees.formulations.loss_optimal.solution import tree_objective

    X, y = load_breast_cancer(return_X_y=True)
    estimator = OLCTClassifier(max_depth=2)
    estimator._validate_params()
    problem, _, _ = estimator._prepare(X[:200], y[:200], None)
    tree = greedy_tree(problem, node_fitter(problem.spec, 0, np.ones(X.shape[1], bool)))
    rows = np.random.default_rng(0).integers(0, 200, 200)
    data = problem.data
    duplicated = replace(problem, data=replace(data, X=data.X[rows], y=data.y[rows],
                                               X_original=data.X_original[rows], weight=data.weight[rows]),
                         bound=problem.bound[rows])
    merged = _bootstrapped(problem, rows)
    assert len(merged.data.y) == len(np.unique(rows)) < 150
    assert merged.data.weight.sum() == 200
    assert tree_objective(merged, tree) == pytest.approx(tree_objective(duplicated, tree), rel=1e-12)
