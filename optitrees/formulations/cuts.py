"""Cuts added to a built formulation between solves: tangents of ``w**2`` and of the logistic loss.

Both underestimate a convex term of the objective, so every MILP they give
bounds the true optimum from below. A formulation that needs them declares a
cut loop (:class:`~optitrees.solvers.strategies.CutLoop`) with its *cutters*:
:class:`SquareCuts` and :class:`LogisticCuts` measure their term at a
solution (exact and approximated value), add cuts where it is
underestimated, and repair a start to satisfy the new cuts; the loop
(:mod:`optitrees.solvers.cut_loop`) re-solves until every term is within its
tolerance.

* :func:`add_square_outer_approximation` / :func:`add_square_cuts`: ``q[t, j] >= 2 a w[t, j] - a**2``
  (squared l2 on MILP solvers, MARGOT on HiGHS).
* :func:`add_logistic_cuts`: the tangent of ``f(v) = log(1 + exp(-v))`` at a
  point's own margin ``v`` on the node it visits (3.15 with a point-specific
  tangent point), so the surrogate matches the exact loss where the solution lies.
"""

from __future__ import annotations

import numpy as np

from ..mip import VariableGroup
from ..mip.expressions import Data
from .tangents import logistic_derivative, logistic_loss

__all__ = ["add_square_outer_approximation", "add_square_cuts", "least_epigraph", "add_logistic_cuts", "SquareCuts",
           "LogisticCuts", "squares_error"]


def add_square_outer_approximation(f, w: VariableGroup, penalty, points, epigraph: str = "q"):
    """Outer approximation of ``sum penalty * w**2`` by tangent cuts.

    Adds the epigraph group (``q[t, j]`` by default, over ``w``'s index sets)
    in ``[0, max(lower**2, upper**2)]`` with objective weight ``penalty``
    (broadcast to ``w``'s shape: per node ``[:, None]`` for MARGOT's
    ``lam_t``, per point for squared residuals) and the cuts of
    :func:`add_square_cuts` at each of ``points`` (one cut per point for every
    entry). Since every tangent ``2 a w - a**2`` underestimates ``w**2``, the
    linear objective is a lower bound of the quadratic one;
    :func:`optitrees.solvers.solve` (the cut loop the formulation declares)
    adds cuts at the solution until the two agree to a tolerance.
    """
    qmax = np.maximum(w.lower ** 2, w.upper ** 2).reshape(w.shape)
    q = f.add_variables(epigraph, w.dims, 0.0, qmax)
    f.add_objective(q, np.broadcast_to(np.asarray(penalty, float), w.shape))
    for a in np.atleast_1d(np.asarray(points, float)):
        add_square_cuts(f, q, w, np.full(w.shape, a))
    return q


def add_square_cuts(f, q: VariableGroup, w: VariableGroup, at) -> str:
    """One round of tangent cuts ``q >= 2 a w - a**2`` at ``a = at`` (entrywise over ``w``'s shape).

    The group is named ``square_cut_<k>`` for the ``k``-th round of any epigraph.
    """
    at = np.asarray(at, float)
    k = sum(name.startswith("square_cut_") for name in f.constraints)
    name = f"square_cut_{k}"
    f.add_constraints(name, q - Data(2.0 * at, w.dims) * w >= Data(-(at * at), w.dims),
                      equation=f"tangent of {w.name}**2")
    return name


def add_logistic_cuts(f, nodes, points, at) -> str:
    """Tangents of the logistic loss at margins ``at`` for the pairs ``(nodes[k], points[k])``.

    For each pair, with ``v = at[k]`` and ``h`` the layer of node ``t``:

    ``logistic_cut_<r>[t_i]: xi[i, h] >= f(v) + f'(v) (s[t, i] - v) - M (1 - sum_{s in T_d(t)} z[i, s])``

    with ``M = max(0, f(v) - f'(v) v + |f'(v)| S_i)``, the smallest value that
    deactivates the row, and no big-M at the root. The rows are indexed by
    ``"t_i"`` labels (set ``P_<r>``) for the ``r``-th round. Needs the margins as
    variables (``score_variables=True``).
    """
    if "s" not in f.variables or "xi" not in f.variables:
        raise ValueError("logistic cuts need logistic slacks xi and score variables s (score_variables=True)")
    problem = f.problem
    topo = problem.topology
    xi, s, z = f.variables["xi"], f.variables["s"], f.variables["z"]
    nodes, points, at = np.asarray(nodes), np.asarray(points), np.asarray(at, float)
    layers = f.sets[xi.dims[1]]
    col = np.searchsorted(layers, topo.layer_of(nodes))
    node_idx = np.searchsorted(f.sets["T"], nodes)
    slope = logistic_derivative(at)
    icpt = logistic_loss(at) - slope * at
    below = topo.descendant_mask(f.sets[z.dims[1]], nodes).astype(float)         # (m, targets)
    M = np.maximum(0.0, icpt + np.abs(slope) * problem.bound[points])
    M = np.where(below.all(axis=1), 0.0, M)
    r = sum(name.startswith("logistic_cut_") for name in f.constraints)
    f.add_set(f"P_{r}", np.array([f"{t}_{i}" for t, i in zip(nodes, points)]))
    terms = [(xi.columns[points, col], 1.0), (s.columns[node_idx, points], -slope),
             (z.columns[points], -M[:, None] * below)]
    name = f"logistic_cut_{r}"
    f.add_constraints(name, (f"P_{r}",), terms, lower=icpt - M, equation="3.15 at the solution's margins")
    return name


