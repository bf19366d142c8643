"""Per-node convex fits of loss-optimal trees: l1 / l2 logistic regression, linear SVM, their objectives.

A node of a loss-optimal tree (seed 002, 3.12) with layer ``h`` minimizes, on
the points routed through it, ``C_h sum_i loss(y_i (w x_i + b)) + lam_h Omega(w)
(+ alpha_h ||w||_0)``. :func:`node_fitter` returns the fit of each layer (used
by the greedy start and by refinement), :func:`node_objective` the exact value
of that per-node objective.
"""

from __future__ import annotations

import time
from enum import Enum

import numpy as np

from ..budget import remaining
from ..formulations.tangents import logistic_loss
from ..scaling import weighted_sum
from ._fit_warnings import install as install_quiet_warnings, quiet_convergence
from .liblinear import liblinear_fit

__all__ = ["L1LogisticSolver", "glum_available", "fit_l1_logistic", "fit_sparse_l1_logistic", "top_features", "fit_linear_svm", "svm_iterations_within",
           "node_fitter", "node_objective", "prepare_logistic_fits",
           "constant_fit"]


def constant_fit(y, loss: str, n_features: int, sample_weight=None):
    """The node without features: ``w = 0`` and the intercept ``_constant`` gives (what a node gets when the
    time budget ends before its fit)."""
    return np.zeros(n_features), _constant(np.asarray(y, float), logistic=loss == "logistic",
                                           sample_weight=sample_weight)


def _constant(y, logistic=True, sample_weight=None):
    """A node with one class (or none): ``w = 0`` and the smoothed log-odds (or +-1 for margins), from the
    (weighted) class totals."""
    if sample_weight is None:
        n_pos, n = int((y > 0).sum()), len(y)
    else:
        n_pos, n = float(sample_weight[y > 0].sum()), float(sample_weight.sum())
    if logistic:
        return float(np.log((n_pos + 0.5) / (n - n_pos + 0.5)))
    return 1.0 if n_pos >= n - n_pos else -1.0


def fit_l1_logistic(X, y, C, random_state=None, sample_weight=None, tol=1e-6):
    """Minimize ``||w||_1 + C sum_i v_i log(1 + exp(-y_i (w x_i + b)))`` (``v_i`` the point weights, 1 by default).

    The l1-regularized logistic regression of a node (seed 002, 3.12 with
    ``Omega = ||.||_1``), solved by glum's IRLS with coordinate descent (a
    proximal Newton method; without glum, the ``fast`` extra, by scipy's L-BFGS-B: :func:`_fit_l1_logistic_lbfgsb`)
    with the intercept unpenalized: glum minimizes
    ``sum_i v_i loss_i / sum_i v_i + alpha ||w||_1``, the same problem with
    ``alpha = 1 / (C sum_i v_i)``. ``tol`` bounds the norm of the minimal-norm
    subgradient of that scaled objective. On adult (30,000 x 104) one fit takes
    0.3 s where liblinear's newGLMNET stopped at its 100 iterations after
    4.6 s with a higher objective; on heavily weighted, nearly separable
    nodes (TAO's routing fits) glum reaches objectives liblinear did not. At
    most 100 Newton steps; callers keep a fit only when it lowers the exact
    objective. A node with one class (or none) gets ``w = 0`` and the
    intercept of its smoothed class ratio. ``random_state`` is accepted for
    the callers' uniform signature; the solver is deterministic.

    Returns
    -------
    (w, b) : ndarray of shape (n_features,), float
    """
    X = np.asarray(X, float)
    y = np.asarray(y, float)
    n_pos = int((y > 0).sum())
    if len(y) == 0 or n_pos in (0, len(y)) or C == 0:
        return np.zeros(X.shape[1]), _constant(y, sample_weight=sample_weight)
    total = float(len(y) if sample_weight is None else np.sum(sample_weight))
    if not total > 0:
        return np.zeros(X.shape[1]), _constant(y, sample_weight=sample_weight)
    if not _uses_glum():
        return _fit_l1_logistic_lbfgsb(X, y, C, sample_weight)
    model = _glum().GeneralizedLinearRegressor(
        family="binomial", alpha=1.0 / (C * total), l1_ratio=1.0, fit_intercept=True, gradient_tol=tol,
        max_iter=100, max_inner_iter=1000, drop_first=False, scale_predictors=False)
    with _one_openmp_thread(), quiet_convergence():
        model.fit(X, (y > 0).astype(float), sample_weight=sample_weight)
    return np.asarray(model.coef_, float).ravel().copy(), float(model.intercept_)


