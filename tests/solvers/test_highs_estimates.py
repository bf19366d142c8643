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
