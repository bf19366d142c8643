"""Native work run in a forked child the caller can stop at a deadline or on Ctrl-C: a search that holds the GIL
(:func:`call_forked`); HiGHS runs use :func:`end_with_parent` too (:mod:`optitrees.solvers.highs_run`).

ConTree and STreeD search in C++ and hold the GIL for their whole search:
Python cannot see a Ctrl-C until they end, and neither stops exactly at its
own time limit (STreeD's depth-3 search of 3,132 rows with every threshold ran
71 s of a 60 s limit). :func:`call_forked` runs the search in a forked child
and polls for its answer every 50 ms; at the deadline, on Ctrl-C or on any
error, the child is killed. Where processes cannot be forked, the call runs
here.

The child is made by ``os.fork`` itself, not by :mod:`multiprocessing`, so a fit
runs the same inside a daemonic process (a ``multiprocessing.Pool`` worker, a
Dask worker), where :mod:`multiprocessing` refuses to start children. The child
sends its pickled answer through a pipe and leaves by ``os._exit``: it runs no
exit handler and flushes none of the parent's buffers. On Linux it also ends
when its parent ends, even by ``SIGKILL``.
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import sys
import warnings
from .budget import expired

__all__ = ["call_forked", "end_with_parent", "fork"]


def _answer(fn, args) -> bytes:
    try:
        return pickle.dumps(("ok", fn(*args)))
    except BaseException as exc:                 # the parent re-raises it
        try:
            return pickle.dumps(("error", exc))
        except Exception:
            return pickle.dumps(("error", RuntimeError(f"{type(exc).__name__}: {exc}")))


def fork() -> int:
    """``os.fork()``. Python 3.12 and later warn (``DeprecationWarning``) when a process with threads forks, since
    a lock another thread held stays held in the child; the children here run native code and write to their
    pipe, taking no lock another thread can hold, so the warning is silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return os.fork()


def end_with_parent(parent: int) -> None:
    """On Linux, the kernel kills the child when its parent ends, however it ends (``PR_SET_PDEATHSIG``)."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None).prctl(1, signal.SIGKILL)       # 1: PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:                                 # the parent ended before the call above
        os._exit(1)


def _run_child(write_fd: int, fn, args, parent: int) -> None:
    status = 1
    try:
        end_with_parent(parent)
        signal.signal(signal.SIGINT, signal.SIG_DFL)      # Ctrl-C ends the child at once; the parent reports it
        payload = _answer(fn, args)
        view = memoryview(payload)
        while view:
            view = view[os.write(write_fd, view):]
        status = 0
    finally:
        os._exit(status)


def call_forked(fn, args, deadline=None, name="optitrees-search"):
    """``(True, fn(*args))``, or ``(False, None)`` when ``deadline`` (a ``time.perf_counter()`` value) passes
    first. ``fn`` and its result must be picklable; ``fn``'s exceptions are raised here."""
    if not hasattr(os, "fork"):
        return True, fn(*args)
    read_fd, write_fd = os.pipe()
    parent = os.getpid()
    pid = fork()
    if pid == 0:                                            # the child
        os.close(read_fd)
        _run_child(write_fd, fn, args, parent)
    os.close(write_fd)
    chunks, finished = [], False
    try:
        while True:
            ready, _, _ = select.select([read_fd], [], [], 0.05)
            if ready:
                chunk = os.read(read_fd, 1 << 20)
                if not chunk:                               # the child closed the pipe: it has ended
                    break
                chunks.append(chunk)
            elif expired(deadline):
                return False, None
        _, code = os.waitpid(pid, 0)
        finished = True
        if not chunks:
            raise RuntimeError(f"the {name} process ended without a result (exit status {code})")
        status, value = pickle.loads(b"".join(chunks))
    finally:
        os.close(read_fd)
        if not finished:                                    # the deadline, Ctrl-C or an error: the search stops
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            os.waitpid(pid, 0)
    if status == "error":
        raise value
    return True, value
