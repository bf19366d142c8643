"""The aggregate-loss master's oracle: exact loss and cuts, completions, and the line search of its in-out cuts."""

import numpy as np
import pytest

from optitrees.formulations.risk_scores.ors import ors
from optitrees.formulations.risk_scores.ors_master import LossOracle


@pytest.fixture(scope="module")
def master():
    rng = np.random.default_rng(4)
    X = (rng.random((120, 4)) < 0.5).astype(float)
    y = np.where(X @ np.array([2.0, -1.0, 1.0, 0.0]) - 1 + rng.logistic(size=120) > 0, 1.0, -1.0)
    f = ors(X, y, n_rules=2, scores=range(-3, 4), method="cutting_planes")
    return f, LossOracle(f)


def test_line_search_finds_the_least_loss_on_the_segment(master):
    f, oracle = master
    x0 = f.vector({"a": [1, 1, 0, 0], "s": [3, -3, 0, 0], "beta": [4.0], "L": [0.0]})
    x1 = f.vector({"a": [0, 0.5, 1, 0.5], "s": [0, 1.5, -3, 0], "beta": [-4.0], "L": [0.0]})
    x = oracle.line_search(x0, x1)
    grid = np.linspace(0, 1, 2001)
    losses = [oracle.separate(x0 + t * (x1 - x0))[0] for t in grid]
    t = grid[int(np.argmin(losses))]
    assert 0 < t < 1                                      # an interior minimum: the test means something
    assert oracle.separate(x)[0] <= min(losses) + 1e-6
    assert np.allclose(x, x0 + (x[f.variables["beta"].columns[0]] - 4.0) / -8.0 * (x1 - x0))   # on the segment


def test_complete_gives_the_best_intercept_and_the_exact_loss(master):
    f, oracle = master
    x = f.vector({"a": [1, 0, 0, 0], "s": [2.0000001, 0, 0, 0], "beta": [0.0], "L": [0.0]})
    done, value = oracle.complete(x)
    s, beta = done[f.variables["s"].columns], done[f.variables["beta"].columns[0]]
    assert np.array_equal(s, [2, 0, 0, 0])
    assert value == pytest.approx(oracle.separate(done)[0], rel=1e-12)
    for shift in (-1e-3, 1e-3):
        moved = done.copy()
        moved[f.variables["beta"].columns[0]] = beta + shift
        assert oracle.separate(moved)[0] > value
