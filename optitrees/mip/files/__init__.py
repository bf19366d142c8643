"""``.lp`` and ``.mps`` files written straight from a formulation's arrays.

:func:`write` picks the format by extension (:class:`FileFormat`) and the writer by what is installed
(:class:`FileWriter`): the compiled writer (numba and polars, ``pip install "optitrees[fast]"``), else HiGHS's
own writer (:mod:`~optitrees.mip.files.highs_writer`: the same model, about ten times slower). The compiled
writers (:mod:`~optitrees.mip.files.compiled`) share :mod:`~optitrees.mip.files.pieces`: names
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

from .labels import file_labels

__all__ = ["FileFormat", "FileWriter", "write", "file_labels", "compiled_writer_available"]


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


class FileWriter(enum.Enum):
    """Who writes the file: the compiled writer when its packages are installed (``AUTO``), or either one."""

    AUTO = "auto"
    COMPILED = "compiled"
    HIGHS = "highs"


def compiled_writer_available() -> bool:
    """Whether numba and polars, the compiled writer's packages, can be imported."""
    try:
        from . import compiled  # noqa: F401
    except ImportError:
        return False
    return True


def _check_writable(path: Path) -> None:
    """Raise an ``OSError`` naming ``path`` unless a file can be created there."""
    if path.is_dir():
        raise IsADirectoryError(f"cannot write the model to {path}: it is a directory")
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise FileNotFoundError(f"cannot write the model to {path}: directory {parent} does not exist")
    if not os.access(parent, os.W_OK):
        raise PermissionError(f"cannot write the model to {path}: directory {parent} is not writable")


def write(f, path, writer: FileWriter = FileWriter.AUTO) -> Path:
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

    Without the compiled writer's packages (``writer=FileWriter.AUTO``) HiGHS writes the same model in its own
    layout (:mod:`~optitrees.mip.files.highs_writer`).

    Raises
    ------
    ValueError
        The extension is neither ``.lp`` nor ``.mps``, or the formulation has no variable.
    ImportError
        ``writer=FileWriter.COMPILED`` without numba and polars.
    OSError
        The file cannot be created (missing directory, a directory, no permission).
    """
    path = Path(path)
    file_format = FileFormat.of(path)
    _check_writable(path)
    if f.n_cols == 0:
        raise ValueError(f"cannot write {f.name!r} to {path}: the formulation has no variables")
    writer = FileWriter(writer)
    if writer is FileWriter.HIGHS or (writer is FileWriter.AUTO and not compiled_writer_available()):
        from .highs_writer import write_through_highs

        return write_through_highs(f, path)
    from .compiled import write_compiled

    return write_compiled(f, path, file_format is FileFormat.LP)
