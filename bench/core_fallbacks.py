"""What the core install (no ``fast`` extra) costs: its fallbacks beside the compiled paths, in the same run.

Three parts, each fit in a fresh process (two at a time, one solver thread, BLAS on one thread):

* ``nodes``: one node's l1-logistic regression (seed 002, 3.12 with ``Omega = ||.||_1``) by glum (the ``fast``
  extra) and by scipy's L-BFGS-B (the core's fallback), on adult (30,000 rows one-hot), a2a and on the
  weighted, nearly separable nodes a TAO routing fit makes: exact objective and seconds;
* ``fits``: the default ``OLCTClassifier`` and ``TAOClassifier(oblique=True)`` (depth 2, ``--time-limit`` s) on
  Table 3.1's ten sets, one stratified 75/25 split per ``--splits``, with each solver: exact training objective,
  test balanced accuracy, seconds;
* ``files``: OLCT at depth 2 on 30,000 rows of adult: build seconds, and the seconds of the compiled writer and of
  HiGHS's writer (the core's fallback) for ``.lp`` and ``.mps`` (the first call, which loads or compiles numba's
  kernels, and a second one), with the file sizes.

    python bench/core_fallbacks.py [--part nodes fits files] [--splits 2] [--time-limit 10] [--workers 2]
                                   [--summary-only]

Rows go to ``bench/results/core_fallbacks_<part>.csv``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).parent))
from _data import load_numeric, run_in_processes, run_then_summarize  # noqa: E402

RESULTS = Path(__file__).parent / "results"
TABLE_3_1 = ("breast", "climate", "haberman", "heart", "ionosphere", "parkinsons", "sonar", "spectf", "tic-tac-toe",
             "wpbc")
SOLVERS = ("glum", "lbfgsb")


def _one_thread():
    import os

    for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[k] = "1"


def _standardized(name, rows=None, seed=0):
    X, y, _ = load_numeric(name)
    if rows is not None and len(y) > rows:
        keep = np.random.default_rng(seed).choice(len(y), rows, replace=False)
        X, y = X[keep], y[keep]
    sd = X.std(axis=0)
    X = (X - X.mean(axis=0)) / np.where(sd > 0, sd, 1.0)
    return X, np.where(y == 1, 1.0, -1.0)


def node_task(task) -> dict:
    """One node fit: ``task = (case, solver)``."""
    _one_thread()
    from optitrees.algorithms import node_fit
    from optitrees.formulations.tangents import logistic_loss

    case, solver = task
    rng = np.random.default_rng(0)
    weight = None
    if case == "adult 30k":
        X, y = _standardized("adult", 30_000)
    elif case == "a2a":
        X, y = _standardized("a2a")
    else:                                   # a TAO routing fit: heavy weights on a few rows, nearly separable
        X, y = _standardized("phishing", 5_000)
        w0 = rng.normal(size=X.shape[1])
        y = np.where(X @ w0 > 0, 1.0, -1.0)
        y[rng.random(len(y)) < 0.02] *= -1
        weight = np.where(rng.random(len(y)) < 0.05, 50.0, 1.0)
    node_fit.l1_logistic_solver = node_fit.L1LogisticSolver(solver)
    start = time.perf_counter()
    w, b = node_fit.fit_l1_logistic(X, y, 1.0, sample_weight=weight)
    seconds = time.perf_counter() - start
    loss = logistic_loss(y * (X @ w + b))
    objective = float(np.abs(w).sum() + (loss.sum() if weight is None else loss @ weight))
    return dict(case=case, solver=solver, rows=len(y), features=X.shape[1], objective=objective,
                nonzeros=int(np.count_nonzero(w)), seconds=seconds)


def fit_task(task) -> dict:
    """One default fit: ``task = (model, set, split, solver, time_limit)``."""
    _one_thread()
    import warnings

    from sklearn.metrics import balanced_accuracy_score
    from sklearn.model_selection import train_test_split

    from optitrees import OLCTClassifier, TAOClassifier
    from optitrees.algorithms import node_fit

    model, name, split, solver, limit = task
    node_fit.l1_logistic_solver = node_fit.L1LogisticSolver(solver)
    X, y, _ = load_numeric(name)
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=split, stratify=y)
    est = (OLCTClassifier(max_depth=2, time_limit=limit, threads=1, random_state=split) if model == "OLCT"
           else TAOClassifier(max_depth=2, oblique=True, time_limit=limit, random_state=split))
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X_train, y_train)
    seconds = time.perf_counter() - start
    return dict(model=model, dataset=name, split=split, solver=solver, objective=float(est.objective_),
                test_bacc=balanced_accuracy_score(y_test, est.predict(X_test)), seconds=seconds,
                method=str(est.fit_report_.method))


def files_task(task) -> dict:
    """Build OLCT depth 2 on adult and write it: ``task = (suffix, writer)``."""
    _one_thread()
    import tempfile

    from optitrees import OLCTClassifier
    from optitrees.mip.files import FileWriter, write

    suffix, writer = task
    X, y, _ = load_numeric("adult")
    keep = np.random.default_rng(0).choice(len(y), 30_000, replace=False)
    start = time.perf_counter()
    f = OLCTClassifier(max_depth=2, max_features=None).build_formulation(X[keep], y[keep])
    build = time.perf_counter() - start
    with tempfile.TemporaryDirectory() as where:
        path = Path(where) / f"olct{suffix}"
        start = time.perf_counter()
        write(f, path, FileWriter(writer))
        first = time.perf_counter() - start          # the compiled writer's first call loads (or compiles) numba
        start = time.perf_counter()
        write(f, path, FileWriter(writer))
        seconds = time.perf_counter() - start
        size = path.stat().st_size
    return dict(suffix=suffix, writer=writer, rows=f.n_rows, nonzeros=int(f.matrix.nnz), build_seconds=build,
                first_write_seconds=first, write_seconds=seconds, megabytes=size / 2**20)


def run(args) -> None:
    RESULTS.mkdir(exist_ok=True)
    if "nodes" in args.part:
        tasks = [(case, solver) for case in ("adult 30k", "a2a", "weighted routing") for solver in SOLVERS]
        run_in_processes(tasks, node_task, RESULTS / "core_fallbacks_nodes.csv", 2,
                         lambda r: f"{r['case']} {r['solver']}: {r['objective']:.4f} in {r['seconds']:.2f} s")
    if "fits" in args.part:
        tasks = [(model, name, split, solver, args.time_limit) for model in ("OLCT", "TAO oblique")
                 for name in TABLE_3_1 for split in range(args.splits) for solver in SOLVERS]
        run_in_processes(tasks, fit_task, RESULTS / "core_fallbacks_fits.csv", args.workers,
                         lambda r: f"{r['model']} {r['dataset']} {r['split']} {r['solver']}: "
                                   f"{100 * r['test_bacc']:.1f} in {r['seconds']:.1f} s")
    if "files" in args.part:
        tasks = [(suffix, writer) for suffix in (".lp", ".mps") for writer in ("compiled", "highs")]
        run_in_processes(tasks, files_task, RESULTS / "core_fallbacks_files.csv", 1,
                         lambda r: f"{r['suffix']} {r['writer']}: {r['write_seconds']:.2f} s "
                                   f"(build {r['build_seconds']:.2f} s)")


def summary(args) -> None:
    nodes = RESULTS / "core_fallbacks_nodes.csv"
    if "nodes" in args.part and nodes.exists():
        table = pd.read_csv(nodes).drop_duplicates(["case", "solver"], keep="last")
        print("one node's l1-logistic fit (C = 1): exact objective and seconds")
        print(table.pivot(index="case", columns="solver", values=["objective", "seconds"]).round(4).to_string())
    fits = RESULTS / "core_fallbacks_fits.csv"
    if "fits" in args.part and fits.exists():
        table = pd.read_csv(fits)
        table["test_bacc"] *= 100
        wide = table.pivot_table(index=["model", "dataset", "split"], columns="solver",
                                 values=["objective", "test_bacc", "seconds"])
        for model, part in wide.groupby(level="model"):
            gap = (part[("objective", "lbfgsb")] - part[("objective", "glum")]) / part[("objective", "glum")]
            print(f"\n{model} (depth 2, {len(part)} fits each): test balanced accuracy glum "
                  f"{part[('test_bacc', 'glum')].mean():.2f}, L-BFGS-B {part[('test_bacc', 'lbfgsb')].mean():.2f}; "
                  f"training objective L-BFGS-B vs glum {100 * gap.mean():+.2f}% (worst {100 * gap.max():+.2f}%); "
                  f"median seconds {part[('seconds', 'glum')].median():.1f} / "
                  f"{part[('seconds', 'lbfgsb')].median():.1f}")
    files = RESULTS / "core_fallbacks_files.csv"
    if "files" in args.part and files.exists():
        table = pd.read_csv(files).drop_duplicates(["suffix", "writer"], keep="last")
        table["write / build"] = table.write_seconds / table.build_seconds
        print("\nOLCT depth 2, adult 30,000 rows: writing the file")
        print(table[["suffix", "writer", "nonzeros", "build_seconds", "first_write_seconds", "write_seconds",
                     "write / build", "megabytes"]].round(2).to_string(index=False))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--part", nargs="+", default=["nodes", "fits", "files"], choices=["nodes", "fits", "files"])
    parser.add_argument("--splits", type=int, default=2)
    parser.add_argument("--time-limit", type=float, default=10.0)
    parser.add_argument("--workers", type=int, default=2, help="fits at a time in the fits part")
    parser.add_argument("--summary-only", action="store_true")
    run_then_summarize(parser.parse_args(), run, summary)


if __name__ == "__main__":
    main()
