"""OGRS (4.16): the MILP optimum equals a brute force over rules, thresholds, points and the intercept."""

import itertools

import numpy as np
import pytest

from optitrees.formulations.risk_scores.ogrs import OGRSProblem, OGRSSpec, decode, finalize, ogrs, start
from optitrees.formulations.tangents import logistic_tangents
from optitrees.scaling import ScaledData
from optitrees.solvers import solve
from formulations.risk_scores._risk_brute import best_intercept_loss


def brute_force_ogrs(X, y, T, M, lines):
    """Every set of T distinct features, discriminative thresholds 'x_j >= v' at data values and points -M..M."""
    n, p = X.shape
    best = np.inf
    options = []
    for j in range(p):
        vals = np.unique(X[:, j])
        options.append([X[:, j] >= v for v in vals[1:]])           # satisfied by some but not all points
    for feats in itertools.combinations(range(p), T):
        for rules in itertools.product(*[options[j] for j in feats]):
            R = np.column_stack(rules).astype(float)
            for s in itertools.product(range(-M, M + 1), repeat=T):
                best = min(best, best_intercept_loss(R @ np.array(s, float), y, lines))
    return best


@pytest.mark.parametrize("seed,T,tangents", [(0, 1, "V1"), (1, 2, "V0"), (2, 2, "V2")])
def test_ogrs_equals_brute_force(seed, T, tangents):
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.integers(0, 6, 9) / 5.0, rng.integers(0, 6, 9) / 5.0, rng.integers(0, 2, 9)])
    y = np.where(X[:, 0] + X[:, 2] + 0.3 * rng.normal(size=9) > 0.9, 1.0, -1.0)
    f = ogrs(X, y, n_rules=T, max_score=2, tangents=tangents)
    res = solve(f, mip_gap=0, time_limit=120)
    assert res.status == "optimal"
    expected = brute_force_ogrs(X, y, T, 2, logistic_tangents(tangents))
    assert res.objective == pytest.approx(expected, abs=1e-6)
    v = f.values(res.x)
    feats = np.argmax(v["a"], axis=0)
    assert len(set(feats)) == T and np.all(np.diff(feats) > 0)          # each feature once, ordered (4.16e)
    binary_rules = feats == 2
    assert np.allclose(v["b"][binary_rules], 0.5)                        # 4.16p-q
    sat = X[:, feats] >= v["b"][None, :]
    assert np.array_equal(sat, np.round(v["z"]).astype(bool))            # z follows the rules
    card, checks = decode(f, res.x)
    assert checks["rule_mismatches"] == 0
    assert checks["objective_recomputed"] == pytest.approx(res.objective, abs=1e-6)
    x0 = start(f, card)
    assert f.violation(x0) < 1e-7 and f.objective_value(x0) == pytest.approx(res.objective, abs=1e-6)


def test_finalize_puts_thresholds_between_original_values():
    """A two-valued feature coded 1/2 reads "sex >= 1.5", not 0.5; a continuous one sits between data values."""
    rng = np.random.default_rng(0)
    sex = np.tile([1.0, 2.0], 10)
    age = rng.integers(40, 90, 20).astype(float)
    X = np.column_stack([sex, age])
    y = np.where((sex == 2) | (age >= 70), 1.0, -1.0)
    problem = OGRSProblem.create(OGRSSpec.create(2, 3, "V1"), ScaledData.create(X, y, "unit", ["sex", "age"]))
    f = ogrs_model_build(problem)
    res = solve(f, mip_gap=0, time_limit=60)
    card = finalize(problem, decode(f, res.x)[0])
    scaled, _ = decode(f, res.x)
    assert np.array_equal(card.totals(X), scaled.totals(problem.data.X))     # same rules on the training data
    assert card.intercept == pytest.approx(scaled.intercept, rel=1e-2)      # shortened, same classes
    assert np.array_equal(card.decision_function(X) > 0, scaled.decision_function(problem.data.X) > 0)
    k = list(card.features).index(0)
    assert card.thresholds[k] == 1.5 and not card.binary[k]
    a = list(card.features).index(1)
    assert not np.any(age == card.thresholds[a])


def ogrs_model_build(problem):
    from optitrees.formulations.risk_scores.ogrs import build

    return build(problem)
