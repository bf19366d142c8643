r"""Warm starts of risk scores by beam search, ray search of the multiplier and rounding (FasterRisk's recipe).

Liu et al.'s FasterRisk finds good sparse integer cards fast in three steps;
this module does the same on the exact loss of
:class:`~optitrees.formulations.risk_scores.aggregate_loss.AggregateLoss` (distinct rows
with weights):

1. *beam search over supports*: from the intercept-only model, every kept
   support is extended by each of the ``n_candidates`` features whose
   one-coordinate Newton step (box-constrained) lowers the loss most; each
   extension is refitted (continuous coefficients in the point bounds,
   intercept free, L-BFGS-B) and the ``beam_width`` best supports go on, until
   ``T`` rules;
2. *ray search of the multiplier*: each final support's coefficients ``w``
   are scaled by multipliers ``m`` from 1 to the largest that keeps ``m w``
   in the point bounds, as FasterRisk does; when some coefficients are at
   their bounds, from 0.5 to the largest that keeps the others in theirs;
   then on to where a second coefficient would reach its bound (:func:`_ray`), and
3. *rounding*: ``m w`` is rounded one coordinate at a time to the neighbour
   that gives the lower loss (sequential rounding), the intercept is refitted
   exactly, and ``+-1`` moves of single points are taken while they lower the
   loss (the intercept refitted after each); the support's best card then
   gets its exactly best multiplier
   (:meth:`~optitrees.formulations.risk_scores.aggregate_loss.AggregateLoss.best_multiplier`).

The card of least loss ``l(s, beta)`` is returned with its multiplier. With a
fixed multiplier the ray is still followed: each card rounded on it is scored,
given its intercept and moved at the fixed one (on nearly separable data the
sharper cards rounded at larger multipliers are the better ones).
It is a heuristic (no bound); the MIP then optimizes the points at that
multiplier and certifies a gap.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize

from ...budget import expired, share_of
from ...formulations.risk_scores.aggregate_loss import AggregateLoss
from ...readable import round_significant

__all__ = ["RiskSearchResult", "risk_search"]


@dataclass(frozen=True)
class RiskSearchResult:
    """The best card found: points per feature, intercept, multiplier and its exact loss."""

    points: np.ndarray
    intercept: float
    multiplier: float
    loss: float
    supports_tried: int


def _fit(loss: AggregateLoss, support, lower, upper, w0, b0, bound):
    """Continuous coefficients on ``support`` (within ``lower..upper``) and a free intercept, least loss."""
    cols = np.asarray(support, int)
    sub = loss.with_multiplier(1.0).restricted(cols)

    def fun(theta):
        value, g_s, g_b, _ = sub.cut(theta[:-1], theta[-1])
        return value, np.append(g_s, g_b)

    bounds = list(zip(lower[cols], upper[cols])) + [(-bound, bound)]
    res = minimize(fun, np.append(w0, b0), jac=True, method="L-BFGS-B", bounds=bounds,
                   options={"maxiter": 200, "gtol": 1e-7})
    return float(res.fun), res.x[:-1], float(res.x[-1])


def _newton_gains(loss: AggregateLoss, score, lower, upper):
    """Loss decrease of the best box-constrained Newton step on each single coordinate (vectorized)."""
    z = loss.y * score
    sig = 1.0 / (1.0 + np.exp(np.clip(z, -500, 500)))
    g = -(loss.weight * loss.y * sig) @ loss.X
    h = (loss.weight * sig * (1.0 - sig)) @ loss.X ** 2
    step = np.clip(-g / np.maximum(h, 1e-12), lower, upper)
    return -(g * step + 0.5 * h * step ** 2)


def _round(loss: AggregateLoss, w, b, m, lower, upper, bound, at=None):
    """Sequential rounding of ``m w``, exact intercept (``|beta| <= bound`` at multiplier 1, scaled), then
    +-1 moves while the loss drops; the loss, the intercept and the moves at multiplier ``at`` when given
    (a card rounded at ``m``, scored at ``at``)."""
    lm = loss.with_multiplier(m)
    target = np.clip(m * w, lower, upper)
    s = target.copy()
    beta = m * b
    for k in np.argsort(np.abs(target - np.round(target)))[::-1]:
        options = np.unique(np.clip([np.floor(target[k]), np.ceil(target[k])], lower[k], upper[k]))
        trial = np.repeat(s[None, :], len(options), axis=0)
        trial[:, k] = options
        s = trial[int(np.argmin(lm.value(trial, np.full(len(options), beta))))]
    if at is not None:
        lm = loss.with_multiplier(at)
    bound = bound * lm.multiplier
    beta = lm.best_intercept(s, bound)
    value = float(lm.value(s, beta))
    p = len(s)
    moves = np.vstack([np.eye(p), -np.eye(p)])
    while True:
        trial = s[None, :] + moves
        ok = np.all((trial >= lower) & (trial <= upper), axis=1)
        if not ok.any():
            break
        trial = trial[ok]
        values = lm.value(trial, np.full(len(trial), beta))
        k = int(np.argmin(values))
        cand = trial[k]
        cand_beta = lm.best_intercept(cand, bound)
        cand_value = float(lm.value(cand, cand_beta))
        if cand_value >= value - 1e-10 * max(1.0, value):
            break
        s, beta, value = cand, cand_beta, cand_value
    return value, s, beta


def _ray(w, lower, upper, n_multipliers):
    """The multipliers tried for continuous coefficients ``w`` (three significant digits, so the card prints
    them exactly).

    FasterRisk's ray runs from 1 to the largest multiplier that keeps ``m w``
    in the bounds, or from 1 down to 0.5 when the fit presses on them. A
    coefficient *at* its bound usually wants to go further (a rule almost
    only one class has): scaling it past the bound only clips it, while the
    other coefficients gain resolution. So when some coefficients are at
    their bounds the ray runs from 0.5 to the largest multiplier that keeps
    the *others* in theirs. For the same reason the ray then goes on, with
    half as many multipliers, to where a second coefficient reaches its bound
    (at most twice as far, where the first is clipped to half its scaled value).
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        room = np.where(w > 0, np.maximum(upper, 0) / w, np.where(w < 0, np.minimum(lower, 0) / w, np.inf))
    at_bound = room <= 1.0 + 1e-6
    free = np.sort(room[~at_bound])
    top = min(max(float(free[0]), 1.0), 1e6) if free.size else 1.0
    ray = np.linspace(0.5 if at_bound.any() else 1.0, top, n_multipliers)
    if free.size > 1 and np.isfinite(free[0]):
        far = min(float(free[1]), 2.0 * top, 1e6)
        if far > 1.01 * top:
            ray = np.append(ray, np.linspace(top, far, n_multipliers // 2 + 1)[1:])
    return np.unique(round_significant(ray, 3))


def _swaps(base, best, allowed, group_of, box_lo, box_hi, bound, n_swaps, deadline):
    """FasterRisk's diverse pool: the best support with one feature replaced by each of the ``n_swaps``
    features whose Newton step most lowers the loss of the support without it, each refitted."""
    _, support, w, b = best
    found = []
    for k, out in enumerate(support):
        if expired(deadline):
            break
        rest = support[:k] + support[k + 1:]
        w_rest = np.delete(w, k)
        score = base.X[:, list(rest)] @ w_rest + b if rest else np.full(len(base.y), b)
        free = allowed.copy()
        free[list(support)] = False
        used = group_of[list(rest)]
        free &= ~np.isin(group_of, used[used >= 0])
        gains = np.where(free, _newton_gains(base, score, box_lo, box_hi), -np.inf)
        for j in np.argsort(-gains)[:n_swaps]:
            if not np.isfinite(gains[j]) or gains[j] <= 0:
                break
            key = tuple(sorted(rest + (int(j),)))
            w0 = np.array([w_rest[rest.index(c)] if c in rest else 0.0 for c in key])
            value, w2, b2 = _fit(base, key, box_lo, box_hi, w0, b, bound)
            found.append((value, key, w2, b2))
    return found


def risk_search(loss: AggregateLoss, n_rules: int, lower, upper, *, allowed=None, groups=(), intercept_bound=None,
                beam_width: int = 10, n_candidates: int = 10, n_swaps: int = 5, n_multipliers: int = 20,
                multiplier=None, deadline=None) -> RiskSearchResult:
    """The best card of the module docstring's search.

    Parameters
    ----------
    loss : AggregateLoss
        The training loss at multiplier 1 (``y`` in {-1, +1}).
    n_rules : int
        ``T``: the most features with nonzero points.
    lower, upper : array of shape (p,)
        Integer point bounds per feature (each range contains 0 or the feature
        cannot be left out: ``lower_j > 0`` forces positive points when used).
    allowed : array of bool, optional
        Features the card may use.
    groups : sequence of sequence of int
        At most one feature of each group.
    intercept_bound : float, optional
        ``|beta| <= B`` at multiplier 1 (scaled with ``m``).
    beam_width, n_candidates, n_swaps, n_multipliers : int
    multiplier : float, optional
        The card's multiplier: ``m w`` is still rounded along the ray (a card
        rounded at a larger multiplier is a sharper card at this one), but
        every card is scored, given its intercept and moved at this one.
    deadline : float, optional
        ``time.perf_counter()`` by which the search ends: supports are searched
        until 60% of the time left, the rest is for rounding, where the best
        continuous support always gets its whole ray.
    """
    lower, upper = np.asarray(lower, float), np.asarray(upper, float)
    p = loss.X.shape[1]
    rounding_deadline = deadline
    deadline = share_of(deadline, 0.6)
    allowed = np.ones(p, bool) if allowed is None else np.asarray(allowed, bool).copy()
    allowed &= np.ptp(loss.X, axis=0) > 0
    group_of = np.full(p, -1)
    for k, g in enumerate(groups):
        group_of[list(g)] = k
    # the continuous box: the point bounds, with 0 inside so a new coordinate can start from 0
    box_lo, box_hi = np.minimum(lower, 0.0), np.maximum(upper, 0.0)
    B = 10.0 + float(np.sort(np.maximum(np.abs(lower), np.abs(upper)) * np.abs(loss.X).max(axis=0))[::-1]
                     [:n_rules].sum()) if intercept_bound is None else float(intercept_bound)
    base = loss.with_multiplier(1.0)
    b0 = base.best_intercept(np.zeros(p), B)
    beam = [(float(base.value(np.zeros(p), b0)), (), np.zeros(0), b0)]
    tried = 0
    for _ in range(n_rules):
        children = {}
        for value, support, w, b in beam:
            free = allowed.copy()
            free[list(support)] = False
            used_groups = group_of[list(support)]
            free &= ~np.isin(group_of, used_groups[used_groups >= 0])
            if not free.any():
                continue
            score = base.X[:, list(support)] @ w + b if support else np.full(len(base.y), b)
            gains = np.where(free, _newton_gains(base, score, box_lo, box_hi), -np.inf)
            for j in np.argsort(-gains)[:n_candidates]:
                if not np.isfinite(gains[j]) or gains[j] <= 0:
                    break
                key = tuple(sorted(support + (int(j),)))
                if key in children:
                    continue
                if expired(deadline) and children:
                    break
                w0 = np.array([w[support.index(c)] if c in support else 0.0 for c in key])
                fitted = _fit(base, key, box_lo, box_hi, w0, b, B)
                tried += 1
                children[key] = fitted
        if not children:
            break
        ranked = sorted(children.items(), key=lambda kv: kv[1][0])[:beam_width]
        beam = [(v, key, w, b) for key, (v, w, b) in ranked]
    pool = beam + _swaps(base, beam[0], allowed, group_of, box_lo, box_hi, B, n_swaps, deadline) if beam[0][1] else beam
    tried += len(pool) - len(beam)
    best = None
    for rank, (_, support, w, b) in enumerate(sorted(pool, key=lambda entry: entry[0])):
        cols = np.asarray(support, int)
        if cols.size == 0:
            continue
        sub = base.restricted(cols)
        lo, hi = lower[cols], upper[cols]
        grid = _ray(w, lo, hi, n_multipliers)
        if multiplier is not None:      # the fixed multiplier first; cards rounded on the ray are scored at it
            grid = np.append(float(multiplier), grid[grid != float(multiplier)])
        rounded = None
        for m in grid:
            if rank and expired(rounding_deadline):
                break
            value, s, beta = _round(sub, w, b, m, lo, hi, B, at=multiplier)
            if rounded is None or value < rounded[0]:
                rounded = (value, s, beta, m if multiplier is None else float(multiplier))
        if rounded is None:
            break
        if multiplier is None:          # the support's best card at its own best multiplier
            m, beta, value = sub.with_multiplier(rounded[3]).best_multiplier(rounded[1], B)
            if value < rounded[0]:
                rounded = (value, rounded[1], beta, m)
        if best is None or rounded[0] < best[0]:
            points = np.zeros(p)
            points[cols] = rounded[1]
            best = (rounded[0], points, rounded[2], rounded[3])
    if best is None:           # no feature helps: the intercept-only card
        lm = base.with_multiplier(1.0 if multiplier is None else float(multiplier))
        beta = lm.best_intercept(np.zeros(p), B * lm.multiplier)
        return RiskSearchResult(np.zeros(p), beta, lm.multiplier, float(lm.value(np.zeros(p), beta)), tried)
    value, points, beta, m = best
    return RiskSearchResult(points, float(beta), float(m), float(value), tried)
