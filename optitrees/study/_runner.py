"""Running a study: one task per dataset x seed x model, in parallel processes or on a Dask cluster, each
result written as soon as it is done, an interrupted study resumed where it stopped."""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ._spec import DataSource, ModelSpec, Study, params_text

__all__ = ["Task", "tasks", "run_task", "run_study", "KEY", "TIMING_COLUMNS"]

#: The columns that identify a fit of a study (a results file is resumed by them).
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
        row.update(accuracy=float(accuracy_score(yte, pred)), balanced_accuracy=float(balanced_accuracy_score(yte, pred)),
                   auc=_auc(est, Xte, yte))
    tree = getattr(_unwrap(est), "tree_", None)
    if tree is not None:          # sparsity (seed 002, Figure 3.9c): features used per split, on average
        inner = ~tree.is_leaf
        row["features_per_split"] = float(np.count_nonzero(tree.weights[inner], axis=1).mean()) if inner.any() else 0.0
    report = getattr(_unwrap(est), "fit_report_", None)
    row.update(objective=getattr(report, "objective", None), gap=getattr(report, "gap", None),
               outcome=str(getattr(report, "outcome", "")), fit_seconds=fit_seconds, search_seconds=search_seconds)
    return row


def _done(results: Path) -> pd.DataFrame | None:
    if not results.exists() or results.stat().st_size == 0:
        return None
    return pd.read_csv(results)


def run_study(study: Study, results, n_jobs: int = 1, client=None, progress: bool = True) -> pd.DataFrame:
    """Run every task of ``study`` not yet in ``results`` (a CSV file, appended as each task finishes) and
    return the whole table, sorted by dataset, seed and model.

    Parameters
    ----------
    study : Study
    results : str or Path
        The results file. Rows already there (by dataset, seed and model) are not fitted again, so a study
        interrupted midway resumes where it stopped.
    n_jobs : int, default=1
        Parallel processes on this machine (joblib; each fit uses one solver thread).
    client : dask.distributed.Client, optional
        Run the tasks on this Dask cluster instead (``n_jobs`` is then unused).
    progress : bool, default=True
        A progress bar (tqdm): fits done / total, elapsed and estimated time left.
    """
    from tqdm.auto import tqdm

    results = Path(results)
    if not results.parent.exists():
        raise FileNotFoundError(f"cannot write {results}: its folder {results.parent} does not exist")
    done = _done(results)
    finished = set() if done is None else set(map(tuple, done[KEY].astype({"seed": int}).itertuples(index=False)))
    todo = [t for t in tasks(study) if t.key not in finished]
    bar = tqdm(total=len(tasks(study)), initial=len(tasks(study)) - len(todo), disable=not progress, unit="fit",
               desc="study")
    header = done is None
    try:
        for row in _completed(todo, n_jobs, client):
            pd.DataFrame([row]).to_csv(results, mode="a", header=header, index=False)
            header = False
            bar.update(1)
    finally:
        bar.close()
    table = pd.read_csv(results)
    order = {t.key: i for i, t in enumerate(tasks(study))}
    table = table[[tuple(k) in order for k in table[KEY].itertuples(index=False)]]
    return table.sort_values(KEY, key=lambda c: c.map(str) if c.name != "seed" else c).reset_index(drop=True)


def _completed(todo, n_jobs, client):
    """Result rows in the order the tasks finish."""
    if not todo:
        return
    if client is not None:
        from distributed import as_completed

        futures = [client.submit(run_task, t, pure=False) for t in todo]
        for future in as_completed(futures):
            yield future.result()
        return
    if n_jobs == 1:
        for t in todo:
            yield run_task(t)
        return
    from joblib import Parallel, delayed

    yield from Parallel(n_jobs=n_jobs, return_as="generator_unordered")(delayed(run_task)(t) for t in todo)
