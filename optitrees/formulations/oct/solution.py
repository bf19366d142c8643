"""Solutions of OCT / OCT-H: decode, start, objective, finalize.

A solution is a complete tree of depth ``D`` in breadth-first numbering; an
unused split (``d_t = 0``) sends every point right, so the fitted
:class:`~optitrees.trees.Tree` drops it. The MIP sends a point right at an
active node when ``a_t x >= b_t`` and left when ``a_t x <= b_t - margin``
(``eps_j`` for OCT, ``mu`` for OCT-H), so the decoded threshold
``b_t - margin / 2`` routes every training point as the MIP does; finalizing
moves it to a short number between the neighbouring training values.
"""

from __future__ import annotations

import numpy as np

from ...trees import Tree, from_complete, left_heavy, readable_tree, signs_oriented, to_complete
from .. import blocks
from ..family import MIPFamily
from ..feature_budget import FeatureUse
from ..identical_rows import misclassified_weight
from .model import oct_size
from .model import OCTProblem, build

__all__ = ["decode", "start", "objective", "finalize", "identical_rows_bound", "OCT_FAMILY"]


def objective(problem: OCTProblem, tree: Tree) -> float:
    """``errors / L_hat + alpha * complexity`` of a tree in the user's units (errors: their total weight;
    complexity: splits, or
    features used over all splits for OCT-H)."""
    return _objective_on(problem, tree, problem.data.X_original)


def _objective_on(problem, tree, X):
    errors = problem.data.weighted_sum(tree.predict(X) != problem.data.y)
    complexity = tree.n_features_used() if problem.spec.oblique else tree.n_splits()
    return float(errors / problem.L_hat + problem.spec.alpha * complexity)


def decode(f, x) -> tuple[Tree, dict]:
    """The tree of a solution (``[0, 1]`` units), its leaf labels and counts, and its agreement with ``z``; OCT-H's
    weights whose feature indicator is off are zero."""
    problem = f.problem
    v = f.values(x)
    active = v["d"] > 0.5
    W = np.where(active[:, None], blocks.indicated_weights(v) if problem.spec.oblique else np.round(v["a"]), 0.0)
    thr = np.where(active, v["b"] - problem.margin / 2, 0.0)
    labels = np.argmax(v["c"], axis=0)
    tree, position = from_complete(W, thr, active=active, leaf_labels=labels, n_classes=problem.spec.n_classes)
    X, y = problem.data.X, problem.data.y
    tree = tree.with_counts(X, y, sample_weight=problem.data.fit_weight)
    routing = f.sets["L"][np.argmax(v["z"], axis=1)]
    checks = {"routing_mismatches": int(np.sum(position[tree.apply(X)] != routing)),
              "objective_recomputed": _objective_on(problem, tree, X)}
    return tree, checks


def start(f, tree: Tree) -> np.ndarray:
    """Complete assignment of every variable for a label tree in ``[0, 1]`` units of at most depth ``D``.

    Under OCT-H's symmetry rows the tree is first mirrored to put more weight left at every split
    (:func:`~optitrees.trees.left_heavy`: the same routing); under its monotone block, to weigh every constrained
    feature with its sign where the split allows (:func:`~optitrees.trees.signs_oriented`). Each active split gets
    ``b_t`` = the smallest ``a_t x`` among the training points it sends right (above the largest one it sends
    left, plus the margin); leaves keep the tree's labels. The solver checks feasibility
    (``N_min``, margins) and drops an infeasible start with a warning.
    """
    problem = f.problem
    X, y, K = problem.data.X, np.asarray(problem.data.y), problem.spec.n_classes
    if "mirror" in f.constraints:                     # OCT-H's symmetry rows: the same tree, left-heavy
        tree = left_heavy(tree, X, problem.data.weight)
    if any(problem.spec.monotone):
        tree = signs_oriented(tree, X, problem.spec.monotone)
    c = to_complete(tree, problem.spec.depth)
    path = tree.decision_path(X)
    W = c.split_weights
    b = np.zeros(len(c.active))
    for node in np.flatnonzero(~tree.is_leaf):
        t = c.position[node] - 1
        rows = np.flatnonzero((path == node).any(axis=1))
        values = X[rows] @ W[t]
        right = values > tree.threshold[node]
        margin = problem.margin if problem.spec.oblique else problem.eps[np.argmax(np.abs(W[t]))]
        b[t] = values[right].min() if right.any() else min(1.0, values.max(initial=0.0) + margin)
    leaves = f.sets["L"]
    z = (c.position[tree.apply(X)][:, None] == leaves[None, :]).astype(float)
    zv = z * problem.data.weight[:, None]
    counts = np.stack([zv[y == k].sum(axis=0) for k in range(K)])         # (K, L), weighted
    used = counts.sum(axis=0) > 0
    labels = c.leaf_labels
    cvar = np.zeros((K, len(leaves)))
    cvar[labels[used], np.flatnonzero(used)] = 1.0
    loss = counts.sum(axis=0) - counts[labels, np.arange(len(leaves))]
    values = {"z": z, "leaf": used.astype(float), "c": cvar, "loss": np.where(used, loss, 0.0),
              "d": c.active.astype(float), "b": np.where(c.active, b, 0.0)}
    if problem.spec.oblique:
        values.update(w=W, w_pos=np.maximum(W, 0), w_neg=np.maximum(-W, 0), delta=(W != 0).astype(float))
    else:
        values["a"] = (W != 0).astype(float)
    return f.vector(values)


def finalize(problem: OCTProblem, tree: Tree) -> Tree:
    """The tree in the user's units: single-feature splits read ``x_j <= t`` with ``t`` a short number
    strictly between the neighbouring training values; oblique weights in few significant digits."""
    return readable_tree(tree.to_original_units(problem.data), problem.data.X_original, threshold="between")


def identical_rows_bound(problem: OCTProblem, deadline=None) -> tuple[float, str] | None:
    """``(bound, source)``: the weight of the rows every tree misclassifies (in each group of rows identical in
    the features a split may use, all but its heaviest label; :func:`.identical_rows.misclassified_weight`) over
    ``L_hat``, a lower bound on every tree's objective; ``None`` when there is none (the MIP's LP bound is 0)."""
    data = problem.data
    allowed = np.ones(data.X.shape[1], bool)
    allowed[list(problem.spec.forbidden)] = False
    errors = misclassified_weight(data.X[:, allowed], data.y, data.fit_weight)
    if errors <= 0:
        return None
    return errors / problem.L_hat, "rows identical in features with different labels"


def feature_use(f) -> list[FeatureUse]:
    """OCT reads feature ``j`` at node ``t`` when ``a[t, j] = 1``; OCT-H when ``delta[t, j] = 1`` (3.14)."""
    return [FeatureUse(f.variables["delta" if f.problem.spec.oblique else "a"])]


OCT_FAMILY = MIPFamily("oct", build=build, start=start, decode=decode, finalize=finalize, objective=objective,
                       size=oct_size, lower_bound=identical_rows_bound, feature_use=feature_use)
