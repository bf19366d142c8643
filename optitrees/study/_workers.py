"""Worker processes that end with the study: a study killed outright (``SIGKILL``) leaves no fit running."""

from __future__ import annotations

import os
import threading
import time

__all__ = ["process_pool", "stop_workers"]

#: how often a worker looks whether its study is still there (seconds)
_POLL = 0.25


def _end_with(parent: int) -> None:
    """Started in each worker: a thread that ends the worker once ``parent`` is gone (the worker is then
    handed to another parent, so its parent id changes)."""
    def watch():
        while os.getppid() == parent:
            time.sleep(_POLL)
        os._exit(1)

    threading.Thread(target=watch, name="optitrees-study-watch", daemon=True).start()


def process_pool(n_jobs: int):
    """A pool of ``n_jobs`` fresh interpreters (``spawn``) whose workers end when this process ends, however it
    ends; a worker's native searches end with it (:mod:`optitrees.forked`)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    return ProcessPoolExecutor(max_workers=n_jobs, mp_context=multiprocessing.get_context("spawn"),
                               initializer=_end_with, initargs=(os.getpid(),))


def stop_workers(pool) -> None:
    """Kill ``pool``'s workers at once (running fits included) and drop the tasks not begun."""
    kill = getattr(pool, "kill_workers", None)          # Python 3.14
    if kill is not None:
        kill()
    else:
        for process in list((getattr(pool, "_processes", None) or {}).values()):
            process.kill()
    pool.shutdown(wait=False, cancel_futures=True)
