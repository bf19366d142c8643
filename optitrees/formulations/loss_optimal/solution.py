"""Solutions of loss-optimal trees (3.12): decode, start, exact objective, finalize.

A loss-optimal tree of depth ``d`` is a complete :class:`~optitrees.trees.Tree`
whose ``d - 1`` levels of splits route and whose last branching layer ``T_d``
are linear leaves. An inner node ``t`` sends a point left when
``w_t x + b_t <= eps / 2``, the middle of the gap ``(0, eps)`` that (3.7)
leaves open, so the tree's threshold is ``eps / 2 - b_t`` and its own
classifier ``(w_t, b_t)`` stays in ``intercept`` for the inner layers' losses.
"""

from __future__ import annotations

import numpy as np

from ...mip.expressions import Data
from ...trees import Tree, from_complete, readable_tree, to_complete
from .. import blocks
from ..family import MIPFamily
from ..feature_budget import FeatureUse
from .model import loss_optimal_size
from ..tangents import logistic_loss
from .model import LossOptimalProblem, build
from .root_bounds import root_layer_bound

__all__ = ["decode", "start", "within_class", "objective", "tree_objective", "finalize", "layer_loss_functions",
           "tree_from_hyperplanes", "LOSS_OPTIMAL"]


def tree_from_hyperplanes(problem: LossOptimalProblem, weights, intercepts) -> Tree:
    """The tree of hyperplanes ``(w_t, b_t)`` of every branch node ``t = 1 .. 2^d - 1`` (breadth-first rows)."""
    inner = len(problem.topology.inner_nodes)
    W = np.asarray(weights, float)
    b = np.asarray(intercepts, float)
    tree, _ = from_complete(W[:inner], problem.eps / 2 - b[:inner], split_intercept=b[:inner],
                            leaf_weights=W[inner:], leaf_intercepts=b[inner:],
                            probabilistic=problem.spec.probabilistic)
    return tree


def layer_loss_functions(problem: LossOptimalProblem, surrogate: bool = True):
    """Per-layer loss of the margins, ``loss_h(s)`` (the tangent underestimator when ``surrogate``)."""
    eps = problem.eps
    fns = {"logistic": problem.lines if surrogate else logistic_loss,
           "hinge": lambda s: np.maximum(0.0, 1.0 - s),
           # a correct point has margin >= eps in the MIP; half of it absorbs solver tolerances
           "misclassification": lambda s: (s < eps / 2).astype(float)}
    return [fns[v] for v in problem.spec.losses]


def tree_objective(problem: LossOptimalProblem, tree: Tree, surrogate: bool = False) -> float:
    """Objective (3.12) of a tree in the problem's standardized units.

    ``sum_h C_h sum_i v_i loss_h(y_i (w_t x_i + b_t))`` (``v_i`` the point's weight) over the node ``t`` of each
    layer on the point's path, plus ``lam_h Omega(w_t)`` and ``alpha_h ||w_t||_0``
    per node. ``surrogate=True`` uses the tangent underestimator of the logistic
    loss (the MIP's objective).
    """
    spec, data = problem.spec, problem.data
    _, values = tree.path_values(data.X)
    margins = data.y[:, None] * values
    fns = layer_loss_functions(problem, surrogate)
    total = sum(spec.C[h] * data.weighted_sum(fns[h](margins[:, h])) for h in range(spec.depth))
    layer = tree.node_depth
    W = tree.weights
    if spec.regularizer == "l1":
        total += float(spec.lam[layer] @ np.abs(W).sum(axis=1))
    elif spec.regularizer == "l2":
        total += float(spec.lam[layer] @ (W * W).sum(axis=1))
    if spec.alpha is not None:
        total += float(spec.alpha[layer] @ (W != 0).sum(axis=1))
    return float(total)


def objective(problem: LossOptimalProblem, tree: Tree) -> float:
    """Exact training objective (3.12 with the exact logistic loss) of a tree in the user's units."""
    return tree_objective(problem, tree.to_scaled_units(problem.data), surrogate=False)


def decode(f, x) -> tuple[Tree, dict]:
    """The tree of a solution (standardized units) and its agreement with the solution.

    ``checks["routing_mismatches"]`` counts training points the hyperplanes
    route to another last-layer node than ``z`` does; ``objective_recomputed``
    is the MIP objective (tangent losses) recomputed from the tree -- the exact
    one with adaptive tangents, whose loop reports the exact objective. With
    l0 indicators, the weights whose indicator is off are zero.
    """
    problem = f.problem
    v = f.values(x)
    tree = tree_from_hyperplanes(problem, blocks.indicated_weights(v), v["b"])
    routing = f.sets["T_last"][np.argmax(v["z"], axis=1)]
    reached = to_complete(tree, problem.spec.depth - 1).position[tree.apply(problem.data.X)]
    checks = {"routing_mismatches": int(np.sum(reached != routing)),
              "objective_recomputed": tree_objective(problem, tree, surrogate=not problem.spec.adaptive)}
    return tree, checks


