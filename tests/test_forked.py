"""A native search in a forked child: its answer, its errors, its deadline, and inside daemonic processes (a
``multiprocessing.Pool`` worker, as a Dask worker is), where ``multiprocessing`` refuses to start children."""

import multiprocessing
import os
import time

import numpy as np
import pytest

from optitrees.forked import call_forked

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here: the call runs in this process")


def _pid_and_sum(values):
    return os.getpid(), float(np.sum(values))


def _fail(message):
    raise ValueError(message)


def _sleep(seconds, pid_file):
    pid_file.write_text(str(os.getpid()))
    time.sleep(seconds)
    return "woke"


def test_the_answer_comes_from_another_process():
    done, (pid, total) = call_forked(_pid_and_sum, (np.arange(10_000.0),))
    assert done and total == 49_995_000.0 and pid != os.getpid()


def test_the_childs_error_is_raised_here():
    with pytest.raises(ValueError, match="no such split"):
        call_forked(_fail, ("no such split",))


def test_a_deadline_stops_the_child(tmp_path):
    pid_file = tmp_path / "child"
    done, value = call_forked(_sleep, (600, pid_file), deadline=time.perf_counter() + 1.0)
    assert not done and value is None
    with pytest.raises(ProcessLookupError):     # the child was killed and reaped: no process is left behind
        os.kill(int(pid_file.read_text()), 0)


def _fit_in_worker(_):
    from _support import quick_data
    from optitrees import OCTClassifier

    X, y = quick_data("real")
    est = OCTClassifier(max_depth=2, warm_start="greedy").fit(X, y)
    return multiprocessing.current_process().daemon, est.fit_report_.certified_by, est.predict(X).tolist()


def test_oct_fits_inside_a_daemonic_pool_worker():
    from _support import quick_data
    from optitrees import OCTClassifier

    with multiprocessing.get_context("fork").Pool(1) as pool:
        daemon, certified_by, predicted = pool.map(_fit_in_worker, [0])[0]
    X, y = quick_data("real")
    here = OCTClassifier(max_depth=2, warm_start="greedy").fit(X, y)
    assert daemon and certified_by == here.fit_report_.certified_by is not None
    assert predicted == here.predict(X).tolist()
