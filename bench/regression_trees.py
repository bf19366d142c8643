"""Regression trees: seed 003's ``CARTRegressor`` with t-test and with cost-complexity pruning, and
``TAORegressor`` (TAO from CART's tree), ``OptimalTreeRegressor`` (STreeD over every midpoint; and with sparse
linear leaves over 32 thresholds per feature) and ``LossOptimalTreeRegressor`` (oblique splits, linear leaves,
absolute loss by MILP, squared loss by MILP with tangent cuts on HiGHS; ``depth`` levels of splits), beside
scikit-learn's tree (the same depth), a random forest, and STreeD's optimal
regression tree (pystreed, in its own environment: ``--streed-python``), at depths 2-4 on the seed's
regression sets we have (abalone, cpu_act, cpu_small) and Friedman #1 (scikit-learn, 10,000 rows).

One 75/25 split per set (seed 0); test RMSE and R^2, fit seconds, leaves.

    python bench/regression_trees.py [--streed-python /path/to/venv/bin/python] [--time-limit 60]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.datasets import make_friedman1
from sklearn.ensemble import RandomForestRegressor
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeRegressor

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import SHARED, require_shared  # noqa: E402
from _rerun import add_models_option, merged, saved_rows, selected  # noqa: E402

from optitrees import CARTRegressor, LossOptimalTreeRegressor, OptimalTreeRegressor, TAORegressor  # noqa: E402
from optitrees.datasets import load_manifest  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"
PEER = Path(__file__).resolve().parent / "peers" / "pystreed_fit.py"


def datasets():
    for name in ("abalone", "cpu_act", "cpu_small"):
        X, y = load_manifest(SHARED, name, one_hot=True)
        yield name, X.to_numpy(float), y.to_numpy(float)
    X, y = make_friedman1(n_samples=10000, noise=1.0, random_state=0)
    yield "friedman1", X, y


def scores(pred, y):
    return dict(rmse=float(np.sqrt(np.mean((pred - y) ** 2))),
                r2=float(1 - np.sum((pred - y) ** 2) / np.sum((y - y.mean()) ** 2)))


def timed(make):
    t0 = time.perf_counter()
    model = make()
    return model, time.perf_counter() - t0


def streed(python, Xtr, ytr, Xte, yte, depth, time_limit):
    with tempfile.TemporaryDirectory() as tmp:
        src, out = Path(tmp) / "d.npz", Path(tmp) / "o.json"
        np.savez(src, X=Xtr, y=ytr, X_test=Xte, y_test=yte, depth=depth, time_limit=time_limit, task="regression")
        done = subprocess.run([python, str(PEER), str(src), str(out)], capture_output=True, text=True)
        if done.returncode != 0:
            return dict(error=done.stderr.strip().splitlines()[-1][:120])
        return json.loads(out.read_text())


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--streed-python")
    parser.add_argument("--time-limit", type=float, default=60.0)
    add_models_option(parser)
    args = parser.parse_args()
    out = RESULTS / "regression_trees.csv"
    kept = saved_rows(out, args.models)
    require_shared()
    rows = []
    for name, X, y in datasets():
        Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.25, random_state=0)
        for depth in (2, 3, 4):
            fits = {
                "CARTRegressor t-test": lambda: CARTRegressor(max_depth=depth, random_state=0).fit(Xtr, ytr),
                "CARTRegressor cost-complexity": lambda: CARTRegressor(
                    max_depth=depth, pruning="cost_complexity", ccp_alpha=1e-3 * np.var(ytr), random_state=0
                ).fit(Xtr, ytr),
                "TAORegressor": lambda: TAORegressor(max_depth=depth, random_state=0, time_limit=60).fit(Xtr, ytr),
                "OptimalTreeRegressor (every midpoint)": lambda: OptimalTreeRegressor(
                    max_depth=depth, time_limit=args.time_limit).fit(Xtr, ytr),
                "OptimalTreeRegressor linear leaves (32 thresholds, lasso 0.01)": lambda: OptimalTreeRegressor(
                    max_depth=depth, n_thresholds=32, linear_leaves=True, lasso_penalty=0.01,
                    time_limit=args.time_limit).fit(Xtr, ytr),
                # ``depth`` levels of oblique splits, then the linear leaves (its max_depth counts those too)
                "LossOptimalTreeRegressor (oblique, linear leaves, LAD)": lambda: LossOptimalTreeRegressor(
                    max_depth=depth + 1, time_limit=args.time_limit, threads=1).fit(Xtr, ytr),
                "LossOptimalTreeRegressor (oblique, linear leaves, squared: HiGHS tangent cuts)":
                    lambda: LossOptimalTreeRegressor(max_depth=depth + 1, loss="squared", time_limit=args.time_limit,
                                                     threads=1).fit(Xtr, ytr),
                "sklearn tree": lambda: DecisionTreeRegressor(max_depth=depth, random_state=0).fit(Xtr, ytr),
                "sklearn forest (100)": lambda: RandomForestRegressor(100, max_depth=depth, random_state=0,
                                                                      n_jobs=1).fit(Xtr, ytr),
            }
            for label, make in fits.items():
                if not selected(label, args.models):
                    continue
                model, seconds = timed(make)
                leaves = model.tree_.n_leaves if hasattr(model, "fit_report_") else (
                    model.get_n_leaves() if hasattr(model, "get_n_leaves") else None)
                rows.append(dict(dataset=name, n_train=len(ytr), depth=depth, model=label, seconds=seconds,
                                 leaves=leaves, proven=getattr(model, "proven_", None),
                                 **scores(model.predict(Xte), yte)))
            if args.streed_python and not args.models:
                r = streed(args.streed_python, Xtr, ytr, Xte, yte, depth, args.time_limit)
                rows.append(dict(dataset=name, n_train=len(ytr), depth=depth, model="STreeD (10 thresholds)",
                                 seconds=r.get("seconds"), leaves=None, rmse=r.get("rmse"), r2=r.get("r2"),
                                 proven=r.get("proven"), error=r.get("error")))
            print(f"{name} depth {depth} done", flush=True)
            frame = pd.DataFrame(rows)
            frame = merged(kept, frame, ["dataset", "depth", "model"])
            frame.to_csv(out, index=False)
    print(frame.round(4).to_string(index=False))


if __name__ == "__main__":
    main()
