"""A HiGHS run in a forked child or a worker thread: the same outcome, and a child killed at its deadline."""

import itertools
import os
import threading

import numpy as np
import pytest

from optitrees.mip import new_highs
from optitrees.solvers import highs_run
from optitrees.solvers.highs_run import ForkedRun, ThreadRun, watched_run

needs_fork = pytest.mark.skipif(not highs_run.FORK, reason="HiGHS is not forked on this platform")

VALUES = np.array([10.0, 13.0, 7.0, 8.0, 11.0, 4.0, 9.0, 6.0])
SIZES = np.array([5.0, 7.0, 4.0, 4.0, 6.0, 2.0, 5.0, 3.0])
CAPACITY = 17.0


def _knapsack():
    """max VALUES @ x, SIZES @ x <= CAPACITY, x binary (as a minimization of -VALUES @ x)."""
    import highspy

    h = new_highs()
    n = len(VALUES)
    h.addVars(n, np.zeros(n), np.ones(n))
    h.changeColsCost(n, np.arange(n, dtype=np.int32), -VALUES)
    h.changeColsIntegrality(n, np.arange(n, dtype=np.int32), np.ones(n, dtype=np.uint8))
    h.addRow(-highspy.kHighsInf, CAPACITY, n, np.arange(n, dtype=np.int32), SIZES)
    h.setOptionValue("threads", 1)
    return h


def _knapsack_by_enumeration():
    return max(VALUES @ np.array(x) for x in itertools.product((0, 1), repeat=len(VALUES))
               if SIZES @ np.array(x) <= CAPACITY)


def _hard_mip(seconds_limit=None):
    """OLCT depth 2 on 300 points: HiGHS takes far longer than the tests wait to prove it."""
    from sklearn.datasets import make_classification

    from optitrees.formulations import olct

    X, y = make_classification(300, 8, random_state=0)
    h = new_highs()
    olct(X, np.where(y == 1, 1, -1), depth=2).to_highs(names=False, highs=h)
    h.setOptionValue("threads", 1)
    if seconds_limit is not None:
        h.setOptionValue("time_limit", seconds_limit)
    return h


def _alive(pid) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.parametrize("run", [pytest.param(ForkedRun, marks=needs_fork), ThreadRun])
def test_a_finished_run_gives_the_optimum_found_by_enumeration(run):
    watched = run(_knapsack(), mip=True)
    assert watched.wait(60)
    done = watched.outcome()
    assert done.status_text == "Optimal"
    assert -done.objective == pytest.approx(_knapsack_by_enumeration())
    assert -VALUES @ done.x == pytest.approx(done.objective)
    assert SIZES @ np.round(done.x) <= CAPACITY
    assert done.mip_dual_bound == pytest.approx(done.objective)
    assert watched.incumbent is not None and -VALUES @ watched.incumbent == pytest.approx(done.objective)


@needs_fork
def test_the_forked_and_the_thread_run_agree():
    forked, threaded = ForkedRun(_knapsack(), mip=True), ThreadRun(_knapsack(), mip=True)
    assert forked.wait(60) and threaded.wait(60)
    a, b = forked.outcome(), threaded.outcome()
    assert (a.model_status, a.mip_node_count) == (b.model_status, b.mip_node_count)
    np.testing.assert_allclose(a.x, b.x, atol=1e-9)


@needs_fork
def test_a_child_forked_after_this_thread_ran_highs_on_two_threads_still_ends():
    """The child inherits the task scheduler this thread ran HiGHS on, sized for worker threads that were not
    forked: without a scheduler of its own, its run on as many threads never ended, and on another count it
    failed at once (status "Not Set")."""
    import highspy

    highspy.Highs.resetThreadScheduler(False)                 # this thread's next run sizes a scheduler of 2
    first = _hard_mip(seconds_limit=0.5)
    first.setOptionValue("threads", 2)
    highs_run.counted_run(first)
    assert first.modelStatusToString(first.getModelStatus()) == "Time limit reached"
    for threads in (2, 1):
        second = _hard_mip(seconds_limit=0.5)
        second.setOptionValue("threads", threads)
        child = ForkedRun(second, mip=True)
        assert child.wait(30)
        assert child.outcome().status_text == "Time limit reached"


