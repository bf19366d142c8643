"""Warm starts and refinement of risk scores (seed 002, Ch. 4): rounded sparse logistic cards, stump rules,
the one-rule-at-a-time greedy start of OGRS, and the exact intercept refit."""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize_scalar

from ...budget import call_until, share_of
from ... import solvers as _solvers
from ...formulations import ogrs as ogrs_model
from ...formulations.risk_scores.ors import card_from_points
from ...formulations.tangents import logistic_loss
from ...scaling import weighted_sum
from ...scorecard import ScoreCard
from .. import _fit_warnings  # noqa: F401  (the fits' convergence warnings are silenced there, thread-safely)
from ..liblinear import liblinear_fit

__all__ = ["best_intercept", "refit_intercept", "rounded_logistic_points", "rounded_logistic_card", "stumps",
           "stump_card", "greedy_rules_card"]


def _weighted_loss(margins, sample_weight):
    losses = logistic_loss(margins)
    return weighted_sum(losses, sample_weight)


def best_intercept(totals, y, bound, multiplier: float = 1.0, sample_weight=None) -> float:
    """Intercept minimizing the exact logistic loss ``sum v_i log(1 + exp(-y_i (total_i + beta) / m))`` (1-D
    convex; ``v``: ``sample_weight``, 1 by default)."""
    y = np.asarray(y, float) / multiplier
    res = minimize_scalar(lambda b: _weighted_loss(y * (totals + b), sample_weight), bounds=(-bound, bound),
                          method="bounded", options={"xatol": 1e-9 * max(1.0, multiplier)})
    return float(res.x)


def refit_intercept(card: ScoreCard, X, y, bound, sample_weight=None) -> ScoreCard:
    """The card with the exactly optimal intercept for its rules and points (kept only if the loss drops)."""
    from dataclasses import replace

    totals = card.totals(X)
    beta = best_intercept(totals, y, bound, card.multiplier, sample_weight)
    y = np.asarray(y, float) / card.multiplier
    if _weighted_loss(y * (totals + beta), sample_weight) <= _weighted_loss(y * (totals + card.intercept),
                                                                            sample_weight):
        return replace(card, intercept=beta)
    return card


def rounded_logistic_points(X, y, n_rules, A, random_state=None, allowed=None, sample_weight=None,
                            deadline=None) -> np.ndarray:
    """Points from a sparse l1-logistic regression, scaled to the score range and rounded.

    The l1 weight is decreased until at most ``n_rules`` features are used
    (the ``n_rules`` largest weights are kept when the path jumps past it);
    the weights are scaled so the largest becomes ``max A`` (or ``min A`` for a
    negative one), rounded and clipped to ``A``. ``allowed`` masks out
    forbidden features; ``sample_weight`` weights the fit's rows. Past
    ``deadline`` (a ``time.perf_counter()`` value) the walk stops with the
    last fit it finished (a fit still running is left, :func:`~optitrees.budget.call_until`);
    without any, the points are all 0.
    """
    from sklearn.linear_model import LogisticRegression

    X = np.asarray(X, float)
    p = X.shape[1]
    cols = np.arange(p) if allowed is None else np.flatnonzero(allowed)
    best = np.zeros(p)
    for C in np.geomspace(1e-3, 10.0, 25):
        model = LogisticRegression(C=C, l1_ratio=1.0, solver="liblinear", intercept_scaling=100.0,
                                   random_state=random_state)
        done, lr = call_until(deadline, liblinear_fit, model, X[:, cols], y, sample_weight, deadline)
        if not done:
            break
        w = np.zeros(p)
        w[cols] = lr.coef_.ravel()
        if np.count_nonzero(w) > n_rules:
            w[np.argsort(-np.abs(w))[n_rules:]] = 0.0
        best = w
        if np.count_nonzero(w) >= n_rules:
            break
    top = np.abs(best).max()
    if top == 0:
        return np.zeros(p)
    reach = np.where(best > 0, A.max(), -A.min())          # room on each side of 0
    scale = min(reach[np.argmax(np.abs(best))] / top, 1e9)
    return np.clip(np.round(best * scale), A.min(), A.max())


def rounded_logistic_card(problem, random_state=None, deadline=None) -> ScoreCard:
    """ORS warm start: :func:`rounded_logistic_points` (until ``deadline``) clipped to each feature's point
    bounds, one rule per group (the largest points kept), with the exact intercept at the problem's multiplier."""
    X, y, v = problem.data.X, problem.data.y, problem.data.fit_weight
    allowed = np.ones(X.shape[1], bool)
    allowed[list(problem.spec.forbidden)] = False
    s = rounded_logistic_points(X, y, problem.spec.n_rules, problem.spec.scores, random_state, allowed, v,
                                deadline)
    s = np.where(s != 0, np.clip(s, problem.lower, problem.upper), 0.0)
    for g in problem.spec.groups:
        g = np.asarray(g, int)
        keep = g[np.argmax(np.abs(s[g]))]
        s[np.setdiff1d(g, [keep])] = 0.0
    m = problem.multiplier
    return card_from_points(s, best_intercept(X @ s, y, problem.intercept_bound, m, v), problem.per_unit, m)


