"""A build past its deadline stops at its next group."""

import time

import pytest

from optitrees.budget import call_until
from optitrees.mip import BuildInterrupted, Formulation, build_deadline


def test_a_build_past_its_deadline_stops_at_its_next_group():
    def slow_build(groups_done):
        f = Formulation("slow")
        f.add_set("I", [0, 1])
        for k in range(50):                               # 50 groups of 0.05 s each: 2.5 s without a deadline
            time.sleep(0.05)
            f.add_variables(f"x{k}", ("I",))
            groups_done.append(k)
        return f

    late = Formulation("late")
    with build_deadline(time.perf_counter() - 1.0), pytest.raises(BuildInterrupted):
        late.add_variables("x", ())
    # a build the caller stopped waiting for ends at its next group, not 2.5 s later
    done = []
    deadline = time.perf_counter() + 0.3

    def bounded():
        with build_deadline(deadline):
            try:
                return slow_build(done)
            except BuildInterrupted:
                return None

    built, f = call_until(deadline, bounded)
    assert not built and f is None
    time.sleep(0.3)
    assert len(done) <= 8                                  # stopped within a group of the deadline
    with build_deadline(None):                             # no deadline: the whole build
        assert len(slow_build([]).variables) == 50
