import numpy as np
import pytest


@pytest.fixture
def tiny_xor():
    """8 points in 2-D whose labels need two levels of splits."""
    X = np.array([[-1.0, -0.8], [-0.7, -1.2], [1.1, 0.9], [0.8, 1.3],
                  [-1.0, 1.0], [-0.9, 0.7], [1.2, -0.8], [0.9, -1.1]])
    y = np.array([1, 1, 1, 1, -1, -1, -1, -1])
    return X, y


@pytest.fixture
def small_data():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(30, 3))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] > 0.2, 1, -1)
    y[:3] *= -1
    return X, y
