"""The tree's structure as labelled 0/1 arrays, for formulations written as expressions.

A tree formulation reads sets such as "the leaves under node ``t``", "the nodes above ``n``" or "the left child
of ``t``". Each function here gives that relation between two index sets of a
:class:`~optitrees.mip.Formulation` as a :class:`~optitrees.mip.expressions.Data` mask over the two sets, so a
sum over the relation is one product and one ``.sum``:

>>> import numpy as np
>>> from optitrees.mip import Formulation
>>> from optitrees.formulations import tree_sets
>>> f = Formulation()
>>> _ = f.add_set("T", [1, 2, 3]); _ = f.add_set("L", [4, 5, 6, 7]); _ = f.add_set("I", [0, 1])
>>> z = f.add_variables("z", ("I", "L"), 0, 1, domain="binary")
>>> under_left = tree_sets.subtree(f, "T", "L", tree_sets.Side.LEFT)       # L^l(t): leaves under t's left child
>>> under_left.values.astype(int).tolist()
[[1, 1, 0, 0], [1, 0, 0, 0], [0, 0, 1, 0]]
>>> print(f.add_constraints("goes_left", ((z * under_left).sum("L") <= 1).transpose("T", "I")).to_text(max_rows=2))
goes_left[1,0]: +1 z[0,4] +1 z[0,5] <= 1
goes_left[1,1]: +1 z[1,4] +1 z[1,5] <= 1
... 4 more rows

Node labels are breadth-first ids as in seed 002, Ch. 3.2 (:class:`~optitrees.topology.Topology`): the root is
``1`` and the children of ``t`` are ``2t`` (left) and ``2t + 1`` (right), so the leaves of a tree of depth ``d``
are ``2^d .. 2^(d+1) - 1``. The masks are those of the forwarding rows (3.7a-b, ``T_d^l(t)``, ``T_d^r(t)``) and
of the slack rows (3.13, 3.15, ``T_d(t)``).
"""

from __future__ import annotations

from enum import Enum

import numpy as np

from ..mip.expressions import Data

__all__ = ["Side", "subtree", "ancestors", "children", "parent", "node_labels"]


class Side(Enum):
    """Which part of a node's subtree: both children's subtrees and the node itself, or one child's subtree."""

    ANY = "any"
    LEFT = "left"
    RIGHT = "right"


def node_labels(f, name: str) -> np.ndarray:
    """The labels of set ``name`` of ``f`` as breadth-first node ids (integers >= 1); a clear error otherwise."""
    if name not in f.sets:
        raise KeyError(f"the formulation has no set {name!r}; its sets are {sorted(f.sets)}")
    labels = np.asarray(f.sets[name])
    if labels.dtype.kind not in "iu" or (labels.size and labels.min() < 1):
        raise ValueError(f"set {name!r} does not hold node ids: tree sets need integer breadth-first ids >= 1 "
                         f"(root 1, children 2t and 2t + 1), got {labels[:5].tolist()}")
    return labels.astype(np.int64)


def _layer(nodes: np.ndarray) -> np.ndarray:
    """Depth of each node id (root 0): the position of its highest bit."""
    layer = np.zeros(nodes.shape, np.int64)
    rest = nodes.copy()
    while np.any(rest > 1):
        up = rest > 1
        layer[up] += 1
        rest[up] >>= 1
    return layer


def _below(tops: np.ndarray, members: np.ndarray, strict: bool) -> np.ndarray:
    """``mask[a, b]`` is True when ``members[b]`` lies in the subtree rooted at ``tops[a]`` (below it only when
    ``strict``)."""
    shift = _layer(members)[None, :] - _layer(tops)[:, None]
    ancestor = members[None, :] >> np.maximum(shift, 0)
    return ((shift > 0) if strict else (shift >= 0)) & (ancestor == tops[:, None])


def subtree(f, nodes: str, members: str, side: Side = Side.ANY) -> Data:
    """``mask[t, m]``: node ``m`` (of set ``members``) lies in the subtree of ``t`` (of set ``nodes``).

    ``Side.ANY`` is the whole subtree, ``t`` itself included (``T_d(t)`` of 3.13 with ``members`` the last
    branching layer, the leaves under ``t`` with ``members`` the leaves); ``Side.LEFT`` / ``Side.RIGHT`` the
    subtree of its left / right child (``T_d^l(t)``, ``T_d^r(t)`` of 3.7a-b).
    """
    tops, below = node_labels(f, nodes), node_labels(f, members)
    side = Side(side)
    if side is Side.ANY:
        mask = _below(tops, below, strict=False)
    else:
        mask = _below(2 * tops + (side is Side.RIGHT), below, strict=False)
    return Data(mask, (nodes, members))


def ancestors(f, nodes: str, members: str) -> Data:
    """``mask[n, m]``: node ``m`` (of set ``members``) lies strictly above node ``n`` (of set ``nodes``), on its path
    from the root."""
    return Data(_below(node_labels(f, members), node_labels(f, nodes), strict=True).T, (nodes, members))


def children(f, nodes: str, members: str, side: Side = Side.ANY) -> Data:
    """``mask[t, m]``: node ``m`` (of set ``members``) is a child of ``t`` (of set ``nodes``): either child with
    ``Side.ANY``, the left (``2t``) or the right (``2t + 1``) one otherwise."""
    tops, below = node_labels(f, nodes), node_labels(f, members)
    side = Side(side)
    is_child = (below[None, :] >> 1) == tops[:, None]
    if side is not Side.ANY:
        is_child &= (below[None, :] & 1) == (side is Side.RIGHT)
    return Data(is_child, (nodes, members))


def parent(f, nodes: str, members: str) -> Data:
    """``mask[n, m]``: node ``m`` (of set ``members``) is the parent ``n // 2`` of node ``n`` (of set ``nodes``)."""
    below, tops = node_labels(f, nodes), node_labels(f, members)
    return Data((below[:, None] >> 1) == tops[None, :], (nodes, members))
