"""When C4.5 loads its compiled threshold scan: not for a one-off fit, not without the time to compile it."""

import sys
import time

from optitrees.algorithms.c45 import scan_policy
from optitrees.algorithms.c45.scan_policy import COMPILED_SCAN_MIN_ROWS


def test_the_compiled_scan_is_loaded_from_a_second_large_fit_with_time_to_compile(monkeypatch):
    class NotLoaded:
        @staticmethod
        def is_loaded():
            return False

    monkeypatch.setitem(sys.modules, "optitrees.algorithms.c45.threshold_scan", NotLoaded)
    monkeypatch.setattr(scan_policy, "_large_growths", 0)
    pays = scan_policy.compiled_scan_pays
    big = COMPILED_SCAN_MIN_ROWS
    assert not pays(big - 1, None)                          # small data: the numpy path, and not counted
    assert not pays(big, None)                              # a process's first large fit: no 0.8 s load
    assert scan_policy._large_growths == 1
    assert pays(big, None)                                  # the second, with no time limit: load it (compile once)
    assert not pays(big, time.perf_counter() + 1.0)         # 1 s left: a first compilation could take 7
    assert pays(big, time.perf_counter() + scan_policy.COMPILE_SECONDS + 1.0)
    NotLoaded.is_loaded = staticmethod(lambda: True)
    assert pays(big, time.perf_counter() + 1.0)             # already in this process: nothing to load
    assert not pays(big - 1, None)
