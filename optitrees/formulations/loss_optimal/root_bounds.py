r"""A valid lower bound on a loss-optimal tree's objective at any size: the root layer, and the rows identical in
features with both labels in the layers below it.

The objective (3.12) sums, per layer ``h``, ``C_h sum_i v_i loss_h(y_i (w_t x_i + b_t))`` over the node ``t``
of layer ``h`` each point reaches, and ``lam_h Omega(w_t)`` (+ ``alpha_h ||w_t||_0``) per node. Every point
reaches the root, every other term is non-negative, so for every tree of the model class
(``||w_t||_1 <= W``, ``|b_t| <= B``)::

    objective(tree)  >=  R  =  min_{||w||_1 <= W, |b| <= B}  C_1 sum_i v_i loss_1(y_i (w x_i + b)) + lam_1 Omega(w)

(the ``l0`` terms and feature budgets dropped, forbidden features kept at zero). ``R`` is a convex problem on
all rows: 0.1-2 s on 30,000 rows of adult where the MIP's root LP needs minutes. It is the bound the MIP's LP
relaxation gives in the measured cases (fractional routing makes every lower layer's loss free), on the exact
loss rather than its tangents, and it is exact at depth 1. The value returned is a certified lower bound on
``R``, not the value of an approximate minimizer:

* logistic loss (smooth): at any point ``p = (w, b)`` and any subgradient ``g`` of the objective there,
  convexity gives ``F(u) >= F(p) + g (u - p)``, so
  ``R >= F(p) - g p - W ||g_w||_inf - B |g_b|`` (the least of the linear function over the box);
  ``p`` comes from L-BFGS-B (its intercept finished by Newton steps), ``g`` is the least-norm subgradient of the
  ``l1`` term;
* hinge loss: weak duality with ``alpha_i in [0, C_1 v_i]``:
  ``R >= sum_i alpha_i - Omega*(X' (alpha o y)) - B |sum_i alpha_i y_i|`` with ``Omega*`` bounded above by
  ``||u||^2 / (4 lam)`` (squared ``l2``), ``W max(0, ||u||_inf - lam)`` (``l1``) and ``W ||u||_inf``, and
  ``alpha`` the dual point of the hinge smoothed over ``1e-3`` at its L-BFGS-B solution;
* misclassification loss at the root: no convex bound; the identical rows' (below).

The layers below the root add what rows identical in every feature a split may use (forbidden features aside)
cost where they carry both labels: every tree routes them to one node of each layer, whose loss on them is at
least :func:`~optitrees.formulations.identical_rows.least_node_loss` (``C_h`` times it, per layer ``h >= 2``;
``0`` when no such rows exist, as on continuous features). On a2a's 22,722 training rows (18,249 distinct, 683
such groups) it adds 1,488 to OLCT's root layer's 7,303 at depth 2.
"""

from __future__ import annotations


import numpy as np
from scipy.optimize import minimize
from scipy.special import expit

from ...budget import expired
from ..identical_rows import label_weights, least_node_loss

__all__ = ["root_layer_bound", "logistic_root_bound", "hinge_root_bound"]

#: L-BFGS-B's settings for either bound: tolerances far below the defaults (the bound's slack is the gradient
#: left times the box), within the iterations the deadline allows (each one product with X and one with X').
_TIGHT = {"maxiter": 20_000, "maxfun": 40_000, "ftol": 1e-15, "gtol": 1e-12}


def root_layer_bound(problem, deadline=None) -> tuple[float, str] | None:
    """``(R + D, source)``: a lower bound on every tree's objective (module docstring): the root layer ``R`` and
    the rows identical in the features a split may use, with both labels, in the layers below it ``D``; ``None``
    when neither bounds anything (a misclassification root without such rows)."""
    spec, data = problem.spec, problem.data
    loss, C, lam = spec.losses[0], float(spec.C[0]), float(spec.lam[0])
    allowed = np.ones(data.X.shape[1], bool)
    allowed[list(spec.forbidden)] = False
    X, y, v = data.X[:, allowed], data.y.astype(float), data.weight
    counts = label_weights(X, y, v)
    below = sum(float(spec.C[h]) * least_node_loss(counts, spec.losses[h]) for h in range(1, spec.depth))
    regularizer = spec.regularizer if lam > 0 else None
    if loss == "logistic":
        value = logistic_root_bound(X, y, C * v, lam, regularizer, spec.weight_bound, problem.intercept_bound,
                                    deadline)
    elif loss == "hinge":
        value = hinge_root_bound(X, y, C * v, lam, regularizer, spec.weight_bound, problem.intercept_bound, deadline)
    else:
        value = C * least_node_loss(counts, loss)
        if value + below <= 0:
            return None
    source = f"root layer ({loss}, all {len(y):,} rows)"
    if below > 0:
        conflicts = int(((counts > 0).sum(axis=1) > 1).sum())
        layers = "layer 2" if spec.depth == 2 else f"layers 2-{spec.depth}"
        source += f" + {conflicts:,} groups of identical rows with both labels in {layers}"
    return max(0.0, value) + below, source


