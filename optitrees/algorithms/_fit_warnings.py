"""The convergence warnings of the convex fits run in worker threads, silenced once per process.

:func:`~optitrees.budget.call_until` runs glum, liblinear and lbfgs fits
in worker threads it may abandon at a deadline. ``warnings.catch_warnings``
is not safe there: it swaps the process's filter list, and a worker leaving
its block after another thread entered one undoes that thread's block (a
fit's own ``TimeLimitWarning`` went unrecorded when an abandoned node fit
ended during it). These fits stop at iteration limits on purpose, so their
"failed to converge" warnings are filtered once, by message, instead.

That filter is the process's: a user's own ``simplefilter("always")`` (or pytest's) puts its rule before it, and
the warnings came through on every default MARGOT fit. So the modules that raise them (scikit-learn's liblinear
and lbfgs wrappers, glum's solvers) also see a ``warnings`` of their own (:class:`_FitWarnings`, installed once
they are imported) that drops those messages while the calling thread is inside :func:`quiet_convergence`, a
thread-local state that no other thread sees, and passes every other call on unchanged (with the same
attribution), so the user's own fits warn as before.
"""

from __future__ import annotations

import contextlib
import re
import sys
import threading
import types
import warnings

from sklearn.exceptions import ConvergenceWarning

__all__ = ["FIT_CONVERGENCE_MESSAGE", "quiet_convergence", "install"]

#: The warnings of scikit-learn's liblinear and lbfgs solvers and of glum's IRLS when they stop at ``max_iter``,
#: glum's inner coordinate descent ending at its cycle limit, and its line search ending at its step limit (the next
#: Newton step then starts from the same point).
FIT_CONVERGENCE_MESSAGE = (r"(Liblinear|lbfgs|IRLS) failed to converge|Line search failed"
                           r"|Coordinate descent did not converge")

warnings.filterwarnings("ignore", message=FIT_CONVERGENCE_MESSAGE, category=ConvergenceWarning)

#: the modules whose ``warnings.warn`` raises the messages above (each imports the ``warnings`` module itself)
_SOURCES = ("sklearn.svm._base", "sklearn.utils.optimize", "glum._solvers", "glum._cd_fast")
_inside = threading.local()
_installed = threading.Lock()
_PATTERN = re.compile(FIT_CONVERGENCE_MESSAGE)


class _FitWarnings(types.ModuleType):
    """The ``warnings`` module as those sources see it: their iteration-limit warnings are dropped while the calling
    thread is inside :func:`quiet_convergence` (a fit of the library's own), and passed on unchanged otherwise (the
    user's own scikit-learn fits), whatever filters the user set, ``"always"`` included."""

    def __init__(self):
        super().__init__("warnings")

    def __getattr__(self, name):
        return getattr(warnings, name)

    def warn(self, message, category=None, stacklevel=1, *args, **kwargs):
        if getattr(_inside, "depth", 0) and isinstance(category, type) and issubclass(category, ConvergenceWarning) \
                and _PATTERN.search(str(message)):
            return None
        return warnings.warn(message, category, stacklevel + 1, *args, **kwargs)


def install() -> None:
    """Give each source already imported the quiet ``warnings`` (none is imported here: an import in a worker
    thread that is then abandoned leaves the module half-initialized, :func:`~optitrees.budget.call_until`)."""
    for name in _SOURCES:
        module = sys.modules.get(name)
        if module is not None and getattr(module, "warnings", None) is warnings:
            with _installed:
                if module.warnings is warnings:
                    module.warnings = _FitWarnings()


@contextlib.contextmanager
def quiet_convergence():
    """In this thread only: the liblinear, lbfgs and glum fits inside stop at their iteration limits on purpose,
    so their "failed to converge" warnings do not reach the user (the process-wide filter above covers the default
    filters; this covers a user's ``simplefilter("always")`` too, without touching any filter: other threads, and
    the user's own fits, are not affected)."""
    install()
    _inside.depth = getattr(_inside, "depth", 0) + 1
    try:
        yield
    finally:
        _inside.depth -= 1
