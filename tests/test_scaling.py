"""Scaling and the way back to the user's units."""

import numpy as np
import pytest

from optitrees.scaling import ScaledData, Scaling, scale_small_spans, scale_unit, standardize


def test_standardize_and_unit_scaling():
    X = np.array([[1.0, 5.0, 2.0], [3.0, 5.0, 4.0], [5.0, 5.0, 9.0]])
    Xs, mean, scale = standardize(X)
    assert np.allclose(Xs.mean(0), 0) and scale[1] == 1.0 and np.allclose(Xs[:, [0, 2]].std(0), 1)
    X01, low, span = scale_unit(X)
    assert X01.min() == 0 and X01.max() == 1 and span[1] == 1.0 and np.all(X01[:, 1] == 0)


def test_small_spans_scaled_by_powers_of_two_and_nothing_copied_without_them():
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.normal(size=50) * 1e-9 + 1e3, rng.integers(0, 2, 50), rng.normal(size=50) * 1e4])
    Xs, shift, scale = scale_small_spans(X)
    span = np.ptp(Xs, axis=0)
    assert np.all(shift == 0) and scale[1:].tolist() == [1.0, 1.0] and 1 <= span[0] < 2
    assert np.log2(scale[0]) == np.round(np.log2(scale[0]))
    assert np.array_equal(Xs * scale, X)                                    # exact: no mantissa changed
    unscaled, _, ones = scale_small_spans(X[:, 1:])
    assert np.shares_memory(unscaled, X) and np.all(ones == 1)
    assert np.shares_memory(ScaledData.create(X[:, 1:], np.zeros(50), Scaling.SMALL_SPANS).X, X)


@pytest.mark.parametrize("how", ["standard", "unit", "small_spans", None])
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
