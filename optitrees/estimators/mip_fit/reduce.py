"""The MIP at the users' sizes: weighted representative rows whose model the solver can reach.

Where the backend's plan puts the full model out of reach (HiGHS's root LP would take more than half the solve's
time: OLCT depth 2 on 4,000 rows of adult needs about 50 s for it), the fit solves the same family's MIP on a
subset of the rows with weights, warm-started by the best start, and hands its model to the refinement (TAO) on
every row; every candidate is scored by the exact objective on every row, so the reduced MIP's model is returned
only when it is better there.

The rows (identical rows are already merged into one weighted row, :meth:`OptitreesEstimator._fit_data`) are
drawn per stratum (a class; for a regression target a decile of it), each stratum keeping its share of the total
weight, with probability proportional to the rows' weights and without replacement. Each drawn row's weight is
scaled so that the stratum's drawn weights sum to its whole weight::

    v'_i = v_i * V_s / sum_{k drawn in s} v_k        (i drawn in stratum s, V_s its total weight)

so every stratum's loss is estimated without bias and the reduced objective tracks the full one (a loss summed
over the rows; the regularizers are the same). With every row drawn, ``v' = v``: the reduced model is the full
model. The reduced MIP's bound bounds the reduced objective only; the fit's bound then comes from
:mod:`.bounds`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["ReducedRows", "representative_rows", "reduce_to_reach", "MIN_ROWS"]

#: The fewest rows a reduced MIP is solved on (fewer say too little of the data to be worth a solve).
MIN_ROWS = 100
#: Each try keeps this share of the previous try's rows (the root LP's time grows about as rows squared).
SHRINK = 0.7


@dataclass(frozen=True)
class ReducedRows:
    """The rows the MIP sees.

    Attributes
    ----------
    problem : object
        The family's problem on them (the whole problem when every row is kept).
    n_rows : int
        Rows of ``problem`` (distinct, weighted).
    whole_rows : bool
        Every row of the fit, with its own weight.
    unsolved : str or None
        Why no MIP is solved (out of reach even reduced, or no time left).
    size : object
        The full model's counted size where it was counted and no MIP is solved (the report's summary).
    of_rows : int
        Rows of the whole problem.
    """

    problem: object
    n_rows: int
    whole_rows: bool
    unsolved: str | None = None
    size: object = None
    of_rows: int = 0

    @classmethod
    def whole(cls, problem) -> "ReducedRows":
        n = _n_rows(problem)
        return cls(problem, n, True, of_rows=n)

    @classmethod
    def out_of_reach(cls, problem, why: str, size) -> "ReducedRows":
        n = _n_rows(problem)
        return cls(problem, 0, False, unsolved=why, size=size, of_rows=n)

    def describe(self) -> str:
        """``"1,200 of 30,000 rows (weighted representatives)"``."""
        return f"{self.n_rows:,} of {self.of_rows:,} rows (weighted representatives)"


def _n_rows(problem) -> int:
    return int(problem.data.X.shape[0])


def _strata(problem) -> np.ndarray:
    """Stratum of each row: its class, or for a regression target its decile."""
    target = getattr(problem, "target", None)
    if target is None:
        return np.unique(np.asarray(problem.data.y), return_inverse=True)[1]
    edges = np.quantile(target, np.linspace(0.1, 0.9, 9))
    return np.searchsorted(edges, target, side="right")


def representative_rows(strata, weight, m: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``(rows, weights)``: about ``m`` rows drawn per stratum (module docstring) and their scaled weights; every
    row with its own weight when ``m`` is at least the number of rows. Each stratum keeps at least one row.

    >>> strata = np.array([0, 0, 0, 0, 0, 0, 1, 1])
    >>> rows, w = representative_rows(strata, np.ones(8), 4)
    >>> len(rows), float(w.sum()), float(w[strata[rows] == 1].sum())      # 3 + 1 rows; each class keeps its weight
    (4, 8.0, 2.0)
    """
    strata, weight = np.asarray(strata), np.asarray(weight, float)
    n = len(weight)
    if m >= n:
        return np.arange(n), weight.copy()
    rng = np.random.default_rng(seed)
    total = weight.sum()
    rows, weights = [], []
    for s in np.unique(strata):
        members = np.flatnonzero(strata == s)
        share = weight[members].sum()
        k = int(min(len(members), max(1, round(m * share / total))))
        p = weight[members] / share
        drawn = np.sort(rng.choice(members, size=k, replace=False, p=p)) if k < len(members) else members
        rows.append(drawn)
        weights.append(weight[drawn] * (share / weight[drawn].sum()))
    order = np.argsort(np.concatenate(rows))
    return np.concatenate(rows)[order], np.concatenate(weights)[order]


def on_rows(problem, rows, weights):
    """``problem`` on ``rows`` with ``weights`` (the family's ``on_rows`` takes a multiplicity of each row)."""
    own = problem.data.weight[rows]
    return problem.on_rows(rows, multiplicity=weights / own)


def reduce_to_reach(problem, size, plan_of, seed: int = 0,
                    min_rows: int = MIN_ROWS) -> tuple[ReducedRows | None, int | None]:
    """``(rows, fewest tried)``: the largest sample of representative rows (from :data:`SHRINK` times the whole,
    shrinking by that factor, the last try ``min_rows``) whose model ``size(problem)`` the backend's
    ``plan_of(size)`` puts in reach; ``(None, fewest tried)`` when none is, ``(None, None)`` when no sample was
    tried (the problem has at most ``min_rows`` rows, or cannot be restricted to rows)."""
    n = _n_rows(problem)
    if not hasattr(problem, "on_rows") or n <= min_rows:
        return None, None
    strata = _strata(problem)
    m, tried = max(min_rows, int(SHRINK * n)), None
    while True:
        rows, weights = representative_rows(strata, problem.data.weight, m, seed)
        reduced = on_rows(problem, rows, weights)
        tried = len(rows)
        if plan_of(size(reduced)).reachable:
            return ReducedRows(reduced, len(rows), False, of_rows=n), tried
        if m <= min_rows:
            return None, tried
        m = max(min_rows, int(SHRINK * m))
