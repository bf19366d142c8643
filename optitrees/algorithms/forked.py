"""A native search that holds the GIL, run in a forked child the caller can stop at a deadline or on Ctrl-C.

ConTree and STreeD search in C++ and hold the GIL for their whole search:
Python cannot see a Ctrl-C until they end, and neither stops exactly at its
own time limit (STreeD's depth-3 search of 3,132 rows with every threshold ran
71 s of a 60 s limit). :func:`call_forked` runs the search in a forked child
and polls for its answer every 50 ms; at the deadline, on Ctrl-C or on any
error, the child is killed. Where processes cannot be forked, the call runs
here.
"""

from __future__ import annotations

import time

__all__ = ["call_forked"]


def _child(conn, fn, args):
    try:
        conn.send(("ok", fn(*args)))
    except BaseException as exc:                 # the parent re-raises it
        conn.send(("error", exc))
    finally:
        conn.close()


def call_forked(fn, args, deadline=None, name="optitrees-search"):
    """``(True, fn(*args))``, or ``(False, None)`` when ``deadline`` (a ``time.perf_counter()`` value) passes
    first. ``fn`` and its result must be picklable; ``fn``'s exceptions are raised here."""
    import multiprocessing

    if "fork" not in multiprocessing.get_all_start_methods():
        return True, fn(*args)
    ctx = multiprocessing.get_context("fork")
    receive, send = ctx.Pipe(duplex=False)
    child = ctx.Process(target=_child, args=(send, fn, args), daemon=True, name=name)
    child.start()
    send.close()
    try:
        while not receive.poll(0.05):
            if deadline is not None and time.perf_counter() >= deadline:
                return False, None
            if not child.is_alive() and not receive.poll(0):
                raise RuntimeError(f"the {name} process ended without a result (exit code {child.exitcode})")
        status, value = receive.recv()
    finally:
        if child.is_alive():
            child.kill()                          # the deadline, Ctrl-C or an error: the search stops with the fit
        child.join(1.0)
        receive.close()
    if status == "error":
        raise value
    return True, value
