"""The compiled writer: a formulation's arrays to ``.lp`` / ``.mps`` text by numba passes over the pieces of a
pool, the numbers formatted by polars (the ``fast`` extra).

:class:`FileModel` holds the arrays a writer reads and the ids of the column and row names in the pool;
:func:`write_compiled` runs the LP or MPS writer on it.
"""

from __future__ import annotations

from pathlib import Path

from .lp import write_lp
from .mps import write_mps
from .names import names
from .pieces import Pool, Writer

__all__ = ["FileModel", "write_compiled"]


class FileModel:
    """The arrays a writer reads from a formulation ``f``, and the ids of its column and row names (with their
    leading space) in ``pool``."""

    def __init__(self, f, pool: Pool):
        self.f = f
        self.n_cols, self.n_rows = f.n_cols, f.n_rows
        columns, rows = names(f, list(f.variables.values()), list(f.constraints.values()))
        self.col_first = pool.add(*columns)
        self.row_first = pool.add(*rows)
        self.col_lower, self.col_upper = f.col_lower, f.col_upper
        self.row_lower, self.row_upper = f.row_lower, f.row_upper
        self.integer, self.cost, self.quadratic = f.integrality, f.cost, f.quadratic
        self.A = f.matrix


def write_compiled(f, path: Path, lp: bool) -> Path:
    """Write ``f`` to ``path`` as LP (``lp``) or MPS text with the compiled passes."""
    pool = Pool()
    model = FileModel(f, pool)
    with open(path, "wb") as handle, Writer(handle) as out:
        (write_lp if lp else write_mps)(model, pool, out)
    return path