def _stop_at(deadline):
    """An L-BFGS-B callback that ends the search once ``deadline`` (``time.perf_counter()``) has passed."""
    def callback(intermediate_result):
        if expired(deadline):
            raise StopIteration
    return callback


def _logistic(X, y, c, lam, regularizer, p):
    """Objective and gradient of ``sum_i c_i log(1 + exp(-y_i s_i)) + lam Omega(w)`` at ``p = (w+, w-, b)`` (l1)
    or ``(w, b)``."""
    d = X.shape[1]
    if regularizer == "l1":
        w = p[:d] - p[d:2 * d]
    else:
        w = p[:d]
    b = p[-1]
    m = y * (X @ w + b)
    value = float(c @ np.logaddexp(0.0, -m))
    r = -c * y * expit(-m)                           # d loss / d s_i
    gw, gb = X.T @ r, float(r.sum())
    if regularizer == "l1":
        value += lam * float(p[:2 * d].sum())
        grad = np.concatenate([gw + lam, -gw + lam, [gb]])
    elif regularizer == "l2":
        value += lam * float(w @ w)
        grad = np.concatenate([gw + 2 * lam * w, [gb]])
    else:
        grad = np.concatenate([gw, [gb]])
    return value, grad, w, b, gw, gb


def logistic_root_bound(X, y, c, lam, regularizer, W, B, deadline=None) -> float:
    """A certified lower bound on ``min_{||w||_1 <= W, |b| <= B} sum_i c_i log(1 + exp(-y_i (w x_i + b))) +
    lam Omega(w)`` (module docstring: the linearization at an L-BFGS-B point, stopped at ``deadline``: the bound
    holds at any point, it is only weaker).

    >>> X = np.array([[-1.0], [1.0]]); y = np.array([-1.0, 1.0])
    >>> lb = logistic_root_bound(X, y, np.ones(2), 0.0, None, 1.0, 1.0)
    >>> bool(abs(lb - 2 * np.log1p(np.exp(-1.0))) < 1e-6)     # w = 1 at the box's edge
    True
    """
    d = X.shape[1]
    n_w = 2 * d if regularizer == "l1" else d
    bounds = [(0.0, W)] * n_w if regularizer == "l1" else [(-W, W)] * n_w
    bounds.append((-B, B))
    scale = 1.0 / max(float(c.sum()), 1e-12)
    found = minimize(lambda p: tuple(scale * v for v in _logistic(X, y, c, lam, regularizer, p)[:2]),
                     np.zeros(n_w + 1), jac=True, method="L-BFGS-B", bounds=bounds, options=_TIGHT,
                     callback=_stop_at(deadline))
    _, _, w, b, _, _ = _logistic(X, y, c, lam, regularizer, found.x)
    s = X @ w
    for _ in range(20):                              # Newton on b alone: its gradient times B is the costly term
        q = expit(-y * (s + b))
        gradient, curvature = -float((c * y) @ q), float(c @ (q * (1 - q)))
        if curvature <= 0 or abs(gradient) < 1e-12 * max(1.0, float(c.sum())):
            break
        b = float(np.clip(b - gradient / curvature, -B, B))
    m = y * (s + b)
    value = float(c @ np.logaddexp(0.0, -m))
    r = -c * y * expit(-m)
    gw, gb = X.T @ r, float(r.sum())
    value += lam * float(np.abs(w).sum()) if regularizer == "l1" else lam * float(w @ w) if regularizer == "l2" \
        else 0.0
    if regularizer == "l1":                          # the least-norm subgradient of lam ||w||_1
        gw = np.where(w > 0, gw + lam, np.where(w < 0, gw - lam, np.sign(gw) * np.maximum(np.abs(gw) - lam, 0.0)))
    elif regularizer == "l2":
        gw = gw + 2 * lam * w
    return float(value - gw @ w - gb * b - W * np.abs(gw).max(initial=0.0) - B * abs(gb))


