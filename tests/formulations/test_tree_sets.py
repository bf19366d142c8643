"""The tree's structure as labelled masks (``optitrees.formulations.tree_sets``): each relation checked against a
walk up the breadth-first ids, node by node, and a clear error for sets that are not node ids."""

import numpy as np
import pytest

from optitrees.formulations import tree_sets
from optitrees.formulations.tree_sets import Side
from optitrees.mip import Formulation
from optitrees.topology import Topology


def _path_up(node):
    """Every node above ``node``, by halving."""
    path = []
    while node > 1:
        node //= 2
        path.append(node)
    return path


def _formulation(depth=3):
    f = Formulation()
    f.add_set("N", np.arange(1, 2 ** (depth + 1)))        # every node, leaves included
    f.add_set("M", np.arange(1, 2 ** (depth + 1)))
    return f


@pytest.mark.parametrize("side", list(Side))
def test_subtree_is_every_node_whose_walk_up_meets_the_node_or_the_chosen_child(side):
    f = _formulation()
    mask = tree_sets.subtree(f, "N", "M", side)
    assert mask.dims == ("N", "M")
    for a, t in enumerate(f.sets["N"]):
        top = {Side.ANY: t, Side.LEFT: 2 * t, Side.RIGHT: 2 * t + 1}[side]
        expected = [m == top or top in _path_up(m) for m in f.sets["M"]]
        assert mask.values[a].astype(bool).tolist() == expected


def test_subtree_equals_the_forwarding_sets_of_the_topology():
    topo = Topology(3)
    f = Formulation()
    f.add_set("T", topo.branch_nodes)
    f.add_set("L", topo.last_layer)
    assert np.array_equal(tree_sets.subtree(f, "T", "L", Side.LEFT).values, topo.left_mask(topo.last_layer))
    assert np.array_equal(tree_sets.subtree(f, "T", "L", Side.RIGHT).values, topo.right_mask(topo.last_layer))
    assert np.array_equal(tree_sets.subtree(f, "T", "L").values, topo.descendant_mask(topo.last_layer))


def test_ancestors_children_and_parent_by_walking_up():
    f = _formulation()
    up = tree_sets.ancestors(f, "N", "M").values.astype(bool)
    both = tree_sets.children(f, "N", "M").values.astype(bool)
    left = tree_sets.children(f, "N", "M", Side.LEFT).values.astype(bool)
    right = tree_sets.children(f, "N", "M", Side.RIGHT).values.astype(bool)
    parent = tree_sets.parent(f, "N", "M").values.astype(bool)
    for a, n in enumerate(f.sets["N"]):
        assert up[a].tolist() == [m in _path_up(n) for m in f.sets["M"]]
        assert left[a].tolist() == [m == 2 * n for m in f.sets["M"]]
        assert right[a].tolist() == [m == 2 * n + 1 for m in f.sets["M"]]
        assert both[a].tolist() == (left[a] | right[a]).tolist()
        assert parent[a].tolist() == [m == n // 2 for m in f.sets["M"]]
    assert up[0].sum() == 0 and parent[0].sum() == 0                  # the root has none above it


def test_masks_between_sets_of_different_sizes_and_orders():
    f = Formulation()
    f.add_set("T", [3, 1])
    f.add_set("L", [7, 4, 5, 6])
    assert tree_sets.subtree(f, "T", "L").values.astype(int).tolist() == [[1, 0, 0, 1], [1, 1, 1, 1]]
    assert tree_sets.ancestors(f, "L", "T").values.astype(int).tolist() == [[1, 1], [0, 1], [0, 1], [1, 1]]


def test_a_sum_over_a_subtree_builds_the_expected_rows():
    f = Formulation()
    f.add_set("T", [1, 2, 3]), f.add_set("L", [4, 5, 6, 7]), f.add_set("I", [0])
    z = f.add_variables("z", ("I", "L"), 0, 1, domain="binary")
    group = f.add_constraints("right", ((z * tree_sets.subtree(f, "T", "L", Side.RIGHT)).sum("L") <= 1)
                              .transpose("T", "I"))
    assert group.to_text().splitlines() == ["right[1,0]: +1 z[0,6] +1 z[0,7] <= 1", "right[2,0]: +1 z[0,5] <= 1",
                                            "right[3,0]: +1 z[0,7] <= 1"]


def test_sets_that_are_not_node_ids_are_refused_by_name():
    f = Formulation()
    f.add_set("J", ["age", "income"]), f.add_set("T", [1, 2, 3]), f.add_set("Z", [0, 1])
    with pytest.raises(ValueError, match="set 'J' does not hold node ids"):
        tree_sets.subtree(f, "T", "J")
    with pytest.raises(ValueError, match="set 'Z' does not hold node ids"):
        tree_sets.ancestors(f, "Z", "T")
    with pytest.raises(KeyError, match="no set 'Q'"):
        tree_sets.children(f, "Q", "T")
