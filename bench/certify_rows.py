"""How certifying a loss-optimal tree grows with the rows, and what a stronger solver changes: the same formulation
solved by HiGHS and by Gurobi on stratified samples of a set's training rows.

Issue 50 asks for depth-2 OLCT, MARGOT and OCT-H fits certified at Table 3.1's sizes (195-957 rows) in 300 s. This bench
separates the two candidate causes of the gaps measured there (``mip_strength.py``):

* the solver: Gurobi against HiGHS on the same model, on samples small enough for Gurobi's size-limited edition
  (2,000 rows and columns: about 48 points for OLCT at depth 2 with the V3 tangents);
* the formulation: the nodes each solver needs to certify, as the rows grow (HiGHS alone beyond Gurobi's limit).

Each solve is a bare formulation, without a warm start: OLCT (3.17) and MARGOT by :func:`olct` / :func:`margot` on
standardized features with labels in {-1, +1}, every sampled row its own (the estimators merge identical rows
first), at the defaults (``C = 1``, V3 tangents; MARGOT's ``||w||^2`` exact on Gurobi, by outer approximation on
HiGHS); OCT-H as its estimator builds it (``alpha = 0``, no feature budget). One thread, ``mip_gap = 1e-4``, each
solve in a fresh process. A sample is drawn per seed from the 75/25 training part (``mip_strength.py``'s split).

    python bench/certify_rows.py [--sets haberman,heart] [--models OLCT] [--rows 24 32 40 48]
        [--highs-rows 64 96 144] [--seeds 3] [--seconds 120] [--jobs 2] [--params '{"C": [1, 0.01]}']
        [--label name] [--out bench/results/certify_rows.csv]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import require_shared  # noqa: E402
from mip_strength import _split  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"
#: Gurobi's size-limited edition solves models of at most this many rows and columns.
GUROBI_LIMIT = 2_000


def _formulation(model: str, X: np.ndarray, y: np.ndarray, solver: str, params: dict):
    from sklearn.preprocessing import StandardScaler

    from optitrees import OCTHClassifier
    from optitrees.formulations.loss_optimal.model import margot, olct

    if model == "OCT-H":        # the estimator's own model (features scaled to [0, 1], no feature budget)
        return OCTHClassifier(**{"max_depth": 2, "max_features": None, **params}).build_formulation(X, y)
    Xs, ys = StandardScaler().fit_transform(X), 2 * np.asarray(y) - 1
    if model == "OLCT":
        return olct(Xs, ys, **{"depth": 2, "tangents": "V3", **params})
    return margot(Xs, ys, **{"depth": 2, "l2_method": "exact" if solver == "gurobi" else "outer", **params})


def run_one(task: dict) -> dict:
    """One bare solve in this (fresh) process; its figures."""
    import os

    from sklearn.model_selection import train_test_split

    from optitrees import solvers

    warnings.simplefilter("ignore")
    quiet = os.open(os.devnull, os.O_WRONLY)
    os.dup2(quiet, 1)
    X, y = _split(task["set"], 2)
    if task["rows"] < len(y):
        X, _, y, _ = train_test_split(X, y, train_size=task["rows"], random_state=task["seed"], stratify=y)
    f = _formulation(task["model"], X, y, task["solver"], task["params"])
    row = dict(label=task["label"], set=task["set"], model=task["model"], rows=len(y), features=X.shape[1],
               seed=task["seed"], solver=task["solver"], threads=1, time_limit=task["seconds"], model_rows=f.n_rows,
               model_cols=f.n_cols)
    if task["solver"] == "gurobi" and max(f.n_rows, f.n_cols) > GUROBI_LIMIT:
        return {**row, "status": "too large for the size-limited edition"}
    t0 = time.perf_counter()
    result = solvers.solve(f, solver=task["solver"], time_limit=task["seconds"], threads=1, progress=False)
    return {**row, "solve_s": time.perf_counter() - t0, "status": str(result.status), "objective": result.objective,
            "bound": result.bound, "gap": None if result.gap is None else 100 * result.gap,
            "nodes": result.node_count}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default="haberman,heart,wholesale,parkinsons,spectf,ionosphere")
    parser.add_argument("--models", default="OLCT")
    parser.add_argument("--rows", type=int, nargs="*", default=[24, 32, 40, 48], help="both solvers")
    parser.add_argument("--highs-rows", type=int, nargs="*", default=[64, 96, 144], help="HiGHS alone")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=120.0)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--params", default="{}", help="formulation parameters as JSON (e.g. '{\"C\": [1, 0.01]}')")
    parser.add_argument("--label", default="defaults", help="a name for this run")
    parser.add_argument("--out", default=str(RESULTS / "certify_rows.csv"))
    args = parser.parse_args(argv)
    require_shared()
    params = json.loads(args.params)
    tasks = [dict(set=name, model=model, rows=rows, seed=seed, solver=solver, seconds=args.seconds, params=params,
                  label=args.label)
             for name in args.sets.split(",") for model in args.models.split(",") for seed in range(args.seeds)
             for rows, engines in [(r, ("highs", "gurobi")) for r in args.rows] +
             [(r, ("highs",)) for r in args.highs_rows] for solver in engines]
    out = Path(args.out)
    earlier = pd.read_csv(out) if out.exists() else pd.DataFrame()   # rows are appended, by column name
    rows = []
    with ProcessPoolExecutor(args.jobs, mp_context=get_context("spawn"), max_tasks_per_child=1) as pool:
        for row in pool.map(run_one, tasks):
            rows.append(row)
            print(json.dumps({k: (round(v, 4) if isinstance(v, float) else v) for k, v in row.items()}), flush=True)
            pd.concat([earlier, pd.DataFrame(rows)], ignore_index=True).to_csv(out, index=False)
    summarize(pd.DataFrame(rows))


def summarize(table: pd.DataFrame) -> None:
    """Per set, model, rows and solver: certified fits, median nodes and seconds, median gap."""
    if "solve_s" not in table:
        return
    done = table[table["solve_s"].notna()].fillna({"label": "defaults"})
    done["certified"] = done["status"] == "optimal"
    summary = done.groupby(["label", "set", "model", "rows", "solver"]).agg(
        fits=("certified", "size"), certified=("certified", "sum"), nodes=("nodes", "median"),
        seconds=("solve_s", "median"), gap=("gap", "median"))
    print(summary.round(2).to_string())


if __name__ == "__main__":
    main()
