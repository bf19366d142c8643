"""UCT-DT's core steps (seed 000, ch. 4): UCB1 choice, expansion, redundant states, search pruning."""

import math

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.metrics import f1_score

from optitrees.algorithms.c45.induction import grow_c45
from optitrees.algorithms.uct_dt.tree_search import SearchNode, UCTSearch, macro_f1


@pytest.fixture(scope="module")
def data():
    X, y = load_breast_cancer(return_X_y=True)
    rng = np.random.default_rng(0)
    rows = rng.permutation(len(y))[:300]
    return X[rows, :8], y[rows]


def _search(data, **kw):
    X, y = data
    ind, val = np.arange(200), np.arange(200, 300)
    params = {"n_classes": 2, "allowed": np.ones(X.shape[1], bool), "max_depth": 4, "rng": np.random.default_rng(0)}
    params.update(kw)
    return UCTSearch(X, y, ind, val, **params)


def test_macro_f1_is_sklearns():
    rng = np.random.default_rng(1)
    t, p = rng.integers(0, 3, 50), rng.integers(0, 3, 50)
    confusion = np.zeros((3, 3))
    np.add.at(confusion, (t, p), 1)
    assert macro_f1(confusion) == pytest.approx(f1_score(t, p, average="macro"))


def test_ucb1_picks_by_hand(data):
    search = _search(data)
    parent = search.root
    parent.N = 10
    a = SearchNode(parent.state, None, parent, 1, [], [], N=8, V=6.0)
    b = SearchNode(parent.state, None, parent, 1, [], [], N=2, V=1.0)
    parent.children, parent.untried = [a, b], []
    assert search._ucb(parent, a) == pytest.approx(0.75 + 2 * math.sqrt(2 * math.log(10) / 8))
    assert search._ucb(parent, b) == pytest.approx(0.5 + 2 * math.sqrt(2 * math.log(10) / 2))
    assert search._select() is b                        # exploration wins with C_p = 1
    search.exploration = 0.01
    assert search._select() is a                        # exploitation wins with a small C_p


def test_expansion_inherits_actions_and_adds_the_new_leaves_tests(data):
    search = _search(data, n_candidates=2)
    root = search.root
    assert len(root.initial) == 2 and all(a[0] == 0 for a in root.initial)
    child = search._expand(root)
    assert child.action not in root.untried and child.depth == 1
    leaf_ids = set(child.state.leaves)
    assert all(a[0] in leaf_ids for a in child.initial)          # the split leaf's actions are gone
    assert len(child.initial) <= 4 and child.state.n_leaves() == 2


def test_the_same_tree_reached_twice_is_one_search_node(data):
    search = _search(data, dt_pruning=False, value_pruning=False)
    search.run(300)
    keys = [n.state.key for n in search.nodes]
    assert len(keys) == len(set(keys))
    splits = [len(n.state.splits) for n in search.nodes]
    assert splits == [n.depth for n in search.nodes]


def test_one_candidate_searches_only_subtrees_of_the_greedy_tree(data):
    """K = 1 falls back to locally-optimal search (4.4.2)."""
    X, y = data
    search = _search(data, n_candidates=1, dt_pruning=False, value_pruning=False).run(200)
    greedy = grow_c45(X[:200], np.eye(2)[y[:200]], allowed=np.ones(X.shape[1], bool), max_depth=4,
                      criterion="information_gain")
    tests = set()
    stack = [(greedy, ())]
    while stack:
        node, path = stack.pop()
        if not node.is_leaf:
            tests.add((path, node.feature, node.threshold))
            stack += [(node.left, path + (0,)), (node.right, path + (1,))]
    assert all(n.state.key <= tests for n in search.nodes)
    assert max(len(n.state.key) for n in search.nodes) > 1


@pytest.mark.parametrize("dt_pruning", [True, False])
def test_cached_completion_equals_completing_and_pruning_the_whole_tree(data, dt_pruning):
    search = _search(data, dt_pruning=dt_pruning, value_pruning=False, confidence_factor=0.05, policy="c45")
    search.run(120)
    for node in search.nodes[1:]:
        completed, skeleton = search.completion.complete(node.state)
        keep, confusion = search.completion.simulate(node.state, node.action[0])
        assert keep == (search.completion.survives(completed, skeleton[node.action[0]]) or not dt_pruning)
        assert macro_f1(confusion) == pytest.approx(search.completion.grown_f1(completed, search.val))


def test_dt_pruning_removes_nodes_whose_split_is_pruned(data):
    search = _search(data, dt_pruning=True, value_pruning=False, confidence_factor=0.01).run(150)
    assert search.removed_by_dt_pruning > 0
    for node in search.nodes[1:]:
        completed, skeleton = search.completion.complete(node.state)
        assert search.completion.survives(completed, skeleton[node.action[0]])


def test_value_pruning_keeps_one_node_at_its_depth(data):
    search = _search(data, dt_pruning=False, value_pruning=True, vp_every=50, vp_depth=2, max_depth=5).run(400)
    assert sum(n.depth == 2 for n in search.nodes) == 1
    assert search.max_depth_reached() > 2


def test_the_best_tree_is_the_best_validation_f1_in_the_search(data):
    X, y = data
    search = _search(data, policy="c45b").run(100)
    best = search.best()
    assert best.state.f1 == max(n.state.f1 for n in search.nodes)
    tree = best.state.to_tree(X.shape[1])
    pred = tree.predict(X[200:])
    assert f1_score(y[200:], pred, average="macro") == pytest.approx(best.state.f1)