def _huber_hinge(Xy, c, lam, regularizer, delta, p):
    """The hinge smoothed over ``delta`` below the margin (``(1 - m)^2 / (2 delta)`` there, ``1 - m - delta / 2``
    beyond), with the regularizer, at ``p = (w+, w-, b)`` (l1, none) or ``(w, b)`` (squared l2): value, gradient."""
    d = Xy.shape[1] - 1
    split = regularizer != "l2"
    w = p[:d] - p[d:2 * d] if split else p[:d]
    b = p[-1]
    y = Xy[:, -1]
    m = Xy[:, :-1] @ w + y * b
    slope = np.clip((1.0 - m) / delta, 0.0, 1.0)                   # -d loss / d m, the smoothed problem's alpha
    value = float(c @ np.where(m >= 1.0 - delta, (1.0 - np.minimum(m, 1.0)) ** 2 / (2 * delta), 1.0 - m - delta / 2))
    r = -c * slope
    gw, gb = Xy[:, :-1].T @ r, float(r @ y)
    if split:
        penalty = lam if regularizer == "l1" else 0.0
        value += penalty * float(p[:2 * d].sum())
        return value, np.concatenate([gw + penalty, -gw + penalty, [gb]])
    value += lam * float(w @ w)
    return value, np.concatenate([gw + 2 * lam * w, [gb]])


#: Width of the smoothing of the hinge whose solution gives the dual point (the bound is within about
#: ``delta / 2`` per point on the margin of the optimum, and always valid).
HINGE_SMOOTHING = 1e-3


def hinge_root_bound(X, y, c, lam, regularizer, W, B, deadline=None) -> float:
    """A certified lower bound on ``min_{||w||_1 <= W, |b| <= B} sum_i c_i max(0, 1 - y_i (w x_i + b)) +
    lam Omega(w)`` (module docstring): weak duality at ``alpha_i = c_i min(1, max(0, (1 - m_i) / delta))``, the
    dual point of the hinge smoothed over ``delta`` (:data:`HINGE_SMOOTHING`) at the L-BFGS-B solution (stopped at
    ``deadline``), evaluated with the conjugate's upper bound, so the value holds however far the search got.

    >>> X = np.array([[-1.0], [1.0]]); y = np.array([-1.0, 1.0])
    >>> round(hinge_root_bound(X, y, np.ones(2), 0.5, "l2", 10.0, 5.0), 3)     # w = 1: no loss, 0.5 ||w||^2
    0.5
    """
    n, d = X.shape
    Xy = np.hstack([X * y[:, None], y[:, None]])
    split = regularizer != "l2"
    n_w = 2 * d if split else d
    bounds = ([(0.0, W)] * n_w if split else [(-W, W)] * n_w) + [(-B, B)]
    scale = 1.0 / max(float(c.sum()), 1e-12)
    found = minimize(lambda p: tuple(scale * v for v in _huber_hinge(Xy, c, lam, regularizer, HINGE_SMOOTHING, p)),
                     np.zeros(n_w + 1), jac=True, method="L-BFGS-B", bounds=bounds, options=_TIGHT,
                     callback=_stop_at(deadline))
    p = found.x
    w = p[:d] - p[d:2 * d] if split else p[:d]
    m = Xy[:, :-1] @ w + y * p[-1]
    a = c * np.clip((1.0 - m) / HINGE_SMOOTHING, 0.0, 1.0)
    u = Xy[:, :-1].T @ a
    top = float(np.abs(u).max(initial=0.0))
    if regularizer == "l2" and lam > 0:
        conjugate = min(W * top, float(u @ u) / (4 * lam))
    elif regularizer == "l1":
        conjugate = W * max(0.0, top - lam)
    else:
        conjugate = W * top
    return float(a.sum() - conjugate - B * abs(float(a @ y)))
