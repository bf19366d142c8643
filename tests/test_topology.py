import numpy as np
import pytest

from optitrees import Topology


def test_depth_three_sets():
    t = Topology(3)
    assert t.branch_nodes.tolist() == list(range(1, 8))
    assert [layer.tolist() for layer in t.layers] == [[1], [2, 3], [4, 5, 6, 7]]
    assert t.last_layer.tolist() == [4, 5, 6, 7]
    assert t.inner_nodes.tolist() == [1, 2, 3]
    assert t.leaves.tolist() == list(range(8, 16))


def test_left_right_descendants_of_last_layer():
    t = Topology(3)
    last = t.last_layer
    left = t.left_mask(last)
    right = t.right_mask(last)
    # T_d^l(1) = {4, 5}, T_d^r(1) = {6, 7}; T_d^l(3) = {6}, T_d^r(3) = {7}
    assert last[left[0]].tolist() == [4, 5] and last[right[0]].tolist() == [6, 7]
    assert last[left[2]].tolist() == [6] and last[right[2]].tolist() == [7]
    # last-layer nodes have no descendants in the last layer other than themselves
    assert not left[3:].any() and not right[3:].any()
    below = t.descendant_mask(last)
    assert below[0].all() and below[3].tolist() == [True, False, False, False]
    assert np.array_equal(left | right, below & ~np.eye(7, 4, k=-3, dtype=bool))


def test_deep_tree_partition_property():
    t = Topology(6)
    last = t.last_layer
    left, right = t.left_mask(last), t.right_mask(last)
    assert not (left & right).any()
    inner = t.inner_nodes - 1
    assert ((left | right)[inner].sum(axis=1) == 2 ** (6 - t.layer_of(t.inner_nodes))).all()


def test_paths_and_ancestors():
    t = Topology(3)
    assert t.ancestors(6) == [(1, "right"), (3, "left")]
    assert t.path_to([4, 7]).tolist() == [[1, 2, 4], [1, 3, 7]]


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "2"])
def test_bad_depth(bad):
    with pytest.raises(ValueError, match="depth"):
        Topology(bad)
