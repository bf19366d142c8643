"""A deadline for building a formulation: a build the caller stopped waiting for ends at its next group.

A fit builds its MIP in a worker thread it stops waiting for at a deadline
(:func:`~optitrees.budget.call_until`); Python cannot stop that
thread, so the formulation checks the deadline of the enclosing
:func:`build_deadline` itself, as each group is added and before the matrix
is assembled.
"""

from __future__ import annotations

import contextlib
import contextvars
import time
from ..budget import expired

__all__ = ["BuildInterrupted", "build_deadline", "check_build_deadline", "timed_build"]


#: The ``time.perf_counter()`` by which the build running in this context must end (``None``: no deadline).
_build_deadline = contextvars.ContextVar("optitrees_build_deadline", default=None)


class BuildInterrupted(Exception):
    """A build passed the deadline of :func:`build_deadline` (raised between groups and before the matrix)."""


@contextlib.contextmanager
def build_deadline(deadline):
    """Within this context a formulation's build stops, by :class:`BuildInterrupted`, at its next group (or
    before assembling its matrix) once ``time.perf_counter()`` passes ``deadline``: a build the caller
    stopped waiting for ends within a group's time instead of running on beside the rest of the program."""
    token = _build_deadline.set(deadline)
    try:
        yield
    finally:
        _build_deadline.reset(token)


def check_build_deadline():
    """Raise :class:`BuildInterrupted` when the deadline of the enclosing :func:`build_deadline` has passed."""
    deadline = _build_deadline.get()
    if expired(deadline):
        raise BuildInterrupted("the build passed its deadline")


def timed_build(fn):
    """Decorator for builders: store the wall time spent in ``Formulation.build_time``."""
    import functools

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        t0 = time.perf_counter()
        f = fn(*args, **kwargs)
        f.build_time = time.perf_counter() - t0
        return f
    return wrapper
