r"""Loss-optimal oblique trees: the Optimal Logistic Classification Tree (OLCT).

Model (3.17) of seed 002, with ``lambda_h`` moved to the loss as in the seed's
experiments::

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
from .tangents import logistic_tangents

__all__ = ["olct", "decode_tree", "start_from_tree", "DEFAULT_FEASIBILITY_TOL"]

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
    C = np.atleast_1d(np.asarray(C, dtype=float))
    if C.size == 1:
        C = np.full(depth, C[0])
    if C.shape != (depth,):
        raise ValueError(f"C must be a scalar or have one value per layer ({depth}), got {C.size}")
    if not np.all(np.isfinite(C)) or np.any(C < 0):
        raise ValueError("C must be finite and non-negative")
    return C


@timed_build
def olct(X, y, depth: int = 2, tangents="V0", C=1.0, univariate: bool = False,
         weight_bound: float = 10.0, intercept_bound: float | None = None, eps: float | None = None,
         score_variables: bool = True, feasibility_tol: float = DEFAULT_FEASIBILITY_TOL) -> Formulation:
    """Build the OLCT mixed-integer program (3.17).

    Parameters
    ----------
    X : array-like of shape (n_points, n_features)
        Training features (the estimators standardize them first, as the seed does).
    y : array-like of shape (n_points,)
        Labels in {-1, +1}.
    depth : int, default=2
        Number of branching layers ``d >= 1``.
    tangents : {"V0", "V1", "V2", "V3"} or sequence of float, default="V0"
        Tangent set of the logistic-loss underestimator (3.15).
    C : float or sequence of length ``depth``, default=1.0
        Loss weight ``C_h`` per layer.
    univariate : bool, default=False
        Axis-aligned splits, ``||w_t||_0 <= 1`` via (3.14) (Remark 2).
    weight_bound : float, default=10.0
        ``W`` in ``||w_t||_1 <= W``; every big-M is derived from it.
    intercept_bound : float, optional
        ``B`` in ``|b_t| <= B``. Default ``W * max_i ||x_i||_inf + 1``, enough for
        any split of the data and any intercept-only classifier with ``|b| <= 1``
        beyond it.
    eps : float, optional
        Right-branch margin of (3.7b). Default ``max(1e-5, 10 * feasibility_tol * max_i M_i)``,
        so a binary within tolerance of 0/1 cannot close the gap.
    score_variables : bool, default=True
        Add ``s[t, i] = y_i (w_t x_i + b_t)`` as variables (3-4 nonzeros per
        tangent row) instead of writing the margins inline. ``bench/overhead.py``
        set the default: the variant is faster to build and hand off, and HiGHS
        proved optimality several times faster with far fewer nodes on small
        breast-cancer instances.
    feasibility_tol : float, default=1e-6
        Integrality tolerance ``eps`` is sized for; ``solve`` imposes it on the
        solver (CPLEX and Gurobi default to 1e-5, which would close the gap).

    Returns
    -------
    Formulation
        With ``meta`` holding the data, topology, tangent lines, ``C``, ``eps``,
        and the per-point bounds ``S_i`` used as big-M.
    """
    X, y = _check_data(X, y)
    topo = Topology(depth)
    C = layer_weights(C, topo.depth)
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

    f = Formulation(name=f"olct_d{topo.depth}", integrality_tol=float(feasibility_tol))
    z = blocks.add_routing(f, X.shape[0], topo.last_layer)
    w, b = blocks.add_hyperplanes(f, topo.branch_nodes, X.shape[1], weight_bound, B)
    blocks.add_l1_split(f, w, weight_bound, penalty=1.0)
    if univariate:
        blocks.add_l0_indicators(f, w, weight_bound, budget=1)
    scores = blocks.Scores(f, X, y, w, b, S, variables=score_variables)
    blocks.add_forwarding(f, topo, scores, z, S, eps)
    blocks.add_logistic_slacks(f, topo, scores, z, lines, C)
    f.meta.update(kind="olct", X=X, y=y, topology=topo, lines=lines, C=C, eps=float(eps),
                  bound=S, weight_bound=float(weight_bound), intercept_bound=B,
                  univariate=bool(univariate), score_variables=bool(score_variables))
    return f


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
    xi = meta["lines"](np.take_along_axis(s.T, path - 1, axis=1))
    w = tree.weights
    values = {"z": z, "w": w, "b": tree.intercepts, "w_pos": np.maximum(w, 0), "w_neg": np.maximum(-w, 0),
              "xi": xi}
    if "s" in f.variables:
        values["s"] = s
    if "delta" in f.variables:
        values["delta"] = (w != 0).astype(float)
    return f.vector(values)
