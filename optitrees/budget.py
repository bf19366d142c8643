"""The time budget of a whole fit, shared by its phases (starts, solve, polishing, refinement).

A *deadline* is one ``time.perf_counter()`` value (or ``None``: no limit): the
one form in which the budget reaches every algorithm, picklable into joblib
workers. :func:`expired` is the check every long loop makes; a loop whose
deadline has passed returns its best result so far.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

__all__ = ["Budget", "Shares", "expired", "remaining", "share_of", "call_until", "UNLIMITED_START_SECONDS"]

#: Seconds the warm starts of a fit without a time limit may use: no stage runs unbounded because the user
#: gave the solver no limit (a TMO start on 80 rows ran past 50 s before this bound).
UNLIMITED_START_SECONDS = 60.0


@dataclass(frozen=True)
class Shares:
    """How a MIP fit divides its time limit among its stages, each a fraction of the whole budget: the one place
    the shares are set (an estimator overrides them with its own ``Shares``).

    Attributes
    ----------
    starts : float
        The warm starts (greedy, TAO), counted from when they begin.
    tmo_starts : float
        The warm starts when TMO is among them (a population search).
    reserve : float
        Kept after the solve: polishing, decoding, refinement and the report (at least 1 s, see
        :meth:`Budget.solve_deadline`).
    after_starts : float
        Kept after the starts when no MIP follows them: each start made readable and scored.
    bound : float
        The family's own lower bound (:mod:`optitrees.estimators.mip_fit.bounds`), computed after the starts; its
        time is the solve's.
    neighbourhood : float
        The part of the solve's time (not of the whole budget) that the MIP's neighbourhood rounds take before the
        full MIP (:mod:`optitrees.estimators.mip_fit.neighbourhood`); ``0`` solves the full MIP only.
    start_refinement : float
        The family's refinement (Remark 1 and TAO for the loss-optimal trees) of the best start on every row,
        after the starts and before the MIP, counted from when it begins; its time is the solve's. ``0`` skips it.
    """

    starts: float = 0.25
    tmo_starts: float = 0.4
    reserve: float = 0.05
    after_starts: float = 0.1
    bound: float = 0.1
    neighbourhood: float = 0.5
    start_refinement: float = 0.1

    def of_starts(self, methods) -> float:
        """The share of the starts ``methods`` (TMO's when it is among them).

        >>> Shares().of_starts(("greedy", "tmo")), Shares().of_starts(("greedy",))
        (0.4, 0.25)
        """
        return self.tmo_starts if "tmo" in methods else self.starts


def expired(deadline: float | None) -> bool:
    """Whether ``deadline`` (a ``time.perf_counter()`` value, ``None``: never) has passed.

    >>> expired(None), expired(time.perf_counter() - 1.0)
    (False, True)
    """
    return deadline is not None and time.perf_counter() >= deadline


def remaining(deadline: float | None) -> float | None:
    """Seconds until ``deadline`` (never negative), ``None`` without one."""
    return None if deadline is None else max(0.0, deadline - time.perf_counter())


def share_of(deadline: float | None, fraction: float) -> float | None:
    """The deadline ``fraction`` of the time left before ``deadline`` from now (``None`` stays ``None``).

    >>> share_of(None, 0.5) is None, share_of(time.perf_counter() - 1.0, 0.5) <= time.perf_counter()
    (True, True)
    """
    return None if deadline is None else time.perf_counter() + fraction * remaining(deadline)


def call_until(deadline: float | None, fn, *args, **kwargs):
    """``(True, fn(*args, **kwargs))``, or ``(False, None)`` when ``deadline`` passes first.

    For one call that checks no deadline itself and can take longer than the
    whole budget (a liblinear l1-logistic fit on 30,000 rows x 123 features:
    17-22 s with liblinear). It runs in a worker thread (native solvers release the GIL) that the
    caller stops waiting for at the deadline; the worker starts ``fn`` only if
    the deadline has not passed. An abandoned call runs to its end in the
    background, its result dropped; the worker is not a daemon thread, so an
    interpreter exiting meanwhile waits for it instead of stopping native code.
    Without a deadline ``fn`` is simply called.

    ``fn`` must not import a module for the first time: a worker abandoned in the middle of an import leaves
    the module half-initialized for every other thread. Callers import what ``fn`` needs first (e.g.
    :func:`~optitrees.algorithms.node_fit.prepare_logistic_fits`).

    >>> call_until(None, max, 1, 2)
    (True, 2)
    >>> call_until(time.perf_counter() + 5.0, max, 1, 2)
    (True, 2)
    >>> call_until(time.perf_counter() - 1.0, max, 1, 2)
    (False, None)
    """
    import threading

    if deadline is None:
        return True, fn(*args, **kwargs)
    if expired(deadline):
        return False, None
    out = {}

    def work():
        if expired(deadline):
            return
        try:
            out["value"] = fn(*args, **kwargs)
        except BaseException as exc:              # re-raised in the caller
            out["error"] = exc

    worker = threading.Thread(target=work, name="optitrees-deadline", daemon=False)
    worker.start()
    worker.join(remaining(deadline))
    if worker.is_alive() or not out:
        return False, None
    if "error" in out:
        raise out["error"]
    return True, out["value"]


class Budget:
    """``seconds`` from the moment it is created (``None``: no limit).

    Examples
    --------
    >>> b = Budget(10.0)
    >>> 9.0 < b.remaining() <= 10.0 and not b.expired
    True
    >>> Budget(None).remaining() is None
    True
    """

    def __init__(self, seconds: float | None):
        self.seconds = None if seconds is None else float(seconds)
        self.start = time.perf_counter()
        self._lap = self.start
        #: Seconds spent in each stage, in the order the stages ended (:meth:`lap`).
        self.stages: dict[str, float] = {}

    def lap(self, stage: str) -> None:
        """Record that ``stage`` ended now: its seconds are those since the previous lap (or the start).

        >>> b = Budget(None); b.lap("starts"); list(b.stages)
        ['starts']
        """
        now = time.perf_counter()
        self.stages[stage] = self.stages.get(stage, 0.0) + now - self._lap
        self._lap = now

    @property
    def deadline(self) -> float | None:
        """Absolute ``time.perf_counter()`` at which the budget ends."""
        return None if self.seconds is None else self.start + self.seconds

    @property
    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    def remaining(self) -> float | None:
        """Seconds left (never negative), ``None`` without a limit."""
        return None if self.seconds is None else max(0.0, self.deadline - time.perf_counter())

    @property
    def expired(self) -> bool:
        return self.seconds is not None and time.perf_counter() >= self.deadline

    def until(self, share: float) -> float | None:
        """Deadline of a phase that may use ``share`` of the whole budget, counted from now."""
        if self.seconds is None:
            return None
        return min(self.deadline, time.perf_counter() + share * self.seconds)

    def starts_until(self, share: float) -> float:
        """Deadline of the warm starts: :meth:`until`, or ``share`` of :data:`UNLIMITED_START_SECONDS` from now
        without a limit (the starts are always bounded)."""
        if self.seconds is None:
            return time.perf_counter() + share * UNLIMITED_START_SECONDS
        return self.until(share)

    def before_end(self, reserve: float) -> float | None:
        """Deadline that leaves ``reserve`` of the whole budget for what follows (decoding, refinement)."""
        return None if self.seconds is None else self.deadline - reserve * self.seconds

    def solve_deadline(self, reserve: float = 0.05, allowance: float = 1.0) -> float | None:
        """Deadline handed to a MIP solve: ``reserve`` of the budget (at least ``min(allowance, budget / 4)``
        seconds) is kept for polishing, decoding and refinement, and for the solver's late stop (HiGHS
        checks its time limit coarsely while processing the root node: measured 1-2 s late on models of
        a few thousand rows)."""
        if self.seconds is None:
            return None
        return self.deadline - max(reserve * self.seconds, min(allowance, 0.25 * self.seconds))
