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

Two modelling choices complete the seed's model and are documented where they
are made: ``||w_t||_1 <= W`` bounds the weights (the seed uses a fixed
``M = 100`` instead), from which every big-M is derived per row; and
``eps`` is set above the solver's integrality tolerance times the largest M.
"""

from __future__ import annotations

import numpy as np

from ..topology import Topology
from ..tree import ObliqueTree
from . import blocks
from .model import Formulation, timed_build
from .tangents import logistic_loss, logistic_tangents

__all__ = ["loss_optimal_tree", "olct", "margot", "decode_tree", "start_from_tree", "tree_objective",
           "DEFAULT_FEASIBILITY_TOL", "LOSSES", "REGULARIZERS"]

#: Integrality / feasibility tolerance the default ``eps`` is chosen against
#: (HiGHS's ``mip_feasibility_tolerance``; SCIP and Gurobi are tighter).
DEFAULT_FEASIBILITY_TOL = 1e-6


def _check_data(X, y):
    X = np.asarray(X, dtype=float)
    y = np.asarray(y)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-dimensional, got shape {X.shape}")
    if X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(f"X must have at least one row and one column, got shape {X.shape}")
    if not np.all(np.isfinite(X)):
        raise ValueError("X contains NaN or infinite values")
    if y.shape != (X.shape[0],):
        raise ValueError(f"y must have shape ({X.shape[0]},), got {y.shape}")
    if not np.all(np.isin(y, (-1, 1))):
        raise ValueError("formulations take labels in {-1, +1}; the estimators map any two labels")
    return X, y.astype(float)


def layer_weights(C, depth: int) -> np.ndarray:
    """``C_h`` for ``h = 1..depth`` from a scalar or a sequence of length ``depth``."""
    return _layer_values(C, depth, "C")


LOSSES = ("logistic", "hinge", "misclassification")
REGULARIZERS = ("l1", "l2", None)
FEATURE_SELECTION = (None, "hard", "soft")
#: Initial tangent points of the outer approximation of ``w**2`` (HiGHS); the
#: re-solve loop adds cuts at the solution.
SQUARE_POINTS = (-1.0, -0.3, -0.1, 0.1, 0.3, 1.0)


def layer_losses(loss, depth: int) -> list[str]:
    """One loss name per layer from a name or a sequence of length ``depth``."""
    losses = [loss] * depth if isinstance(loss, str) else list(loss)
    if len(losses) != depth:
        raise ValueError(f"loss must be a name or have one entry per layer ({depth}), got {len(losses)}")
    bad = [v for v in losses if v not in LOSSES]
    if bad:
        raise ValueError(f"loss must be one of {LOSSES}, got {bad[0]!r}")
    return losses


def _layer_values(value, depth, name):
    """One finite non-negative value per layer from a scalar or a sequence of length ``depth``."""
    if value is None:
        raise ValueError(f"{name} is required")
    v = np.atleast_1d(np.asarray(value, dtype=float))
    if v.size == 1:
        v = np.full(depth, v[0])
    if v.shape != (depth,):
        raise ValueError(f"{name} must be a scalar or have one value per layer ({depth}), got {v.size}")
    if not np.all(np.isfinite(v)) or np.any(v < 0):
        raise ValueError(f"{name} must be finite and non-negative")
    return v


@timed_build
def loss_optimal_tree(X, y, depth: int = 2, loss="logistic", regularizer="l1", C=1.0, lam=1.0,
                      feature_selection=None, max_features=None, alpha=None, tangents="V0",
                      l2_method: str = "exact", weight_bound: float = 10.0, intercept_bound: float | None = None,
                      eps: float | None = None, score_variables: bool = True,
                      feasibility_tol: float = DEFAULT_FEASIBILITY_TOL) -> Formulation:
    """Build the general loss-optimal tree (3.12) from the shared blocks.

    Objective::

        sum_{h in H} ( C_h sum_{i in I} zeta[i, h]  +  lam_h sum_{t in T_h} Omega(w_t) )  +  alpha_h sum_{t in T_h} ||w_t||_0

    with routing (3.6), forwarding (3.7), the slack of each layer's loss
    (logistic 3.15, hinge 3.13, misclassification 3.9), the regularizer
    ``Omega`` (l1 3.16, squared l2, or none) and feature selection by the l0
    indicators (3.14): a budget ``||w_t||_0 <= max_features`` (HFS) or the
    penalty ``alpha_h`` (SFS). The seed writes ``lambda_h`` on the regularizer;
    ``C_h`` on the loss is the same family (divide by ``C_h``), which is the form
    of the seed's experiments. OLCT (3.17) is ``loss="logistic", regularizer="l1",
    lam=1`` (:func:`olct`); MARGOT is ``loss="hinge", regularizer="l2"``
    (:func:`margot`).

    Parameters
    ----------
    X : array-like of shape (n_points, n_features)
        Training features (the estimators standardize them first, as the seed does).
    y : array-like of shape (n_points,)
        Labels in {-1, +1}.
    depth : int, default=2
        Number of branching layers ``d >= 1``.
    loss : str or sequence of str, default="logistic"
        ``"logistic"``, ``"hinge"`` or ``"misclassification"``, for all layers
        or one per layer.
    regularizer : {"l1", "l2", None}, default="l1"
        ``Omega(w_t)``: ``||w_t||_1`` (3.16), ``||w_t||_2^2`` or nothing.
    C, lam : float or sequence of length ``depth``
        Loss weight ``C_h`` and regularization weight ``lam_h`` per layer.
    feature_selection : {None, "hard", "soft"}, default=None
        HFS (budget ``max_features`` per node) or SFS (penalty ``alpha`` per layer).
    max_features : int or sequence of length ``depth``, optional
        HFS budget ``B`` in ``sum_j delta[t, j] <= B``; ``1`` gives univariate
        splits (Remark 2).
    alpha : float or sequence of length ``depth``, optional
        SFS penalty ``alpha_h`` per selected feature.
    tangents : {"V0", "V1", "V2", "V3"} or sequence of float, default="V0"
        Tangent set of the logistic-loss underestimator (3.15).
    l2_method : {"exact", "outer"}, default="exact"
        ``"exact"`` puts ``lam_h ||w_t||^2`` in a quadratic objective (MIQP:
        SCIP, Gurobi); ``"outer"`` replaces each ``w_tj**2`` by ``q[t, j]`` with
        tangent cuts (MILP: HiGHS and every solver), refined by
        :func:`optitrees.solvers.outer_approximation.solve_outer_approximation`.
    weight_bound : float, default=10.0
        ``W`` in ``||w_t||_1 <= W``; every big-M is derived from it.
    intercept_bound : float, optional
        ``B`` in ``|b_t| <= B``. Default ``W * max_i ||x_i||_inf + 1``, enough for
        any split of the data and any intercept-only classifier with ``|b| <= 1``
        beyond it.
    eps : float, optional
        Right-branch margin of (3.7b) and margin of a correct classification
        (3.9). Default ``max(1e-5, 10 * feasibility_tol * max_i M_i)``, so a binary
        within tolerance of 0/1 cannot close the gap.
    score_variables : bool, default=True
        Add ``s[t, i] = y_i (w_t x_i + b_t)`` as variables (3-4 nonzeros per
        slack row) instead of writing the margins inline (``bench/overhead.py``).
    feasibility_tol : float, default=1e-6
        Integrality tolerance ``eps`` is sized for; ``solve`` imposes it on the
        solver (CPLEX and Gurobi default to 1e-5, which would close the gap).

    Returns
    -------
    Formulation
        With ``meta`` holding the data, topology, losses, tangent lines, ``C``,
        ``lam``, ``alpha``, ``eps`` and the per-point bounds ``S_i`` used as big-M.
    """
    X, y = _check_data(X, y)
    if not isinstance(depth, (int, np.integer)) or isinstance(depth, bool) or depth < 1:
        raise ValueError(f"depth must be an integer >= 1, got {depth!r}")
    topo = Topology(int(depth))
    losses = layer_losses(loss, topo.depth)
    if regularizer not in REGULARIZERS:
        raise ValueError(f"regularizer must be one of {REGULARIZERS}, got {regularizer!r}")
    if feature_selection not in FEATURE_SELECTION:
        raise ValueError(f"feature_selection must be one of {FEATURE_SELECTION}, got {feature_selection!r}")
    if l2_method not in ("exact", "outer"):
        raise ValueError(f"l2_method must be 'exact' or 'outer', got {l2_method!r}")
    C = layer_weights(C, topo.depth)
    lam = _layer_values(lam, topo.depth, "lam")
    budget = alpha_h = None
    if feature_selection == "hard":
        budget = _layer_values(max_features, topo.depth, "max_features (the HFS budget)")
        if np.any(budget < 1) or np.any(budget != np.round(budget)):
            raise ValueError("max_features must be a positive integer per layer")
    elif feature_selection == "soft":
        alpha_h = _layer_values(alpha, topo.depth, "alpha (the SFS penalty)")
    lines = logistic_tangents(tangents)
    if not (np.isfinite(weight_bound) and weight_bound > 0):
        raise ValueError("weight_bound must be a positive finite number")
    xmax = float(np.abs(X).max())
    B = weight_bound * xmax + 1.0 if intercept_bound is None else float(intercept_bound)
    if not (np.isfinite(B) and B > 0):
        raise ValueError("intercept_bound must be a positive finite number")
    S = blocks.score_bounds(X, weight_bound, B)
    if eps is None:
        eps = max(1e-5, 10.0 * feasibility_tol * float(S.max() + 1.0))
    if not eps > 0:
        raise ValueError("eps must be positive")

    kinds = sorted(set(losses), key=LOSSES.index)
    f = Formulation(name=f"loss_optimal_{'_'.join(kinds)}_d{topo.depth}", integrality_tol=float(feasibility_tol))
    z = blocks.add_routing(f, X.shape[0], topo.last_layer)
    w, b = blocks.add_hyperplanes(f, topo.branch_nodes, X.shape[1], weight_bound, B)
    node_layer = topo.layer_of(topo.branch_nodes) - 1
    per_node = (lambda v: v[node_layer])
    blocks.add_l1_split(f, w, weight_bound, penalty=per_node(lam) if regularizer == "l1" else 0.0)
    if regularizer == "l2":
        if l2_method == "exact":
            f.add_quadratic_objective(w, np.broadcast_to(per_node(lam)[:, None], w.shape))
        else:
            blocks.add_square_outer_approximation(f, w, per_node(lam), SQUARE_POINTS)
    if feature_selection is not None:
        blocks.add_l0_indicators(f, w, weight_bound, budget=None if budget is None else per_node(budget),
                                 penalty=None if alpha_h is None else per_node(alpha_h))
    scores = blocks.Scores(f, X, y, w, b, S, variables=score_variables)
    blocks.add_forwarding(f, topo, scores, z, S, eps)
    for kind in kinds:
        layers = np.array([h + 1 for h, v in enumerate(losses) if v == kind])
        if kind == "logistic":
            blocks.add_logistic_slacks(f, topo, scores, z, lines, C, layers)
        elif kind == "hinge":
            blocks.add_hinge_slacks(f, topo, scores, z, C, layers)
        else:
            blocks.add_misclassification_slacks(f, topo, scores, z, C, eps, layers)
    f.meta.update(kind="loss_optimal", X=X, y=y, topology=topo, losses=losses, lines=lines, C=C, lam=lam,
                  regularizer=regularizer, feature_selection=feature_selection, budget=budget, alpha=alpha_h,
                  eps=float(eps), bound=S, weight_bound=float(weight_bound), intercept_bound=B,
                  univariate=bool(budget is not None and np.all(budget == 1)),
                  score_variables=bool(score_variables), l2_method=l2_method if regularizer == "l2" else None)
    return f


def olct(X, y, depth: int = 2, tangents="V0", C=1.0, univariate: bool = False, **kwargs) -> Formulation:
    """The OLCT mixed-integer program (3.17): a preset of :func:`loss_optimal_tree`.

    Logistic loss by tangents on every layer, ``||w_t||_1`` with weight 1 and
    ``C_h`` on the loss (the seed's experimental form); ``univariate=True`` adds
    ``||w_t||_0 <= 1`` (Remark 2). Other keyword arguments (``weight_bound``,
    ``intercept_bound``, ``eps``, ``score_variables``, ``feasibility_tol``) are
    passed on.
    """
    f = loss_optimal_tree(X, y, depth=depth, loss="logistic", regularizer="l1", C=C, lam=1.0,
                          feature_selection="hard" if univariate else None,
                          max_features=1 if univariate else None, tangents=tangents, **kwargs)
    f.name = f"olct_d{f.meta['topology'].depth}"
    f.meta["kind"] = "olct"
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
    f.name = f"margot_d{f.meta['topology'].depth}"
    f.meta["kind"] = "margot"
    return f


def layer_loss_functions(meta, surrogate: bool = True):
    """Per-layer loss of the margins, ``loss_h(s)`` (tangent underestimator when ``surrogate``)."""
    eps = meta["eps"]
    fns = {"logistic": meta["lines"] if surrogate else logistic_loss,
           "hinge": lambda s: np.maximum(0.0, 1.0 - s),
           # a correct point has margin >= eps in the MIP; half of it absorbs solver tolerances
           "misclassification": lambda s: (s < eps / 2).astype(float)}
    return [fns[v] for v in meta["losses"]]


def tree_objective(tree: ObliqueTree, X, y, meta, surrogate: bool = False) -> float:
    """Objective (3.12) of ``tree`` on ``(X, y)`` with the settings of a built formulation.

    ``surrogate=True`` uses the tangent underestimator of the logistic loss
    (the MIP's objective); otherwise the exact loss.
    """
    margins = tree.margins(X, y)
    fns = layer_loss_functions(meta, surrogate)
    loss = sum(meta["C"][h] * fns[h](margins[:, h]).sum() for h in range(tree.depth))
    layer = meta["topology"].layer_of(tree.nodes) - 1
    W = tree.weights
    reg = meta["regularizer"]
    if reg == "l1":
        loss += float(meta["lam"][layer] @ np.abs(W).sum(axis=1))
    elif reg == "l2":
        loss += float(meta["lam"][layer] @ (W * W).sum(axis=1))
    if meta["alpha"] is not None:
        loss += float(meta["alpha"][layer] @ (W != 0).sum(axis=1))
    return float(loss)


def decode_tree(f: Formulation, x) -> tuple[ObliqueTree, np.ndarray]:
    """Tree and routing of a solution vector of a loss-optimal formulation.

    Returns
    -------
    tree : ObliqueTree
        Hyperplanes ``(w_t, b_t)`` of the solution, ``split_margin = eps / 2``.
    routing : ndarray of shape (n_points,)
        Last-layer node each point is assigned to by ``z``.
    """
    v = f.values(x)
    tree = ObliqueTree(v["w"], v["b"], split_margin=f.meta["eps"] / 2)
    targets = f.sets["T_last"]
    routing = targets[np.argmax(v["z"], axis=1)]
    return tree, routing


def start_from_tree(f: Formulation, tree: ObliqueTree) -> np.ndarray:
    """Complete assignment of every variable of ``f`` for the given tree.

    Routing follows ``tree`` (which must route every training point with
    ``w_t x + b_t <= 0`` or ``>= eps`` at inner nodes for the start to be
    feasible), slacks take the values of the tangent underestimator, the l1
    parts and l0 indicators follow ``w``.
    """
    meta = f.meta
    X, y = meta["X"], meta["y"]
    a = tree.node_values(X)
    path = tree.decision_path(X, a)
    last = f.sets["T_last"]
    z = (path[:, -1:] == last[None, :]).astype(float)
    s = (y[:, None] * a).T
    visited = np.take_along_axis(s.T, path - 1, axis=1)                 # (n, depth) margin on each layer
    fns = layer_loss_functions(meta, surrogate=True)
    eps = meta["eps"]
    per_layer = np.column_stack([fns[h](visited[:, h]) for h in range(tree.depth)])
    w = tree.weights
    values = {"z": z, "w": w, "b": tree.intercepts, "w_pos": np.maximum(w, 0), "w_neg": np.maximum(-w, 0)}
    for var, kind in (("xi", "logistic"), ("zeta", "hinge"), ("e", "misclassification")):
        if var in f.variables:
            cols = [h for h, v in enumerate(meta["losses"]) if v == kind]
            vals = per_layer[:, cols]
            if kind == "misclassification":
                vals = (visited[:, cols] < eps).astype(float)
            values[var] = vals
    if "s" in f.variables:
        values["s"] = s
    if "delta" in f.variables:
        values["delta"] = (w != 0).astype(float)
    if "q" in f.variables:
        values["q"] = w * w
    return f.vector(values)