class L1LogisticSolver(Enum):
    """Who solves a node's l1-logistic regression: glum when it is installed (``AUTO``), or either one."""

    AUTO = "auto"
    GLUM = "glum"
    LBFGSB = "lbfgsb"


#: The process's choice (:class:`L1LogisticSolver`): ``AUTO`` uses glum (the ``fast`` extra) when it can be
#: imported, else scipy's L-BFGS-B (:func:`_fit_l1_logistic_lbfgsb`); a benchmark sets it to compare the two.
l1_logistic_solver = L1LogisticSolver.AUTO


def glum_available() -> bool:
    """Whether glum (the ``fast`` extra) can be imported."""
    try:
        _glum()
    except ImportError:
        return False
    return True


def _uses_glum() -> bool:
    choice = L1LogisticSolver(l1_logistic_solver)
    return choice is L1LogisticSolver.GLUM or (choice is L1LogisticSolver.AUTO and glum_available())


def _fit_l1_logistic_lbfgsb(X, y, C, sample_weight):
    """:func:`fit_l1_logistic` without glum: scipy's L-BFGS-B on the split form ``w = u - v``, ``u, v >= 0``, of
    ``sum_j (u_j + v_j) + C sum_i v_i log(1 + exp(-y_i ((u - v) x_i + b)))`` (smooth, with bounds; the intercept
    free), then every weight below ``1e-6`` of the largest set to 0 when that does not raise the objective (the
    bounds leave such crumbs where glum's coordinate descent gives exact zeros). On a node of 30,000 rows of adult
    it reaches glum's objective to 5e-7 relative in 1.5 times its seconds (``bench/core_fallbacks.py``)."""
    from scipy.optimize import minimize
    from scipy.special import expit

    n, p = X.shape
    cv = C * (np.ones(n) if sample_weight is None else np.asarray(sample_weight, float))

    def objective_and_gradient(z):
        margin = y * (X @ (z[:p] - z[p:2 * p]) + z[-1])
        slope = -cv * y * expit(-margin)                     # d objective / d (w x_i + b)
        g = X.T @ slope
        return z[:2 * p].sum() + cv @ np.logaddexp(0.0, -margin), np.concatenate([1.0 + g, 1.0 - g, [slope.sum()]])

    bounds = [(0.0, None)] * (2 * p) + [(None, None)]
    found = minimize(objective_and_gradient, np.zeros(2 * p + 1), jac=True, method="L-BFGS-B", bounds=bounds,
                     options=dict(maxiter=5000, ftol=1e-16, gtol=1e-10, maxcor=30))
    w, b = found.x[:p] - found.x[p:2 * p], float(found.x[-1])
    crumbs = np.abs(w) < 1e-6 * max(1.0, float(np.abs(w).max(initial=0.0)))
    if crumbs.any() and (~crumbs).any():
        cleaned = np.where(crumbs, 0.0, w)
        value = lambda v: float(np.abs(v).sum() + cv @ np.logaddexp(0.0, -y * (X @ v + b)))  # noqa: E731
        if value(cleaned) <= value(w):
            w = cleaned
    return w, b


