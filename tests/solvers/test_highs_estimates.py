"""What HiGHS is expected to need before it is started: the root LP's seconds, and when a solve is out of reach."""

import pytest

from optitrees.solvers.highs import ROOT_LP_SECONDS_PER_UNIT, root_lp_out_of_reach, root_lp_seconds


def test_the_root_lp_estimate_grows_with_columns_times_rows_and_columns():
    assert root_lp_seconds(100, 10) == pytest.approx(ROOT_LP_SECONDS_PER_UNIT * 10 * 110)
    assert root_lp_seconds(200, 20) == pytest.approx(4 * root_lp_seconds(100, 10), rel=1e-12)
    # OLCT depth 2 on 4,000 rows of adult (216,261 x 28,932) took HiGHS's dual simplex 50 s: the estimate is low,
    # within 1.5x
    assert 50 / 1.5 < root_lp_seconds(216_261, 28_932) < 50


@pytest.mark.parametrize("n_rows, n_cols, seconds, out", [
    (216_261, 28_932, 79.5, False),           # 39.7 s estimated: just within half of 79.5 s
    (216_261, 28_932, 79.3, True),
    (159_723, 21_293, 35.6, True),            # OLCT depth 2, phishing 4,000 rows: its root LP took over 35.6 s
    (1_000, 100, 0.0005, True),               # small, but next to no time
    (1_000, 100, 1.0, False),
])
def test_a_solve_is_out_of_reach_when_the_root_lp_needs_over_half_its_time(n_rows, n_cols, seconds, out):
    why = root_lp_out_of_reach(n_rows, n_cols, seconds)
    assert (why is not None) == out
    if out:
        assert f"{n_rows:,} rows x {n_cols:,} columns" in why and "over half" in why


@pytest.mark.parametrize("n_rows, nnz, big", [(19_000, 200_000, False), (20_001, 50_000, True),
                                              (1_000, 300_001, True), (1_000, None, False)])
def test_highs_plans_a_big_model_without_its_untimed_steps(n_rows, nnz, big):
    from optitrees.solvers.highs import UNTIMED_STEPS_OFF, HighsBackend

    plan = HighsBackend.plan(n_rows, 100, nnz, None)
    assert plan.reachable and plan.why is None                       # no time limit: always started
    assert dict(plan.options) == (dict(UNTIMED_STEPS_OFF) if big else {})


def test_the_plan_carries_the_reason_a_model_is_out_of_reach():
    from optitrees.solvers.highs import HighsBackend

    plan = HighsBackend.plan(216_261, 28_932, 1_500_000, 60.0)
    assert not plan.reachable and plan.why == root_lp_out_of_reach(216_261, 28_932, 60.0)


def test_a_pyomo_backend_starts_every_model_and_hosts_no_lp_search():
    from optitrees.solvers.pyomo_backend import PYOMO_SOLVERS, PyomoBackend
    from optitrees.solvers.plan import family_options
    from optitrees.solvers.registry import get_backend, is_default

    backend = PyomoBackend(PYOMO_SOLVERS["scip"])
    plan = backend.plan(10**7, 10**6, 10**9, 1.0)
    assert plan.reachable and dict(plan.options) == {} and not backend.hosts_lp_search
    assert get_backend("highs").hosts_lp_search and is_default("highs") and not is_default("pyomo:highs")
    assert family_options(backend, {"highs": {"presolve": "off"}}) == {}
