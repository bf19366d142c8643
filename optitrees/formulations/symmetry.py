"""Symmetry-breaking rows for the splits that carry no loss of their own (OCT-H, the oblique regression tree).

A split ``w x + b <= 0`` (left) and its mirror ``-w x - b + margin <= 0`` with the node's two subtrees swapped are
the same tree. :func:`add_mirror_symmetry` keeps one of each pair: the one that sends at least half the weight
reaching the node left; :func:`optitrees.trees.left_heavy` turns any start into that one.
"""

from __future__ import annotations

import numpy as np

from ..mip import VariableGroup

__all__ = ["add_mirror_symmetry"]


def add_mirror_symmetry(f, topology, z: VariableGroup, nodes, point_weight=None, used=None, set_name="T_mirror"):
    """Symmetry breaking at the branch ``nodes`` whose split carries no loss of its own (OCT-H, the oblique
    regression tree): at least half the points' weight reaching a node goes left.

    ``mirror[t]:  sum_i v_i sum_{s in L(t)} z[i, s]  -  sum_i v_i sum_{s in R(t)} z[i, s]  >=  -V (1 - d_t)``

    (``V = sum_i v_i``; without ``used`` (``d``) the right side is 0.) The split ``(-w_t, -b_t + margin)`` with
    ``t``'s two subtrees swapped is the same tree with its sides' weights swapped, of the same objective; where
    the mirrored intercept leaves its bound, the split sends every point to one side, the side it already holds
    by this row (or, with ``d``, it is the tree whose ``t`` sends every point left instead). Applied from the root
    down, a mirror at ``t`` changes no sum at another node of the rows, so every tree has one of equal objective
    that satisfies them all. A split *with* a loss (the loss-optimal trees' every layer) changes its loss when
    negated and has no such symmetry.
    """
    nodes = np.asarray(nodes)
    if nodes.size == 0:
        return None
    targets = f.sets[z.dims[1]]
    n, n_targets = z.shape
    v = np.ones(n) if point_weight is None else np.asarray(point_weight, float)
    side = topology.left_mask(targets, nodes).astype(float) - topology.right_mask(targets, nodes).astype(float)
    k = len(nodes)
    cols = np.broadcast_to(z.columns.reshape(1, -1), (k, n * n_targets))
    vals = (v[None, :, None] * side[:, None, :]).reshape(k, n * n_targets)
    f.add_set(set_name, nodes)
    terms = [(cols, vals)]
    total = float(v.sum())
    if used is not None:
        terms.append((used.columns[np.searchsorted(f.sets[used.dims[0]], nodes)], -total))
    return f.add_constraints("mirror", (set_name,), terms, lower=-total if used is not None else 0.0,
                             equation="symmetry: left weight >= right weight")