def least_epigraph(f, q: VariableGroup, x) -> np.ndarray:
    """The least value of each column of ``q`` (shape of ``q``) that ``f``'s rows with a lower bound allow, the other
    columns at their values in ``x``: for an epigraph of tangent rows ``q >= 2 a w - a**2``, the outer
    approximation's value at ``x``'s ``w`` (``-inf`` where no such row holds ``q``)."""
    cols = q.columns.ravel()
    rest = np.array(x, dtype=float)
    rest[cols] = 0.0
    need = f.row_lower - f.matrix @ rest
    on_q = f.matrix[:, cols].tocoo()
    held = (on_q.data > 0) & np.isfinite(need[on_q.row])
    out = np.full(cols.size, -np.inf)
    np.maximum.at(out, on_q.col[held], need[on_q.row[held]] / on_q.data[held])
    return out.reshape(q.shape)


def squares_error(formulation, x, value: str = "w", epigraph: str = "q") -> tuple[float, float, float]:
    """``(exact, approximated, relative error)`` of ``sum c_k value_k**2`` at ``x``, ``c`` the objective weights
    of the epigraph group (MARGOT's ``sum lam_t w[t, j]**2`` by default)."""
    v = formulation.values(x)
    weight = formulation.cost[formulation.variables[epigraph].columns]
    exact = float(np.sum(weight * v[value] ** 2))
    approx = float(np.sum(weight * v[epigraph]))
    return exact, approx, max(0.0, exact - approx) / max(exact, 1e-12)


class SquareCuts:
    """Tangent cuts of ``value**2`` held by the epigraph group: ``w`` and ``q`` of ``l2_method="outer"`` by
    default, the residuals ``e`` and ``e_sq`` of a squared-loss regression tree."""

    def __init__(self, tol=1e-4, value: str = "w", epigraph: str = "q", name: str = "l2"):
        self.tol = tol
        self.value = value
        self.epigraph = epigraph
        self.name = name

    def terms(self, f, x):
        """``(exact, approximated)`` value of the term in the objective."""
        exact, approx, _ = squares_error(f, x, self.value, self.epigraph)
        return exact, approx

    def add(self, f, x):
        q, w = f.variables[self.epigraph], f.variables[self.value]
        wv = x[w.columns]
        below = (wv * wv - x[q.columns]) > self.tol * np.abs(wv * wv).clip(min=1e-12)
        add_square_cuts(f, q, w, np.where(below, wv, 0.0))   # a cut at 0 is q >= 0, already implied

    def seed(self, f, x):
        """Tangents at ``x``'s values where the tangents so far under-estimate the squares there by more than
        ``tol`` (:func:`least_epigraph`), before the first solve from ``x``: the outer approximation is exact at the
        start, so the search's bound and its solutions near it are measured by the term itself rather than by the
        initial tangents (:func:`~optitrees.solvers.cut_loop.run_cut_loop`). A start seeded already (a round's
        re-solve after rows were brought back) adds nothing."""
        q, w = f.variables[self.epigraph], f.variables[self.value]
        wv = x[w.columns]
        below = (wv * wv - least_epigraph(f, q, x)) > self.tol * np.abs(wv * wv).clip(min=1e-12)
        if below.any():
            add_square_cuts(f, q, w, np.where(below, wv, 0.0))   # a cut at 0 is q >= 0, already implied

    def repair(self, f, x):
        x[f.variables[self.epigraph].columns] = x[f.variables[self.value].columns] ** 2


class LogisticCuts:
    """Tangents of the logistic loss at each point's margin on the node it visits (logistic layers)."""

    name = "logistic"

    def __init__(self, tol=1e-3):
        self.tol = tol

    def _visited(self, f, x):
        """``(nodes, points, margins, slack columns, weights)`` of every (point, logistic layer) pair."""
        problem = f.problem
        v = f.values(x)
        xi = f.variables["xi"]
        layers = f.sets[xi.dims[1]]
        leaf = f.sets[f.variables["z"].dims[1]][np.argmax(v["z"], axis=1)]     # last-layer node of each point
        n = len(leaf)
        nodes = (leaf[None, :] >> (problem.spec.depth - layers)[:, None]).ravel()   # (layers, n) ancestors
        points = np.tile(np.arange(n), len(layers))
        margins = v["s"][np.searchsorted(f.sets["T"], nodes), points]
        cols = xi.columns[points, np.repeat(np.arange(len(layers)), n)]
        weights = problem.spec.C[np.repeat(layers - 1, n)] * problem.data.weight[points]     # C_h v_i
        return nodes, points, margins, cols, weights

    def terms(self, f, x):
        _, _, margins, cols, weights = self._visited(f, x)
        return float(weights @ logistic_loss(margins)), float(weights @ x[cols])

    def add(self, f, x):
        nodes, points, margins, cols, _ = self._visited(f, x)
        exact = logistic_loss(margins)
        under = exact - x[cols] > self.tol * np.maximum(exact, 1e-12)
        if under.any():
            add_logistic_cuts(f, nodes[under], points[under], margins[under])

    def seed(self, f, x):
        """Tangents at ``x``'s margins where the tangents so far under-estimate the loss there (:meth:`add`)."""
        self.add(f, x)

    def repair(self, f, x):
        _, _, margins, cols, _ = self._visited(f, x)
        x[cols] = np.maximum(x[cols], logistic_loss(margins))
