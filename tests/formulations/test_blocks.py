"""Shared building blocks on toy models whose optimum is known."""

import itertools

import numpy as np
import pytest

from optitrees import solvers
from optitrees.formulations import Formulation, blocks


def _toy(gains):
    """One node, len(gains) features, w in [-1, 1], objective -gains . w."""
    f = Formulation("toy")
    w, _ = blocks.add_hyperplanes(f, np.array([1]), np.arange(len(gains)), weight_bound=1.0, intercept_bound=1.0)
    f.add_objective(w, -np.asarray(gains, float)[None, :])
    return f, w


def _brute(gains, budget=None, alpha=0.0):
    best = np.inf
    for support in itertools.product([0, 1], repeat=len(gains)):
        if budget is not None and sum(support) > budget:
            continue
        best = min(best, -np.dot(gains, support) + alpha * sum(support))
    return best


@pytest.mark.parametrize("budget,alpha", [(1, None), (2, None), (None, 2.5), (2, 0.5)])
def test_l0_budget_and_penalty(budget, alpha):
    gains = [3.0, 2.0, 1.0, 0.2]
    f, w = _toy(gains)
    blocks.add_l0_indicators(f, w, 1.0, budget=budget, penalty=None if alpha is None else [alpha])
    res = solvers.solve(f, mip_gap=0)
    assert res.objective == pytest.approx(_brute(gains, budget, alpha or 0.0))
    values = f.values(res.x)
    support = np.abs(values["w"][0]) > 1e-9
    assert np.all(values["delta"][0][support] > 0.5)
    if budget is not None:
        assert support.sum() <= budget


def test_l1_split_prices_absolute_values():
    f, w = _toy([0.5, -0.5])
    wp, wn = blocks.add_l1_split(f, w, 1.0, penalty=1.0)
    # pushing w towards its gain costs 1 per unit, more than the 0.5 gained: optimum w = 0
    res = solvers.solve(f, mip_gap=0)
    assert res.objective == pytest.approx(0.0, abs=1e-9)
    assert f.constraints["l1_split"].equation == "3.16a"


def test_routing_single_destination():
    f = Formulation("route")
    z = blocks.add_routing(f, 4, np.array([4, 5, 6, 7]))
    f.add_objective(z, np.arange(16, dtype=float).reshape(4, 4))
    res = solvers.solve(f, mip_gap=0)
    Z = f.values(res.x)["z"]
    assert np.array_equal(Z.sum(axis=1), np.ones(4)) and np.array_equal(Z[:, 0], np.ones(4))
