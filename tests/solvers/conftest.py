"""Fixtures shared by the solver tests."""

import numpy as np
import pytest


@pytest.fixture(scope="module")
def card_data():
    """A risk score's data: 150 rows of five 0/1 features, labels in {-1, +1} from four of them."""
    rng = np.random.default_rng(2)
    X = (rng.random((150, 5)) < 0.5).astype(float)
    y = np.where(X @ np.array([1.5, -1.0, 1.0, 0.0, 0.5]) - 1 + rng.logistic(size=150) > 0, 1.0, -1.0)
    return X, y
