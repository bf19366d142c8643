"""One HiGHS run, watched until a deadline: in a forked child that is killed there, or in a worker thread.

Some steps of HiGHS's MIP solver check no time limit (its root cut separators on big-M rows, the randomized
rounding after the root LP), and HiGHS 1.16 has no option to turn them off. Run in a thread, such a step cannot be
stopped: the fit returns at its deadline and HiGHS runs on beside whatever comes next (the squared-loss oblique
regressor on adult's 30,000 rows, depth 2, 30 s: 41-44 s past the fit), holding its working memory, and the
interpreter waits for it at exit. So a run with a deadline on a model of some size is made in a forked child
(:class:`ForkedRun`, chosen by :func:`watched_run`): the child streams its improving solutions, bound and node
count through a pipe, and at the deadline it is killed, its memory and threads with it. The child starts its own
HiGHS task scheduler (the one it inherits sizes worker threads that were not forked, and a run on it never ends).
Otherwise the run is made in a worker thread (:class:`ThreadRun`) that the caller stops waiting for at the
deadline and that is asked to stop at HiGHS's next check.

Both keep the latest incumbent (its column values), the improving solutions, the bound and the node count, so a
run left at the deadline still returns what HiGHS had found, and give the same :class:`RunOutcome` when HiGHS
ends.
"""

from __future__ import annotations

import collections
import os
import pickle
import select
import signal
import struct
import sys
import threading
import time
import warnings
from dataclasses import dataclass

import numpy as np

from ..budget import expired
from ..forked import end_with_parent, fork

__all__ = ["RunOutcome", "ThreadRun", "ForkedRun", "watched_run", "counted_run", "runs_in_progress", "when_idle",
           "POOL_SIZE", "GRACE", "FORK", "FORK_MIN_NONZEROS"]

#: How many of a MIP's earlier incumbents a solve keeps (:attr:`~optitrees.solvers.results.SolverResult.pool`).
POOL_SIZE = 16

#: Seconds past HiGHS's own time limit before the run is left (HiGHS itself stops within milliseconds of its
#: limit wherever it checks it).
GRACE = 0.2

#: Whether HiGHS runs in a forked child (:func:`watched_run`): on Linux, where it is tested (macOS forbids some
#: system frameworks in a forked child, and Windows cannot fork).
FORK = sys.platform.startswith("linux") and hasattr(os, "fork")

#: Nonzeros from which a run with a deadline is forked (:func:`watched_run`). A fork costs about 15 ms a run (a
#: 1 GB process on the benchmark machine), which the suite's thousands of small solves felt (10% of an estimator
#: module's time); HiGHS's untimed steps ran on for seconds only on models of millions of nonzeros (adult's
#: 30,000 rows), and the models of seed 002's Table 3.3 have 98,000 and more.
FORK_MIN_NONZEROS = 50_000

#: HiGHS runs of this process in progress, in its threads (a thread left at a deadline counts until it ends).
_active_runs = 0
_runs_lock = threading.Lock()


def runs_in_progress() -> int:
    """How many HiGHS runs this process has in progress in its own threads."""
    with _runs_lock:
        return _active_runs


def when_idle(action) -> bool:
    """``action()`` run if this process has no HiGHS run in progress in its threads (atomically: none starts
    meanwhile); whether it ran."""
    with _runs_lock:
        if _active_runs:
            return False
        action()
        return True


def counted_run(h):
    """``h.run()``, counted among the runs in progress (:func:`runs_in_progress`)."""
    global _active_runs
    with _runs_lock:
        _active_runs += 1
    try:
        return h.run()
    finally:
        with _runs_lock:
            _active_runs -= 1


@dataclass(frozen=True)
class RunOutcome:
    """What a finished HiGHS run left: its model status (``highspy.HighsModelStatus``) and its text, the primal
    solution when HiGHS holds a feasible one (else ``None``) with its objective, and for a MIP the dual bound and
    the nodes explored."""

    model_status: object
    status_text: str
    x: np.ndarray | None
    objective: float | None
    mip_dual_bound: float
    mip_node_count: int

    @classmethod
    def of(cls, h) -> "RunOutcome":
        info = h.getInfo()
        status = h.getModelStatus()
        feasible = info.primal_solution_status == 2                 # kSolutionStatusFeasible
        x = np.array(h.getSolution().col_value, dtype=float) if feasible else None
        return cls(status, h.modelStatusToString(status), x,
                   float(info.objective_function_value) if feasible else None,
                   float(info.mip_dual_bound), int(info.mip_node_count))


