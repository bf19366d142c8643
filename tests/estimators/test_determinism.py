"""Same input, same model: a fixed ``random_state`` gives the same fitted model after ``clone``, in threads fitting
at once, and in other processes (estimators whose fits draw random numbers, run liblinear or a MIP). A fit that a
time limit stops depends on the machine's speed; these stop at node limits or run to their end.
``tests/algorithms/test_liblinear.py`` shows the race that threads once caused, on purpose-made fits."""

import multiprocessing
import warnings
from concurrent.futures import ThreadPoolExecutor

import pytest
from sklearn.base import clone

from _support import ROOT, quick_data
from optitrees import (CARTRegressor, LossOptimalTreeRegressor, MARGOTClassifier, OLCTClassifier, RuleSetClassifier,
                       TMOClassifier, UCTDTClassifier)

CASES = [
    (MARGOTClassifier(max_depth=2, solver_options=ROOT, warm_start="tao", random_state=0), "real"),
    (TMOClassifier(max_depth=2, n_estimators=6, n_generations=2, random_state=0), "real"),
    (UCTDTClassifier(n_iterations=40, random_state=0), "real"),
    (RuleSetClassifier(n_estimators=10, n_rules=4, random_state=0), "real"),
    (CARTRegressor(max_depth=4, random_state=0), "target"),
    (LossOptimalTreeRegressor(max_depth=2, solver_options=ROOT, time_limit=None, random_state=0), "target"),
]


def _fit(case):
    est, kind = case
    X, y = quick_data(kind, n=80)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fitted = clone(est).fit(X, y)
    return fitted.export_text(), fitted.predict(X).tolist()


@pytest.mark.parametrize("case", CASES, ids=[type(c[0]).__name__ for c in CASES])
def test_the_same_model_after_clone_in_threads_and_in_processes(case):
    reference = _fit(case)
    assert _fit(case) == reference
    with ThreadPoolExecutor(2) as threads:
        assert list(threads.map(_fit, [case] * 2)) == [reference] * 2
    with multiprocessing.get_context("fork").Pool(2) as processes:
        assert processes.map(_fit, [case] * 2) == [reference] * 2


# The two fits reported to differ between four Python threads and one after another: node limits, no clock.
FOUR_THREAD_CASES = [
    (OLCTClassifier(max_depth=1, time_limit=None, warm_start="greedy", solver_options={"mip_max_nodes": 20}), "real"),
    (LossOptimalTreeRegressor(time_limit=None, solver_options={"mip_max_nodes": 50}), "target"),
]


@pytest.mark.parametrize("case", FOUR_THREAD_CASES, ids=[type(c[0]).__name__ for c in FOUR_THREAD_CASES])
def test_four_fits_in_four_threads_equal_the_same_fits_one_after_another(case):
    one_after_another = [_fit(case) for _ in range(4)]
    with ThreadPoolExecutor(4) as threads:
        at_once = list(threads.map(_fit, [case] * 4))
    assert at_once == one_after_another
