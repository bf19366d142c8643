"""liblinear fits in threads give what they give alone: its coordinate order comes from the C library's one global
generator, so the library runs one liblinear fit at a time."""

from concurrent.futures import ThreadPoolExecutor

import numpy as np
from sklearn.svm import LinearSVC

from optitrees.algorithms.liblinear import liblinear_fit


def _data(seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(1500, 12))
    y = np.where(X[:, 0] - X[:, 1] + rng.normal(0, 1.5, 1500) > 0, 1, -1)
    return X, y


def _coef(seed):
    X, y = _data(seed)
    svm = LinearSVC(C=10.0, loss="hinge", dual=True, tol=1e-7, max_iter=3000, random_state=seed)
    return liblinear_fit(svm, X, y).coef_.copy()


def test_fits_in_threads_equal_fits_alone():
    alone = [_coef(seed) for seed in range(6)]
    for _ in range(2):
        with ThreadPoolExecutor(6) as threads:
            together = list(threads.map(_coef, range(6)))
        assert all(np.array_equal(a, b) for a, b in zip(alone, together))