class _Watch:
    """The incumbents, bound and node count a run reported, and the progress line they feed."""

    def __init__(self, progress):
        self.progress = progress
        self.incumbent = None
        self.solutions = collections.deque(maxlen=POOL_SIZE + 1)   # the improving solutions, newest last
        self.bound = None
        self.nodes = None

    def _note(self, bound, nodes, primal, gap, x=None):
        if x is not None:
            self.incumbent = x
            self.solutions.append(x)
        if np.isfinite(bound):
            self.bound = float(bound)
        self.nodes = int(nodes)
        if self.progress is not None:
            self.progress.update(incumbent=primal, bound=bound, gap=gap, nodes=nodes)

    def earlier(self, x):
        """The improving solutions before the final ``x``, oldest first, without ``x`` (HiGHS reports an
        accepted warm start as its first)."""
        kept = [s for s in self.solutions
                if not (isinstance(x, np.ndarray) and s.shape == x.shape and np.allclose(s, x, atol=1e-9, rtol=0))]
        return kept[-POOL_SIZE:]


def _subscribe(h, mip: bool, report, stopped):
    """HiGHS's callbacks: for a MIP, ``report(bound, nodes, primal, gap, x)`` at each improving solution and, 4
    times a second, without ``x``; an interrupt at the next check once ``stopped()``. An LP (a polish) left at
    the deadline stops at the simplex's or IPM's next check instead of running on to its own time limit."""
    last = [-1.0]

    def improving(event):
        if not stopped():
            d = event.data_out
            report(d.mip_dual_bound, d.mip_node_count, d.mip_primal_bound, d.mip_gap,
                   np.array(d.mip_solution, dtype=float))

    def interrupt(event):
        if stopped():
            event.interrupt()
            return
        d = event.data_out           # the bound moves between improving solutions: sample it
        if d.running_time - last[0] >= 0.25:
            last[0] = d.running_time
            report(d.mip_dual_bound, d.mip_node_count, d.mip_primal_bound, d.mip_gap, None)

    def lp_interrupt(event):
        if stopped():
            event.interrupt()

    if mip:
        h.cbMipImprovingSolution.subscribe(improving)
        h.cbMipInterrupt.subscribe(interrupt)
    else:
        h.cbSimplexInterrupt.subscribe(lp_interrupt)
        h.cbIpmInterrupt.subscribe(lp_interrupt)


class ThreadRun(_Watch):
    """``Highs.run`` in a worker thread the caller waits for until a deadline.

    HiGHS releases the GIL while it runs, so the caller can stop waiting at the deadline even when HiGHS is
    inside a step that never checks its time limit; from then on the callbacks ask HiGHS to stop at its next
    check. The worker is not a daemon thread: the interpreter waits for it at exit instead of stopping it inside
    native code.
    """

    def __init__(self, h, mip: bool, progress=None):
        super().__init__(progress)
        self._h, self._mip = h, mip
        self._start_thread()

    def _start_thread(self):
        self._stop = threading.Event()
        _subscribe(self._h, self._mip, self._note, self._stop.is_set)
        self._worker = threading.Thread(target=counted_run, args=(self._h,), name="optitrees-highs", daemon=False)
        self._worker.start()

    def wait(self, seconds) -> bool:
        """Wait until HiGHS ends or ``seconds`` pass (``None``: no limit); ``True`` if it ended. On Ctrl-C,
        HiGHS is waited for (a MIP is asked to stop at its next check; an LP runs to its end) and the interrupt
        propagates."""
        try:
            self._worker.join(seconds)
        except KeyboardInterrupt:
            self._stop.set()
            self._worker.join()
            raise
        if self._worker.is_alive():
            self._stop.set()
            return False
        return True

    def outcome(self) -> RunOutcome:
        """What the finished run left (after :meth:`wait` returned ``True``)."""
        return RunOutcome.of(self._h)


_HEADER = struct.Struct("<Q")


def _send(fd, lock, message):
    payload = pickle.dumps(message)
    view = memoryview(_HEADER.pack(len(payload)) + payload)
    with lock:
        while view:
            view = view[os.write(fd, view):]