def top_features(w, X, max_features: int) -> np.ndarray:
    """Mask of the ``max_features`` weights of ``w`` with the largest terms ``|w_j| std(x_j)`` on ``X`` (ties:
    the lower column first); weights that are zero are never kept."""
    terms = np.abs(np.asarray(w, float)) * np.asarray(X, float).std(axis=0)
    terms[np.asarray(w) == 0] = -1.0
    keep = np.zeros(len(terms), bool)
    keep[np.argsort(-terms, kind="stable")[: int(max_features)]] = True
    return keep & (np.asarray(w) != 0)


def fit_sparse_l1_logistic(X, y, C, max_features=None, random_state=None, sample_weight=None, tol=1e-6):
    """:func:`fit_l1_logistic` with at most ``max_features`` non-zero weights (the HFS budget of 3.14, a
    heuristic): when the l1 fit uses more, its ``max_features`` largest terms (:func:`top_features`) are kept
    and the regression is refitted on those columns alone (the "relaxed" l1 fit). ``None``: no budget."""
    w, b = fit_l1_logistic(X, y, C, random_state, sample_weight, tol)
    if max_features is None or np.count_nonzero(w) <= max_features:
        return w, b
    keep = np.flatnonzero(top_features(w, X, max_features))
    w_keep, b = fit_l1_logistic(np.asarray(X, float)[:, keep], y, C, random_state, sample_weight, tol)
    w = np.zeros_like(w)
    w[keep] = w_keep
    return w, b


_THREADPOOLS = None


def _glum():
    import glum

    return glum


def prepare_logistic_fits() -> None:
    """Import glum (and tabmat, which imports polars) and list the OpenMP pools, in the calling thread.

    A node fit runs in a worker thread that :func:`~optitrees.budget.call_until` abandons at the deadline; a
    worker abandoned while it imports a module leaves the module half-initialized in ``sys.modules``, and other
    threads then fail on it (scikit-learn's dataframe checks read ``sys.modules["polars"]``: "partially
    initialized module 'polars' has no attribute 'DataFrame'" on the first fit of a process). So every fitter
    calls this before its fits are handed to a worker."""
    _one_openmp_thread()
    install_quiet_warnings()              # glum's solvers get their quiet warnings here, not in a worker

def _one_openmp_thread():
    """A context that runs glum's (tabmat's) OpenMP loops on one thread in the calling thread: the fits of a
    study run one solver thread each, and on a node fit one thread is also the fastest (0.23 s against 0.30 s
    on two cores at 30,000 x 104)."""
    global _THREADPOOLS
    if _THREADPOOLS is None:
        from threadpoolctl import ThreadpoolController

        if _uses_glum():
            _glum()  # tabmat's OpenMP runtime is loaded before the controller lists the thread pools
        _THREADPOOLS = ThreadpoolController()
    return _THREADPOOLS.limit(limits=1, user_api="openmp")


#: Seconds of one pass of liblinear's dual coordinate descent per entry of ``X`` (10 ms at 30,000 x 104 here),
#: and the set-up (copying ``X`` into liblinear's format) in passes: what caps a linear SVM's iterations to the
#: time left (:func:`svm_iterations_within`).
LIBLINEAR_SECONDS_PER_ENTRY = 3.2e-9
LIBLINEAR_SETUP_PASSES = 5
#: liblinear's iteration limit when no time limit applies.
SVM_MAX_ITER = 20000


def svm_iterations_within(seconds, n_entries):
    """How many passes of liblinear's dual coordinate descent fit in ``seconds`` on ``n_entries`` entries of
    ``X`` (at least 1, at most :data:`SVM_MAX_ITER`; all of them when ``seconds`` is None).

    A fit capped so stops near the end of the budget instead of running on after it: a fit in native code
    cannot be stopped from Python, and a capped fit's solution is still a candidate (callers keep a fit only
    when it lowers the exact objective).
    """
    if seconds is None:
        return SVM_MAX_ITER
    passes = seconds / (LIBLINEAR_SECONDS_PER_ENTRY * max(n_entries, 1)) - LIBLINEAR_SETUP_PASSES
    return int(np.clip(passes, 1, SVM_MAX_ITER))