def start(f, tree: Tree) -> np.ndarray:
    """Complete assignment of every variable of ``f`` for a tree in standardized units.

    Routing follows the tree (which must send every training point with
    ``w_t x + b_t <= 0`` or ``>= eps`` at inner nodes for the start to be
    feasible), slacks take the values of the MIP's losses, the l1 parts and
    l0 indicators follow ``w``.
    """
    problem = f.problem
    X, y = problem.data.X, problem.data.y.astype(float)
    c = to_complete(tree, problem.spec.depth - 1)
    W = np.vstack([c.split_weights, c.leaf_weights])
    b = np.concatenate([c.split_intercept, c.leaf_intercepts])
    leaf = c.position[tree.apply(X)]
    z = (leaf[:, None] == f.sets["T_last"][None, :]).astype(float)
    s = y[None, :] * (W @ X.T + b[:, None])                              # (T, n)
    _, values = tree.path_values(X)
    visited = y[:, None] * values                                        # (n, depth) margin on each layer
    fns = layer_loss_functions(problem, surrogate=True)
    per_layer = np.column_stack([fns[h](visited[:, h]) for h in range(problem.spec.depth)])
    out = {"z": z, "w": W, "b": b, "w_pos": np.maximum(W, 0), "w_neg": np.maximum(-W, 0)}
    for var, kind in (("xi", "logistic"), ("zeta", "hinge"), ("e", "misclassification")):
        if var in f.variables:
            cols = [h for h, loss in enumerate(problem.spec.losses) if loss == kind]
            out[var] = (visited[:, cols] < problem.eps).astype(float) if kind == "misclassification" \
                else per_layer[:, cols]
    if "s" in f.variables:
        out["s"] = s
    if "xi_margin" in f.variables:                       # the visited margin, forwarded (layer_slacks)
        m = f.variables["xi_margin"]
        upper = f.col_upper[m.columns]
        out["xi_margin"] = np.minimum(visited[:, f.sets[m.dims[1]] - 1], upper)
    if "delta" in f.variables:
        out["delta"] = (W != 0).astype(float)
    if "q" in f.variables:
        out["q"] = W * W
    return f.vector(out)


def within_class(problem: LossOptimalProblem, tree: Tree) -> Tree:
    """A tree of the MIP's class that routes and labels every training point as ``tree`` (standardized units) does,
    where one exists: a start for the solver from a tree outside the class (a TAO or TMO tree whose hyperplanes
    exceed ``||w_t||_1 <= W``, or whose inner classifier's own intercept disagrees with its routing).

    Each hyperplane ``(w_t, b_t)`` is divided by ``max(1, ||w_t||_1 / W, |b_t| / B)`` (the ``l1_bound`` row and the
    intercept's bounds; a positive factor changes no margin's sign, so no routing or label), then each inner node's
    intercept moves, as little as it can, into the interval that puts the margins of the points it sends left at
    ``<= 0`` and of those it sends right at ``>= eps`` (3.7a-b), which exists when the two sides' values ``w_t x``
    lie ``eps`` apart (and then stays within the default ``B = W max|x| + 1``). Its losses are the class's, higher
    than the tree's. Where a node's two sides lie closer, the tree returned still violates (3.7) there and
    :func:`start` of it is no feasible start (the caller checks).
    """
    c = to_complete(tree, problem.spec.depth - 1)
    X = problem.data.X
    weights = np.vstack([c.split_weights, c.leaf_weights])
    intercepts = np.concatenate([c.split_intercept, c.leaf_intercepts])
    scale = np.maximum.reduce([np.ones(len(intercepts)), np.abs(weights).sum(axis=1) / problem.spec.weight_bound,
                               np.abs(intercepts) / problem.intercept_bound])
    weights, intercepts = weights / scale[:, None], intercepts / scale
    levels = problem.spec.depth - 1
    leaf = c.position[tree.apply(X)]                    # breadth-first ids from 1, the last level's
    for level in range(levels):
        node = leaf >> (levels - level)                 # the node each point passes at this level
        right = ((leaf >> (levels - level - 1)) & 1).astype(bool)
        for t in np.unique(node):
            here = node == t
            values = X[here] @ weights[t - 1]
            most_left = values[~right[here]].max(initial=-np.inf)
            least_right = values[right[here]].min(initial=np.inf)
            if least_right - most_left >= problem.eps:
                intercepts[t - 1] = min(max(intercepts[t - 1], problem.eps - least_right), -most_left)
    return tree_from_hyperplanes(problem, weights, intercepts)


#: Relative increase of the exact objective that shortening a tree's numbers may cost.
READABLE_TOLERANCE = 1e-7


