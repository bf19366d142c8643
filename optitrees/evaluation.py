"""Evaluation helpers of the seeds' protocol: performance profiles and cumulative gap curves."""

from __future__ import annotations

import numpy as np

__all__ = ["performance_profile", "cumulative_gap"]


def performance_profile(values, taus=None):
    """Dolan-More performance profile of ``values[instance, method]`` (lower is better).

    ``rho_m(tau)`` is the fraction of instances on which method ``m`` is within a
    factor ``tau`` of the best method, ``values[i, m] <= tau * min_k values[i, k]``.
    Missing results (NaN or inf) never count as solved.

    Parameters
    ----------
    values : array of shape (n_instances, n_methods), positive
    taus : array, optional
        Ratios to evaluate; default a log-spaced grid from 1 to the largest finite ratio.

    Returns
    -------
    taus : ndarray of shape (k,)
    rho : ndarray of shape (k, n_methods)
    """
    v = np.asarray(values, float)
    v = np.where(np.isfinite(v), v, np.inf)
    if np.any(v <= 0):
        raise ValueError("performance profiles need positive values (shift them first)")
    best = v.min(axis=1, keepdims=True)
    ratio = v / best
    if taus is None:
        top = ratio[np.isfinite(ratio)].max(initial=1.0)
        taus = np.unique(np.concatenate([[1.0], np.geomspace(1.0, max(top, 1.0 + 1e-9), 200)]))
    taus = np.asarray(taus, float)
    rho = (ratio[None, :, :] <= taus[:, None, None]).mean(axis=1)
    return taus, rho


def cumulative_gap(scores, thresholds=None):
    """Fraction of instances on which each method is within ``t`` of the best score (higher is better).

    The curve of seed 002's Figure 3.9a: ``F_m(t) = mean_i [max_k s[i, k] - s[i, m] <= t]``.

    Returns
    -------
    thresholds : ndarray of shape (k,)
    fraction : ndarray of shape (k, n_methods)
    """
    s = np.asarray(scores, float)
    gap = np.nanmax(s, axis=1, keepdims=True) - s
    gap = np.where(np.isfinite(gap), gap, np.inf)
    if thresholds is None:
        top = gap[np.isfinite(gap)].max(initial=0.0)
        thresholds = np.linspace(0.0, max(top, 1e-9), 200)
    thresholds = np.asarray(thresholds, float)
    return thresholds, (gap[None, :, :] <= thresholds[:, None, None] + 1e-12).mean(axis=1)