def fit_linear_svm(X, y, C, random_state=None, sample_weight=None, tol=1e-6, max_seconds=None):
    """Minimize ``0.5 ||w||^2 + C sum_i max(0, 1 - y_i (w x_i + b))`` (scikit-learn's LinearSVC).

    A large ``intercept_scaling`` leaves the intercept practically unpenalized.
    A node with one class (or none) gets ``w = 0`` and ``b = +-1``. ``max_seconds``
    caps liblinear's iterations to about that many seconds (:func:`svm_iterations_within`).
    """
    from sklearn.svm import LinearSVC

    X = np.asarray(X, float)
    y = np.asarray(y, float)
    n_pos = int((y > 0).sum())
    if len(y) == 0 or n_pos in (0, len(y)) or C == 0:
        return np.zeros(X.shape[1]), _constant(y, logistic=False, sample_weight=sample_weight)
    svm = LinearSVC(C=C, loss="hinge", dual=True, intercept_scaling=10.0, tol=tol,
                    max_iter=svm_iterations_within(max_seconds, X.size), random_state=random_state)
    liblinear_fit(svm, X, y, sample_weight, None if max_seconds is None else time.perf_counter() + max_seconds)
    return svm.coef_.ravel().copy(), float(svm.intercept_[0])


def node_objective(spec, h):
    """Exact objective of one node of layer ``h``: ``(X, y, w, b, sample_weight=None) -> C_h sum v_i loss_i + lam_h
    Omega(w) + alpha_h ||w||_0`` (``v_i`` the point weights, 1 by default)."""
    loss = {"logistic": logistic_loss, "hinge": lambda s: np.maximum(0.0, 1.0 - s),
            "misclassification": lambda s: (s <= 0).astype(float)}[spec.losses[h]]
    C, lam, reg = spec.C[h], spec.lam[h], spec.regularizer

    def objective(X, y, w, b, sample_weight=None):
        losses = loss(y * (X @ w + b))
        value = C * weighted_sum(losses, sample_weight)
        if reg == "l1":
            value += lam * np.abs(w).sum()
        elif reg == "l2":
            value += lam * (w * w).sum()
        if spec.alpha is not None:
            value += spec.alpha[h] * np.count_nonzero(w)
        return float(value)

    return objective


def _fit_univariate(X, y, C, random_state=None, sample_weight=None):
    """Best single-feature l1-logistic regression (Remark 2's ``||w||_0 <= 1``), weighted by ``sample_weight``."""
    def obj(w, b):
        losses = logistic_loss(y * (X @ w + b))
        return C * weighted_sum(losses, sample_weight) + np.abs(w).sum()

    best = (np.zeros(X.shape[1]), _constant(y, sample_weight=sample_weight))
    best_obj = obj(*best)
    for j in range(X.shape[1]):
        wj, bj = fit_l1_logistic(X[:, [j]], y, C, random_state, sample_weight)
        w = np.zeros(X.shape[1])
        w[j] = wj[0]
        value = obj(w, bj)
        if value < best_obj:
            best, best_obj = (w, bj), value
    return best


