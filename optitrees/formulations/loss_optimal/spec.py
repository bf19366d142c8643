"""The settings of a loss-optimal tree (3.12): :class:`LossOptimalSpec`, checked and normalized, with the
per-layer values it is made of (losses, ``C_h``, ``lam_h``, the HFS budget of 3.14, the SFS penalty)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..tangents import TANGENT_SETS, logistic_tangents

__all__ = ["LossOptimalSpec", "layer_losses", "per_layer", "hfs_budget", "DEFAULT_FEASIBILITY_TOL", "LOSSES",
           "REGULARIZERS", "FEATURE_SELECTION"]

#: Integrality / feasibility tolerance the default ``eps`` is chosen against
#: (HiGHS's ``mip_feasibility_tolerance``; SCIP and Gurobi are tighter).
DEFAULT_FEASIBILITY_TOL = 1e-6
LOSSES = ("logistic", "hinge", "misclassification")
REGULARIZERS = ("l1", "l2", None)
FEATURE_SELECTION = (None, "hard", "soft")

def layer_losses(loss, depth: int) -> tuple[str, ...]:
    """One loss name per layer from a name or a sequence of length ``depth``."""
    losses = [loss] * depth if isinstance(loss, str) else list(loss)
    if len(losses) != depth:
        raise ValueError(f"loss must be a name or have one entry per layer ({depth}), got {len(losses)}")
    bad = [v for v in losses if v not in LOSSES]
    if bad:
        raise ValueError(f"loss must be one of {LOSSES}, got {bad[0]!r}")
    return tuple(losses)


def per_layer(value, depth, name) -> np.ndarray:
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


def hfs_budget(max_features, depth) -> np.ndarray:
    """The HFS budget (3.14) per layer from a positive integer or one per layer."""
    budget = per_layer(max_features, depth, "max_features (the HFS budget)")
    if np.any(budget < 1) or np.any(budget != np.round(budget)):
        raise ValueError("max_features must be a positive integer per layer")
    return budget


@dataclass(frozen=True)
class LossOptimalSpec:
    """Settings of a loss-optimal tree (3.12); build one with :meth:`create`, which checks them.

    Attributes
    ----------
    depth : int
        Branching layers ``d``.
    losses : tuple of str
        Loss of each layer.
    regularizer : {"l1", "l2", None}
    C, lam : ndarray of shape (depth,)
        Loss weight ``C_h`` and regularization weight ``lam_h`` per layer.
    feature_selection : {None, "hard", "soft"}
    budget, alpha : ndarray of shape (depth,) or None
        HFS budget ``B`` per layer (``max_features``); SFS penalty per layer.
    tangents : str or tuple of float
        Tangent set of the logistic loss (3.15): ``"V0"``..``"V3"``, explicit points, or ``"adaptive"`` (V1, then
        tangents at the solution's own margins added by :class:`~optitrees.formulations.cuts.LogisticCuts`).
    weight_bound : float
        ``W`` in ``||w_t||_1 <= W``.
    l2_method : {"exact", "outer"}
        Squared l2 as a quadratic objective (MIQP) or by tangent cuts (MILP).
    l2_tol : float
        With ``l2_method="outer"``: the cut loop stops when the squares' relative error is at most this.
    score_variables : bool
        Margins ``s[t, i]`` as variables.
    feasibility_tol : float
        Integrality tolerance ``eps`` is sized for.
    forbidden : tuple of int
        Features no split may use (``w[t, j] = 0``).
    forward_margins : bool
        Logistic tangents below the root written on the visited node's margin, forwarded once per layer, where
        that makes the model smaller (:mod:`~optitrees.formulations.loss_optimal.layer_slacks`); the same optima.
    monotone : tuple of int
        ``monotonic_cst``'s sign per feature (empty: none): no split reads a feature of nonzero sign and each leaf
        weighs it with its sign (:func:`~optitrees.formulations.loss_optimal.solution.monotone`), in the MIP and in
        every node fit of the starts and refinements.
    """

    depth: int
    losses: tuple
    regularizer: str | None
    C: np.ndarray
    lam: np.ndarray
    feature_selection: str | None = None
    budget: np.ndarray | None = None
    alpha: np.ndarray | None = None
    tangents: object = "V0"
    weight_bound: float = 10.0
    l2_method: str = "exact"
    l2_tol: float = 1e-4
    score_variables: bool = True
    feasibility_tol: float = DEFAULT_FEASIBILITY_TOL
    forbidden: tuple = ()
    forward_margins: bool = True
    monotone: tuple = ()

    @classmethod
    def create(cls, depth=2, loss="logistic", regularizer="l1", C=1.0, lam=1.0, feature_selection=None,
               max_features=None, alpha=None, tangents="V0", weight_bound=10.0, l2_method="exact",
               score_variables=True, feasibility_tol=DEFAULT_FEASIBILITY_TOL, forbidden=(),
               l2_tol=1e-4, forward_margins=True, monotone=()) -> "LossOptimalSpec":
        """Check and normalize the settings (a clear ``ValueError`` names the bad one)."""
        if not isinstance(depth, (int, np.integer)) or isinstance(depth, bool) or depth < 1:
            raise ValueError(f"depth must be an integer >= 1, got {depth!r}")
        depth = int(depth)
        losses = layer_losses(loss, depth)
        if regularizer not in REGULARIZERS:
            raise ValueError(f"regularizer must be one of {REGULARIZERS}, got {regularizer!r}")
        if feature_selection not in FEATURE_SELECTION:
            raise ValueError(f"feature_selection must be one of {FEATURE_SELECTION}, got {feature_selection!r}")
        if l2_method not in ("exact", "outer"):
            raise ValueError(f"l2_method must be 'exact' or 'outer', got {l2_method!r}")
        if not (np.isfinite(l2_tol) and l2_tol > 0):
            raise ValueError(f"l2_tol must be a positive number, got {l2_tol!r}")
        if feature_selection is None and max_features is not None:
            feature_selection = "hard"              # a budget given is the budget used, not silently ignored
        if feature_selection == "soft" and max_features is not None:
            raise ValueError("max_features is the HFS budget (feature_selection='hard'); "
                             "feature_selection='soft' prices features by alpha")
        budget = alpha_h = None
        if feature_selection == "hard":
            budget = hfs_budget(max_features, depth)
        elif feature_selection == "soft":
            alpha_h = per_layer(alpha, depth, "alpha (the SFS penalty)")
        if isinstance(tangents, str) and tangents.upper() not in TANGENT_SETS and tangents != "adaptive":
            raise ValueError(f"tangents must be one of {sorted(TANGENT_SETS)} or 'adaptive', got {tangents!r}")
        if tangents == "adaptive" and not score_variables:
            raise ValueError("tangents='adaptive' needs score_variables=True (the cuts are written on the margins)")
        logistic_tangents("V1" if tangents == "adaptive" else tangents)    # checks a custom sequence of points
        if not (np.isfinite(weight_bound) and weight_bound > 0):
            raise ValueError(f"weight_bound must be a positive number, got {weight_bound!r}")
        return cls(depth, losses, regularizer, per_layer(C, depth, "C"), per_layer(lam, depth, "lam"),
                   feature_selection, budget, alpha_h, tangents, float(weight_bound), l2_method, float(l2_tol),
                   bool(score_variables), float(feasibility_tol), tuple(int(j) for j in forbidden),
                   bool(forward_margins), tuple(int(s) for s in monotone))

    @property
    def univariate(self) -> bool:
        """Axis-aligned splits: an HFS budget of one feature on every layer (Remark 2)."""
        return self.budget is not None and bool(np.all(self.budget == 1))

    @property
    def adaptive(self) -> bool:
        """Logistic tangents are added at the solution's margins between solves."""
        return isinstance(self.tangents, str) and self.tangents == "adaptive" and "logistic" in self.losses

    @property
    def probabilistic(self) -> bool:
        """The last layer is logistic, so the tree gives probabilities."""
        return self.losses[-1] == "logistic"
