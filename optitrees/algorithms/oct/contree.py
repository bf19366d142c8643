"""ConTree (Brita, van der Linden & Demirovic, AAAI 2025; ``pycontree``, MIT) as the exact engine of axis-aligned OCT.

ConTree finds optimal classification trees on continuous features by dynamic
programming with branch-and-bound. Its objective is
``errors + complexity_cost * n * (branching nodes)``, so OCT's
``errors / L_hat + alpha * splits`` is the same problem with
``complexity_cost = alpha * L_hat / n`` (a brute-force test holds the two equal).
ConTree knows no minimum leaf size, no user constraints and no weights: the
first two stay with the MIP. Weights are given to ConTree as rows repeated
(:func:`multiplicities`): each weight a whole number of a common unit, exactly
when the weights allow it (merged duplicate rows, class weights in whole
ratios), otherwise rounded down, so ConTree's optimum on the repeated rows is a
lower bound on the weighted one (:func:`rounded_bound`). A cost above 1
makes every split dearer than all ``n`` errors, so the
optimum is then the majority leaf, certified without a search.

pycontree holds the GIL for its whole search, so Python could not see a
Ctrl-C until the search ended (10.5 s measured). Where processes can be
forked, the search runs in a child process the caller waits for in short
polls: Ctrl-C stops the child and reaches the caller at once.
"""

from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ...trees import LEAF, Tree
from ...forked import call_forked

__all__ = ["contree_tree", "Multiplicities", "multiplicities", "rounded_bound"]

#: Whole-number weights (merged duplicate rows) are handed to ConTree as repeated rows up to this many rows in all.
MAX_REPEATED_ROWS = 2_000_000
#: Weights that are whole multiples of a unit but not whole numbers are handed to ConTree exactly in at most this
#: many times the rows.
EXACT_ROWS_FACTOR = 10
#: Weights rounded down to a unit are handed to ConTree in at most this many times the rows.
ROUNDED_ROWS_FACTOR = 2
#: Units tried for rounded weights: each of the weight values of most total weight (this many) ...
ROUNDED_UNIT_VALUES = 20
#: ... divided by 1, 2, ..., this.
ROUNDED_UNIT_DIVISORS = 12


@dataclass(frozen=True)
class Multiplicities:
    """Weights as whole numbers of a unit: ``counts * unit <= weight`` row by row (up to a relative 1e-9),
    equal where ``exact``.

    ``lost``: the share of the total weight the rounding drops (0 when exact).
    """

    counts: np.ndarray
    unit: float
    exact: bool
    lost: float


def _whole_multiples(w, unit) -> np.ndarray | None:
    counts = np.round(w / unit)
    return counts if np.allclose(counts * unit, w, rtol=1e-12, atol=0.0) else None


def multiplicities(sample_weight) -> Multiplicities | None:
    """How ConTree counts the rows of weights ``sample_weight`` (``None``: every row once, returns ``None``).

    Exact when every weight is a whole multiple of one unit: the largest such unit when the weights are whole
    ratios of the smallest one (each ratio a fraction of denominator at most 1000: merged duplicates, class
    weights such as ``{0: 0.5, 1: 1.5}``, ``"balanced"`` weights of classes with a large common divisor),
    else 1 for whole numbers. Whole numbers stand for rows (merged duplicates) and are taken in up to
    :data:`MAX_REPEATED_ROWS` rows; other weights in up to :data:`EXACT_ROWS_FACTOR` times the rows.
    Otherwise the weights are rounded down to whole multiples of the unit that drops the least weight in at
    most :data:`ROUNDED_ROWS_FACTOR` times the rows, among each of the :data:`ROUNDED_UNIT_VALUES` weight
    values of most total weight over 1, 2, ..., :data:`ROUNDED_UNIT_DIVISORS`, and the total weight over that
    many rows.
    """
    if sample_weight is None:
        return None
    w = np.asarray(sample_weight, float)
    positive = w[w > 0]
    if not len(positive):
        raise ValueError("every sample weight is 0: there is nothing to fit")
    whole = bool(np.all(w == np.round(w)))
    smallest = float(positive.min())
    counts, unit = (np.round(w), 1.0) if whole else (None, None)
    ratios = np.unique(positive / smallest)
    if len(ratios) <= 10_000:
        fractions = [Fraction(float(r)).limit_denominator(1000) for r in ratios]
        common = smallest / math.lcm(*(f.denominator for f in fractions))
        exact = _whole_multiples(w, common)
        if exact is not None and (counts is None or exact.sum() < counts.sum()):
            counts, unit = exact, common
    cap = MAX_REPEATED_ROWS if whole else min(MAX_REPEATED_ROWS, EXACT_ROWS_FACTOR * len(w))
    if counts is not None and counts.sum() <= cap:
        return Multiplicities(counts.astype(np.int64), unit, True, 0.0)
    total, rows = w.sum(), min(MAX_REPEATED_ROWS, ROUNDED_ROWS_FACTOR * len(w))
    values, inverse = np.unique(w, return_inverse=True)
    heaviest = values[np.argsort(-np.bincount(inverse, weights=w))[:ROUNDED_UNIT_VALUES]]
    heaviest = heaviest[heaviest > 0]
    # units a whole fraction of one of the heaviest weights (it and its multiples stay exact), and the least unit
    # that keeps the rows within bounds whatever the weights
    parts_of_heaviest = (heaviest[:, None] / np.arange(1, ROUNDED_UNIT_DIVISORS + 1)[None]).ravel()
    units = np.r_[parts_of_heaviest, total / rows * (1 + 1e-9)]
    best = None
    for unit in units:
        counts = np.floor(w / unit * (1 + 1e-9))                # a weight a rounding error below a multiple is it
        if counts.sum() > rows:
            continue
        lost = max(float((w - counts * unit).sum() / total), 0.0)
        if best is None or lost < best.lost - 1e-12:
            best = Multiplicities(counts.astype(np.int64), float(unit), False, lost)
    return best


