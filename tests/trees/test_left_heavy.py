"""left_heavy: the same routing of every training point, more weight left at every split."""

import numpy as np
import pytest

from optitrees.trees import from_complete, left_heavy


@pytest.mark.parametrize("seed", range(5))
def test_routing_and_predictions_are_kept_and_every_split_is_left_heavy(seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(40, 3))
    weight = rng.uniform(0.1, 3.0, size=40)
    tree, _ = from_complete(rng.normal(size=(3, 3)), rng.normal(size=3), leaf_labels=np.array([0, 1, 1, 0]))
    mirrored = left_heavy(tree, X, weight)
    assert np.array_equal(mirrored.apply(X), tree.apply(X))
    assert np.array_equal(mirrored.predict(X), tree.predict(X))
    path = mirrored.decision_path(X)
    for node in np.flatnonzero(~mirrored.is_leaf):
        reach = (path == node).any(axis=1)
        went_left = (path == mirrored.children_left[node]).any(axis=1)
        assert weight[reach & went_left].sum() >= weight[reach & ~went_left].sum()
