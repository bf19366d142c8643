r"""Every axis-aligned tree of depth 2 over candidate splits, held to a parity bound: the exact fair start of OCT.

A parity notion's rates are sums over the leaves (:mod:`optitrees.fairness.cells`), so a depth-2 tree is its
root split and two independent children, each a split with two labelled leaves or one labelled leaf. For a root
split ``r`` the child on each side lists its options ``o`` with their weighted error ``e_o`` (plus the split's
cost) and the share of each cell's weight they predict positive ``m_o[q] = sum_{i in q, i positive} v_i / W_q``;
the tree of two options ``(o, o')`` has the error ``e_o + e_o'`` and the rates ``m_o + m_o'``. Every pair is
tried (``O^2`` per root, numpy), and the pair of least error whose rates keep the bound in every condition is the
best fair tree under that root. Over every root this is the exact fair optimum of depth at most 2 over the
candidate splits: over every axis-aligned tree when each feature's candidates are all midpoints between its
distinct values (:func:`candidate_splits` says whether they are).

The pairs of one root cost up to ``O^2 Q`` (``O = 4 S + 2`` options for ``S`` candidate splits, ``Q`` cells): with
16 thresholds per numeric feature, milliseconds to a second per root. A notion on two groups (one condition, two
cells) needs only ``O log O`` per root (:func:`_best_pair_two_cells`), which makes every threshold affordable at
a thousand rows. The roots are taken best stump first, and the search returns the best tree found when its
deadline passes. Two bounds leave out work that cannot beat the best tree found, and so keep the search exact:
a root whose children's best options without the bound (``min_o e_o + min_o' e_o'``) cost no less is skipped,
and the pairs are tried cheapest first (:func:`_best_pair_in_order`), each left option stopping at its first
right option that keeps the bound.
"""

from __future__ import annotations

import numpy as np

from ...budget import expired
from ...trees import LEAF, Tree

__all__ = ["candidate_splits", "fair_depth2_tree", "MAX_THRESHOLDS", "PAIR_BLOCK", "PAIR_FLOATS"]

#: Candidate thresholds per feature (the midpoints nearest evenly spaced quantiles beyond this many).
MAX_THRESHOLDS = 16
#: Options of the left child compared against the right one's at a time, in right blocks of this many, then twice,
#: four times ... up to :data:`PAIR_FLOATS` floats of rates (``PAIR_BLOCK x block x Q``, ``Q`` cells).
PAIR_BLOCK = 256
#: The most floats of pair rates held at a time (32 MB).
PAIR_FLOATS = 4_000_000


def candidate_splits(X, allowed=None, max_thresholds: int | None = MAX_THRESHOLDS):
    """``(features, thresholds, every)``: the splits ``x_j <= t`` with ``t`` a midpoint between two consecutive
    distinct values of feature ``j`` (allowed features only); a feature with more than ``max_thresholds`` midpoints
    keeps those nearest evenly spaced quantiles of its values. ``every``: no feature was thinned."""
    X = np.asarray(X, float)
    features, thresholds, every = [], [], True
    for j in range(X.shape[1]) if allowed is None else np.flatnonzero(allowed):
        values = np.unique(X[:, j])
        mids = (values[:-1] + values[1:]) / 2
        if max_thresholds is not None and mids.size > max_thresholds:
            every = False
            q = np.quantile(X[:, j], np.linspace(0, 1, max_thresholds + 2)[1:-1])
            mids = np.unique(mids[np.abs(mids[:, None] - q[None, :]).argmin(axis=0)])
        features += [j] * mids.size
        thresholds += list(mids)
    return np.asarray(features, np.int64), np.asarray(thresholds, float), every