@needs_fork
def test_a_child_past_its_deadline_is_killed_and_leaves_no_thread():
    threads = {t.ident for t in threading.enumerate()}
    run = ForkedRun(_hard_mip(), mip=True)
    pid = run._pid
    assert not run.wait(1.0)
    assert not _alive(pid)                               # killed and reaped: no process left to run on
    assert {t.ident for t in threading.enumerate()} <= threads


@needs_fork
def test_the_incumbents_the_child_reported_before_its_deadline_are_kept():
    h = _hard_mip()
    lp = h.getLp()
    cost, lower, upper = np.array(lp.col_cost_), np.array(lp.col_lower_), np.array(lp.col_upper_)
    run = ForkedRun(h, mip=True)
    assert not run.wait(3.0)
    x = run.incumbent
    assert x is not None and x.shape == (h.getNumCol(),)
    assert np.all(x >= lower - 1e-6) and np.all(x <= upper + 1e-6)
    value = float(cost @ x + lp.offset_)
    assert run.bound is not None and run.bound <= value + 1e-6 * max(1.0, abs(value))      # a valid bound
    assert run.nodes is not None
    assert all(not np.array_equal(s, x) for s in run.earlier(x))


@needs_fork
def test_a_run_beside_a_highs_run_of_this_process_is_made_in_a_thread(monkeypatch):
    big = highs_run.FORK_MIN_NONZEROS
    monkeypatch.setattr(highs_run, "_active_runs", 1)          # a run in another thread
    beside = watched_run(_knapsack(), mip=True, nonzeros=big)
    assert isinstance(beside, ThreadRun) and not isinstance(beside, ForkedRun)
    assert beside.wait(60)
    assert highs_run.runs_in_progress() == 1
    monkeypatch.setattr(highs_run, "_active_runs", 0)
    alone = watched_run(_knapsack(), mip=True, nonzeros=big)
    assert isinstance(alone, ForkedRun)
    assert alone.wait(60)


@needs_fork
@pytest.mark.parametrize("nonzeros, deadline", [(highs_run.FORK_MIN_NONZEROS - 1, True),
                                                (highs_run.FORK_MIN_NONZEROS, False)])
def test_a_small_model_or_a_run_without_deadline_is_made_in_a_thread(nonzeros, deadline):
    run = watched_run(_knapsack(), mip=True, nonzeros=nonzeros, deadline=deadline)
    assert not isinstance(run, ForkedRun)
    assert run.wait(60)


def test_without_fork_the_run_is_made_in_a_thread(monkeypatch):
    monkeypatch.setattr(highs_run, "FORK", False)
    run = watched_run(_knapsack(), mip=True, nonzeros=highs_run.FORK_MIN_NONZEROS)
    assert not isinstance(run, ForkedRun)
    assert run.wait(60)
    assert -run.outcome().objective == pytest.approx(_knapsack_by_enumeration())


@needs_fork
def test_a_child_that_fails_without_a_result_is_replaced_by_a_run_in_a_thread(monkeypatch):
    import highspy

    original, parent = highspy.Highs.run, os.getpid()

    def crashing_in_the_child(self):
        if os.getpid() != parent:
            os._exit(3)
        return original(self)

    monkeypatch.setattr(highspy.Highs, "run", crashing_in_the_child)
    run = ForkedRun(_knapsack(), mip=True)
    with pytest.warns(RuntimeWarning, match="exit status 3"):
        assert run.wait(60)
    assert -run.outcome().objective == pytest.approx(_knapsack_by_enumeration())


@needs_fork
def test_a_child_killed_from_outside_is_an_error_not_a_rerun():
    import signal

    run = ForkedRun(_hard_mip(), mip=True)
    os.kill(run._pid, signal.SIGKILL)
    with pytest.raises(RuntimeError, match="killed from outside"):
        run.wait(30)


@needs_fork
def test_runs_forked_from_two_threads_at_once_each_end_with_their_own_result():
    """A study's or Dask worker's threads fork beside each other: each child is forked from a worker thread,
    while the other thread's child runs."""
    from concurrent.futures import ThreadPoolExecutor

    def run(k):
        watched = ForkedRun(_knapsack() if k % 2 == 0 else _hard_mip(seconds_limit=0.5), mip=True)
        assert watched.wait(60)
        return watched.outcome()

    with ThreadPoolExecutor(2) as threads:
        outcomes = list(threads.map(run, range(4)))
    for k, done in enumerate(outcomes):
        if k % 2 == 0:
            assert -done.objective == pytest.approx(_knapsack_by_enumeration())
        else:
            assert done.status_text == "Time limit reached"
