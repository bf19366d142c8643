"""Trees under a feature-cost budget: the MIP choosing its features within ``max_feature_cost``, against the same
estimator fitted on the affordable features a screen picks first, and against no budget.

Sets (as ``bench/constraints.py``: numeric features, categorical ones one-hot): german and heart (75/25 splits,
``--splits``), adult on 1,000 sampled rows and on all 30,162 (tested on ``adult_test``). Each column costs 1, 2 or
3 (drawn once per set with seed 0; a one-hot column costs as its own feature, so a model reading two levels of one
category pays twice); the budget is ``--budget``. Models (depth ``--depth``, ``--time-limit`` seconds, one thread):

* ``<family> budget``: ``OCTClassifier`` / ``OCTHClassifier`` / ``OLCTClassifier(feature_costs=c,
  max_feature_cost=B)``: the MIP keeps ``sum_j c_j u_j <= B`` and picks the features;
* ``<family> screened``: the same estimator with every feature but the affordable ones forbidden: along the
  l1-logistic path, each feature whose cost fits in what is left (what a user does by hand before fitting);
* ``<family> free``: no budget (what its features cost is reported);
* the peer: scikit-learn's CART of the same depth, on all features and on the screened ones.

Reports per fit: test balanced accuracy, what the features read cost, whether the budget is kept, seconds, status.
Rows go to ``bench/results/feature_costs.csv``.

    python bench/feature_costs.py [--sets german heart adult_1k adult_30k] [--budget 4] [--depth 2]
                                  [--splits 2] [--time-limit 30] [--summary-only]
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import done_keys, run_in_processes, run_then_summarize, study_parser  # noqa: E402
from constraints import split  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"
SETS = ("german", "heart", "adult_1k", "adult_30k")
FAMILIES = ("OCT", "OCT-H", "OLCT")
VARIANTS = ("budget", "screened", "free")


def costs_of(n_features: int) -> np.ndarray:
    return np.random.default_rng(0).integers(1, 4, n_features).astype(float)


def screened(X, y, costs, budget) -> np.ndarray:
    """The affordable features along the l1-logistic path (the starts' set, :mod:`optitrees.estimators.mip_fit`)."""
    from optitrees.algorithms.feature_order import l1_entry_order
    from optitrees.formulations.feature_budget import FeatureBudget

    rows = np.random.default_rng(0).permutation(len(y))[:8000]
    costs = FeatureBudget.create(costs, budget, [str(j) for j in range(X.shape[1])])
    return costs.affordable(l1_entry_order(X[rows], y[rows], most=costs.most_affordable()))


def fit_one(task) -> dict:
    import warnings

    from sklearn.metrics import balanced_accuracy_score

    name, seed, model, budget, depth, time_limit = task
    X, y, _, Xt, yt, _, _, _ = split(name, seed)
    costs = costs_of(X.shape[1])
    kept = screened(X, y, costs, budget)
    row = dict(dataset=name, seed=seed, rows=len(y), model=model, budget=budget, depth=depth, time_limit=time_limit,
               status="")
    family, variant = model.rsplit(" ", 1)
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if family == "CART":
            from sklearn.tree import DecisionTreeClassifier

            cols = kept if variant == "screened" else np.ones(X.shape[1], bool)
            clf = DecisionTreeClassifier(max_depth=depth, random_state=seed).fit(X[:, cols], y)
            pred = clf.predict(Xt[:, cols])
            read = np.zeros(X.shape[1], bool)
            read[np.flatnonzero(cols)[np.unique(clf.tree_.feature[clf.tree_.feature >= 0])]] = True
        else:
            from optitrees import OCTClassifier, OCTHClassifier, OLCTClassifier

            cls = {"OCT": OCTClassifier, "OCT-H": OCTHClassifier, "OLCT": OLCTClassifier}[family]
            params = dict(feature_costs=costs)
            if variant == "budget":
                params["max_feature_cost"] = budget
            elif variant == "screened":
                params["forbidden_features"] = [int(j) for j in np.flatnonzero(~kept)] or None
            clf = cls(max_depth=depth, time_limit=time_limit, threads=1, random_state=seed, **params).fit(X, y)
            pred = clf.predict(Xt)
            read = (clf.tree_.weights[~clf.tree_.is_leaf if clf.tree_.leaf_model.value == "label" else
                                      slice(None)] != 0).any(axis=0)
            row.update(status=clf.fit_report_.outcome.value)
    row.update(seconds=time.perf_counter() - t0, test_bacc=balanced_accuracy_score(yt, pred),
               cost=float(costs[read].sum()), n_read=int(read.sum()), keeps=bool(costs[read].sum() <= budget + 1e-9))
    return row


def run(args) -> None:
    out = RESULTS / args.out
    done = done_keys(out, ("dataset", "seed", "model", "budget"))
    models = [f"{f} {v}" for f in FAMILIES for v in VARIANTS] + ["CART screened", "CART free"]
    tasks = [(name, seed, model, args.budget, args.depth, args.time_limit)
             for name in args.sets for seed in range(1 if name == "adult_30k" else args.splits) for model in models]
    tasks = [t for t in tasks if (t[0], t[1], t[2], t[3]) not in done]
    run_in_processes(tasks, fit_one, out, args.workers, lambda row: f"{row['dataset']} {row['model']}: test bacc {100 * row['test_bacc']:.1f}, "
                     f"cost {row['cost']:g} in {row['seconds']:.1f} s ({row['status']})")


def summary(args) -> None:
    table = pd.read_csv(RESULTS / args.out)
    table["test_bacc"] *= 100
    constrained = table[~table.model.str.endswith("free")]
    print(f"{len(constrained)} fits under a budget; kept: {int(constrained.keeps.sum())}/{len(constrained)}")
    limit = table[table.status.notna() & (table.status != "")]
    over = limit[limit.seconds > 1.05 * limit.time_limit + 1]
    print(f"MIP fits over 5% + 1 s of their time limit: {len(over)}/{len(limit)}")
    means = table.groupby(["dataset", "model"])[["test_bacc", "cost", "n_read", "seconds"]].mean().round(2)
    print(means.to_string())
    cells = table.pivot_table(index=["dataset", "seed"], columns="model", values="test_bacc")
    for family in FAMILIES:
        if f"{family} budget" in cells and f"{family} screened" in cells:
            diff = (cells[f"{family} budget"] - cells[f"{family} screened"]).groupby(level="dataset").mean()
            print(f"{family}: budget - screened, test balanced accuracy (points): "
                  + ", ".join(f"{k} {v:+.2f}" for k, v in diff.items()))


def main() -> None:
    parser = study_parser(__doc__, SETS, "feature_costs.csv")
    parser.add_argument("--budget", type=float, default=4.0)
    parser.add_argument("--depth", type=int, default=2)
    run_then_summarize(parser.parse_args(), run, summary)


if __name__ == "__main__":
    main()