def fair_depth2_tree(X, y01, objective_weight, cells, bound: float, split_cost: float, splits, deadline=None,
                     incumbent: float = np.inf):
    """``(tree, objective, complete)``: the fair tree of depth at most 2 over ``splits`` (from
    :func:`candidate_splits`) of least ``weighted error + split_cost x splits`` (module docstring), for rows ``X``
    with labels ``y01`` (0/1), objective weights ``objective_weight`` and the parity cells ``cells``
    (:class:`~optitrees.fairness.ParityCells`) held within ``bound``; ``complete``: every root was tried before
    ``deadline``. Only trees of objective below ``incumbent`` (a fair tree's, found before) are searched: ``tree``
    is ``None`` when there is none, and if ``complete``, the incumbent is the optimum. ``(None, inf, False)``
    without candidate splits."""
    X = np.asarray(X, float)
    features, thresholds = np.asarray(splits[0], np.int64), np.asarray(splits[1], float)
    if features.size == 0:
        return None, np.inf, False
    u, y01 = np.asarray(objective_weight, float), np.asarray(y01)
    # per row: the error if its leaf says 0, if it says 1, and its share of each cell (v_i / W_q)
    share = (cells.member * cells.weight) / cells.totals[:, None]
    quantities = np.vstack([u * (y01 == 1), u * (y01 != 1), share])                 # (2 + Q, rows)
    goes_left = (X[:, features] <= thresholds[None, :]).astype(float)              # (rows, S), 1: left
    conditions = [np.flatnonzero(cells.condition == k) for k in range(cells.n_conditions)]
    conditions = [c for c in conditions if len(c) > 1]
    stump = quantities[:2] @ goes_left
    whole = quantities[:2].sum(axis=1)
    stump_error = np.minimum(stump[0], stump[1]) + np.minimum(whole[0] - stump[0], whole[1] - stump[1])
    best = (float(incumbent), None)
    complete = True
    for r in np.argsort(stump_error, kind="stable"):
        if np.isfinite(best[0]) and expired(deadline):
            complete = False
            break
        left_rows = goes_left[:, r]
        sides = [_options(quantities * side, goes_left, split_cost) for side in (left_rows, 1.0 - left_rows)]
        if sides[0][0].min() + sides[1][0].min() + split_cost >= best[0]:
            continue                                            # not even without the bound does it do better
        # once a tree is found, a root's pairs stop at the deadline too (the pairs of one root can take long)
        value, pair, finished = _best_pair(sides[0], sides[1], conditions, bound, best[0] - split_cost,
                                           deadline if np.isfinite(best[0]) else None)
        if pair is not None and value + split_cost < best[0]:
            best = (value + split_cost, (r, sides[0][2][pair[0]], sides[1][2][pair[1]]))
        if not finished:
            complete = False
            break
    if best[1] is None:
        return None, np.inf, complete
    return _tree(best[1], features, thresholds, X.shape[1]), float(best[0]), complete


def _options(quantities, goes_left, split_cost):
    """A child's options on its rows (``quantities`` zero elsewhere): ``(error, cell shares, (split, left label,
    right label))``, split -1 for one leaf labelled ``left label``."""
    left = quantities @ goes_left                                                   # (2 + Q, S)
    right = quantities.sum(axis=1)[:, None] - left
    S = left.shape[1]
    errors, shares, what = [], [], []
    for a in (0, 1):
        for b in (0, 1):
            errors.append(left[a] + right[b] + split_cost)
            shares.append((a * left[2:] + b * right[2:]).T)
            what.append(np.column_stack([np.arange(S), np.full(S, a), np.full(S, b)]))
    total = quantities.sum(axis=1)
    for a in (0, 1):
        errors.append(total[a:a + 1])
        shares.append(a * total[None, 2:])
        what.append(np.array([[-1, a, a]]))
    return np.concatenate(errors), np.vstack(shares), np.vstack(what)


def _best_pair(left, right, conditions, bound, cutoff=np.inf, deadline=None):
    """``(error, (i, j), finished)``: the pair of a left option ``i`` and a right option ``j`` of least error whose
    rates keep ``bound`` in every condition (two constant options of one label always do), or ``(inf, None, ...)``
    when no such pair costs less than ``cutoff``. One condition of two cells (a notion on two groups) is searched in
    ``O log O`` (:func:`_best_pair_two_cells`), others pair by pair, cheapest first (:func:`_best_pair_in_order`),
    which stops at ``deadline`` with the best pair it found (``finished`` false)."""
    if not conditions:
        i, j = int(left[0].argmin()), int(right[0].argmin())
        value = float(left[0][i] + right[0][j])
        return (value, (i, j), True) if value < cutoff else (np.inf, None, True)
    if len(conditions) == 1 and len(conditions[0]) == 2:
        value, pair = _best_pair_two_cells(left, right, conditions[0], bound)
        return (value, pair, True) if value < cutoff else (np.inf, None, True)
    return _best_pair_in_order(left, right, conditions, bound, cutoff, deadline)


