"""Tangent-line underestimators of the logistic loss (Sato et al., seed 002 eq. 3.15).

The logistic loss of a margin ``v = y (w x + b)`` is ``f(v) = log(1 + exp(-v))``,
convex, so every tangent ``f(v_k) + f'(v_k) (v - v_k)`` underestimates it and
their pointwise maximum is a piecewise-linear underestimator. Seed 002 lists the
tangent sets

    V0 = {0, +-inf}
    V1 = V0 u {+-1.9}
    V2 = V1 u {+-0.89, +-3.55}
    V3 = V2 u {+-0.44, +-1.37, +-2.63, +-5.16}

The points at infinity are the asymptotes of ``f``: at ``+inf`` the line
``xi >= 0`` (the slack's lower bound) and at ``-inf`` the line ``xi >= -v``.
They are represented exactly, not by a large finite point.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import expit

__all__ = ["TANGENT_SETS", "TangentLines", "logistic_loss", "logistic_tangents"]

_V1 = (1.9,)
_V2 = _V1 + (0.89, 3.55)
_V3 = _V2 + (0.44, 1.37, 2.63, 5.16)

TANGENT_SETS = {
    "V0": (0.0, np.inf, -np.inf),
    "V1": (0.0, np.inf, -np.inf) + _V1 + tuple(-v for v in _V1),
    "V2": (0.0, np.inf, -np.inf) + _V2 + tuple(-v for v in _V2),
    "V3": (0.0, np.inf, -np.inf) + _V3 + tuple(-v for v in _V3),
}


def logistic_loss(v):
    """``f(v) = log(1 + exp(-v))``, computed stably."""
    return np.logaddexp(0.0, -np.asarray(v, dtype=float))


def logistic_derivative(v):
    """``f'(v) = -1 / (1 + exp(v))``."""
    return -expit(-np.asarray(v, dtype=float))


@dataclass(frozen=True)
class TangentLines:
    """The rows ``xi >= intercept_k + slope_k * v`` of a tangent set.

    Attributes
    ----------
    points : ndarray
        Tangent points ``v_k`` (``-inf`` for the asymptote ``xi >= -v``), sorted.
        The point ``+inf`` is the slack's lower bound ``xi >= 0`` and has no row.
    slopes, intercepts : ndarray
        ``f'(v_k)`` and ``f(v_k) - f'(v_k) v_k`` (``-1`` and ``0`` at ``-inf``).
    """

    points: np.ndarray
    slopes: np.ndarray
    intercepts: np.ndarray

    @property
    def labels(self) -> list[str]:
        """Names of the tangent points usable in LP/MPS names (no ``-``): ``neg_inf``, ``neg1.9``, ``0``."""
        def label(v):
            if np.isinf(v):
                return "neg_inf"
            text = f"{abs(v):g}"
            return f"neg{text}" if v < 0 else text
        return [label(v) for v in self.points]

    def __call__(self, v) -> np.ndarray:
        """Piecewise-linear underestimator ``max(0, max_k intercept_k + slope_k v)``."""
        v = np.asarray(v, dtype=float)
        lines = self.intercepts[:, None] + self.slopes[:, None] * v.reshape(1, -1)
        return np.maximum(lines.max(axis=0, initial=0.0), 0.0).reshape(v.shape)


def logistic_tangents(tangents="V0") -> TangentLines:
    """Tangent lines of the logistic loss for a named set or explicit points.

    Parameters
    ----------
    tangents : {"V0", "V1", "V2", "V3"} or sequence of float
        A seed tangent set, or points (``+-inf`` allowed) for a custom set.

    Returns
    -------
    TangentLines

    Examples
    --------
    >>> t = logistic_tangents("V0")
    >>> t.points.tolist(), t.slopes.tolist()
    ([-inf, 0.0], [-1.0, -0.5])
    """
    if isinstance(tangents, str):
        key = tangents.upper()
        if key not in TANGENT_SETS:
            raise ValueError(f"unknown tangent set {tangents!r}; choose one of {sorted(TANGENT_SETS)} "
                             "or pass a sequence of points")
        points = np.array(TANGENT_SETS[key], dtype=float)
    else:
        points = np.unique(np.asarray(tangents, dtype=float).ravel())
        if points.size == 0 or np.isnan(points).any():
            raise ValueError("tangent points must be a non-empty sequence of numbers")
    points = np.unique(points[points != np.inf])
    finite = np.isfinite(points)
    slopes = np.where(finite, logistic_derivative(np.where(finite, points, 0.0)), -1.0)
    at = np.where(finite, points, 0.0)
    intercepts = np.where(finite, logistic_loss(at) - slopes * at, 0.0)
    return TangentLines(points, slopes, intercepts)
