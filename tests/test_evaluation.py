import numpy as np
import pytest

from optitrees.evaluation import cumulative_gap, performance_profile


def test_performance_profile_by_hand():
    times = np.array([[1.0, 2.0], [4.0, 2.0], [3.0, np.inf]])
    taus, rho = performance_profile(times, taus=[1.0, 2.0, 10.0])
    assert np.allclose(rho, [[2 / 3, 1 / 3], [1.0, 2 / 3], [1.0, 2 / 3]])
    with pytest.raises(ValueError, match="positive"):
        performance_profile([[0.0, 1.0]])


def test_cumulative_gap_by_hand():
    acc = np.array([[0.9, 0.8], [0.7, 0.75]])
    t, frac = cumulative_gap(acc, thresholds=[0.0, 0.05, 0.1])
    assert np.allclose(frac, [[0.5, 0.5], [1.0, 0.5], [1.0, 1.0]])