def node_fitter(spec, random_state=None, allowed=None, deadline=None):
    """Per-node classifier of each layer of a loss-optimal tree (``spec``: a ``LossOptimalSpec``).

    Logistic loss: l1-logistic regression (``regularizer="l1"``, liblinear's
    ``C = C_h / lam_h``) or l2-logistic; hinge and misclassification losses:
    a linear SVM (``C = C_h / (2 lam_h)``, the scaling of ``C_h hinge + lam_h ||w||^2``).
    With an HFS budget ``B`` the node keeps its ``B`` largest weights and is
    refitted on those features (``B = 1`` with the logistic loss tries every
    single feature, Remark 2). ``allowed`` (a boolean mask) keeps forbidden
    features out of every fit. A linear SVM started before ``deadline`` (a
    ``time.perf_counter()``) runs at most about the seconds left until it
    (:func:`svm_iterations_within`), so a fit abandoned at the deadline does not run on long after it.

    Returns
    -------
    callable ``fit(X, y, h, support=None, sample_weight=None, routing=False, tol=None) -> (w, b)``
        ``h`` is the 0-based layer; ``support`` restricts the features further;
        ``sample_weight`` multiplies each point's loss (the points' weights, and
        TAO's routing terms, which set ``routing=True``); ``tol`` the solver's
        stopping tolerance (default: liblinear 1e-6, lbfgs 1e-8; TAO's candidate
        fits, kept only when they lower the exact objective, use
        :data:`~optitrees.algorithms.loss_optimal.tao_loss_optimal.CANDIDATE_TOL`).
    """
    from sklearn.linear_model import LogisticRegression

    if "logistic" in tuple(spec.losses):
        prepare_logistic_fits()          # in this thread: a node fit may run in a worker that is abandoned
    budget = spec.budget
    signs = np.asarray(getattr(spec, "monotone", ()), dtype=np.int64)
    signs = signs if signs.any() else None
    last = len(spec.losses) - 1

    def base(Xn, yn, h, sw, tol):
        loss, Ch = spec.losses[h], float(spec.C[h])
        lh = float(spec.lam[h]) if spec.regularizer is not None else 0.0
        if loss == "logistic":
            if spec.regularizer == "l1" and lh > 0:
                return fit_l1_logistic(Xn, yn, Ch / lh, random_state, sw, tol=tol or 1e-6)
            n_pos = int((yn > 0).sum())
            if n_pos in (0, len(yn)):
                return np.zeros(Xn.shape[1]), _constant(yn, sample_weight=sw)
            lr = LogisticRegression(C=Ch / (2 * lh) if lh > 0 else 1e4, max_iter=2000, tol=tol or 1e-8)
            with quiet_convergence():
                lr.fit(Xn, yn, sw)
            return lr.coef_.ravel().copy(), float(lr.intercept_[0])
        left = remaining(deadline)
        return fit_linear_svm(Xn, yn, Ch / (2 * lh) if lh > 0 else 1e3, random_state, sw, tol=tol or 1e-6,
                              max_seconds=left)

    def fit(Xn, yn, h, support=None, sample_weight=None, routing=False, tol=None):
        p = Xn.shape[1]
        mask = np.ones(p, bool) if allowed is None else np.asarray(allowed, bool).copy()
        if support is not None:
            mask &= np.asarray(support, bool)
        if signs is not None and h < last:
            mask &= signs == 0                   # monotone: no split reads a constrained feature
        cols = np.flatnonzero(mask)
        w = np.zeros(p)
        if cols.size == 0:
            return w, base(Xn[:, :1] * 0.0, yn, h, sample_weight, tol)[1]
        if budget is not None and spec.losses[h] == "logistic" and spec.regularizer == "l1" and budget[h] == 1 \
                and support is None and not routing:
            wc, b0 = _fit_univariate(Xn[:, cols], yn, float(spec.C[h]) / max(float(spec.lam[h]), 1e-12),
                                     random_state, sample_weight)
        else:
            wc, b0 = base(Xn[:, cols], yn, h, sample_weight, tol)
        w[cols] = wc
        if signs is not None and h == last and np.any(signs * w < 0):
            # monotone: a leaf weight of the wrong sign leaves the support, and the leaf is fitted again
            return fit(Xn, yn, h, support=mask & ~(signs * w < 0), sample_weight=sample_weight, routing=routing,
                       tol=tol)
        if budget is not None and np.count_nonzero(w) > budget[h]:
            keep = np.zeros(p, bool)
            keep[np.argsort(-np.abs(w))[: int(budget[h])]] = True
            return fit(Xn, yn, h, support=keep, sample_weight=sample_weight, routing=routing, tol=tol)
        return w, b0

    return fit
