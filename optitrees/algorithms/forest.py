"""A random forest grown within a deadline (the population of TMO, the rule pool of rule sets)."""

from __future__ import annotations

from ..budget import expired

__all__ = ["grow_forest"]


def grow_forest(X, y, n_estimators: int, deadline=None, chunk: int = 10, sample_weight=None, regression=False,
                **params):
    """scikit-learn's ``RandomForestClassifier(n_estimators, **params)`` (``RandomForestRegressor`` with
    ``regression``) grown ``chunk`` trees at a time until it has ``n_estimators`` trees or ``deadline`` (a
    ``time.perf_counter()`` value) passes (``sample_weight``: each row's weight, as scikit-learn's ``fit`` takes
    it).

    Its first ``m`` trees are those of a forest of ``m`` trees (a warm start draws
    the seeds the full fit would), so a forest cut short is a smaller forest of
    the same seed, never a different one.

    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(60, 3)); y = (X[:, 0] > 0).astype(int)
    >>> len(grow_forest(X, y, 25, max_depth=2, random_state=0).estimators_)
    25
    """
    from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor

    kind = RandomForestRegressor if regression else RandomForestClassifier
    forest = kind(n_estimators=min(chunk, n_estimators), warm_start=True, **params)
    forest.fit(X, y, sample_weight)
    while forest.n_estimators < n_estimators and not expired(deadline):
        forest.n_estimators = min(forest.n_estimators + chunk, n_estimators)
        forest.fit(X, y, sample_weight)
    forest.warm_start = False
    return forest
