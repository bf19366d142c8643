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


def test_standard_sparse_keeps_the_zeros_of_columns_at_least_half_zero():
    rng = np.random.default_rng(3)
    one_hot = np.eye(4)[rng.integers(0, 4, 400)]                            # 75% zeros per column
    numeric = rng.normal(50, 5, size=(400, 1))                              # no zeros: centred
    rare = np.where(rng.random((400, 1)) < 0.02, rng.normal(1e4, 1e3, (400, 1)), 0.0)   # 98% zeros, far from 0
    X = np.hstack([one_hot, numeric, rare])
    Xs, shift, scale = standardize(X, keep_sparse=True)
    dense, _, same_scale = standardize(X)
    assert np.array_equal(Xs[:, :4] == 0, one_hot == 0) and np.array_equal(Xs[:, 5] == 0, rare[:, 0] == 0)
    assert np.all(shift[[0, 1, 2, 3, 5]] == 0) and shift[4] == pytest.approx(X[:, 4].mean())
    assert np.allclose(scale, same_scale) and np.allclose(Xs * scale + shift, X)
    assert np.allclose(Xs[:, 4], dense[:, 4])
    # a column of zero share z >= 1/2 has |mean| / std <= sqrt((1 - z) / z) <= 1: its largest magnitude is at most
    # 1 above the centred one
    assert np.all(np.abs(Xs).max(0) <= np.abs(dense).max(0) + 1 + 1e-9)
    # the share of zeros is weighted: the zeros of a column weigh little against its heavy nonzero rows
    weight = np.where(X[:, 0] != 0, 10.0, 1.0)
    _, weighted_shift, _ = standardize(X, weight, keep_sparse=True)
    assert weighted_shift[0] > 0 and weighted_shift[1] == 0


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


@pytest.mark.parametrize("how", ["standard", "standard_sparse", "unit", "small_spans", None])
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
