r"""Optimal classification trees of Bertsimas & Dunn (2017): OCT (axis-aligned) and OCT-H (oblique).

The baseline of seed 002 (3.11 with the misclassification loss and leaf labels).
Features are scaled to ``[0, 1]`` by the caller; ``K`` classes, depth ``D``,
branch nodes ``T_B`` (1-based, breadth first) and leaves ``T_L``::

    min  (1 / L_hat) sum_{l in T_L} loss[l]  +  alpha * complexity

(with point weights ``v_i``, every count below is a total weight:
``N_l = sum_i v_i z[i, l]``, and ``L_hat`` is the weight outside the largest class)
    s.t. sum_{l in T_L} z[i, l] = 1                                     i        (routing)
         sum_i z[i, l] <= n leaf[l],  sum_i z[i, l] >= N_min leaf[l]     l        (leaf size)
         sum_k c[k, l] = leaf[l]                                          l        (one label per used leaf)
         loss[l] >= N_l - N_kl - n (1 - c[k, l]),  loss >= 0               k, l     (misclassified points)
         d[t] <= d[parent(t)]                                              t != 1   (splits form a tree)

with ``N_l = sum_i z[i, l]`` and ``N_kl = sum_{i: y_i = k} z[i, l]``, and the
split constraints aggregated over each subtree (as in 3.7) rather than written
per leaf ancestor (an equivalent, smaller form). Bertsimas & Dunn write the first
leaf-size row per point (``z[i, l] <= leaf[l]``); summed over the points it is the
same integer model with ``n`` times fewer rows, and its LP relaxation gives up
nothing the model's bound uses (OCT-H's LP bound is 0 either way). The rows per
point kept HiGHS's mod-k cut separator at the root for over 220 s past a 60 s
fit's deadline (OCT-H, depth 2, 4,000 rows of phishing; 45 s past a 20 s fit on
2,000 rows), where the sum ends within 0.2 s of it:

OCT (``a[t, j]`` binary, ``sum_j a[t, j] = d[t]``, ``0 <= b[t] <= d[t]``)::

    a_t (x_i + eps) + eps_min (1 - d[t]) <= b[t] + (1 + eps_max)(1 - sum_{l in L(t)} z[i, l])   (left)
    a_t x_i >= b[t] - (1 - sum_{l in R(t)} z[i, l])                                             (right)

with the per-feature ``eps_j``, the smallest gap between distinct values of
feature ``j``; complexity ``= sum_t d[t]``. The term ``eps_min (1 - d[t])`` is
ours: in the published model ``a_t = 0, b_t = 0`` satisfies both the left and
the right constraint, so an unused node could send points either way while
the fitted tree sends them all right; with it, an unused node sends every
point right, as the prediction does.

OCT-H (``a[t, j]`` in ``[-1, 1]`` with ``||a_t||_1 <= d[t]``, indicators
``delta[t, j]`` (3.14) with ``delta <= d``, ``sum_j delta[t, j] >= d[t]``,
``-d[t] <= b[t] <= d[t]``)::

    a_t x_i + mu <= b[t] + (2 + mu)(1 - sum_{l in L(t)} z[i, l])                               (left)
    a_t x_i >= b[t] - 2 (1 - sum_{l in R(t)} z[i, l])                                          (right)

with ``mu = 0.005``; complexity ``= sum_{t, j} delta[t, j]`` (features used).
Here ``mu`` already forbids the left branch at an unused node.

The settings are a typed :class:`OCTSpec` (``oblique`` chooses OCT-H),
:class:`OCTProblem` adds the data and derived constants, and :func:`build`
returns the formulation; decoding, starts and the objective are in
:mod:`optitrees.formulations.oct.solution`.

:func:`build` is assembled from the public blocks of
:mod:`~optitrees.formulations.oct.blocks`, which a user can compose into a
model of their own (``examples/octh_from_blocks.py`` writes OCT-H from them).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ...mip import Formulation, timed_build
from ...scaling import ScaledData
from ...topology import Topology
from .. import blocks
from ..family import ModelSize
from ..symmetry import add_mirror_symmetry
from .blocks import OCTH_MU, add_leaf_labels, add_monotone_order, add_oct_splits, add_octh_splits, add_split_hierarchy

__all__ = ["OCTSpec", "OCTProblem", "build", "oct_size", "oct", "octh", "feature_epsilons", "integrality_tolerance", "OCTH_MU"]

#: The solver's integrality and feasibility tolerance at most, and at least (HiGHS accepts no less than 1e-10).
MAX_INTEGRALITY_TOL, MIN_INTEGRALITY_TOL = 1e-6, 1e-10


def integrality_tolerance(margin) -> float:
    """The tolerance of the solver's integer solutions: a tenth of the split margin, within
    ``[MIN_INTEGRALITY_TOL, MAX_INTEGRALITY_TOL]``.

    A point sits on a split's left side by ``eps_j`` (OCT: the smallest gap between values, ``1e-6`` and less
    on a few hundred continuous rows), and a ``z`` within the tolerance of 1 relaxes the left row by the
    tolerance times ``1 + eps_max``; at HiGHS's default 1e-6 a 400-row OCT then "proved" an objective of 0 for
    data whose best tree errs on a quarter of the rows.
    """
    return float(np.clip(0.1 * margin, MIN_INTEGRALITY_TOL, MAX_INTEGRALITY_TOL))




def feature_epsilons(X01) -> np.ndarray:
    """Smallest positive gap between distinct values of each feature (1 for a constant feature)."""
    X01 = np.asarray(X01, float)
    s = np.sort(X01, axis=0)
    gaps = np.diff(s, axis=0)
    gaps = np.where(gaps > 1e-12, gaps, np.inf)
    eps = gaps.min(axis=0, initial=np.inf)
    return np.where(np.isfinite(eps), eps, 1.0)


@dataclass(frozen=True)
class OCTSpec:
    """Settings of OCT / OCT-H; :meth:`create` checks them.

    Attributes
    ----------
    depth : int
    alpha : float
        Complexity weight (per split for OCT, per feature used for OCT-H).
    min_samples_leaf : int
        ``N_min``.
    n_classes : int
        ``K``.
    oblique : bool
        OCT-H.
    mu : float
        OCT-H's left-branch margin.
    forbidden : tuple of int
        Features no split may use.
    max_features : int or None
        OCT-H: at most this many features per split (``sum_j delta[t, j] <= B``, 3.14's HFS budget).
    monotone : tuple of int
        OCT-H: ``monotonic_cst``'s sign per feature (empty: none), held by
        :func:`~optitrees.formulations.oct.blocks.add_monotone_order` (OCT holds it by relabelling its leaves).
    """

    depth: int
    alpha: float
    min_samples_leaf: int
    n_classes: int
    oblique: bool = False
    mu: float = OCTH_MU
    forbidden: tuple = ()
    max_features: int | None = None
    monotone: tuple = ()

    @classmethod
    def create(cls, depth=2, alpha=0.0, min_samples_leaf=1, n_classes=2, oblique=False, mu=OCTH_MU,
               forbidden=(), max_features=None, monotone=()) -> "OCTSpec":
        if not isinstance(depth, (int, np.integer)) or isinstance(depth, bool) or depth < 1:
            raise ValueError(f"depth must be an integer >= 1, got {depth!r}")
        if not (np.isfinite(alpha) and alpha >= 0):
            raise ValueError(f"alpha must be finite and non-negative, got {alpha!r}")
        if not isinstance(min_samples_leaf, (int, np.integer)) or isinstance(min_samples_leaf, bool) \
                or min_samples_leaf < 1:
            raise ValueError(f"min_samples_leaf must be an integer >= 1, got {min_samples_leaf!r}")
        if not isinstance(n_classes, (int, np.integer)) or n_classes < 2:
            raise ValueError(f"n_classes must be an integer >= 2, got {n_classes!r}")
        if not 0 < mu < 1:
            raise ValueError("mu must be in (0, 1)")
        if max_features is not None and (not isinstance(max_features, (int, np.integer))
                                         or isinstance(max_features, bool) or max_features < 1):
            raise ValueError(f"max_features must be an integer >= 1 or None, got {max_features!r}")
        if max_features is not None and not oblique:
            raise ValueError("max_features applies to oblique splits (OCT-H); OCT's splits use one feature each")
        if any(int(v) not in (-1, 0, 1) for v in monotone):
            raise ValueError(f"monotone holds a sign per feature (-1, 0 or 1), got {monotone!r}")
        if any(monotone) and not oblique:
            raise ValueError("the monotone block is OCT-H's; OCT holds monotonic_cst by relabelling its leaves")
        if any(monotone) and int(n_classes) != 2:
            raise ValueError(f"monotonic_cst needs two classes, got {n_classes}")
        return cls(int(depth), float(alpha), int(min_samples_leaf), int(n_classes), bool(oblique), float(mu),
                   tuple(int(j) for j in forbidden), None if max_features is None else int(max_features),
                   tuple(int(v) for v in monotone))


@dataclass(frozen=True)
class OCTProblem:
    """A spec with its data (``data.X`` in ``[0, 1]``, ``data.y`` class indices) and derived constants.

    Attributes
    ----------
    spec : OCTSpec
    data : ScaledData
    topology : Topology
    eps : ndarray of shape (p,)
        Smallest gap between distinct values of each feature (OCT's margins).
    L_hat : float
        Errors of predicting the majority class (the loss normalizer).
    margin : float
        ``eps_min`` (OCT) or ``mu`` (OCT-H): the gap a decoded threshold sits in.
    """

    spec: OCTSpec
    data: ScaledData
    topology: Topology
    eps: np.ndarray
    L_hat: float
    margin: float

    @classmethod
    def create(cls, spec: OCTSpec, data: ScaledData) -> "OCTProblem":
        X01, y = data.X, np.asarray(data.y)
        if X01.ndim != 2 or X01.shape[0] == 0 or X01.shape[1] == 0:
            raise ValueError(f"X must be a non-empty 2-d array, got shape {X01.shape}")
        if not np.all(np.isfinite(X01)):
            raise ValueError("X contains NaN or infinite values")
        if X01.min() < -1e-9 or X01.max() > 1 + 1e-9:
            raise ValueError("OCT formulations take features scaled to [0, 1] (the estimators scale them)")
        if y.shape != (X01.shape[0],) or not np.issubdtype(y.dtype, np.integer) or y.min() < 0 \
                or y.max() >= spec.n_classes:
            raise ValueError(f"y must hold class indices 0..{spec.n_classes - 1}, one per row of X")
        if spec.min_samples_leaf > 1 and spec.min_samples_leaf > data.weight.sum():
            raise ValueError(f"min_samples_leaf={spec.min_samples_leaf} exceeds the number of points "
                             f"({data.weight.sum():g})")
        if any(not 0 <= j < X01.shape[1] for j in spec.forbidden):
            raise ValueError(f"forbidden features must be column indices in 0..{X01.shape[1] - 1}")
        counts = np.bincount(y, weights=data.weight, minlength=spec.n_classes)
        base = counts.sum() - counts.max()
        eps = feature_epsilons(X01)
        margin = spec.mu if spec.oblique else float(eps.min())
        return cls(spec, data, Topology(spec.depth), eps, float(base) if base > 0 else 1.0, margin)


    def on_rows(self, rows, multiplicity=None) -> "OCTProblem":
        """The problem on the training rows ``rows``, each row's weight times its ``multiplicity`` when given.
        The margins ``eps`` and the loss normalizer ``L_hat`` stay those of the whole data, so objectives on the
        rows are in the whole problem's units."""
        rows = np.asarray(rows)
        weight = None if multiplicity is None else self.data.weight[rows] * multiplicity
        return replace(self, data=self.data.on_rows(rows, weight))


@timed_build
def build(problem: OCTProblem) -> Formulation:
    """The OCT (``spec.oblique=False``) or OCT-H formulation of ``problem`` (see the module docstring)."""
    spec, topo = problem.spec, problem.topology
    X01, y = np.clip(problem.data.X, 0.0, 1.0), np.asarray(problem.data.y, int)
    n, p = X01.shape
    f = Formulation(name=f"{'octh' if spec.oblique else 'oct'}_d{topo.depth}",
                    integrality_tol=integrality_tolerance(problem.margin))
    f.problem = problem
    data = problem.data
    z, leaf, c, loss = add_leaf_labels(f, X01, y, topo, spec.min_samples_leaf, spec.n_classes,
                                      data.weight if data.weighted else None)
    if spec.oblique:
        w, b, d = add_octh_splits(f, topo, X01, spec.alpha, spec.mu, spec.max_features)
        if any(spec.monotone):                  # the signs make a split and its mirror image differ
            add_monotone_order(f, topo, w, f.variables["delta"], c, leaf, spec.monotone)
        else:
            add_mirror_symmetry(f, topo, z, topo.branch_nodes, data.weight if data.weighted else None, used=d)
    else:
        w, b, d = add_oct_splits(f, topo, X01, problem.eps)
    add_split_hierarchy(f, topo, d)
    if spec.forbidden:
        blocks.forbid_features(f, w, spec.forbidden)
    f.add_objective(loss, 1.0 / problem.L_hat)
    if not spec.oblique:
        f.add_objective(d, spec.alpha)
    return f


def _make(X01, y, depth, alpha, min_samples_leaf, n_classes, oblique, mu=OCTH_MU, forbidden=(), feature_names=None,
          max_features=None):
    y = np.asarray(y)
    if not np.issubdtype(y.dtype, np.integer):
        raise ValueError("y must hold class indices 0..K-1, one per row of X")
    K = int(y.max() + 1) if n_classes is None else int(n_classes)
    spec = OCTSpec.create(depth, alpha, min_samples_leaf, max(K, 2), oblique, mu, forbidden, max_features)
    X01 = np.asarray(X01, dtype=float)
    if X01.ndim != 2:
        raise ValueError(f"X must be a non-empty 2-d array, got shape {X01.shape}")
    return build(OCTProblem.create(spec, ScaledData.create(X01, y, None, feature_names)))


def oct(X01, y, depth: int = 2, alpha: float = 0.0, min_samples_leaf: int = 1, n_classes: int | None = None,
        forbidden=(), feature_names=None) -> Formulation:
    """Axis-aligned OCT (Bertsimas & Dunn 2017) on features scaled to ``[0, 1]``.

    Parameters
    ----------
    X01 : array of shape (n, p), values in [0, 1]
    y : array of int of shape (n,)
        Class indices ``0..K-1``.
    depth : int, default=2
    alpha : float, default=0.0
        Complexity weight: ``alpha`` per split used.
    min_samples_leaf : int, default=1
        ``N_min``: a leaf holding points holds at least this many.
    n_classes : int, optional
        ``K``; default ``max(y) + 1``.
    forbidden : sequence of int, optional
        Features no split may use.
    feature_names : sequence of str, optional
        Labels of the index set ``J``.

    Returns
    -------
    Formulation
        With ``problem`` an :class:`OCTProblem`.
    """
    return _make(X01, y, depth, alpha, min_samples_leaf, n_classes, False, forbidden=forbidden,
                 feature_names=feature_names)


def octh(X01, y, depth: int = 2, alpha: float = 0.0, min_samples_leaf: int = 1, n_classes: int | None = None,
         mu: float = OCTH_MU, forbidden=(), feature_names=None, max_features=None) -> Formulation:
    """Oblique OCT-H (Bertsimas & Dunn 2017) on features scaled to ``[0, 1]``.

    Parameters are those of :func:`oct`; ``alpha`` weighs the number of
    features used over all splits, ``mu`` is the left-branch margin and
    ``max_features`` (optional) the most features a split may use (3.14's budget row).
    """
    return _make(X01, y, depth, alpha, min_samples_leaf, n_classes, True, mu, forbidden, feature_names, max_features)


def oct_size(problem: OCTProblem) -> ModelSize:
    """Rows and columns of :func:`build` (OCT or OCT-H) for ``problem``.

    The skeleton: routing to the ``2^d`` leaves, ``leaf``, ``c``, ``loss`` and their rows (``sum_i z <= n leaf``
    per leaf, ``N_min``, one label, the loss per class and leaf); per branch node its split variables and
    rows (OCT: ``a``, ``b``, ``d``; OCT-H: ``w``, ``b``, ``d``, ``w_pos`` / ``w_neg``, ``delta`` and the mirror
    row), the hierarchy, and a left and a right split row per node and point.
    """
    spec = problem.spec
    n, p = problem.data.X.shape
    t, leaves, k = 2**spec.depth - 1, 2**spec.depth, spec.n_classes
    cols = n * leaves + leaves + k * leaves + leaves                     # z, leaf, c, loss
    rows = n + leaves + leaves + leaves + k * leaves                     # routing, leaf_used, min_leaf, label, loss
    if spec.oblique:
        cols += t * p + t + t + 2 * t * p + t * p                        # w, b, d, w_pos / w_neg, delta
        rows += t * p + t + 2 * t * p + t * p + t + 2 * t + t            # l1_split, l1_used, l0, used, node,
        #                                                                  b <= |d|, mirror
        rows += t if spec.max_features is not None else 0                # the budget row per split (3.14)
    else:
        cols += t * p + t + t                                            # a, b, d
        rows += 2 * t                                                    # one_feature, threshold_used
    rows += (t - 1) + 2 * t * n                                          # hierarchy, split_left / split_right
    return ModelSize(int(rows), int(cols))
