"""``.lp`` and ``.mps`` files written straight from a formulation's arrays.

:func:`write` picks the format by extension (:class:`FileFormat`). Both
writers share :mod:`~optitrees.mip.files.pieces`: names
(:mod:`~optitrees.mip.files.names`) and numbers
(:mod:`~optitrees.mip.files.numbers`) formatted once into a pool of byte strings,
sections assembled as arrays of piece ids, and the two sections with one entry
per nonzero (MPS ``COLUMNS``, LP ``Subject To``) copied out by a compiled pass
over the sparse matrix, its coefficients' text from
:mod:`~optitrees.mip.files.coefficients`.
"""

from __future__ import annotations

import enum
import os
from pathlib import Path

from .lp import write_lp
from .mps import write_mps
from .names import file_labels, names
from .pieces import Pool, Writer

__all__ = ["FileFormat", "write", "file_labels", "FileModel"]


class FileFormat(enum.Enum):
    """The two text formats a formulation is written in, by file extension."""

    LP = ".lp"
    MPS = ".mps"

    @classmethod
    def of(cls, path: Path) -> "FileFormat":
        """The format ``path``'s extension names (``ValueError`` for any other)."""
        for member in cls:
            if path.suffix.lower() == member.value:
                return member
        raise ValueError(f"unsupported file type {path.suffix!r} for {path}; use .lp or .mps")


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


def _check_writable(path: Path) -> None:
    """Raise an ``OSError`` naming ``path`` unless a file can be created there."""
    if path.is_dir():
        raise IsADirectoryError(f"cannot write the model to {path}: it is a directory")
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise FileNotFoundError(f"cannot write the model to {path}: directory {parent} does not exist")
    if not os.access(parent, os.W_OK):
        raise PermissionError(f"cannot write the model to {path}: directory {parent} is not writable")


def write(f, path) -> Path:
    """Write ``f`` to ``.lp`` or ``.mps`` (by extension) with readable, feature-named columns.

    Names are those of :meth:`~optitrees.mip.Formulation.column_names` and
    ``row_names``; an index set whose labels are not safe in a name (a space,
    ``-``, ``+`` ...) is written through :func:`~optitrees.mip.safe_labels`
    (the library's formulations use safe labels already). Values are exact:
    the shortest decimal that reads back as the same double. Quadratic
    objectives are written too (MPS ``QUADOBJ``, LP ``[ ... ] / 2``), so the
    file can be solved by an MIQP solver. The LP format has no ranges: a row
    with two finite, different bounds is written as a ``>=`` row ``name lo``
    and a ``<=`` row ``name up``. Every column is declared in both formats,
    one in no row and not in the objective too.

    Raises
    ------
    ValueError
        The extension is neither ``.lp`` nor ``.mps``, or the formulation has no variable.
    OSError
        The file cannot be created (missing directory, a directory, no permission).
    """
    path = Path(path)
    file_format = FileFormat.of(path)
    _check_writable(path)
    if f.n_cols == 0:
        raise ValueError(f"cannot write {f.name!r} to {path}: the formulation has no variables")
    pool = Pool()
    model = FileModel(f, pool)
    with open(path, "wb") as handle, Writer(handle) as out:
        (write_lp if file_format is FileFormat.LP else write_mps)(model, pool, out)
    return path
