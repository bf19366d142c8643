"""Load the real benchmark datasets of ``../shared/datasets`` (never copied into the repo)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "datasets"


def one_thread_env() -> dict:
    """The environment for a peer's process with its numerical libraries on one thread, as our fits run
    (``threads=1``): OpenBLAS's second thread waiting for the core a benchmark's other process holds made
    FasterRisk 4-6x slower."""
    import os

    return {**os.environ, **{k: "1" for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}}


def require_shared():
    """Exit cleanly when ``../shared/datasets`` is absent."""
    if not (SHARED / "MANIFEST.json").exists():
        print(f"datasets not found at {SHARED}; nothing to run")
        sys.exit(0)


def run_then_summarize(args, run, summary) -> None:
    """A benchmark's main: exit cleanly without the shared data, run (unless ``--summary-only``), summarize."""
    require_shared()
    if not args.summary_only:
        run(args)
    summary(args)


def study_parser(doc: str, sets, out: str, time_limit: float = 30.0):
    """The arguments every fit study shares: ``--sets`` (of ``sets``, all by default), ``--splits``,
    ``--time-limit``, ``--workers``, ``--out`` (a CSV in ``bench/results``) and ``--summary-only``; a study adds its
    own."""
    import argparse

    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", nargs="+", default=list(sets), choices=sets)
    parser.add_argument("--splits", type=int, default=2)
    parser.add_argument("--time-limit", type=float, default=time_limit)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", default=out)
    parser.add_argument("--summary-only", action="store_true")
    return parser


def done_keys(out: Path, columns) -> set:
    """The ``columns`` of every row of the CSV ``out`` as tuples (empty when it does not exist yet): the fits a
    rerun skips."""
    if not out.exists():
        return set()
    old = pd.read_csv(out)
    return set(zip(*(old[c] for c in columns)))


def run_in_processes(tasks, fit_one, out: Path, workers: int, describe) -> None:
    """Each task's ``fit_one(task)`` in a fresh process (``workers`` at a time), its row appended to the CSV ``out``
    as it ends and printed by ``describe(row)``; a task that fails is said, not hidden."""
    from concurrent.futures import ProcessPoolExecutor, as_completed

    with ProcessPoolExecutor(max_workers=workers, max_tasks_per_child=1) as pool:
        futures = [pool.submit(fit_one, task) for task in tasks]
        for k, future in enumerate(as_completed(futures)):
            try:
                row = future.result()
            except Exception as exc:
                print(f"{k + 1}/{len(tasks)} failed: {type(exc).__name__}: {exc}", flush=True)
                continue
            append_row(out, row)
            print(f"{k + 1}/{len(tasks)} {describe(row)}", flush=True)


def append_row(out: Path, row: dict) -> None:
    """Append ``row`` to the CSV ``out`` under its header (written from the row when the file is new): a key the
    row lacks is left empty, so rows of models that report different figures stay in their columns.

    Raises
    ------
    ValueError
        The row has a key the file's header does not (write such runs to a new file).
    """
    if not out.exists():
        pd.DataFrame([row]).to_csv(out, index=False)
        return
    header = list(pd.read_csv(out, nrows=0).columns)
    if unknown := _missing_columns(header, row):
        raise ValueError(f"{out.name} has no column for {unknown}: write this run to a new --out file")
    pd.DataFrame([row]).reindex(columns=header).to_csv(out, mode="a", header=False, index=False)


def _missing_columns(header, columns) -> list:
    """The ``columns`` not in a CSV's ``header``, sorted."""
    return sorted(set(columns) - set(header))


def require_columns(out: Path, columns) -> None:
    """Fail before any fit when the CSV ``out`` exists without a column a row of this run will have
    (:func:`append_row` would refuse the first row only after the fits ran)."""
    if out.exists() and (unknown := _missing_columns(pd.read_csv(out, nrows=0).columns, columns)):
        raise SystemExit(f"{out.name} has no column for {unknown}: write this run to a new --out file")


def manifest() -> dict:
    return {d["name"]: d for d in json.loads((SHARED / "MANIFEST.json").read_text())}


def load_raw(name: str) -> tuple[pd.DataFrame, pd.Series]:
    """Features and the ``target`` column, rows with missing cells dropped."""
    frame = pd.read_csv(SHARED / manifest()[name]["file"]).dropna()
    return frame.drop(columns=["target"]), frame["target"]


def binary_target(name: str, y: pd.Series) -> np.ndarray:
    """0/1 labels, 1 = the manifest's positive label (heart: disease present, target > 0)."""
    info = manifest()[name]
    if info["task"] == "multiclass" and name == "heart":
        return (pd.to_numeric(y) > 0).astype(int).to_numpy()
    positive = str(info["positive_label"])
    numeric = pd.to_numeric(y, errors="coerce")
    if numeric.notna().all():                 # "+1" in the manifest, 1 in the file
        try:
            return (numeric == float(positive)).astype(int).to_numpy()
        except ValueError:
            pass
    return (y.astype(str) == positive).astype(int).to_numpy()


def load_numeric(name: str) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Numeric matrix (categorical columns one-hot encoded) and 0/1 labels."""
    X, y = load_raw(name)
    categorical = [c for c in X.columns if not pd.api.types.is_numeric_dtype(X[c])]
    X = pd.get_dummies(X, columns=categorical, dtype=float) if categorical else X.astype(float)
    return X.to_numpy(float), binary_target(name, y), list(X.columns)


def load_with_missing(name: str) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Numeric features with missing cells kept as ``nan`` (for C4.5) and the labels (binary rule for heart)."""
    frame = pd.read_csv(SHARED / manifest()[name]["file"])
    X, y = frame.drop(columns=["target"]), frame["target"]
    if manifest()[name]["task"] == "multiclass" and name != "heart":
        return X.to_numpy(float), pd.factorize(y, sort=True)[0], list(X.columns)
    return X.to_numpy(float), binary_target(name, y), list(X.columns)
