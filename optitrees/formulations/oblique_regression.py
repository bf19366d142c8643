r"""Oblique regression trees with linear leaves: the absolute loss as a MILP, the squared loss as an MIQP or by
tangent cuts on a MILP, on the shared blocks.

The loss-optimal tree of seed 002 (3.12) with a regression loss in its last
layer: the first ``d - 1`` layers of hyperplanes route (3.6-3.7), each node of
the last layer ``T_d`` is a linear model ``w_t x + b_t`` of the points routed
to it, and the loss is their absolute error::

    min  sum_i v_i e_i  +  lam sum_{t in T} ||w_t||_1                                                     (R)
    s.t. sum_{t in T_d} z[i, t] = 1                                          i in I            (3.6a)
         w_t x_i + b_t <= M_i (1 - sum_{s in T_d^l(t)} z[i, s])              t in T \ T_d      (3.7a)
         w_t x_i + b_t >= eps - M_i (1 - sum_{s in T_d^r(t)} z[i, s])        t in T \ T_d      (3.7b)
         e_i >= y_i - (w_t x_i + b_t) - R_i (1 - z[i, t])                    t in T_d, i in I  (R1)
         e_i >= (w_t x_i + b_t) - y_i - R_i (1 - z[i, t])                    t in T_d, i in I  (R2)
         w_t = w_pos_t - w_neg_t,  sum_j (w_pos + w_neg)_tj <= W             t in T            (3.16)
         z binary, e >= 0

on standardized features and a standardized target (``v_i`` each row's
weight). ``M_i = S_i = W ||x_i||_inf + B`` bounds every score (as in the
classification trees) and ``R_i = |y_i| + S_i`` every residual, the smallest
value that leaves (R1-R2) slack away from the point's leaf.

The squared loss replaces ``v_i e_i`` by ``v_i e_i**2`` (R3): (R1-R2) make
``e_i`` at least the point's absolute residual and the objective increases
in ``e_i >= 0``, so at an optimum ``e_i**2`` is its squared residual. With
``quadratic=True`` the squares are the objective's diagonal (an MIQP: SCIP,
Gurobi); otherwise each is an epigraph ``e_sq_i >= e_i**2`` held by its
tangents ``e_sq_i >= 2 a e_i - a**2`` (R3'), a few fixed ones at first
(:data:`RESIDUAL_POINTS`) and more at each solution's residuals by the cut
loop (:class:`~optitrees.formulations.cuts.SquareCuts`) until the tangents
are within ``square_tol`` of the squares: a MILP HiGHS solves, whose every
bound is a bound of the squared-loss optimum.

The spec's ``forbidden`` features are fixed at ``w[t, j] = 0``; its ``monotone``
signs hold ``monotonic_cst`` (no split reads a constrained feature, each leaf's
weight on it has its sign: :func:`~.blocks.monotone_hyperplanes`); a feature
budget links its ``feature_read`` indicators to ``w`` (or to the l0 indicators
``delta``) through the family's ``feature_use``
(:func:`~.blocks.hyperplane_feature_use`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ..enums import TextEnum
from ..mip import Formulation, timed_build
from ..scaling import ScaledData
from ..solvers.strategies import CutLoop
from ..topology import Topology
from ..trees import LeafModel, Tree, from_complete, left_heavy
from ..mip.expressions import Data
from . import blocks, cuts, tree_sets
from .family import MIPFamily, ModelSize
from .loss_optimal.model import DEFAULT_FEASIBILITY_TOL
from .symmetry import add_mirror_symmetry

__all__ = ["OBLIQUE_REGRESSION", "oblique_regression_size", "decode_checked", "RegressionLoss", "ObliqueRegressionSpec",
           "ObliqueRegressionProblem", "build", "start", "decode", "tree_objective", "RESIDUAL_POINTS"]

#: Tangent points of the first tangents of ``e_i**2`` (standardized target: residuals of about one standard
#: deviation and less); the cut loop adds one at each point's residual where these underestimate its square.
RESIDUAL_POINTS = (0.1, 0.3, 1.0, 2.0)


class RegressionLoss(TextEnum):
    """The loss of the leaves' predictions: ``ABSOLUTE`` ``sum v_i |y_i - f(x_i)|`` (a MILP) or ``SQUARED``
    ``sum v_i (y_i - f(x_i))**2`` (an MIQP, or a MILP with tangent cuts)."""

    ABSOLUTE = "absolute"
    SQUARED = "squared"


@dataclass(frozen=True)
class ObliqueRegressionSpec:
    """Settings: ``depth`` layers of hyperplanes (the last one the leaves' linear models), the l1 weight ``lam``
    on every ``w_t``, the bound ``W`` on each ``||w_t||_1``, the tolerance ``eps`` is sized for, the ``loss``
    and, for the squared loss, whether its squares are the objective's (``quadratic``, an MIQP) or tangents
    refined until within ``square_tol`` (relative) of them; ``max_features``: at most that many features in
    each split and leaf model (3.14's l0 indicators and budget row), ``None`` for no budget; ``forbidden``: the
    feature indices no hyperplane reads (``w[t, j] = 0``); ``monotone``: ``monotonic_cst``'s sign per feature
    (empty: none), held by :func:`~optitrees.formulations.blocks.monotone_hyperplanes` (no split reads a
    constrained feature, each leaf's weight on it has its sign)."""

    depth: int
    lam: float = 1.0
    weight_bound: float = 10.0
    feasibility_tol: float = DEFAULT_FEASIBILITY_TOL
    loss: RegressionLoss = RegressionLoss.ABSOLUTE
    quadratic: bool = False
    square_tol: float = 1e-4
    max_features: int | None = None
    forbidden: tuple = ()
    monotone: tuple = ()

    def __post_init__(self):
        if not isinstance(self.depth, (int, np.integer)) or self.depth < 1:
            raise ValueError(f"depth must be an integer >= 1, got {self.depth!r}")
        try:
            object.__setattr__(self, "loss", RegressionLoss(self.loss))
        except ValueError:
            raise ValueError(f"loss must be one of {[m.value for m in RegressionLoss]}, got {self.loss!r}") from None
        if not (np.isfinite(self.square_tol) and self.square_tol > 0):
            raise ValueError(f"square_tol must be a finite number > 0, got {self.square_tol!r}")
        if not (np.isfinite(self.lam) and self.lam >= 0):
            raise ValueError(f"lam must be a finite number >= 0, got {self.lam!r}")
        if not (np.isfinite(self.weight_bound) and self.weight_bound > 0):
            raise ValueError(f"weight_bound must be a finite number > 0, got {self.weight_bound!r}")
        if self.max_features is not None:
            if not isinstance(self.max_features, (int, np.integer)) or isinstance(self.max_features, bool) \
                    or self.max_features < 1:
                raise ValueError(f"max_features must be an integer >= 1 or None, got {self.max_features!r}")
            object.__setattr__(self, "max_features", int(self.max_features))
        object.__setattr__(self, "forbidden", tuple(int(j) for j in self.forbidden))
        if any(int(v) not in (-1, 0, 1) for v in self.monotone):
            raise ValueError(f"monotone holds a sign per feature (-1, 0 or 1), got {self.monotone!r}")
        object.__setattr__(self, "monotone", tuple(int(v) for v in self.monotone))


@dataclass(frozen=True)
class ObliqueRegressionProblem:
    """The spec with the standardized data: ``data.X`` the features, ``target`` the standardized target
    ``(y - y_shift) / y_scale``, and the derived ``B``, ``S_i`` and ``eps``."""

    spec: ObliqueRegressionSpec
    data: ScaledData
    target: np.ndarray
    y_shift: float
    y_scale: float
    topology: Topology
    intercept_bound: float
    bound: np.ndarray
    eps: float

    @classmethod
    def create(cls, spec: ObliqueRegressionSpec, data: ScaledData, y) -> "ObliqueRegressionProblem":
        """Standardize ``y`` (by the rows' weights) and derive ``B = W max_i ||x_i||_inf + |y|_max + 1``, ``S_i``
        and ``eps`` (above the feasibility tolerance times the largest big-M)."""
        y = np.asarray(y, float)
        v = data.weight if data.weight is not None else np.ones(len(y))
        shift = float(np.average(y, weights=v))
        scale = float(np.sqrt(np.average((y - shift) ** 2, weights=v)))
        scale = scale if scale > 0 else 1.0
        target = (y - shift) / scale
        W = spec.weight_bound
        B = W * float(np.abs(data.X).max(initial=0.0)) + float(np.abs(target).max(initial=0.0)) + 1.0
        S = blocks.score_bounds(data.X, W, B)
        eps = max(1e-5, 10.0 * spec.feasibility_tol * float(S.max() + np.abs(target).max(initial=0.0) + 1.0))
        return cls(spec, data, target, shift, scale, Topology(spec.depth), B, S, eps)


    def on_rows(self, rows, multiplicity=None) -> "ObliqueRegressionProblem":
        """The problem on the training rows ``rows``, each row's weight times its ``multiplicity`` when given; the
        target's scaling, ``B`` and ``eps`` stay those of the whole data."""
        rows = np.asarray(rows)
        weight = None if multiplicity is None else self.data.weight[rows] * multiplicity
        return replace(self, data=self.data.on_rows(rows, weight), target=self.target[rows], bound=self.bound[rows])


def _add_residuals(f, topology, scores, z, target):
    """``e[i] >= |y_i - s[t, i]|`` at the point's leaf ``t in T_d`` (R1-R2); the loss is added by the caller.

    ``residual_above[t, i]: e_i + s[t, i] - R_i z[i, t] >= y_i - R_i`` (R1) and ``residual_below[t, i]:
    e_i - s[t, i] - R_i z[i, t] >= -y_i - R_i`` (R2), ``R_i = |y_i| + S_i``: slack unless ``i`` reaches ``t``."""
    leaves = topology.last_layer
    node_idx = np.searchsorted(f.sets["T"], leaves)
    f.add_set("T_leaf", leaves)
    e = f.add_variables("e", ("I",), 0.0, np.inf)
    R = Data(np.abs(target) + scores.bound, ("I",))
    y = Data(target, ("I",))
    s = scores.margin(node_idx).rename(T="T_leaf")
    reached = (z * tree_sets.subtree(f, "T_leaf", z.dims[1])).sum(z.dims[1])      # z[i, t]: the leaf itself
    for name, sign, equation in (("residual_above", 1.0, "R1"), ("residual_below", -1.0, "R2")):
        rows = e + sign * s - R * reached >= sign * y - R
        f.add_constraints(name, rows.transpose("T_leaf", "I"), equation=equation)
    return e


@timed_build
def build(problem: ObliqueRegressionProblem) -> Formulation:
    """The MILP of the module docstring."""
    spec, data, topo = problem.spec, problem.data, problem.topology
    f = Formulation(name=f"oblique_regression_d{spec.depth}", problem=problem)
    n = len(problem.target)
    z = blocks.add_routing(f, n, topo.last_layer)
    w, b = blocks.add_hyperplanes(f, topo.branch_nodes, data.labels, spec.weight_bound, problem.intercept_bound)
    blocks.add_l1_split(f, w, spec.weight_bound, penalty=spec.lam)
    if spec.max_features is not None:
        blocks.add_l0_indicators(f, w, spec.weight_bound, budget=spec.max_features)        # (3.14)
    if spec.forbidden:
        blocks.forbid_features(f, w, spec.forbidden)
    if any(spec.monotone):
        blocks.monotone_hyperplanes(f, w, topo, spec.monotone)
    scores = blocks.Scores(f, data.X, np.ones(n), w, b, problem.bound, variables=True)
    blocks.add_forwarding(f, topo, scores, z, problem.bound, problem.eps)
    weight = data.weight if data.weight is not None else np.ones(n)
    add_mirror_symmetry(f, topo, z, topo.inner_nodes, weight)
    e = _add_residuals(f, topo, scores, z, problem.target)
    if spec.loss == RegressionLoss.ABSOLUTE:
        f.add_objective(e, weight)                                                         # (R)
    elif spec.quadratic:
        f.add_quadratic_objective(e, weight)                                               # (R3)
    else:
        cuts.add_square_outer_approximation(f, e, weight, RESIDUAL_POINTS, epigraph="e_sq")   # (R3')
        f.strategy = CutLoop((cuts.SquareCuts(spec.square_tol, value="e", epigraph="e_sq", name="squared_loss"),))
    return f


def _hyperplanes(problem: ObliqueRegressionProblem, tree: Tree):
    """``(W, b, leaf)`` of a tree in scaled units laid out on the nodes ``1 .. 2^d - 1``: a split ``w x <= t``
    gets ``b = eps / 2 - t`` (the inverse of :func:`tree_from_hyperplanes`, which puts ``t`` in the middle of
    the gap ``(0, eps)``; an unused split sends every point right, ``b = eps``), a leaf of the last layer
    predicts ``w x + b``; ``leaf`` is the node of ``T_d`` each training point reaches."""
    from ..trees import to_complete

    c = to_complete(tree, problem.spec.depth - 1)
    W = np.vstack([c.split_weights, c.leaf_weights])
    b = np.concatenate([np.where(c.active, problem.eps / 2 - c.split_threshold, problem.eps), c.leaf_intercepts])
    return W, b, c.position[tree.apply(problem.data.X)]


def start(f, tree: Tree) -> np.ndarray:
    """Every variable of ``f`` for a tree in scaled units with linear value leaves (its splits must keep every
    training point at least ``eps / 2`` from the threshold for the start to be feasible), mirrored first to put
    more weight left at every split (:func:`~optitrees.trees.left_heavy`, the symmetry rows)."""
    problem = f.problem
    X, y = problem.data.X, problem.target
    if "mirror" in f.constraints:                     # the symmetry rows: the same tree, left-heavy
        tree = left_heavy(tree, X, problem.data.weight)
    W, b, leaf = _hyperplanes(problem, tree)
    z = (leaf[:, None] == f.sets["T_last"][None, :]).astype(float)
    s = W @ X.T + b[:, None]
    residual = np.abs(y - s[leaf - 1, np.arange(len(y))])
    values = {"z": z, "w": W, "b": b, "w_pos": np.maximum(W, 0.0), "w_neg": np.maximum(-W, 0.0), "s": s,
              "e": residual}
    if "e_sq" in f.variables:
        values["e_sq"] = residual ** 2
    if "delta" in f.variables:
        values["delta"] = (W != 0).astype(float)
    return f.vector(values)


def tree_from_hyperplanes(problem: ObliqueRegressionProblem, W, b) -> Tree:
    """The tree (scaled units) whose splits are rows ``1 .. 2^(d-1) - 1`` and leaves the last layer's rows; a
    split's threshold sits in the middle of the gap ``(0, eps)`` no point is in (``t = eps / 2 - b``), so the
    solver's tolerances do not move a point to the other side."""
    inner = len(problem.topology.inner_nodes)
    tree, _ = from_complete(np.asarray(W, float)[:inner], problem.eps / 2 - np.asarray(b, float)[:inner],
                            leaf_weights=np.asarray(W, float)[inner:], leaf_intercepts=np.asarray(b, float)[inner:])
    return _as_regression(tree)


def _as_regression(tree: Tree) -> Tree:
    from dataclasses import replace

    return replace(tree, leaf_model=LeafModel.LINEAR_VALUE, probabilistic=False)


def decode(f, x) -> Tree:
    """The tree of a solution (scaled units); with a feature budget, the weights whose l0 indicator (3.14) is off
    are zero (the solver leaves them within its tolerance of 0; kept, a hyperplane would read more features than
    its budget)."""
    v = f.values(x)
    return tree_from_hyperplanes(f.problem, blocks.indicated_weights(v), v["b"])


def tree_objective(problem: ObliqueRegressionProblem, tree: Tree) -> float:
    """``sum_i v_i loss(y_i - f(x_i)) + lam sum_t ||w_t||_1`` of a tree in scaled units, ``loss`` the absolute
    value or the square (the model's objective, on the tree's own routing)."""
    v = problem.data.weight if problem.data.weight is not None else np.ones(len(problem.target))
    residual = np.abs(problem.target - tree.predict(problem.data.X))
    loss = float(v @ (residual if problem.spec.loss == RegressionLoss.ABSOLUTE else residual ** 2))
    return loss + problem.spec.lam * float(np.abs(tree.weights).sum())


def decode_checked(f, x) -> tuple[Tree, dict]:
    """The tree of a solution (scaled units) and its MIP objective recomputed from the tree (the family's
    ``decode``)."""
    tree = decode(f, x)
    return tree, {"objective_recomputed": tree_objective(f.problem, tree)}


def _as_fitted(problem: ObliqueRegressionProblem, tree: Tree) -> Tree:
    """The tree as the fit keeps it: in scaled units (the estimator turns it into the user's)."""
    return tree


def oblique_regression_size(problem: ObliqueRegressionProblem) -> ModelSize:
    """Rows and columns of :func:`build` for ``problem``: the
    skeleton, ``e`` with two rows per point and leaf model (R1-R2), a mirror row per inner node and, for the
    squared loss by tangents (R3'),
    ``e_sq`` with one cut per point of ``RESIDUAL_POINTS``, and with a feature budget the l0 indicators (3.14)."""
    spec = problem.spec
    n, p = problem.data.X.shape
    rows, cols = blocks.oblique_skeleton_size(n, p, spec.depth)
    cols += n
    rows += 2 * 2 ** (spec.depth - 1) * n + 2 ** (spec.depth - 1) - 1      # R1-R2, mirror at the inner nodes
    if spec.loss == RegressionLoss.SQUARED and not spec.quadratic:
        cols += n
        rows += len(RESIDUAL_POINTS) * n
    if spec.max_features is not None:                                      # delta, l0_upper / l0_lower, budget
        t = 2**spec.depth - 1
        cols += t * p
        rows += 2 * t * p + t
    return ModelSize(int(rows), int(cols))


#: The oblique regression tree as a MIP family (:class:`~optitrees.formulations.MIPFamily`).
OBLIQUE_REGRESSION = MIPFamily("oblique_regression", build=build, start=start, decode=decode_checked,
                               finalize=_as_fitted, objective=tree_objective, size=oblique_regression_size,
                               feature_use=lambda f: blocks.hyperplane_feature_use(f, f.problem.spec.weight_bound))
