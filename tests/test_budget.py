"""The whole-fit time budget."""

import time

from _support import LOADED_MACHINE_MARGIN
from optitrees.budget import Budget


def test_budget_phases():
    b = Budget(2.0)
    assert b.deadline == b.start + 2.0 and 1.9 < b.remaining() <= 2.0
    assert b.until(0.25) <= time.perf_counter() + 0.5 + 1e-9
    assert b.before_end(0.05) == b.deadline - 0.1
    assert not b.expired


def test_unlimited_and_expired():
    u = Budget(None)
    assert u.deadline is None and u.remaining() is None and u.until(0.5) is None and u.before_end(0.1) is None
    assert not u.expired
    e = Budget(0.0)
    assert e.expired and e.remaining() == 0.0


def test_deadline_checks_and_bounded_starts():
    from optitrees.budget import expired, remaining
    from optitrees.budget import UNLIMITED_START_SECONDS

    assert not expired(None) and remaining(None) is None
    assert expired(time.perf_counter()) and remaining(time.perf_counter() - 5.0) == 0.0
    assert 4.0 < remaining(time.perf_counter() + 5.0) <= 5.0
    # without a limit the starts still end: a share of UNLIMITED_START_SECONDS from now
    t = time.perf_counter()
    d = Budget(None).starts_until(0.5)
    assert t + 0.5 * UNLIMITED_START_SECONDS - 1e-6 <= d <= time.perf_counter() + 0.5 * UNLIMITED_START_SECONDS
    assert Budget(10.0).starts_until(0.2) <= time.perf_counter() + 2.0


def test_a_call_past_the_deadline_is_left_and_errors_reach_the_caller():
    import pytest

    from optitrees.budget import call_until

    t0 = time.perf_counter()
    assert call_until(t0 + 0.2, time.sleep, 8.0) == (False, None)
    assert time.perf_counter() - t0 < 0.2 + LOADED_MACHINE_MARGIN     # not the 8 s of the call
    assert call_until(time.perf_counter() + 5.0, divmod, 7, 2) == (True, (3, 1))
    with pytest.raises(ZeroDivisionError):
        call_until(time.perf_counter() + 5.0, divmod, 1, 0)