def _flush_output():
    """Python's and C's output buffers written out (before a fork, so the child does not write them again, and
    before the child leaves by ``os._exit``, so HiGHS's log file and console lines are complete)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (AttributeError, ValueError, OSError):
            pass
    try:
        import ctypes

        ctypes.CDLL(None).fflush(None)
    except (OSError, AttributeError):
        pass


def _child(h, mip: bool, write_fd: int, parent: int):
    import highspy

    status = 1
    try:
        end_with_parent(parent)
        signal.signal(signal.SIGINT, signal.SIG_DFL)        # Ctrl-C ends the child at once; the parent reports it
        lock = threading.Lock()
        highspy.Highs.resetThreadScheduler(False)           # the inherited one sizes threads that were not forked
        _subscribe(h, mip, lambda *report: _send(write_fd, lock, ("report", report)), lambda: False)
        try:
            h.run()
            _send(write_fd, lock, ("done", RunOutcome.of(h)))
        except BaseException as exc:                         # the parent re-raises it
            _send(write_fd, lock, ("error", RuntimeError(f"HiGHS failed in its process: {type(exc).__name__}: "
                                                         f"{exc}")))
        _flush_output()
        status = 0
    finally:
        os._exit(status)


class ForkedRun(ThreadRun):
    """``Highs.run`` in a forked child that streams its reports through a pipe and is killed at the deadline
    (see the module docstring). The child ends with its parent, however the parent ends. A child that fails
    without a result (a crash, not a kill from outside) is replaced by a run in a thread, with a warning, in the
    time left."""

    def __init__(self, h, mip: bool, progress=None):
        _Watch.__init__(self, progress)
        self._h, self._mip = h, mip
        self._in_thread = False
        self._outcome = None
        self._buffer = bytearray()
        _flush_output()
        read_fd, write_fd = os.pipe()
        parent = os.getpid()
        pid = fork()
        if pid == 0:
            os.close(read_fd)
            _child(h, mip, write_fd, parent)
        os.close(write_fd)
        self._fd, self._pid, self._open = read_fd, pid, True

    def _messages(self):
        while len(self._buffer) >= _HEADER.size:
            (size,) = _HEADER.unpack_from(self._buffer)
            if len(self._buffer) < _HEADER.size + size:
                return
            payload = bytes(self._buffer[_HEADER.size:_HEADER.size + size])
            del self._buffer[:_HEADER.size + size]
            yield pickle.loads(payload)

    def _read(self, timeout) -> bool:
        """Read what the child sent within ``timeout`` seconds; ``False`` once the child closed its pipe."""
        ready, _, _ = select.select([self._fd], [], [], max(timeout, 0.0))
        if not ready:
            return True
        chunk = os.read(self._fd, 1 << 20)
        if not chunk:
            return False
        self._buffer += chunk
        for kind, value in self._messages():
            if kind == "report":
                self._note(*value)
            elif kind == "done":
                self._outcome = value
            else:
                self._close(kill=True)
                raise value
        return True

    def _close(self, kill: bool):
        if not self._open:
            return
        self._open = False
        os.close(self._fd)
        if kill:
            try:
                os.kill(self._pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self._exit_status = os.waitpid(self._pid, 0)[1]

    def wait(self, seconds) -> bool:
        """Wait until HiGHS ends or ``seconds`` pass (``None``: no limit); ``True`` if it ended. At the deadline,
        or on Ctrl-C (which then propagates), the child is killed."""
        if self._in_thread:
            return ThreadRun.wait(self, seconds)
        end = None if seconds is None else time.perf_counter() + seconds
        try:
            while self._open:
                timeout = 0.05 if end is None else min(0.05, end - time.perf_counter())
                if not self._read(timeout):
                    self._close(kill=False)
                    break
                if expired(end):
                    self._close(kill=True)
                    return False
        except BaseException:
            self._close(kill=True)
            raise
        if self._outcome is not None:
            return True
        code = self._exit_status
        if os.WIFSIGNALED(code) and os.WTERMSIG(code) == signal.SIGKILL:
            raise RuntimeError("HiGHS's process was killed from outside (out of memory?) before its result")
        how = (f"signal {os.WTERMSIG(code)}" if os.WIFSIGNALED(code)
               else f"exit status {os.waitstatus_to_exitcode(code)}")
        warnings.warn(f"HiGHS's process ended without a result ({how}); HiGHS runs in a thread of this process "
                      "instead", RuntimeWarning, stacklevel=2)
        self._in_thread = True
        self._start_thread()
        return ThreadRun.wait(self, None if end is None else max(0.0, end - time.perf_counter()))

    def outcome(self) -> RunOutcome:
        """What the finished run left (after :meth:`wait` returned ``True``)."""
        return ThreadRun.outcome(self) if self._in_thread else self._outcome


def watched_run(h, mip: bool, progress=None, *, nonzeros: int = 0, deadline: bool = True):
    """``h.run()`` started: in a forked child (:class:`ForkedRun`) when the run has a ``deadline`` to be left at,
    its model holds at least :data:`FORK_MIN_NONZEROS` ``nonzeros``, processes can be forked (:data:`FORK`) and
    this process has no HiGHS run in progress in its threads (a child forked beside one could inherit its
    scheduler mid-step); otherwise in a worker thread (:class:`ThreadRun`)."""
    if FORK and deadline and nonzeros >= FORK_MIN_NONZEROS and runs_in_progress() == 0:
        return ForkedRun(h, mip, progress)
    return ThreadRun(h, mip, progress)
