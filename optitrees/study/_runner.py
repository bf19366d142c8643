"""Running a study: one task per dataset x seed x model, in parallel processes or on a Dask cluster, each
result written as soon as it is done, an interrupted study resumed where it stopped."""

from __future__ import annotations

import functools
import hashlib
import json
import time
import warnings
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from .._version import __version__
from ..exceptions import warn
from ._results import COLUMNS, ResultsFile
from ._spec import DataSource, ModelSpec, Study, params_text

__all__ = ["Task", "tasks", "run_task", "run_study", "library_versions", "KEY", "TIMING_COLUMNS", "COLUMNS"]

#: The columns that name a fit of a study (with ``fit_key``, the hash of what decided it, they identify its row).
KEY = ["dataset", "seed", "model"]
#: The columns that depend on the machine's speed (the rest is the same however the study runs).
TIMING_COLUMNS = ["fit_seconds", "search_seconds"]


@dataclass(frozen=True)
class Task:
    """One final fit of a study (with its cross-validated search): what a worker needs, picklable."""

    data: DataSource
    model: ModelSpec
    seed: int
    test_size: float
    cv: int
    time_limit: float | None

    @property
    def key(self) -> tuple:
        return (self.data.name, self.seed, self.model.label)

    def fit_key(self, data_digest: str) -> str:
        """A hash of everything that decides this task's row and names it: the data (``data_digest``,
        :meth:`DataSource.digest`) and how they are loaded, the model with its label, parameters, grid and
        scaling, the seed, the protocol (test share, folds, time limit) and the versions of the libraries that
        compute it (:func:`library_versions`). A row is resumed only under the same key."""
        document = {"data": data_digest, "model": asdict(self.model),
                    "seed": self.seed, "test_size": self.test_size, "cv": self.cv, "time_limit": self.time_limit,
                    "versions": dict(library_versions())}
        return hashlib.sha256(json.dumps(document, sort_keys=True, default=repr).encode()).hexdigest()[:16]


#: the packages whose versions decide a fit's result (beside optitrees): the data handling, the starts, the solvers
_DECIDING_PACKAGES = ("numpy", "scipy", "scikit-learn", "pandas", "highspy", "pyomo", "pycontree", "glum", "pystreed",
                      "pyscipopt", "gurobipy", "cplex")


@functools.lru_cache(maxsize=1)
def library_versions() -> dict:
    """The versions of optitrees and of every package that decides a fit's result (``None`` where one is not
    installed): a row fitted under other versions is not reused."""
    from importlib import metadata

    def version(name):
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            return None

    return {"optitrees": __version__, **{name: version(name) for name in _DECIDING_PACKAGES}}


def tasks(study: Study) -> list[Task]:
    """Every task of ``study``, datasets outermost, then seeds, then models."""
    return [Task(d, m, int(s), study.test_size, study.cv, study.time_limit)
            for d in study.datasets for s in study.seeds for m in study.models]


def _unwrap(est):
    return est.steps[-1][1] if hasattr(est, "steps") else est


def _auc(est, X, y):
    from sklearn.metrics import roc_auc_score

    classes = getattr(_unwrap(est), "classes_", None)
    if classes is None or len(classes) != 2:
        return np.nan
    try:
        score = est.predict_proba(X)[:, 1]
    except AttributeError:
        try:
            score = est.decision_function(X)
        except AttributeError:
            return np.nan
    return float(roc_auc_score(y == classes[1], score))


def run_task(task: Task) -> dict:
    """Split, search (k-fold grid over the training part, balanced accuracy), refit, score: one result row."""
    from sklearn.base import is_regressor
    from sklearn.metrics import accuracy_score, balanced_accuracy_score, r2_score
    from sklearn.model_selection import GridSearchCV, StratifiedKFold, train_test_split

    X, y = task.data.load()
    est = task.model.estimator(task.seed, task.time_limit)
    regression = is_regressor(_unwrap(est))
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=task.test_size, random_state=task.seed,
                                          stratify=None if regression else y)
    row = dict(zip(KEY, task.key), train_rows=len(ytr), test_rows=len(yte))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # time-limit and fallback notes: the status columns say it
        t0 = time.perf_counter()
        if task.model.grid:
            folds = StratifiedKFold(task.cv, shuffle=True, random_state=task.seed)
            search = GridSearchCV(est, task.model.search_grid(), cv=folds, n_jobs=1, error_score="raise",
                                  scoring="r2" if regression else "balanced_accuracy").fit(Xtr, ytr)
            est, fit_seconds = search.best_estimator_, float(search.refit_time_)
            row["params"] = params_text(search.best_params_)
            row["cv_score"] = float(search.best_score_)
        else:
            t1 = time.perf_counter()
            est.fit(Xtr, ytr)
            fit_seconds = time.perf_counter() - t1
            row["params"] = "{}"
            row["cv_score"] = np.nan
        search_seconds = time.perf_counter() - t0
    pred = est.predict(Xte)
    if regression:
        row.update(r2=float(r2_score(yte, pred)), rmse=float(np.sqrt(np.mean((yte - pred) ** 2))))
    else:
        row.update(accuracy=float(accuracy_score(yte, pred)),
                   balanced_accuracy=float(balanced_accuracy_score(yte, pred)), auc=_auc(est, Xte, yte))
    tree = getattr(_unwrap(est), "tree_", None)
    if tree is not None:          # sparsity (seed 002, Figure 3.9c): features used per split, on average
        inner = ~tree.is_leaf
        row["features_per_split"] = float(np.count_nonzero(tree.weights[inner], axis=1).mean()) if inner.any() else 0.0
    report = getattr(_unwrap(est), "fit_report_", None)
    row.update(objective=getattr(report, "objective", None), gap=getattr(report, "gap", None),
               outcome=str(getattr(report, "outcome", "")), fit_seconds=fit_seconds, search_seconds=search_seconds)
    return row


