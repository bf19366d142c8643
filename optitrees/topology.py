"""Complete binary trees of any depth: node ids, layers and descendant sets.

Nodes are numbered breadth-first from 1 as in seed 002, Ch. 3.2: the root is
node 1 and the children of node ``t`` are ``2t`` (left) and ``2t + 1`` (right).
A tree of depth ``d`` has the branch nodes ``T = {1, ..., 2^d - 1}``, branch
layers ``T_h = {2^(h-1), ..., 2^h - 1}`` for ``h = 1..d``, the last branching
layer ``T_d`` and the leaves ``{2^d, ..., 2^(d+1) - 1}`` (used by OCT, which
routes points to leaves; loss-optimal trees route to ``T_d``).

The sets ``T_d^l(t)`` and ``T_d^r(t)`` of the forwarding constraints (3.7) are
the nodes of a target layer that lie in the left / right subtree of ``t``; they
are exposed as boolean masks so that formulation blocks can build their rows
with numpy.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

__all__ = ["Topology"]


@dataclass(frozen=True)
class Topology:
    """Complete binary tree of branch nodes of depth ``depth``.

    Parameters
    ----------
    depth : int
        Number of branching layers ``d >= 1``.

    Examples
    --------
    >>> tree = Topology(2)
    >>> tree.branch_nodes.tolist(), tree.last_layer.tolist()
    ([1, 2, 3], [2, 3])
    >>> tree.left_mask(tree.last_layer)[0].tolist()  # T_2^l(1)
    [True, False]
    """

    depth: int

    def __post_init__(self):
        if not isinstance(self.depth, (int, np.integer)) or isinstance(self.depth, bool):
            raise ValueError(f"depth must be an integer >= 1, got {self.depth!r}")
        if self.depth < 1:
            raise ValueError(f"depth must be >= 1, got {self.depth}")

    # ------------------------------------------------------------------ sets
    @cached_property
    def branch_nodes(self) -> np.ndarray:
        """All branch nodes ``T`` in breadth-first order."""
        return np.arange(1, 2**self.depth)

    def layer(self, h: int) -> np.ndarray:
        """Branch nodes ``T_h`` of layer ``h`` (1-based, root layer is 1)."""
        if not 1 <= h <= self.depth + 1:
            raise ValueError(f"layer must be in 1..{self.depth + 1}, got {h}")
        return np.arange(2 ** (h - 1), 2**h)

    @cached_property
    def layers(self) -> tuple[np.ndarray, ...]:
        """``(T_1, ..., T_d)``."""
        return tuple(self.layer(h) for h in range(1, self.depth + 1))

    @cached_property
    def last_layer(self) -> np.ndarray:
        """Last branching layer ``T_d``."""
        return self.layer(self.depth)

    @cached_property
    def inner_nodes(self) -> np.ndarray:
        """Branch nodes that route points on: ``T \\ T_d``."""
        return np.arange(1, 2 ** (self.depth - 1))

    @cached_property
    def leaves(self) -> np.ndarray:
        """Leaves below the last branching layer (``2^d .. 2^(d+1) - 1``)."""
        return self.layer(self.depth + 1)

    def layer_of(self, nodes) -> np.ndarray:
        """Layer ``h`` (1-based) of each node id."""
        nodes = np.asarray(nodes)
        return np.floor(np.log2(nodes)).astype(int) + 1

    # ------------------------------------------------------ descendant sets
    def _descends(self, targets: np.ndarray, nodes: np.ndarray) -> np.ndarray:
        """mask[a, b] is True when ``targets[b]`` lies in the subtree of ``nodes[a]``."""
        targets = np.asarray(targets)
        nodes = np.asarray(nodes)
        shift = self.layer_of(targets)[None, :] - self.layer_of(nodes)[:, None]
        ancestor = targets[None, :] >> np.maximum(shift, 0)
        return (shift >= 0) & (ancestor == nodes[:, None])

    def descendant_mask(self, targets, nodes=None) -> np.ndarray:
        """``mask[a, b]`` is True when ``targets[b]`` is in ``T_d(nodes[a])``.

        With ``targets = last_layer`` this is the set ``T_d(t)`` of seed 002 used
        in (3.13) and (3.15); a node is its own descendant.
        """
        nodes = self.branch_nodes if nodes is None else nodes
        return self._descends(targets, nodes)

    def left_mask(self, targets, nodes=None) -> np.ndarray:
        """``mask[a, b]`` is True when ``targets[b]`` is in ``T_d^l(nodes[a])`` (3.7a)."""
        nodes = self.branch_nodes if nodes is None else np.asarray(nodes)
        return self._descends(targets, 2 * nodes)

    def right_mask(self, targets, nodes=None) -> np.ndarray:
        """``mask[a, b]`` is True when ``targets[b]`` is in ``T_d^r(nodes[a])`` (3.7b)."""
        nodes = self.branch_nodes if nodes is None else np.asarray(nodes)
        return self._descends(targets, 2 * nodes + 1)

    def ancestors(self, node: int) -> list[tuple[int, str]]:
        """Path from the root to ``node``: ``[(ancestor, "left" | "right"), ...]``."""
        path = []
        while node > 1:
            parent = node // 2
            path.append((parent, "left" if node % 2 == 0 else "right"))
            node = parent
        return path[::-1]

    def path_to(self, targets) -> np.ndarray:
        """Node visited at each layer on the way to each target.

        Returns an array of shape ``(len(targets), depth_of_target)`` whose
        column ``h - 1`` is the layer-``h`` ancestor (the last column is the
        target itself).
        """
        targets = np.asarray(targets)
        h = int(self.layer_of(targets).max()) if targets.size else 1
        shifts = np.arange(h - 1, -1, -1)
        return targets[:, None] >> shifts[None, :]