#: A weight whose term ``|w_j| std(x_j)`` is below this share of its node's scale (its largest term, or the
#: median size of its decision value ``w x - threshold`` / ``w x + intercept`` on the training points when that
#: is larger: a leaf of weights near 1e-8 and intercept 0.5 is a constant) is dropped when that changes no
#: training routing or prediction and keeps the objective within ``READABLE_TOLERANCE``.
NEGLIGIBLE_SHARE = 1e-6


def finalize(problem: LossOptimalProblem, tree: Tree) -> Tree:
    """The tree in the user's units, with short weights and thresholds that change no training prediction.

    Weights are the model's loss too, so they get the fewest significant digits
    (from 4) that keep the exact objective within ``READABLE_TOLERANCE`` of the
    unrounded tree's; weights of negligible terms (:data:`NEGLIGIBLE_SHARE`, a
    MARGOT leaf's ``6.4e-08 * mean texture``) are dropped under the same test.
    """
    original = tree.to_original_units(problem.data)
    X = problem.data.X_original
    target = objective(problem, original)
    tol = READABLE_TOLERANCE * max(1.0, abs(target))
    for digits in (4, 5, 6, 7, 8, 9, 10, 12, 14, 17):
        readable = readable_tree(original, X, threshold="near", normalize=False, min_digits=digits)
        if objective(problem, readable) <= target + tol:
            return _without_negligible_weights(problem, readable, target + tol)
    return readable


def _without_negligible_weights(problem, tree: Tree, limit: float) -> Tree:
    X = problem.data.X_original
    terms = np.abs(tree.weights) * X.std(axis=0)
    offset = np.where(tree.is_leaf, tree.intercept, -tree.threshold)
    decision = np.median(np.abs(X @ tree.weights.T + offset), axis=0)
    scale = np.maximum(terms.max(axis=1), decision)[:, None]
    tiny = (tree.weights != 0) & (terms < NEGLIGIBLE_SHARE * scale)
    if not tiny.any():
        return tree
    candidate = tree.with_nodes(np.arange(tree.n_nodes), weights=np.where(tiny, 0.0, tree.weights))
    same = np.array_equal(candidate.apply(X), tree.apply(X)) and np.array_equal(candidate.predict(X), tree.predict(X))
    return candidate if same and objective(problem, candidate) <= limit else tree


def feature_use(f) -> list[FeatureUse]:
    """:func:`~optitrees.formulations.blocks.hyperplane_feature_use` (splits and leaf classifiers)."""
    return blocks.hyperplane_feature_use(f, f.problem.spec.weight_bound)


def monotone(f, signs) -> None:
    """``monotonic_cst`` held by the MIP (:func:`~optitrees.formulations.blocks.monotone_hyperplanes`): no split
    reads a constrained feature and each leaf's classifier weighs it with the constraint's sign. The build adds it
    from ``spec.monotone``."""
    blocks.monotone_hyperplanes(f, f.variables["w"], f.problem.topology, signs)


def predicted_positive(f):
    """``positive[i]`` binary: row ``i`` is predicted positive, the score of the leaf (last-layer classifier) it
    reaches above 0. With ``z[i, t]`` the routing, ``w_t x_i + b_t = y_i s[t, i]`` and ``M_i = S_i``::

        w_t x_i + b_t <= M_i p[i] + M_i (1 - z[i, t])                                 (positive_upper)
        w_t x_i + b_t >= eps - (M_i + eps) (1 - p[i]) - (M_i + eps) (1 - z[i, t])      (positive_lower)

    for every leaf ``t`` and row ``i`` (the margin ``eps`` of the forwarding rows 3.7b): a parity block's rates
    are linear in ``p`` (:func:`optitrees.fairness.block.add_row_parity`)."""
    problem = f.problem
    data, topo = problem.data, problem.topology
    z, w, b = f.variables["z"], f.variables["w"], f.variables["b"]
    scores = blocks.Scores(f, data.X, np.asarray(data.y, float), w, b, problem.bound, variables=False)
    if "s" in f.variables:
        scores.variables, scores.s = True, f.variables["s"]
    leaves = z.dims[1]
    score = scores.value(np.searchsorted(f.sets["T"], topo.last_layer)).rename(T=leaves)
    p = f.add_variables("positive", ("I",), 0.0, 1.0, domain="binary")
    M = Data(problem.bound, ("I",))
    Me = M + float(problem.eps)
    f.add_constraints("positive_upper", score - M * p + M * z <= M, equation="score <= M p + M (1 - z)")
    f.add_constraints("positive_lower", score - Me * p - Me * z >= float(problem.eps) - 2 * Me,
                      equation="score >= eps - (M + eps)(1 - p) - (M + eps)(1 - z)")
    return p


LOSS_OPTIMAL = MIPFamily("loss_optimal", build=build, start=start, decode=decode, finalize=finalize,
                         objective=objective, size=loss_optimal_size, lower_bound=root_layer_bound,
                         within_class=within_class, feature_use=feature_use,
                         predicted_positive=predicted_positive)
