"""ORS (4.5): the MILP optimum equals a brute force over rules, scores and the intercept."""

import itertools

import numpy as np
import pytest

from optitrees.formulations.risk_scores.ors import decode, ors, start
from optitrees.formulations.risk_scores.shared import check_score_set
from optitrees.formulations.tangents import logistic_tangents
from optitrees.solvers import solve
from formulations.risk_scores._risk_brute import _tiny, best_intercept_loss


def brute_force_ors(X, y, T, A, lines):
    """Every score vector with at most T nonzero entries from A, each with its best intercept.

    "Exactly T rules" has the same optimum: 0 is in A, so a selected feature may score 0.
    """
    p = X.shape[1]
    best = np.inf
    for s in itertools.product(A, repeat=p):
        if np.count_nonzero(s) > T:
            continue
        best = min(best, best_intercept_loss(X @ np.array(s, float), y, lines))
    return best


@pytest.mark.parametrize("seed,T,tangents,exact", [(0, 1, "V1", False), (1, 2, "V0", False), (2, 2, "V3", True),
                                                   (3, 3, "V2", False)])
def test_ors_equals_brute_force(seed, T, tangents, exact):
    X, y = _tiny(seed)
    A = range(-2, 3)
    f = ors(X, y, n_rules=T, scores=A, tangents=tangents, exact_rules=exact)
    res = solve(f, mip_gap=0, time_limit=60)
    assert res.status == "optimal"
    expected = brute_force_ors(X, y, T, list(A), logistic_tangents(tangents))
    assert expected < brute_force_ors(X, y, 0, [0], logistic_tangents(tangents)) - 1e-3   # rules do help
    assert res.objective == pytest.approx(expected, abs=1e-6)
    v = f.values(res.x)
    assert np.count_nonzero(np.round(v["s"])) <= T
    if exact:
        assert np.round(v["a"]).sum() == T
    card, checks = decode(f, res.x)
    assert checks["objective_recomputed"] == pytest.approx(res.objective, abs=1e-6)
    x0 = start(f, card)                                      # the card maps back to a feasible start
    assert f.violation(x0) < 1e-7 and f.objective_value(x0) == pytest.approx(res.objective, abs=1e-6)


def test_bad_input():
    X, y = _tiny(0)
    with pytest.raises(ValueError, match="generalized risk score"):
        ors(X + 0.5, y)
    with pytest.raises(ValueError, match="consecutive integers containing 0"):
        ors(X, y, scores=[1, 2, 3])
    with pytest.raises(ValueError, match="empty"):
        check_score_set([])
    with pytest.raises(ValueError, match="n_rules"):
        ors(X, y, n_rules=0)
    with pytest.raises(ValueError, match="at least that many"):
        ors(X, y, n_rules=5, exact_rules=True)




def test_start_of_a_card_with_negated_rules():
    X, y = _tiny(0)
    f = ors(X, y, n_rules=2, scores=range(-2, 3))
    from optitrees.scorecard import ScoreCard

    card = ScoreCard([0, 2], [0.5, 0.5], [True, False], [2, 1], -0.5, [True, True])   # x0 = 1: +2, x2 = 0: +1
    x = start(f, card)
    assert f.violation(x) < 1e-9
    v = f.values(x)
    assert np.array_equal(v["s"], [2, 0, -1]) and v["beta"][0] == pytest.approx(0.5)
