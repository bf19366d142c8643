"""Dataset loaders: scikit-learn's bundled sets by name, CSV files, LIBSVM files and manifest directories.

Every loader returns ``(X, y)``: the features as a DataFrame (named columns)
and the labels (or a regression target) as a Series. A bad file gives a
:class:`DataFileError` (a ``ValueError``) that names the file and the line or
column at fault: a missing target column, a ragged row, a non-numeric column
without an encoding, an empty file, a malformed LIBSVM entry.

>>> X, y = load("iris")
>>> X.shape, sorted(set(y))
((150, 4), ['setosa', 'versicolor', 'virginica'])
"""

from __future__ import annotations

import csv as _csv
import gzip
import json
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = ["load", "select", "load_builtin", "load_csv", "read_csv_frame", "load_libsvm", "load_manifest",
           "manifest_entries", "BUILTIN", "DataFileError"]

#: scikit-learn's bundled datasets (no download): name -> (loader, name of the label column, labels by name?)
_BUILTIN = {"breast_cancer": ("load_breast_cancer", "diagnosis", True), "iris": ("load_iris", "species", True),
            "wine": ("load_wine", "cultivar", True), "digits": ("load_digits", "digit", False),
            "diabetes": ("load_diabetes", "progression", False)}
BUILTIN = tuple(_BUILTIN)


class DataFileError(ValueError):
    """A data file that cannot be read as a dataset; the message names the file and the line or column."""


def load(name=None, csv=None, target=None, *, libsvm=None, manifest=None, one_hot=False):
    """Features and labels as ``(DataFrame, Series)`` from one source.

    Parameters
    ----------
    name : str, optional
        A scikit-learn bundled dataset (:data:`BUILTIN`), or with ``manifest`` an entry of the manifest.
    csv : str or Path, optional
        A CSV file with a header row (``.gz`` allowed), see :func:`load_csv`.
    target : str, optional
        The label column of the CSV file (default: the last column).
    libsvm : str or Path, optional
        A LIBSVM file, plain or gzip, see :func:`load_libsvm`.
    manifest : str or Path, optional
        A directory holding ``MANIFEST.json`` (or the manifest file itself), see :func:`load_manifest`.
    one_hot : bool, default=False
        One-hot encode non-numeric feature columns (otherwise they are an error).
    """
    given = [s for s in (name, csv, libsvm) if s is not None]
    if len(given) != 1:
        raise ValueError("give exactly one of a dataset name, a CSV path or a LIBSVM path")
    if manifest is not None:
        if name is None:
            raise ValueError("a manifest needs the name of one of its datasets")
        return load_manifest(manifest, name, one_hot=one_hot)
    if name is not None:
        return load_builtin(name)
    if csv is not None:
        return load_csv(csv, target=target, one_hot=one_hot)
    return load_libsvm(libsvm)


def select(X: pd.DataFrame, y: pd.Series, positive=None, drop_missing=False):
    """``(X, y)`` with the rows that miss a feature dropped (``drop_missing``) and, with ``positive`` (labels,
    compared as text so ``"2"`` matches 2), a binary target: 1 for those labels, 0 for the others.

    Raises
    ------
    DataFileError
        ``positive`` names no label of ``y``, or no row is complete.
    """
    if drop_missing:
        complete = X.notna().all(axis=1).to_numpy()
        if not complete.any():
            raise DataFileError("every row misses a feature: --drop-missing would leave no data")
        X, y = X[complete], y[complete]
    if positive is not None:
        wanted = {str(p) for p in positive}
        labels = y.astype(str)
        if not labels.isin(wanted).any():
            raise DataFileError(f"no label is one of {sorted(wanted)}; labels are {sorted(labels.unique())[:10]}")
        y = labels.isin(wanted).astype(int)
    return X, y


def load_builtin(name: str):
    """A scikit-learn bundled dataset by name (:data:`BUILTIN`); class labels by their names where the set has
    them (breast cancer: "malignant" / "benign")."""
    if name not in _BUILTIN:
        raise ValueError(f"unknown dataset {name!r}; built-ins: {', '.join(BUILTIN)}")
    from sklearn import datasets as sk

    loader, label, named = _BUILTIN[name]
    data = getattr(sk, loader)(as_frame=True)
    y = data.target.map(dict(enumerate(data.target_names))) if named else data.target
    return data.data, y.rename(label)


def _open_text(path: Path):
    return gzip.open(path, "rt", newline="") if path.suffix == ".gz" else open(path, newline="")


def _existing(path) -> Path:
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no such file: {path}")
    if path.is_dir():
        raise DataFileError(f"{path} is a directory, not a data file")
    return path


def _ragged_line(path: Path, n_fields: int):
    """The first line (1-based) whose number of fields is not the header's, or ``None``."""
    with _open_text(path) as f:
        for number, row in enumerate(_csv.reader(f), start=1):
            if row and len(row) != n_fields:
                return number, len(row)
    return None


def load_csv(path, target=None, one_hot=False):
    """A CSV file with a header row (``.gz`` allowed): the ``target`` column (default: the last) as labels, the
    other columns as features.

    Raises
    ------
    FileNotFoundError
        No such file.
    DataFileError
        An empty file, no data rows, a row with more or fewer fields than the header (its line), a missing
        target column, a target with missing values (the first line), or a non-numeric feature column when
        ``one_hot`` is false (its name).
    """
    path = _existing(path)
    frame = read_csv_frame(path)
    target = frame.columns[-1] if target is None else target
    if target not in frame.columns:
        raise DataFileError(f"{path} has no column {target!r}; its columns: {', '.join(map(str, frame.columns))}")
    y = frame[target]
    if y.isna().any():
        first = int(np.flatnonzero(y.isna().to_numpy())[0])
        raise DataFileError(f"{path}, line {first + 2}: the target column {target!r} is empty")
    return _features(frame.drop(columns=[target]), path, one_hot), y


