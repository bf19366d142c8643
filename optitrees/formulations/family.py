"""What a MIP model family provides beside its formulation, for the estimators' one fit template.

A family module (``loss_optimal``, ``oct``, ``risk_scores``) defines a typed spec
and problem and these functions; :data:`MIPFamily` bundles them:

* ``build(problem) -> Formulation``
* ``start(f, model) -> x``: a complete, feasible assignment of every variable
  for a model in the problem's (scaled) units, handed to the solver;
* ``decode(f, x) -> (model, checks)``: the model of a solution, with
  agreement checks (``routing_mismatches`` / ``rule_mismatches`` and
  ``objective_recomputed``, the MIP objective recomputed from the model);
* ``finalize(problem, model) -> model``: the model in the user's units with
  short numbers that change no training prediction (what is printed is the model);
* ``objective(problem, model) -> float``: the exact training objective of a
  finalized model (the exact loss, not the MIP's surrogate);
* optionally ``size(problem) -> ModelSize``: the rows and columns ``build`` would make, counted without
  building (each family's own ``*_size`` function beside its ``build``); a fit decides from it whether HiGHS can reach the model's
  root in time, and builds nothing when it cannot;
* optionally ``lower_bound(problem, deadline) -> (value, source) or None``: a valid lower bound on the exact
  objective of every model of the family's class, found without the MIP (the loss-optimal trees' root layer,
  :mod:`optitrees.formulations.loss_optimal.root_bounds`);
* optionally ``within_class(problem, model) -> model``: a model of the MIP's class that predicts as ``model`` on
  the training points, where there is one, for a start outside the class (whose ``start`` is infeasible): the
  solver then starts from an incumbent.
* optionally ``feature_use(f) -> [FeatureUse]``: the variable groups of ``f`` through which a model reads features
  (:mod:`optitrees.formulations.feature_budget`); a family without it takes no feature budget;
* optionally ``narrow(problem, kept) -> problem``: ``problem`` whose models may read only the features of the mask
  ``kept`` (default: the others added to ``spec.forbidden``), the problem a start under a feature budget is grown on;
* optionally ``fewest_features(problem) -> int``: the fewest features every model of the MIP reads (a generalized
  score's rules each read one); default 0;
* optionally ``monotone(f, signs)``: bounds and rows on ``f``'s own groups that make every model of the MIP
  monotone in the features with signs ``+1`` / ``-1`` (``monotonic_cst``); a family without it is held by its
  leaves' labels (:mod:`optitrees.monotonicity`);
* optionally ``column_features(problem) -> ndarray``: the feature each column of the problem's data reads, where
  its columns are not the features (a generalized score's candidate rules); default: column ``j`` is feature ``j``;
* optionally ``predicted_positive(f) -> VariableGroup``: a binary per row of ``f``, on when the model predicts it
  positive (rows and variables added to ``f``), for a family that predicts row by row (linear leaves); a parity
  constraint is written in it (:func:`optitrees.fairness.block.add_row_parity`). A family without it is held by
  its leaves' labels (:func:`~optitrees.fairness.block.add_group_parity`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable

import numpy as np

__all__ = ["MIPFamily", "ModelSize"]


@dataclass(frozen=True)
class MIPFamily:
    """The functions of one model family (see the module docstring)."""

    name: str
    build: Callable
    start: Callable
    decode: Callable
    finalize: Callable
    objective: Callable
    size: Callable | None = None
    lower_bound: Callable | None = None
    within_class: Callable | None = None
    feature_use: Callable | None = None
    narrow: Callable | None = None
    fewest_features: Callable = lambda problem: 0
    monotone: Callable | None = None
    column_features: Callable | None = None
    predicted_positive: Callable | None = None

    def narrowed(self, problem, kept):
        """``problem`` whose models read only the features of the mask ``kept`` (``narrow``, or the features
        outside ``kept`` forbidden)."""
        if self.narrow is not None:
            return self.narrow(problem, kept)
        forbidden = sorted(set(problem.spec.forbidden) | set(np.flatnonzero(~np.asarray(kept, bool)).tolist()))
        return replace(problem, spec=replace(problem.spec, forbidden=tuple(int(j) for j in forbidden)))


@dataclass(frozen=True)
class ModelSize:
    """Rows and columns of a model that was counted, not built."""

    n_rows: int
    n_cols: int

    def summary(self) -> str:
        """What the fit reports for a model it did not build."""
        return f"{self.n_cols} variables, {self.n_rows} rows (counted from the problem; the model was not built)"