def stumps(X01, y, allowed=None, sample_weight=None):
    """Every feature's depth-1 log-loss split as a rule ``(j, b, +-1)``, best (least impurity) first.

    ``b`` is the smallest value above the split, so ``x_j >= b`` holds exactly
    for the points the stump sends right; the point is +1 where those points
    are more often positive than the data (by weight, with ``sample_weight``). Features no stump can split are
    left out.
    """
    from sklearn.tree import DecisionTreeClassifier

    found = []
    usable = np.ptp(X01, axis=0) > 0
    if allowed is not None:
        usable &= allowed
    for j in np.flatnonzero(usable):
        stump = DecisionTreeClassifier(max_depth=1, criterion="log_loss").fit(X01[:, [j]], y, sample_weight)
        if stump.tree_.node_count < 3:
            continue
        right = X01[:, j] > stump.tree_.threshold[0]
        impurity = stump.tree_.impurity[1:3] @ stump.tree_.weighted_n_node_samples[1:3]
        v = np.ones(len(y)) if sample_weight is None else sample_weight
        sign = 1.0 if np.average(y[right] > 0, weights=v[right]) >= np.average(y > 0, weights=v) else -1.0
        found.append((impurity, int(j), float(X01[right, j].min()), sign))
    return [rule[1:] for rule in sorted(found, key=lambda r: r[0])]


def _card(problem, rules):
    """The ``[0, 1]``-scale card of rules ``(j, b, s)`` with the exact intercept."""
    feats = [r[0] for r in rules]
    card = ogrs_model.card_from_rules(problem, feats, [r[1] for r in rules], [r[2] for r in rules], 0.0)
    return refit_intercept(card, problem.data.X, problem.data.y, problem.intercept_bound, problem.data.fit_weight)


def _allowed(problem):
    allowed = np.ones(problem.data.n_features, bool)
    allowed[list(problem.spec.forbidden)] = False
    return allowed


def stump_card(problem, random_state=None):
    """OGRS start from stump-binarized features with points by a rounded sparse logistic fit (the seed's
    baseline, mapped to 4.16); unused stump rules with 0 points complete the ``T`` rules. ``None`` when
    fewer than ``T`` features can be split."""
    X01, y, v = problem.data.X, problem.data.y, problem.data.fit_weight
    T, M = problem.spec.n_rules, problem.spec.max_score
    cand = [(j, b) for j, b, _ in stumps(X01, y, _allowed(problem), v)]
    if len(cand) < T:
        return None
    B = np.column_stack([X01[:, j] >= b for j, b in cand]).astype(float)
    s = rounded_logistic_points(B, y, T, np.arange(-M, M + 1), random_state, sample_weight=v)
    chosen = list(np.flatnonzero(s)[:T])
    chosen += [k for k in range(len(cand)) if k not in chosen][: T - len(chosen)]
    return _card(problem, [(cand[k][0], cand[k][1], float(s[k])) for k in chosen])


def greedy_rules_card(problem, deadline=None, **solve_options) -> ScoreCard:
    """OGRS's greedy start (seed 002, 4.5): one rule at a time, solving for rule ``t`` with rules ``1..t-1`` fixed.

    Each step is an OGRS MILP with ``t`` rules (no symmetry breaking, so
    earlier rules stay where they are) solved until its share of the time to
    ``deadline``; a step without a solution takes the best stump rule on an
    unused feature. ``solve_options`` (solver, gap, threads, seed, verbose, raw
    options) go to every step.
    """
    from dataclasses import replace

    X01, y = problem.data.X, problem.data.y
    T, p = problem.spec.n_rules, X01.shape[1]
    rules, stump_rules = [], None
    for t in range(1, T + 1):
        spec = replace(problem.spec, n_rules=t, symmetry_breaking=False)
        g = ogrs_model.build(replace(problem, spec=spec))
        for r, (j, b, s) in enumerate(rules):
            col = np.zeros((p, t))
            col[j, r] = 1.0
            mask = np.zeros((p, t), bool)
            mask[:, r] = True
            g.fix("a", col, mask)
            g.fix("b", b, np.arange(t) == r)
            g.fix("s", s, np.arange(t) == r)
        step_deadline = share_of(deadline, 1.0 / (T - t + 1))
        res = _solvers.solve(g, deadline=step_deadline, progress=False, **solve_options)
        if res.x is None:       # no solution in the step's time: the best stump on an unused feature
            stump_rules = stumps(X01, y, _allowed(problem), problem.data.fit_weight) if stump_rules is None \
                else stump_rules
            used = {r[0] for r in rules}
            fallback = next((r for r in stump_rules if r[0] not in used), None)
            if fallback is None:
                raise ValueError("no unused feature splits the data into two non-empty groups")
            rules.append(fallback)
            continue
        v = g.values(res.x)
        j = int(np.argmax(v["a"][:, t - 1]))
        rules.append((j, float(v["b"][t - 1]), float(np.round(v["s"][t - 1]))))
    return _card(problem, rules)
