"""Named groups of a formulation: a block of variables, a block of constraint rows."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["VariableGroup", "ConstraintGroup", "DOMAINS"]

DOMAINS = ("continuous", "binary", "integer")


@dataclass
class VariableGroup:
    """A named array of variables: columns ``start .. start + size - 1`` in C order.

    Attributes
    ----------
    name : str
        Component name (``z``, ``w`` ...).
    dims : tuple of str
        Names of the index sets (keys of :attr:`Formulation.sets`).
    shape : tuple of int
        Sizes of those sets.
    start : int
        First column.
    domain : {"continuous", "binary", "integer"}
    lower, upper : ndarray of shape (size,)
        Bounds (``-inf`` / ``inf`` for none).
    """

    name: str
    dims: tuple[str, ...]
    shape: tuple[int, ...]
    start: int
    domain: str
    lower: np.ndarray
    upper: np.ndarray

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def columns(self) -> np.ndarray:
        """Column index of every variable, shaped like the group."""
        return np.arange(self.start, self.start + self.size).reshape(self.shape)


@dataclass
class ConstraintGroup:
    """A named block of rows ``lower <= A[rows] x <= upper``.

    Rows are numbered ``start .. start + size - 1`` in C order over ``dims``; the
    coefficients are kept as COO triplets with row indices local to the group
    and global column indices.
    """

    name: str
    dims: tuple[str, ...]
    shape: tuple[int, ...]
    start: int
    rows: np.ndarray
    cols: np.ndarray
    vals: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    equation: str = ""

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))