def _best_pair_in_order(left, right, conditions, bound, cutoff, deadline=None):
    """:func:`_best_pair` pair by pair, cheapest first: the options that could make a pair below ``cutoff`` with the
    other side's cheapest one, sorted by error; a block of ``PAIR_BLOCK`` left options meets the right options in
    blocks of ``PAIR_BLOCK``, twice that, four times ...; a left option leaves once it has met a right option that
    keeps the bound (the later ones cost more), and a block stops once its cheapest pair cannot beat the best one
    found. Exact: a pair left out costs no less than the best. A right block holds at most :data:`PAIR_FLOATS`
    floats of rates; the search stops at ``deadline``, between blocks."""
    error_l, share_l = left[0], left[1]
    error_r, share_r = right[0], right[1]
    rows = np.flatnonzero(error_l + error_r.min() < cutoff)
    cols = np.flatnonzero(error_r + error_l.min() < cutoff)
    rows = rows[np.argsort(error_l[rows], kind="stable")]
    cols = cols[np.argsort(error_r[cols], kind="stable")]
    best_value, best_pair = cutoff, None
    widest = max(PAIR_BLOCK, PAIR_FLOATS // (PAIR_BLOCK * share_l.shape[1]))
    for start in range(0, len(rows), PAIR_BLOCK):
        block = rows[start:start + PAIR_BLOCK]
        if len(cols) == 0 or error_l[block[0]] + error_r[cols[0]] >= best_value:
            break                                               # the left options are sorted: none later does better
        col_start, width = 0, PAIR_BLOCK
        while col_start < len(cols):
            if expired(deadline):
                return (best_value, best_pair, False) if best_pair is not None else (np.inf, None, False)
            right_block = cols[col_start:col_start + width]
            col_start, width = col_start + width, min(2 * width, widest)
            if block.size == 0 or error_l[block[0]] + error_r[right_block[0]] >= best_value:
                break
            error = error_l[block, None] + error_r[None, right_block]
            rates = share_l[block, None, :] + share_r[None, right_block, :]
            keeps = np.ones(error.shape, bool)
            for c in conditions:
                within = rates[:, :, c]
                keeps &= within.max(axis=2) - within.min(axis=2) <= bound
            error[~keeps] = np.inf
            k = int(np.argmin(error))
            i, j = divmod(k, error.shape[1])
            if error[i, j] < best_value:
                best_value, best_pair = float(error[i, j]), (int(block[i]), int(right_block[j]))
            block = block[~keeps.any(axis=1)]                   # a left option's first pair that keeps is its best
    return (best_value, best_pair, True) if best_pair is not None else (np.inf, None, True)


def _best_pair_two_cells(left, right, cells, bound):
    """:func:`_best_pair` for one condition of two cells ``a, b``: the pair's rates differ by ``d_i + d_j`` (``d =
    m[a] - m[b]`` of each option), so the right options a left one may take are those with ``d_j`` in ``[-bound -
    d_i, bound - d_i]``, a run of the right options sorted by ``d``; the least error on each run is read from a
    sparse table of minima (``log O`` levels)."""
    a, b = cells
    d_left = left[1][:, a] - left[1][:, b]
    d_right = right[1][:, a] - right[1][:, b]
    order = np.argsort(d_right, kind="stable")
    d, error = d_right[order], right[0][order]
    lo = np.searchsorted(d, -bound - d_left, side="left")
    hi = np.searchsorted(d, bound - d_left, side="right")
    # argmin[k][s]: the position of the least error on d[s:s + 2^k]
    argmin = [np.arange(len(d))]
    while 2 ** len(argmin) <= len(d):
        prev, half = argmin[-1], 2 ** (len(argmin) - 1)
        first, second = prev[:-half], prev[half:]
        argmin.append(np.where(error[first] <= error[second], first, second))
    length = hi - lo
    best_right = np.zeros(len(lo), np.int64)
    has = length > 0
    level = np.zeros(len(lo), np.int64)
    level[has] = np.floor(np.log2(length[has])).astype(np.int64)
    for k in np.unique(level[has]):
        rows = np.flatnonzero(has & (level == k))
        first, second = argmin[k][lo[rows]], argmin[k][hi[rows] - 2 ** k]
        best_right[rows] = np.where(error[first] <= error[second], first, second)
    total = np.where(has, left[0] + error[best_right], np.inf)
    i = int(np.argmin(total))
    if not np.isfinite(total[i]):
        return np.inf, None
    return float(total[i]), (i, int(order[best_right[i]]))


def _tree(choice, features, thresholds, n_features) -> Tree:
    """The tree of a root split and its two children's options, node arrays in depth-first order."""
    root, *children = choice
    left, right, feature, threshold, label = [LEAF], [LEAF], [int(features[root])], [float(thresholds[root])], [0]
    for side, (split, a, b) in zip((left, right), children):
        side[0] = len(feature)
        if split < 0:
            left.append(LEAF), right.append(LEAF), feature.append(-1), threshold.append(0.0), label.append(int(a))
            continue
        k = len(feature)
        left.append(k + 1), right.append(k + 2), feature.append(int(features[split]))
        threshold.append(float(thresholds[split])), label.append(0)
        for leaf_label in (a, b):
            left.append(LEAF), right.append(LEAF), feature.append(-1), threshold.append(0.0)
            label.append(int(leaf_label))
    W = np.zeros((len(feature), n_features))
    inner = np.flatnonzero(np.asarray(feature) >= 0)
    W[inner, np.asarray(feature)[inner]] = 1.0
    return Tree(left, right, W, threshold, label=label)
