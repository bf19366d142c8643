"""A study's results file: one schema for every model, rows appended whole under a lock, a cut last line found
and dropped, rows told apart by the key of everything that decided them."""

from __future__ import annotations

import csv
import io
import math
import os
import stat
from pathlib import Path

import pandas as pd

from ..exceptions import warn

__all__ = ["COLUMNS", "ResultsFile", "ResultsFileError", "StudyLockedError"]

#: Every column of a results file, in this order, whatever the model (a value a model has not is left empty):
#: the fit's identity (``fit_key``: a hash of everything that decides the row, :meth:`Task.fit_key`), its split,
#: its search, its test scores, and what the fit reported.
COLUMNS = ["dataset", "seed", "model", "fit_key", "train_rows", "test_rows", "params", "cv_score", "accuracy",
           "balanced_accuracy", "auc", "r2", "rmse", "features_per_split", "objective", "gap", "outcome",
           "fit_seconds", "search_seconds"]


class ResultsFileError(ValueError):
    """A results file this study cannot resume: another layout, or a row that is not whole."""


class StudyLockedError(RuntimeError):
    """Another study is writing the same results file."""


def _lock(fd: int, path: Path) -> None:
    """An exclusive lock of the open file ``fd``, or :class:`StudyLockedError` (never a wait)."""
    try:
        try:
            import fcntl
        except ImportError:                    # no fcntl (Windows): msvcrt's lock of the file's first byte
            import msvcrt

            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        else:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:                            # BlockingIOError (fcntl) and msvcrt's error are both OSErrors
        raise StudyLockedError(f"another study is writing {path}; wait for it, or give this one another results "
                               "file") from None


def _cell(value) -> str:
    """A value as its CSV text: floats as their shortest round-trip digits, missing values empty."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return repr(float(value)) if isinstance(value, float) else str(value)


def _table(data: bytes) -> pd.DataFrame:
    """The rows of a results file's bytes (keys and texts as text; only an empty cell is missing)."""
    # names and keys as their text: a model labelled "1e3" and one labelled "1000" are two models, not 1000.0
    text = {"dataset": str, "model": str, "fit_key": str, "params": str, "outcome": str}
    return pd.read_csv(io.BytesIO(data), dtype=text, keep_default_na=False, na_values=[""])


class ResultsFile:
    """The results file of one running study, held under an exclusive lock from :meth:`open` to :meth:`close`.

    Each row is written as one whole line by one ``write`` on a file opened for appending, then flushed to disk,
    so a killed study leaves at most its last line cut; :meth:`open` finds such a line (no line end) and drops it
    with a warning. A row with another number of fields, or a header of another layout, is an error.
    """

    def __init__(self, path):
        self.path = Path(path)
        self._fd = None

    def open(self) -> pd.DataFrame:
        """Lock the file (creating it with its header if new) and return the rows already in it."""
        if not self.path.parent.exists():
            raise FileNotFoundError(f"cannot write {self.path}: its folder {self.path.parent} does not exist")
        if self.path.exists() and not self.path.is_file():
            raise ResultsFileError(f"{self.path} is not a regular file (a FIFO, a device or a folder): a study writes "
                                   "its results to a file")
        # O_NONBLOCK: a FIFO put in the file's place meanwhile cannot make the open wait for a writer
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_NONBLOCK, 0o644)
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise ResultsFileError(f"{self.path} is not a regular file: a study writes its results to a file")
            os.set_blocking(fd, True)
            _lock(fd, self.path)
            rows = self._read_and_mend(fd)
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd
        return rows

    def _read_and_mend(self, fd: int) -> pd.DataFrame:
        with open(self.path, "rb") as src:
            data = src.read()
        if data and not data.endswith(b"\n"):
            end = data.rfind(b"\n") + 1
            warn(f"{self.path}: its last line was cut (a study stopped while writing it); the line is "
                          "dropped and its fit runs again", UserWarning)
            os.ftruncate(fd, end)
            data = data[:end]
        if not data:
            self._write_line(fd, COLUMNS)
            return pd.DataFrame(columns=COLUMNS)
        lines = list(csv.reader(io.StringIO(data.decode("utf-8", errors="replace"))))
        if lines[0] != COLUMNS:
            raise ResultsFileError(f"{self.path} has the columns {lines[0]}, not the ones this optitrees writes "
                                   f"({', '.join(COLUMNS)}); give the study another results file")
        for number, line in enumerate(lines[1:], start=2):
            if len(line) != len(COLUMNS):
                raise ResultsFileError(f"{self.path}, line {number}: {len(line)} fields, not {len(COLUMNS)}: the "
                                       "file was changed by another program; give the study another results file")
        return _table(data)

    @staticmethod
    def _write_line(fd: int, cells) -> None:
        buffer = io.StringIO()
        csv.writer(buffer, lineterminator="\n").writerow(cells)
        line = buffer.getvalue().encode()
        written = os.write(fd, line)
        if written != len(line):               # a full disk: leave no partial row behind
            raise OSError(f"wrote {written} of {len(line)} bytes of a results row")
        os.fsync(fd)

    def append(self, row: dict) -> None:
        """Write one result row (its keys among :data:`COLUMNS`) as one whole line."""
        unknown = set(row) - set(COLUMNS)
        if unknown:
            raise ValueError(f"result columns {sorted(unknown)} are not in the results schema")
        self._write_line(self._fd, [_cell(row.get(c)) for c in COLUMNS])

    def rows(self) -> pd.DataFrame:
        """Every row of the (open) file, as written."""
        with open(self.path, "rb") as src:
            return _table(src.read())

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)                 # closing releases the lock
            self._fd = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