def _keyed(study: Study) -> list[tuple[Task, str]]:
    """Every task with its fit key; the configuration is checked first (every model's name, parameters and grid,
    every dataset loaded), so a study with an error fails on every run, not only while fits remain."""
    for model in study.models:
        model.estimator(0, study.time_limit)
    digests = {d.name: d.digest() for d in study.datasets}
    return [(t, t.fit_key(digests[t.data.name])) for t in tasks(study)]


def run_study(study: Study, results, n_jobs: int = 1, client=None, progress: bool = True) -> pd.DataFrame:
    """Run every task of ``study`` not yet in ``results`` (a CSV file, appended as each task finishes) and
    return the whole table, sorted by dataset, seed and model.

    Parameters
    ----------
    study : Study
        Checked in full on every run: an unknown model or parameter, or a dataset that does not load, is an
        error even when every row is done.
    results : str or Path
        The results file (:data:`COLUMNS`, one schema for every model). A row there is reused only when its
        ``fit_key`` says everything that decided it is the same (the data's content, the model, its
        parameters and grid, the seed, the protocol, the library's version); a row of another key is left in
        the file, ignored, and its fit runs again. A study interrupted midway resumes where it stopped; a last
        line cut by a kill is dropped. Two studies cannot write one file at once
        (:class:`~optitrees.study.StudyLockedError`).
    n_jobs : int, default=1
        Parallel processes on this machine (each fit uses one solver thread); they end with the study, even
        when it is killed.
    client : dask.distributed.Client, optional
        Run the tasks on this Dask cluster instead (``n_jobs`` is then unused).
    progress : bool, default=True
        A progress bar (tqdm): fits done / total, elapsed and estimated time left.
    """
    from tqdm.auto import tqdm

    keyed = _keyed(study)
    with ResultsFile(results) as file:
        done = file.open()
        current = {k for _, k in keyed}
        stale = done[~done.fit_key.isin(current) & done.set_index(KEY).index.isin([t.key for t, _ in keyed])]
        if len(stale):
            first = stale.iloc[0]
            warn(f"{results}: {len(stale)} row(s) were fitted under other settings (the data, the model's "
                 f"parameters or grid, the seed, the protocol or the library changed; first: {first.dataset}, "
                 f"seed {first.seed}, {first.model}); they are left in the file and ignored, and their fits run "
                 "again", UserWarning)
        finished = set(done.fit_key)
        todo = [(t, k) for t, k in keyed if k not in finished]
        bar = tqdm(total=len(keyed), initial=len(keyed) - len(todo), disable=not progress, unit="fit", desc="study")
        try:
            for fit_key, row in _completed(todo, n_jobs, client):
                file.append(dict(row, fit_key=fit_key))
                bar.update(1)
        finally:
            bar.close()
        table = file.rows()
    table = table[table.fit_key.isin(current)]
    return table.sort_values(KEY, key=lambda c: c.map(str) if c.name != "seed" else c).reset_index(drop=True)


def _completed(todo, n_jobs, client):
    """``(fit key, result row)`` of ``todo`` (``(task, fit key)`` pairs) in the order the tasks finish."""
    if not todo:
        return
    if client is not None:
        from distributed import as_completed

        futures = {client.submit(run_task, t, pure=False): k for t, k in todo}
        for future in as_completed(futures):
            yield futures[future], future.result()
        return
    if n_jobs == 1:
        for t, k in todo:
            yield k, run_task(t)
        return
    from concurrent.futures import as_completed

    from ._workers import process_pool, stop_workers

    pool = process_pool(n_jobs)
    try:
        futures = {pool.submit(run_task, t): k for t, k in todo}
        for future in as_completed(futures):
            yield futures[future], future.result()
    except BaseException:                         # Ctrl-C, a failed fit, the caller gone: no fit runs on
        stop_workers(pool)
        raise
    pool.shutdown(wait=True)
