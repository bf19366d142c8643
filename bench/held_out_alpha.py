"""Would a complexity weight ``alpha`` chosen on held-out folds pay? A model at ``alpha = 0`` (the default) against
``alpha`` chosen by 4-fold cross-validation, scikit-learn's ``GridSearchCV`` on balanced accuracy: ``--model`` OCT
(ConTree, exact), TAO (axis-aligned, from CART) or TMO.

Table 3.1's ten binary sets (seed 002) x ``--splits`` stratified 75/25 splits, depth ``--depth``. Prints the mean
test balanced accuracy of both, the paired difference and the splits used, and appends one row per fit to
``--out``.

    python bench/held_out_alpha.py [--model OCT] [--depth 3] [--splits 3] [--alphas 0 0.001 0.01 0.03 0.1]
        [--out bench/results/held_out_alpha.csv]
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import load_numeric, require_shared  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"
SETS = ("breast", "climate", "haberman", "heart", "ionosphere", "parkinsons", "sonar", "spectf", "tic-tac-toe",
        "wholesale")


def _estimator(model: str, depth: int, time_limit: float, seed: int):
    from optitrees import OCTClassifier, TAOClassifier, TMOClassifier

    if model == "OCT":
        return OCTClassifier(max_depth=depth, time_limit=time_limit, threads=1, random_state=seed)
    if model == "TAO":
        return TAOClassifier(max_depth=depth, time_limit=time_limit, random_state=seed)
    return TMOClassifier(max_depth=depth, time_limit=time_limit, random_state=seed)


def fit_one(model: str, name: str, seed: int, depth: int, alphas, time_limit: float) -> list[dict]:
    from sklearn.base import clone
    from sklearn.metrics import balanced_accuracy_score
    from sklearn.model_selection import GridSearchCV, StratifiedKFold, train_test_split

    X, y, _ = load_numeric(name)
    X, X_test, y, y_test = train_test_split(X, y, test_size=0.25, stratify=y, random_state=seed)
    rows = []
    base = _estimator(model, depth, time_limit, seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        default = base.fit(X, y)
        rows.append(dict(model=model, dataset=name, seed=seed, depth=depth, config="alpha=0", alpha=0.0,
                         test_bacc=balanced_accuracy_score(y_test, default.predict(X_test)),
                         splits=default.tree_.n_splits(), seconds=time.perf_counter() - t0))
        t0 = time.perf_counter()
        search = GridSearchCV(clone(base), {"alpha": list(alphas)}, scoring="balanced_accuracy",
                              cv=StratifiedKFold(4, shuffle=True, random_state=seed)).fit(X, y)
        best = search.best_estimator_
        rows.append(dict(model=model, dataset=name, seed=seed, depth=depth, config="alpha held out",
                         alpha=search.best_params_["alpha"],
                         test_bacc=balanced_accuracy_score(y_test, best.predict(X_test)),
                         splits=best.tree_.n_splits(), seconds=time.perf_counter() - t0))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", choices=["OCT", "TAO", "TMO"], default="OCT")
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--splits", type=int, default=3)
    parser.add_argument("--alphas", type=float, nargs="+", default=[0.0, 0.001, 0.01, 0.03, 0.1])
    parser.add_argument("--time-limit", type=float, default=10.0)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--out", default=str(RESULTS / "held_out_alpha.csv"))
    args = parser.parse_args()
    require_shared()
    from joblib import Parallel, delayed

    tasks = [(name, seed) for name in SETS for seed in range(args.splits)]
    results = Parallel(n_jobs=args.jobs)(delayed(fit_one)(args.model, name, seed, args.depth, args.alphas,
                                                          args.time_limit)
                                         for name, seed in tasks)
    table = pd.DataFrame([row for rows in results for row in rows])
    out = Path(args.out)
    table.to_csv(out, mode="a", header=not out.exists(), index=False)
    pivot = table.pivot_table(index=["dataset", "seed"], columns="config", values="test_bacc")
    diff = 100 * (pivot["alpha held out"] - pivot["alpha=0"])
    per_set = diff.groupby("dataset").mean()
    print(f"{args.model} depth {args.depth}, {args.splits} splits x {len(SETS)} sets")
    print(table.groupby("config")[["test_bacc", "splits", "seconds"]].mean().round(3).to_string())
    print(f"held out - alpha=0: {diff.mean():+.2f} +- {diff.std() / np.sqrt(len(diff)):.2f} points; sets "
          f"W/T/L {(per_set > 0.5).sum()}/{(per_set.abs() <= 0.5).sum()}/{(per_set < -0.5).sum()}")
    print(table[table.config == "alpha held out"].alpha.value_counts().to_string())


if __name__ == "__main__":
    main()
