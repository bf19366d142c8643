"""Warning classes, one per kind, so a grid search can filter exactly what it expects.

>>> import warnings
>>> from optitrees.exceptions import TimeLimitWarning
>>> warnings.filterwarnings("ignore", category=TimeLimitWarning)   # in a grid search of short fits
"""

import os
import sys
import warnings

from sklearn.exceptions import ConvergenceWarning

__all__ = ["OptitreesWarning", "TimeLimitWarning", "FallbackWarning", "UnsolvedWarning", "ApproximationWarning",
           "AgreementWarning",
           "WarmStartWarning", "warn"]

_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def warn(message: str, category=UserWarning) -> None:
    """``warnings.warn`` pointed at the first caller outside optitrees: the user's ``fit``, ``solve`` or
    ``run_study`` line (or the library that called it, such as a grid search), never the library's own code."""
    frame, level = sys._getframe(1), 2
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)


class OptitreesWarning(UserWarning):
    """Base class of every warning the library issues."""


class TimeLimitWarning(OptitreesWarning, ConvergenceWarning):
    """The time (or node) limit stopped the solve: the returned model is not proven optimal."""


class FallbackWarning(OptitreesWarning):
    """The returned model is not the solver's: it had none, or its model was worse in the exact objective."""


class UnsolvedWarning(TimeLimitWarning, FallbackWarning):
    """The time limit ended before the MIP could run (its time went to the starts, or it ran out before or while
    the MIP was built): the returned model is a start. Both a :class:`TimeLimitWarning` (the time decided the
    result, as scikit-learn's ``ConvergenceWarning`` when ``max_iter`` stops a fit) and a
    :class:`FallbackWarning` (the model is not the solver's), so a filter on either catches it."""


class ApproximationWarning(OptitreesWarning, ConvergenceWarning):
    """An approximation loop (outer approximation of squares) stopped above its tolerance."""


class AgreementWarning(OptitreesWarning, RuntimeWarning):
    """The solver's solution and the model decoded from it disagree (routing, rules, or polishing failed)."""


class WarmStartWarning(OptitreesWarning, RuntimeWarning):
    """A warm start was not handed to the solver (it violates the model, e.g. a user constraint)."""