def read_csv_frame(path) -> pd.DataFrame:
    """A CSV file with a header row as a DataFrame, every column kept.

    Raises
    ------
    FileNotFoundError
        No such file.
    DataFileError
        An empty file, no data rows, not text, or a row with more or fewer fields than the header (its line).
    """
    path = _existing(path)
    try:
        frame = pd.read_csv(path)
    except pd.errors.EmptyDataError:
        raise DataFileError(f"{path} is empty") from None
    except pd.errors.ParserError as exc:
        raise DataFileError(f"{path}: {str(exc).strip().removeprefix('Error tokenizing data. C error: ')}") from None
    except UnicodeDecodeError as exc:
        raise DataFileError(f"{path} is not text (UTF-8): byte {exc.start} cannot be read") from None
    if frame.empty:
        raise DataFileError(f"{path} has a header but no data rows")
    if frame.isna().to_numpy().any():                 # short rows are padded with NaN by pandas: find them
        ragged = _ragged_line(path, frame.shape[1])
        if ragged is not None:
            raise DataFileError(f"{path}, line {ragged[0]}: {ragged[1]} fields where the header has {frame.shape[1]}")
    return frame


def _features(X: pd.DataFrame, source, one_hot: bool) -> pd.DataFrame:
    text = [c for c in X.columns if not (pd.api.types.is_numeric_dtype(X[c]) or pd.api.types.is_bool_dtype(X[c]))]
    if text and not one_hot:
        column = text[0]
        sample = X[column].dropna().iloc[0] if X[column].notna().any() else ""
        raise DataFileError(f"{source}: column {column!r} is not numeric (e.g. {sample!r}); encode it "
                            f"(one_hot=True, --one-hot on the command line) or drop it"
                            + (f" ({len(text) - 1} more such columns)" if len(text) > 1 else ""))
    if not text:
        return X
    encoded = pd.get_dummies(X, columns=text, dtype=float)
    # what each new column means, for SQL over the raw table (the estimator's ``feature_encoding_``)
    encoded.attrs["one_hot"] = {f"{c}_{v}": (str(c), str(v)) for c in text for v in X[c].dropna().unique()
                                if f"{c}_{v}" in encoded.columns}
    return encoded


def load_libsvm(path, n_features=None):
    """A LIBSVM / svmlight file (``label index:value ...``, plain or ``.gz``) as dense features ``x1 ... xp``.

    Raises
    ------
    FileNotFoundError
        No such file.
    DataFileError
        An empty file or a malformed line (its number and text).
    """
    from sklearn.datasets import load_svmlight_file

    path = _existing(path)
    try:
        X, y = load_svmlight_file(str(path), n_features=n_features)
    except (ValueError, RuntimeError) as exc:
        bad = _bad_libsvm_line(path)
        if bad is not None:
            raise DataFileError(f"{path}, line {bad[0]}: not 'label index:value ...': {bad[1][:80]!r}") from None
        raise DataFileError(f"{path}: {exc}") from None
    if X.shape[0] == 0:
        raise DataFileError(f"{path} is empty")
    columns = [f"x{j + 1}" for j in range(X.shape[1])]
    labels = pd.Series(y, name="target")
    if np.all(labels == np.round(labels)):
        labels = labels.astype(np.int64)
    return pd.DataFrame(X.toarray(), columns=columns), labels


def _bad_libsvm_line(path: Path):
    """The first malformed line of a LIBSVM file as ``(number, text)``, or ``None``."""
    with _open_text(path) as f:
        for number, line in enumerate(f, start=1):
            body = line.split("#", 1)[0].split()
            if not body:
                continue
            try:
                float(body[0])
                for token in body[1:]:
                    index, _, value = token.partition(":")
                    if index == "qid":
                        continue
                    if int(index) < 0 or not value:
                        raise ValueError
                    float(value)
            except ValueError:
                return number, line.strip()
    return None


def _manifest_path(manifest) -> Path:
    path = Path(manifest)
    if path.is_dir():
        path = path / "MANIFEST.json"
    if not path.exists():
        raise FileNotFoundError(f"no manifest: {path}")
    return path


def manifest_entries(manifest) -> list[dict]:
    """The entries of a manifest (a list of ``{"name", "file", "task", ...}``)."""
    path = _manifest_path(manifest)
    try:
        entries = json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise DataFileError(f"{path} is not JSON: {exc.msg} at line {exc.lineno}") from None
    if not isinstance(entries, list) or not all(isinstance(e, dict) and "name" in e and "file" in e
                                                 for e in entries):
        raise DataFileError(f"{path}: a manifest is a list of entries with a 'name' and a 'file'")
    return entries


def load_manifest(manifest, name: str, one_hot=False):
    """Dataset ``name`` of a manifest directory (``MANIFEST.json`` beside the files): its CSV file's
    ``target`` column (or the entry's ``"target"``) as labels; LIBSVM files by their entry's
    ``"format": "libsvm"``."""
    path = _manifest_path(manifest)
    entries = {e["name"]: e for e in manifest_entries(path)}
    if name not in entries:
        raise ValueError(f"no dataset {name!r} in {path}; it has: {', '.join(sorted(entries))}")
    entry = entries[name]
    file = path.parent / entry["file"]
    if entry.get("format") == "libsvm":
        return load_libsvm(file)
    return load_csv(file, target=entry.get("target", "target"), one_hot=one_hot)
