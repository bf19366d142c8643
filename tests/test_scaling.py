"""Scaling and the way back to the user's units."""

import numpy as np
import pytest

from optitrees.scaling import ScaledData, scale_unit, standardize


def test_standardize_and_unit_scaling():
    X = np.array([[1.0, 5.0, 2.0], [3.0, 5.0, 4.0], [5.0, 5.0, 9.0]])
    Xs, mean, scale = standardize(X)
    assert np.allclose(Xs.mean(0), 0) and scale[1] == 1.0 and np.allclose(Xs[:, [0, 2]].std(0), 1)
    X01, low, span = scale_unit(X)
    assert X01.min() == 0 and X01.max() == 1 and span[1] == 1.0 and np.all(X01[:, 1] == 0)


@pytest.mark.parametrize("how", ["standard", "unit", None])
def test_hyperplanes_round_trip(how):
    rng = np.random.default_rng(0)
    X = rng.normal(100, 30, size=(20, 3))
    data = ScaledData.create(X, np.zeros(20), how, ["a", "b", "c"])
    W, b = rng.normal(size=(2, 3)), rng.normal(size=2)
    W0, b0 = data.to_original(W, b)
    assert np.allclose(X @ W0.T + b0, data.X @ W.T + b)
    W1, b1 = data.to_scaled(W0, b0)
    assert np.allclose(W1, W) and np.allclose(b1, b)
    assert data.labels.tolist() == ["a", "b", "c"]
    assert ScaledData.create(X, np.zeros(20), how).labels.tolist() == [0, 1, 2]
    with pytest.raises(ValueError, match="unknown scaling"):
        ScaledData.create(X, np.zeros(20), "minmax")
