"""scikit-learn's liblinear fits, one at a time in a process, so a fit's result does not depend on other threads.

liblinear orders its coordinates at random, from the C library's one global generator (``srand`` / ``rand``),
which scikit-learn seeds from ``random_state`` when a fit starts. Two liblinear fits at once in threads of one
process draw from each other's sequence, and each result then depends on the other's timing: MARGOT's refined
leaves (linear SVMs) differed by 6e-7 of the objective between fits run alone and fits run three at a time in
threads. Every liblinear fit of the library goes through :func:`liblinear_fit`, which holds one process-wide lock
for the fit. A fit with a deadline waits for the lock only until the deadline and then runs without it (the
budget comes first; only fits in several threads at once, near their deadlines, can then differ).
"""

from __future__ import annotations

import threading

from ..budget import remaining
from ._fit_warnings import quiet_convergence

__all__ = ["liblinear_fit"]

_LOCK = threading.Lock()


def liblinear_fit(model, X, y, sample_weight=None, deadline=None):
    """``model.fit(X, y, sample_weight)`` (a liblinear estimator: ``LinearSVC``, ``LogisticRegression`` or
    ``LogisticRegressionCV`` with ``solver="liblinear"``) under the process's liblinear lock."""
    acquired = _LOCK.acquire(timeout=-1 if deadline is None else remaining(deadline))
    try:
        with quiet_convergence():
            return model.fit(X, y, sample_weight)
    finally:
        if acquired:
            _LOCK.release()
