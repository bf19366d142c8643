"""What every MIP-fitted estimator shares: parameter checks, solving, reporting, names."""

from __future__ import annotations

import numbers
import warnings

import numpy as np
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from ..solvers import SolveOptions, solve
from ..solvers.registry import get_backend
from ..solvers.results import relative_gap

__all__ = ["MIPEstimatorMixin", "check_depth", "BINARY_ONLY_HINT"]

BINARY_ONLY_HINT = ("use OCTClassifier or OCTHClassifier (multi-class optimal trees), or wrap this estimator in "
                    "sklearn.multiclass.OneVsRestClassifier")


def check_depth(d):
    """``max_depth`` must be an integer >= 1."""
    if not isinstance(d, numbers.Integral) or isinstance(d, bool) or d < 1:
        raise ValueError(f"max_depth must be an integer >= 1, got {d!r}")
    return int(d)


class MIPEstimatorMixin:
    """Solver parameters, label encoding, solving with a warm start, and honest reporting.

    Subclasses store ``solver``, ``time_limit``, ``mip_gap``, ``threads``,
    ``random_state``, ``verbose``, ``solver_options`` and ``warm_start``.
    """

    #: What the error for multi-class labels suggests instead (binary-only models).
    _multiclass_hint = BINARY_ONLY_HINT

    def _validate_solver_params(self):
        rs = self.random_state
        if rs is not None and not (isinstance(rs, numbers.Integral) and rs >= 0):
            raise ValueError(f"random_state must be None or a non-negative integer, got {rs!r}")
        # solver name and options are checked here, before any model is built
        SolveOptions(time_limit=self.time_limit, mip_gap=self.mip_gap, threads=self.threads,
                     solver_options=self.solver_options or {})
        return get_backend(self.solver)

    @property
    def _seed(self) -> int:
        return 0 if self.random_state is None else int(self.random_state)

    def _encode_binary(self, y):
        """Two labels of any type -> ``classes_`` and ``y`` in {-1, +1}; a clear error otherwise."""
        check_classification_targets(y)
        classes, y_idx = np.unique(y, return_inverse=True)
        if len(classes) < 2:
            raise ValueError(f"y has only one class ({classes[0]!r}); a classifier needs two")
        if len(classes) > 2:
            raise ValueError(f"Only binary classification is supported: {type(self).__name__} got {len(classes)} "
                             f"classes; {self._multiclass_hint}")
        return classes, np.where(y_idx == 1, 1.0, -1.0)

    def _solve(self, f, start, solve_fn=solve, **extra):
        return solve_fn(f, self.solver, time_limit=self.time_limit, mip_gap=self.mip_gap, threads=self.threads,
                        seed=self._seed, verbose=self.verbose,
                        warm_start=start if self.warm_start else None, solver_options=self.solver_options,
                        **extra)

    @staticmethod
    def _report_start(f, result, start):
        """Make ``result`` describe the warm start the estimator fell back to.

        The solver's own objective, if it had one, stays in ``checks["solver_objective"]``.
        """
        if result.objective is not None and result.solution_source != "warm_start":
            result.checks["solver_objective"] = result.objective
        result.x, result.solution_source = start, "warm_start"
        result.objective = f.objective_value(start)
        result.gap = relative_gap(result.objective, result.bound)

    @staticmethod
    def _warn(result, notes):
        """Add the status note, warn about each note, and append them to ``result.message``."""
        if result.status in ("time_limit_feasible", "feasible"):
            why = "time limit reached" if result.status == "time_limit_feasible" else "solver stopped early"
            gap = "unknown" if result.gap is None or not np.isfinite(result.gap) else f"{100 * result.gap:.2f}%"
            notes.append(f"{why}: returning the best model found, not proven optimal (gap {gap}, solution from "
                         f"{result.solution_source})")
        for note in notes:
            warnings.warn(note, UserWarning, stacklevel=3)
        result.message = "; ".join([result.message] + notes)

    @staticmethod
    def _polish_notes(result):
        notes = []
        if result.checks.get("polished") is False:
            notes.append("the solver's integer solution could not be polished (it relies on integrality "
                         "tolerances); its solution is used as it is")
        if result.checks.get("routing_mismatches"):
            notes.append(f"{result.checks['routing_mismatches']} training points are routed differently by the "
                         "returned model than by z; the objective is recomputed from the model")
        return notes

    def _X(self, X):
        check_is_fitted(self)
        return validate_data(self, X, dtype=np.float64, reset=False)

    def _feature_names(self):
        names = getattr(self, "feature_names_in_", None)
        return list(names) if names is not None else [f"x{j}" for j in range(self.n_features_in_)]
