r"""Loss-optimal oblique trees (3.12): the general model, OLCT (3.17) and MARGOT.

:func:`loss_optimal_tree` composes the general model (3.12) from the shared
blocks: a loss per layer (misclassification 3.9, hinge 3.13, logistic 3.15), a
regularizer (l1 3.16, squared l2, none) and l0 feature selection (3.14, hard
budget or soft penalty). :func:`olct` and :func:`margot` are presets of it.

OLCT is model (3.17) of seed 002, with ``lambda_h`` moved to the loss as in the
seed's experiments::

    min  sum_{h in H} C_h sum_{i in I} xi[i, h]  +  sum_{t in T} 1'(w_pos_t + w_neg_t)        (3.17a)
    s.t. sum_{t in T_d} z[i, t] = 1                                       i in I               (3.6a)
         w_t x_i + b_t <= M_i (1 - sum_{s in T_d^l(t)} z[i, s])           t in T \ T_d, i in I (3.7a)
         w_t x_i + b_t >= eps - M_i (1 - sum_{s in T_d^r(t)} z[i, s])     t in T \ T_d, i in I (3.7b)
         xi[i, h] >= f(v) + f'(v)(s[t, i] - v) - M (1 - sum_{s in T_d(t)} z[i, s])
                                                  h in H, t in T_h, v in V, i in I            (3.15)
         w_t = w_pos_t - w_neg_t,  w_pos, w_neg >= 0                      t in T               (3.16)
         z binary, xi >= 0, b free                                                             (3.6b, 3.17c-d)

where ``s[t, i] = y_i (w_t x_i + b_t)``, ``f(v) = log(1 + exp(-v))`` and ``V`` is
one of Sato's tangent sets V0..V3 (``+inf`` is ``xi >= 0``, ``-inf`` is
``xi >= -s``). The univariate variant (Remark 2) adds the l0 indicators (3.14)
with ``sum_j delta[t, j] <= 1``.

Three modelling choices complete the seed's model and are documented where they
are made: ``||w_t||_1 <= W`` bounds the weights (the seed uses a fixed
``M = 100`` instead), from which every big-M is derived per row; ``eps`` is set
above the solver's integrality tolerance times the largest M; and below the
root, (3.15) is written on the visited node's margin, forwarded once per layer
(:mod:`~optitrees.formulations.loss_optimal.layer_slacks`), not per node and tangent.

The settings are a typed :class:`~optitrees.formulations.loss_optimal.spec.LossOptimalSpec`;
:class:`LossOptimalProblem` adds the data and the derived constants (tangent
lines, big-M, ``eps``), and :func:`build` turns a problem into a
:class:`~optitrees.mip.Formulation`. Its decoding, start and exact objective
are in :mod:`optitrees.formulations.loss_optimal.solution`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ...mip import Formulation, timed_build
from ...scaling import ScaledData
from ...solvers.strategies import CutLoop
from ...topology import Topology
from .. import blocks, cuts
from ..family import ModelSize
from .layer_slacks import add_hinge_slacks, add_logistic_slacks, add_misclassification_slacks, forwarded_layers
from .spec import (DEFAULT_FEASIBILITY_TOL, FEATURE_SELECTION, LOSSES, REGULARIZERS, LossOptimalSpec,
                                hfs_budget, layer_losses, per_layer)
from ..tangents import TangentLines, logistic_tangents

__all__ = ["LossOptimalSpec", "LossOptimalProblem", "build", "loss_optimal_size", "loss_optimal_tree", "olct", "margot",
           "layer_losses", "per_layer", "DEFAULT_FEASIBILITY_TOL", "LOSSES", "REGULARIZERS", "FEATURE_SELECTION"]

#: Initial tangent points of the outer approximation of ``w**2`` (HiGHS); the
#: re-solve loop adds cuts at the solution.
SQUARE_POINTS = (-1.0, -0.3, -0.1, 0.1, 0.3, 1.0)


@dataclass(frozen=True)
class LossOptimalProblem:
    """A spec with its (standardized) data and the constants derived from both.

    Attributes
    ----------
    spec : LossOptimalSpec
    data : ScaledData
        ``data.X`` standardized, ``data.y`` in ``{-1, +1}``.
    topology : Topology
    lines : TangentLines
        Tangent lines of the logistic loss.
    intercept_bound : float
        ``B`` in ``|b_t| <= B``.
    bound : ndarray of shape (n,)
        ``S_i = W ||x_i||_inf + B``, the big-M of point ``i``.
    eps : float
        Right-branch margin of (3.7b).
    """

    spec: LossOptimalSpec
    data: ScaledData
    topology: Topology
    lines: TangentLines
    intercept_bound: float
    bound: np.ndarray
    eps: float

    @classmethod
    def create(cls, spec: LossOptimalSpec, data: ScaledData, intercept_bound=None, eps=None) -> "LossOptimalProblem":
        """Derive ``B`` (default ``W max_i ||x_i||_inf + 1``), ``S_i`` and ``eps``
        (default ``max(1e-5, 10 feasibility_tol max_i S_i)``) and check the data."""
        X, y = data.X, data.y
        if X.ndim != 2 or X.shape[0] == 0 or X.shape[1] == 0:
            raise ValueError(f"X must be a non-empty 2-d array, got shape {X.shape}")
        if not np.all(np.isfinite(X)):
            raise ValueError("X contains NaN or infinite values")
        if y.shape != (X.shape[0],) or not np.all(np.isin(y, (-1, 1))):
            raise ValueError("formulations take labels in {-1, +1}, one per row; the estimators map any two labels")
        if any(not 0 <= j < X.shape[1] for j in spec.forbidden):
            raise ValueError(f"forbidden features must be column indices in 0..{X.shape[1] - 1}")
        B = spec.weight_bound * float(np.abs(X).max()) + 1.0 if intercept_bound is None else float(intercept_bound)
        if not (np.isfinite(B) and B > 0):
            raise ValueError("intercept_bound must be a positive finite number")
        S = blocks.score_bounds(X, spec.weight_bound, B)
        eps = max(1e-5, 10.0 * spec.feasibility_tol * float(S.max() + 1.0)) if eps is None else float(eps)
        if not eps > 0:
            raise ValueError("eps must be positive")
        lines = logistic_tangents("V1" if spec.tangents == "adaptive" else spec.tangents)
        return cls(spec, data, Topology(spec.depth), lines, B, S, eps)

    def on_rows(self, rows, multiplicity=None) -> "LossOptimalProblem":
        """The problem on the training rows ``rows`` (distinct indices), each row's weight times its
        ``multiplicity`` when given (a bootstrap sample held as its distinct rows). ``B``, ``eps`` and the
        tangents stay those of the whole data: trees fitted on a part keep the bounds of the whole."""
        rows = np.asarray(rows)
        weight = None if multiplicity is None else self.data.weight[rows] * multiplicity
        return replace(self, data=self.data.on_rows(rows, weight), bound=self.bound[rows])

    def with_C(self, C) -> "LossOptimalProblem":
        """The problem with loss weights ``C`` (a scalar or one per layer; nothing derived depends on them)."""
        return replace(self, spec=replace(self.spec, C=per_layer(C, self.spec.depth, "C")))

    def with_budget(self, max_features) -> "LossOptimalProblem":
        """The problem with the HFS budget ``||w_t||_0 <= max_features`` of 3.14 on every layer (a positive
        integer, or one per layer); ``None``: no budget (nor feature selection). A soft (SFS) spec keeps its
        penalty: a budget on it is a ``ValueError``, as in :meth:`LossOptimalSpec.create`."""
        if self.spec.feature_selection == "soft":
            raise ValueError("max_features is the HFS budget; this tree prices features by alpha (SFS)")
        if max_features is None:
            return replace(self, spec=replace(self.spec, feature_selection=None, budget=None))
        budget = hfs_budget(max_features, self.spec.depth)
        return replace(self, spec=replace(self.spec, feature_selection="hard", budget=budget))


@timed_build
def build(problem: LossOptimalProblem) -> Formulation:
    """The general loss-optimal tree (3.12) of ``problem``, composed from the shared blocks.

    Objective (``v_i`` the weight of point ``i``, 1 unweighted)::

        sum_{h in H} ( C_h sum_{i in I} v_i zeta[i, h]  +  lam_h sum_{t in T_h} Omega(w_t) )
            +  alpha_h sum_{t in T_h} ||w_t||_0

    with routing (3.6), forwarding (3.7), the slack of each layer's loss
    (logistic 3.15, hinge 3.13, misclassification 3.9), the regularizer
    ``Omega`` (l1 3.16, squared l2 as a quadratic or by tangent cuts, or none)
    and feature selection by the l0 indicators (3.14): a budget
    ``||w_t||_0 <= max_features`` (HFS) or the penalty ``alpha_h`` (SFS). The
    seed writes ``lambda_h`` on the regularizer; ``C_h`` on the loss is the same
    family (divide by ``C_h``), the form of the seed's experiments. Forbidden
    features are fixed at ``w[t, j] = 0``.
    """
    spec, data, topo = problem.spec, problem.data, problem.topology
    X, y = data.X, data.y.astype(float)
    kinds = sorted(set(spec.losses), key=LOSSES.index)
    f = Formulation(name=f"loss_optimal_{'_'.join(kinds)}_d{topo.depth}", integrality_tol=spec.feasibility_tol)
    f.problem = problem
    z = blocks.add_routing(f, X.shape[0], topo.last_layer)
    w, b = blocks.add_hyperplanes(f, topo.branch_nodes, data.labels, spec.weight_bound,
                                  problem.intercept_bound)
    per_node = (lambda v: v[topo.layer_of(topo.branch_nodes) - 1])
    blocks.add_l1_split(f, w, spec.weight_bound, penalty=per_node(spec.lam) if spec.regularizer == "l1" else 0.0)
    if spec.regularizer == "l2":
        if spec.l2_method == "exact":
            f.add_quadratic_objective(w, np.broadcast_to(per_node(spec.lam)[:, None], w.shape))
        else:
            cuts.add_square_outer_approximation(f, w, per_node(spec.lam)[:, None], SQUARE_POINTS)
    if spec.feature_selection is not None:
        blocks.add_l0_indicators(f, w, spec.weight_bound,
                                 budget=None if spec.budget is None else per_node(spec.budget),
                                 penalty=None if spec.alpha is None else per_node(spec.alpha))
    if spec.forbidden:
        blocks.forbid_features(f, w, spec.forbidden)
    if any(spec.monotone):
        from .solution import monotone

        monotone(f, spec.monotone)
    scores = blocks.Scores(f, X, y, w, b, problem.bound, variables=spec.score_variables)
    blocks.add_forwarding(f, topo, scores, z, problem.bound, problem.eps)
    weight = data.weight if data.weighted else None
    for kind in kinds:
        layers = np.array([h + 1 for h, v in enumerate(spec.losses) if v == kind])
        if kind == "logistic":
            add_logistic_slacks(f, topo, scores, z, problem.lines, spec.C, layers, point_weight=weight,
                                forward=spec.forward_margins)
        elif kind == "hinge":
            add_hinge_slacks(f, topo, scores, z, spec.C, layers, point_weight=weight)
        else:
            add_misclassification_slacks(f, topo, scores, z, spec.C, problem.eps, layers, point_weight=weight)
    # tangents of convex terms the solution must be checked against: a cut loop solves the model
    cutters = ((cuts.SquareCuts(spec.l2_tol),) if spec.regularizer == "l2" and spec.l2_method == "outer" else ()) + \
        ((cuts.LogisticCuts(),) if spec.adaptive else ())
    if cutters:
        f.strategy = CutLoop(cutters)
    return f


def loss_optimal_tree(X, y, depth: int = 2, loss="logistic", regularizer="l1", C=1.0, lam=1.0,
                      feature_selection=None, max_features=None, alpha=None, tangents="V0", l2_method: str = "exact",
                      weight_bound: float = 10.0, intercept_bound: float | None = None, eps: float | None = None,
                      score_variables: bool = True, feasibility_tol: float = DEFAULT_FEASIBILITY_TOL,
                      forbidden=(), feature_names=None, l2_tol: float = 1e-4,
                      forward_margins: bool = True) -> Formulation:
    """Build the general loss-optimal tree (3.12) on ``X`` as given (the estimators standardize it first).

    Parameters
    ----------
    X : array-like of shape (n_points, n_features)
    y : array-like of shape (n_points,)
        Labels in {-1, +1}.
    depth, loss, regularizer, C, lam, feature_selection, max_features, alpha, tangents, l2_method, weight_bound,
    score_variables, feasibility_tol, forbidden, l2_tol, forward_margins
        See :class:`LossOptimalSpec` (``loss``: a name or one per layer;
        ``max_features``: the HFS budget, ``1`` gives univariate splits).
    intercept_bound, eps : float, optional
        See :meth:`LossOptimalProblem.create`.
    feature_names : sequence of str, optional
        Labels of the index set ``J`` (default ``0 .. p-1``).

    Returns
    -------
    Formulation
        With ``problem`` a :class:`LossOptimalProblem`.
    """
    spec = LossOptimalSpec.create(depth, loss, regularizer, C, lam, feature_selection, max_features, alpha, tangents,
                                  weight_bound, l2_method, score_variables, feasibility_tol, forbidden, l2_tol,
                                  forward_margins)
    X = np.asarray(X, dtype=float)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-dimensional, got shape {X.shape}")
    data = ScaledData.create(X, np.asarray(y), None, feature_names)
    return build(LossOptimalProblem.create(spec, data, intercept_bound, eps))


def olct(X, y, depth: int = 2, tangents="V0", C=1.0, univariate: bool = False, **kwargs) -> Formulation:
    """The OLCT mixed-integer program (3.17): a preset of :func:`loss_optimal_tree`.

    Logistic loss by tangents on every layer, ``||w_t||_1`` with weight 1 and
    ``C_h`` on the loss (the seed's experimental form); ``univariate=True`` adds
    ``||w_t||_0 <= 1`` (Remark 2). Other keyword arguments are passed on.
    """
    f = loss_optimal_tree(X, y, depth=depth, loss="logistic", regularizer="l1", C=C, lam=1.0,
                          feature_selection="hard" if univariate else None,
                          max_features=1 if univariate else None, tangents=tangents, **kwargs)
    f.name = f"olct_d{depth}"
    return f


def margot(X, y, depth: int = 2, C=1.0, feature_selection=None, max_features=None, alpha=None,
           l2_method="exact", **kwargs) -> Formulation:
    """MARGOT (D'Onofrio et al.; seed 002, 3.12-3.13): hinge loss on every layer plus ``||w_t||_2^2``.

    ``sum_h C_h sum_i zeta[i, h] + sum_t ||w_t||^2`` -- each node is a soft-margin
    SVM on the points that reach it -- with HFS (``feature_selection="hard"``,
    budget ``max_features``) or SFS (``"soft"``, penalty ``alpha``) variants by
    the l0 indicators (3.14). See :func:`loss_optimal_tree` for the rest.
    """
    f = loss_optimal_tree(X, y, depth=depth, loss="hinge", regularizer="l2", C=C, lam=1.0,
                          feature_selection=feature_selection, max_features=max_features, alpha=alpha,
                          l2_method=l2_method, **kwargs)
    f.name = f"margot_d{depth}"
    return f


def loss_optimal_size(problem: LossOptimalProblem) -> ModelSize:
    """Rows and columns of :func:`build` (3.12) for ``problem``.

    Beyond the skeleton: the squared l2 by tangents (``q`` and one cut per point of ``SQUARE_POINTS``), the l0
    indicators (3.14: ``delta``, two rows per weight and a budget row per node), ``s`` inlined when
    ``score_variables`` is off, and per loss one slack per point and layer with, per node of its layers, one row
    per tangent line (3.15) or one row (hinge 3.13, misclassification 3.9); a logistic layer with a forwarded
    margin (:func:`~optitrees.formulations.loss_optimal.layer_slacks.forwarded_layers`) has instead ``m[i, h]``,
    one link row per node and one row per line.
    """
    spec = problem.spec
    n, p = problem.data.X.shape
    t = 2**spec.depth - 1
    rows, cols = blocks.oblique_skeleton_size(n, p, spec.depth)
    if not spec.score_variables:
        rows, cols = rows - t * n, cols - t * n
    if spec.regularizer == "l2" and spec.l2_method == "outer":
        cols += t * p
        rows += len(SQUARE_POINTS) * t * p
    if spec.feature_selection is not None:
        cols += t * p
        rows += 2 * t * p + (t if spec.budget is not None else 0)
    losses = np.asarray(spec.losses)
    layer_nodes = 2 ** np.arange(spec.depth)                    # nodes of layers 1..d
    for kind in set(spec.losses):
        mine = losses == kind
        lines = len(problem.lines.slopes) if kind == "logistic" else 1
        cols += n * int(mine.sum())
        ahead = np.zeros(spec.depth, bool)
        if kind == "logistic" and spec.forward_margins:      # m[i, h], a link row per node, the lines on m
            ahead[forwarded_layers(lines, np.flatnonzero(mine) + 1) - 1] = True
            cols += n * int(ahead.sum())
            rows += n * int(layer_nodes[ahead].sum()) + lines * n * int(ahead.sum())
        rows += lines * n * int(layer_nodes[mine & ~ahead].sum())
    return ModelSize(int(rows), int(cols))
