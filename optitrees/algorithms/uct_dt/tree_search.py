"""UCT-DT: Monte Carlo tree search over decision trees (seed 000, ch. 4).

Decision-tree learning as a single-player game (4.4.1): a state is a tree, an
action ``(leaf, test)`` splits one leaf, and the reward of a finished tree is
its average F1 over the classes on a validation set. Each iteration of the
search (Figure 4.2):

1. *selection* from the root by UCB1, ``V/N + 2 C_p sqrt(2 ln N_parent / N_child)``
   (UCT, Kocsis & Szepesvari), down to a node with untried actions;
2. *expansion* (Algorithm 2): a random untried action is applied; the child
   inherits its parent's initial actions except those on the split leaf, plus the
   ``K`` best tests (by information gain on the induction rows,
   :func:`~optitrees.algorithms.c45.split_search.top_tests`) of each new leaf that can
   still be split (at least ``min_samples_split`` rows, depth below ``max_depth``,
   not pure); a tree already in the search (the same splits in another order)
   is not added again;
3. *simulation* (4.4.3): ``"vs"`` the tree's own validation F1; ``"c45"`` the
   validation F1 of the tree completed by C4.5 on the induction rows;
   ``"c45b"`` the same on bootstrap samples of the induction and validation rows
   (completions: :mod:`~optitrees.algorithms.uct_dt.completion`);
4. *backpropagation* of the reward to the root.

Search pruning (4.4.4): *DT-based*, the tree completed by C4.5 is pruned
pessimistically (2.2.3) and a node whose incoming split did not survive is
removed; *value-based*, every ``vp_every`` iterations only the node of best
``V / N`` is kept at depth ``vp_depth`` (shallower nodes stop branching).
The result is the tree of best validation F1 in the search tree (4.4.5).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ...budget import expired
from ...trees import LEAF, Tree
from ..c45.induction import c45_threshold
from ..c45.split_search import top_tests
from .completion import C45Completion, macro_f1

__all__ = ["macro_f1", "DTState", "SearchNode", "UCTSearch"]


@dataclass
class _Leaf:
    rows: np.ndarray          # induction rows
    val_rows: np.ndarray      # validation rows
    depth: int
    path: tuple               # 0 = left, 1 = right, from the root
    counts: np.ndarray        # induction class counts
    label: int


@dataclass
class DTState:
    """A decision tree of the search: splits ``id -> (feature, threshold, left, right)`` and leaves ``id -> _Leaf``."""

    splits: dict
    leaves: dict
    key: frozenset
    next_id: int
    f1: float = 0.0

    def n_leaves(self) -> int:
        return len(self.leaves)

    def to_tree(self, n_features: int) -> Tree:
        """The :class:`~optitrees.trees.Tree` of this state (breadth-first ids, induction counts)."""
        order, queue = [], [0]
        while queue:
            t = queue.pop(0)
            order.append(t)
            if t in self.splits:
                queue += [self.splits[t][2], self.splits[t][3]]
        index = {t: i for i, t in enumerate(order)}
        n, K = len(order), len(next(iter(self.leaves.values())).counts)
        left, right = np.full(n, LEAF), np.full(n, LEAF)
        W, thr, value, label = np.zeros((n, n_features)), np.zeros(n), np.zeros((n, K)), np.zeros(n, np.int64)
        for t in reversed(order):                   # children before parents for the counts
            i = index[t]
            if t in self.splits:
                f, tau, lt, rt = self.splits[t]
                left[i], right[i], W[i, f], thr[i] = index[lt], index[rt], 1.0, tau
                value[i] = value[index[lt]] + value[index[rt]]
                label[i] = int(np.argmax(value[i]))
            else:
                value[i], label[i] = self.leaves[t].counts, self.leaves[t].label
        return Tree(left, right, W, thr, value=value, label=label)


@dataclass
class SearchNode:
    state: DTState
    action: tuple | None
    parent: "SearchNode | None"
    depth: int
    untried: list
    initial: list
    children: list = field(default_factory=list)
    N: int = 0
    V: float = 0.0


class UCTSearch:
    """One UCT-DT search on ``(X, y)`` split into induction rows ``ind`` and validation rows ``val``.

    ``sample_weight`` (default 1) is each row's weight in the class counts, the
    candidate tests' gains, ``min_samples_split`` and the validation F1.
    """

    def __init__(self, X, y, ind, val, *, n_classes, allowed, max_depth, n_candidates=3, exploration=1.0,
                 policy="vs", dt_pruning=True, value_pruning=True, vp_every=3000, vp_depth=5,
                 min_samples_split=4, confidence_factor=0.25, rng=None, sample_weight=None):
        self.X, self.y, self.ind, self.val = X, y, np.asarray(ind), np.asarray(val)
        self.v = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, float)
        self.K, self.allowed, self.max_depth = n_classes, allowed, max_depth
        self.Y = np.eye(n_classes)[y]
        self.n_candidates, self.exploration, self.policy = n_candidates, exploration, policy
        self.dt_pruning, self.value_pruning = dt_pruning, value_pruning
        self.vp_every, self.vp_depth = vp_every, vp_depth
        self.min_samples_split, self.confidence_factor = min_samples_split, confidence_factor
        self.rng = rng if rng is not None else np.random.default_rng()
        self.ind_column = X[self.ind]
        root_state = DTState({}, {0: self._leaf(self.ind, self.val, 0, (), None)}, frozenset(), 1)
        root_state.f1 = self._f1(root_state)
        actions = self._actions(0, root_state.leaves[0])
        self.root = SearchNode(root_state, None, None, 0, list(actions), list(actions))
        self.seen = {root_state.key}
        self.nodes = [self.root]
        self.iterations = 0
        self.removed_by_dt_pruning = 0
        self.completion = C45Completion(X, y, self.ind, n_classes=n_classes, allowed=allowed, max_depth=max_depth,
                                        min_samples_split=min_samples_split, confidence_factor=confidence_factor,
                                        dt_pruning=dt_pruning, sample_weight=self.v)

    # ------------------------------------------------------------------ states
    def _leaf(self, rows, val_rows, depth, path, parent_label):
        counts = np.bincount(self.y[rows], weights=self.v[rows], minlength=self.K)
        label = int(np.argmax(counts)) if counts.sum() > 0 else parent_label
        return _Leaf(rows, val_rows, depth, path, counts, label)

    def _splittable(self, leaf) -> bool:
        return (leaf.counts.sum() >= self.min_samples_split and leaf.depth < self.max_depth
                and np.count_nonzero(leaf.counts) > 1)

    def _actions(self, leaf_id, leaf):
        if not self._splittable(leaf):
            return []
        tests = top_tests(self.X[leaf.rows], self.Y[leaf.rows], self.v[leaf.rows], allowed=self.allowed,
                          k=self.n_candidates)
        return [(leaf_id, t.feature, c45_threshold(self.ind_column[:, t.feature], self.X[leaf.rows, t.feature],
                                                   t.threshold)) for t in tests]

    def _f1(self, state) -> float:
        confusion = np.zeros((self.K, self.K))
        for leaf in state.leaves.values():
            confusion[:, leaf.label] += np.bincount(self.y[leaf.val_rows], weights=self.v[leaf.val_rows],
                                                    minlength=self.K)
        return macro_f1(confusion)

    def _apply(self, state, action):
        leaf_id, f, tau = action
        leaf = state.leaves[leaf_id]
        go = self.X[leaf.rows, f] <= tau
        go_val = self.X[leaf.val_rows, f] <= tau
        lid, rid = state.next_id, state.next_id + 1
        leaves = dict(state.leaves)
        del leaves[leaf_id]
        leaves[lid] = self._leaf(leaf.rows[go], leaf.val_rows[go_val], leaf.depth + 1, leaf.path + (0,), leaf.label)
        leaves[rid] = self._leaf(leaf.rows[~go], leaf.val_rows[~go_val], leaf.depth + 1, leaf.path + (1,), leaf.label)
        splits = {**state.splits, leaf_id: (f, tau, lid, rid)}
        child = DTState(splits, leaves, state.key | {(leaf.path, f, tau)}, state.next_id + 2)
        child.f1 = self._f1(child)
        return child, (lid, rid)

    # ---------------------------------------------------------------- phases
    def _ucb(self, parent, child) -> float:
        return child.V / child.N + 2 * self.exploration * math.sqrt(2 * math.log(parent.N) / child.N)

    def _select(self):
        node = self.root
        while not node.untried and node.children:
            node = max(node.children, key=lambda c: self._ucb(node, c))
        return node

    def _expand(self, node):
        while node.untried:
            action = node.untried.pop(int(self.rng.integers(len(node.untried))))
            state, (lid, rid) = self._apply(node.state, action)
            if state.key in self.seen:
                continue
            self.seen.add(state.key)
            inherited = [a for a in node.initial if a[0] != action[0]]
            actions = inherited + self._actions(lid, state.leaves[lid]) + self._actions(rid, state.leaves[rid])
            child = SearchNode(state, action, node, node.depth + 1, list(actions), list(actions))
            return child
        return None

    def _simulate(self, node):
        """``(reward, keep)``: the policy's reward, and whether DT-based pruning keeps the node."""
        keep, confusion = True, None
        if self.dt_pruning or self.policy == "c45":
            keep, confusion = self.completion.simulate(node.state, None if node.action is None else node.action[0])
        if self.policy == "vs":
            return node.state.f1, keep
        if self.policy == "c45":
            return macro_f1(confusion), keep
        boot = self.rng.choice(self.ind, len(self.ind))
        boot_val = self.rng.choice(self.val, len(self.val))
        grown, _ = self.completion.complete(node.state, np.sort(boot))
        return self.completion.grown_f1(grown, boot_val), keep

    def _backpropagate(self, node, reward):
        while node is not None:
            node.N += 1
            node.V += reward
            node = node.parent

    def _value_prune(self):
        level = [n for n in self.nodes if n.depth == self.vp_depth and n.N > 0]
        if len(level) <= 1:
            return
        best = max(level, key=lambda n: n.V / n.N)
        for n in level:
            if n is not best:
                n.parent.children.remove(n)
        removed = {id(n) for n in level if n is not best}
        self.nodes = [n for n in self.nodes if not self._has_removed_ancestor(n, removed)]
        for n in self.nodes:
            if n.depth < self.vp_depth:
                n.untried.clear()

    @staticmethod
    def _has_removed_ancestor(node, removed) -> bool:
        while node is not None:
            if id(node) in removed:
                return True
            node = node.parent
        return False

    def run(self, n_iterations, deadline=None):
        """Run up to ``n_iterations`` iterations (or until ``deadline``, a ``time.perf_counter`` value)."""
        if self.root.N == 0:
            reward, _ = self._simulate(self.root)
            self._backpropagate(self.root, reward)
        for _ in range(n_iterations):
            if expired(deadline):
                break
            self.iterations += 1
            node = self._select()
            child = self._expand(node) if node.untried else None
            if child is None:
                if not node.untried and not node.children and node is not self.root:
                    reward, _ = self._simulate(node)          # a terminal state: simulate it again
                    self._backpropagate(node, reward)
                elif node is self.root and not node.untried and not node.children:
                    break                                     # nothing left to search
                continue
            reward, keep = self._simulate(child)
            if not keep:
                self.removed_by_dt_pruning += 1
                continue
            node.children.append(child)
            self.nodes.append(child)
            self._backpropagate(child, reward)
            if self.value_pruning and self.iterations % self.vp_every == 0:
                self._value_prune()
        return self

    def best(self) -> SearchNode:
        """The node whose tree has the best validation F1 (ties: fewer leaves, then found earlier)."""
        return max(self.nodes, key=lambda n: (n.state.f1, -n.state.n_leaves()))

    def max_depth_reached(self) -> int:
        return max(n.depth for n in self.nodes)
