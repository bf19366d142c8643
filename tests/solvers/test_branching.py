"""Pseudocost branching: scores by hand, the most fractional column before anything is known, binaries first."""

import numpy as np
import pytest

from optitrees.solvers.branching import Pseudocosts


@pytest.fixture
def costs():
    integer = np.array([True, True, True, True, False])
    binary = np.array([True, True, True, False, False])
    return Pseudocosts(integer, binary)


def test_without_observations_the_most_fractional_binary_is_chosen(costs):
    x = np.array([0.3, 0.45, 1.0, 2.5, 0.5])          # column 3 (integer) and 4 (continuous) are more fractional
    assert costs.choose(x) == 1
    assert costs.choose(np.array([0.0, 1.0, 1.0, 2.5, 0.5])) == 3    # no fractional binary: the integer one
    assert costs.choose(np.array([0.0, 1.0, 1.0, 2.0, 0.5])) is None


def test_observed_pseudocosts_decide_and_fill_in_for_unobserved_columns(costs):
    # column 0 at f = 0.2: down raised the bound by 0.4 (0.4 / 0.2 = 2 per unit), up by 1.6 (1.6 / 0.8 = 2)
    costs.record(0, False, 0.2, 0.4)
    costs.record(0, True, 0.2, 1.6)
    # column 1 at f = 0.5: down 0.05 (0.1 per unit), up 0.05 (0.1 per unit); a negative gain counts as 0
    costs.record(1, False, 0.5, 0.05)
    costs.record(1, True, 0.5, 0.05)
    costs.record(1, True, 0.5, -1.0)
    down, up = costs.estimates()
    assert down[:2] == pytest.approx([2.0, 0.1]) and up[:2] == pytest.approx([2.0, 0.05])
    assert down[2] == pytest.approx(1.05) and up[2] == pytest.approx(1.025)   # the observed columns' means
    x = np.array([0.3, 0.5, 1.0, 0.0, 0.0])
    # scores: column 0: (2 * 0.3) * (2 * 0.7) = 0.84; column 1: (0.1 * 0.5) * (0.05 * 0.5) = 0.00125
    assert costs.choose(x) == 0
    x = np.array([0.3, 0.5, 0.5, 0.0, 0.0])
    # column 2, unobserved: (1.05 * 0.5) * (1.025 * 0.5) = 0.269 < 0.84
    assert costs.choose(x) == 0
    x = np.array([0.05, 0.5, 0.5, 0.0, 0.0])
    # column 0 now: (2 * 0.05) * (2 * 0.95) = 0.19 < 0.269
    assert costs.choose(x) == 2
