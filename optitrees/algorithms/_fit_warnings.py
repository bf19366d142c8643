"""The convergence warnings of the convex fits run in worker threads, silenced once per process.

:func:`~optitrees.budget.call_until` runs glum, liblinear and lbfgs fits
in worker threads it may abandon at a deadline. ``warnings.catch_warnings``
is not safe there: it swaps the process's filter list, and a worker leaving
its block after another thread entered one undoes that thread's block (a
fit's own ``TimeLimitWarning`` went unrecorded when an abandoned node fit
ended during it). These fits stop at iteration limits on purpose, so their
"failed to converge" warnings are filtered once, by message, instead.
"""

from __future__ import annotations

import warnings

from sklearn.exceptions import ConvergenceWarning

__all__ = ["FIT_CONVERGENCE_MESSAGE"]

#: The warnings of scikit-learn's liblinear and lbfgs solvers and of glum's IRLS when they stop at ``max_iter``,
#: glum's inner coordinate descent ending at its cycle limit, and its line search ending at its step limit (the next
#: Newton step then starts from the same point).
FIT_CONVERGENCE_MESSAGE = (r"(Liblinear|lbfgs|IRLS) failed to converge|Line search failed"
                           r"|Coordinate descent did not converge")

warnings.filterwarnings("ignore", message=FIT_CONVERGENCE_MESSAGE, category=ConvergenceWarning)