def rounded_bound(tree, X, y, counts, unit, L_hat, alpha) -> float:
    """A lower bound on ``weighted errors / L_hat + alpha * splits`` over all trees, from ``tree``, the
    optimum of ConTree on the rows repeated ``counts`` times, ``counts * unit <= weight`` (:func:`multiplicities`).

    Every tree's weighted errors are at least ``unit`` times its errors in counts, so the optimum in counts
    (``tree``'s value there, its own leaf labels) times ``unit`` bounds the weighted optimum from below. The
    unit is shrunk by a relative 1e-9, the rounding :func:`multiplicities` allows.
    """
    errors = float(np.asarray(counts, float) @ (tree.predict(X) != np.asarray(y)))
    return errors * unit * (1 - 1e-9) / L_hat + alpha * tree.n_splits()


def _convert(node, n_features):
    """ConTree's linked tree as node arrays in depth-first order (children after their parent)."""
    left, right, feature, thr, label = [], [], [], [], []

    def visit(t):
        k = len(left)
        left.append(LEAF), right.append(LEAF), feature.append(-1), thr.append(0.0), label.append(0)
        if t.is_leaf_node():
            label[k] = int(t.get_label())
            return k
        feature[k], thr[k] = int(t.get_split_feature()), float(t.get_split_threshold())
        left[k] = visit(t.get_left())
        right[k] = visit(t.get_right())
        return k

    visit(node)
    n = len(left)
    W = np.zeros((n, n_features))
    inner = np.flatnonzero(np.array(left) != LEAF)
    W[inner, np.array(feature)[inner]] = 1.0
    return Tree(left, right, W, thr, label=label)


def contree_tree(X, y, depth, alpha, L_hat, n_classes, time_limit=None, allowed=None, sample_weight=None):
    """The optimal axis-aligned tree of depth ``depth`` for ``errors / L_hat + alpha * splits`` (the search runs
    in a child process where processes can be forked, see the module docstring).

    ``sample_weight`` (whole numbers, :func:`multiplicities`) counts each row that many times.

    Returns
    -------
    tree : Tree
        Labels and training counts filled in.
    proven : bool
        ConTree finished within ``time_limit`` (the tree is optimal); otherwise
        it is the best tree ConTree found.
    seconds : float
    """
    X = np.asarray(X, float)
    y = np.asarray(y, np.int64)
    if sample_weight is not None and not np.array_equal(sample_weight, np.round(sample_weight)):
        raise ValueError("ConTree counts rows: give whole-number weights (see multiplicities)")
    times = None if sample_weight is None else np.round(sample_weight).astype(np.int64)
    Xr, yr = (X, y) if times is None else (np.repeat(X, times, axis=0), np.repeat(y, times))
    n, p = Xr.shape
    cols = np.arange(p) if allowed is None else np.flatnonzero(allowed)
    cost = alpha * L_hat / n
    t0 = time.perf_counter()
    if cost > 1.0:                                         # no split can pay for itself: the majority leaf
        tree = Tree([LEAF], [LEAF], np.zeros((1, p)), [0.0], label=[int(np.bincount(yr).argmax())])
        return tree.with_counts(X, y, sample_weight=sample_weight), True, time.perf_counter() - t0
    tree, proven = _search(Xr[:, cols], yr, depth, cost, 600 if time_limit is None else time_limit)
    seconds = time.perf_counter() - t0
    W = np.zeros((tree.n_nodes, p))
    W[:, cols] = tree.weights
    tree.weights = W
    value = np.zeros((tree.n_nodes, n_classes))
    tree.value = value
    return tree.with_counts(X, y, sample_weight=sample_weight), proven, seconds


def _fit(X, y, depth, cost, time_limit):
    """ConTree's tree (on the columns of ``X``) and whether it finished within ``time_limit``."""
    from pycontree import ConTree

    model = ConTree(max_depth=depth, complexity_cost=cost, time_limit=time_limit)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(X, y)
    return _convert(model.tree_, X.shape[1]), bool(model._config.is_within_time_limit())


def _search(X, y, depth, cost, time_limit):
    """:func:`_fit` in a forked child process (interruptible; :func:`~optitrees.forked.call_forked`)."""
    return call_forked(_fit, (X, y, depth, cost, time_limit), name="optitrees-contree")[1]
