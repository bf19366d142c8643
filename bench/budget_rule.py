"""Which rule should the readable default (``max_features="auto"``) choose its feature budget by?

Per fit, the held-out balanced accuracy of each candidate budget on each fold (``budget_results_``) decides two
choices: the fewest features within :data:`~optitrees.estimators._auto_budget.TOLERANCE` (1 point) of the best mean
(the rule before this bench), and the fewest within that tolerance or within one standard error of the paired
shortfall over the folds (:func:`~optitrees.algorithms.fold_search.fewest_within` with the fold table, the rule
after). Where the two choose differently, both budgets are fitted as fixed ``max_features`` on the whole training
split, so both rules are scored by fits made the same way; where they agree they share one fit. Table 3.1's ten
sets x ``--splits`` stratified 75/25 splits (``bench/frontier.py``'s), depth 2, ``--time-limit`` seconds per fit,
one solver thread, two fits at a time.

    python bench/budget_rule.py [--models "TAO oblique" OLCT OCT-H] [--splits 3] [--time-limit 10]
                                [--out bench/results/budget_rule.csv]
    python bench/budget_rule.py --users-sizes

``--users-sizes`` runs only OLCT's held-out choice (its share of a 60 s fit) on the settings of
``bench/scale.py --part loss`` (4,000-28,000 rows, split 0) and prints both rules' budgets: where they agree, the
fits ``scale.py`` measured are the default's under either rule.

Prints, per model, the mean test balanced accuracy and features per hyperplane of each rule and the paired
difference (mean +- standard error over the fits), and per set where the rules differ.
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import require_shared  # noqa: E402
from frontier import SETS, _model, _readability, _split  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"
MODELS = ("TAO oblique", "OLCT", "OCT-H")


def _fit(kind, budget, depth, time_limit, seed, X, y, X_test, y_test):
    import warnings

    from sklearn.metrics import balanced_accuracy_score

    model = _model(kind, budget, depth, time_limit, seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(X, y)
    per_hyperplane, _ = _readability(model, kind, X)
    return model, float(balanced_accuracy_score(y_test, model.predict(X_test))), per_hyperplane


def _code(budget):
    """frontier's budget code of a candidate (``0``: no budget)."""
    return 0 if budget is None else int(np.max(budget))


def one(task):
    """Both rules' choices on one split and the test balanced accuracy of each, in its own process."""
    from optitrees.algorithms.fold_search import fewest_within
    from optitrees.estimators import _auto_budget as auto

    name, seed, kind, depth, time_limit = task
    X, X_test, y, y_test = _split(name, seed)
    t0 = time.perf_counter()
    model, auto_bacc, auto_width = _fit(kind, -1, depth, time_limit, seed, X, y, X_test, y_test)
    results = model.budget_results_
    scored = results["candidates_scored"]
    mean = results["mean_held_out_balanced_accuracy"][:scored]
    table = results["held_out_balanced_accuracy_per_fold"]
    sizes = auto.features(auto.BUDGETS)
    by_tolerance = _code(auto.BUDGETS[fewest_within(mean, auto.TOLERANCE, sizes)]) if scored else None
    by_error = _code(auto.BUDGETS[fewest_within(mean, auto.TOLERANCE, sizes, table)]) if scored else None
    fits = {}
    if by_tolerance != by_error:
        for code in (by_tolerance, by_error):
            _, bacc, width = _fit(kind, code, depth, time_limit, seed, X, y, X_test, y_test)
            fits[code] = (bacc, width)
    else:
        fits[by_error] = (auto_bacc, auto_width)
    return dict(dataset=name, seed=seed, model=kind, depth=depth, time_limit=time_limit,
                folds=int(results["folds_scored"]), budget_tolerance=by_tolerance, budget_one_se=by_error,
                test_bacc_tolerance=fits[by_tolerance][0], test_bacc_one_se=fits[by_error][0],
                per_hyperplane_tolerance=fits[by_tolerance][1], per_hyperplane_one_se=fits[by_error][1],
                auto_fit_budget=_code(model.max_features_), auto_fit_test_bacc=auto_bacc,
                seconds=round(time.perf_counter() - t0, 1))


def users_sizes():
    """Both rules' budgets for OLCT's default on the users' sizes (only the choice is run)."""
    from scale import LOSS_SETS

    from optitrees import OLCTClassifier
    from optitrees.algorithms.fold_search import fewest_within
    from optitrees.budget import Budget
    from optitrees.estimators import _auto_budget as auto

    from _data import load_numeric

    sizes = auto.features(auto.BUDGETS)
    for name, ns in LOSS_SETS:
        X, y, _ = load_numeric(name)
        for n in ns:
            train = np.random.default_rng(0).permutation(len(y))[:n]          # scale.py's split 0
            model = OLCTClassifier(max_depth=2, time_limit=60, threads=1, random_state=0)
            model._validate_params()
            model._choose_budget(model._prepare(X[train], y[train])[0], Budget(60.0))
            results = model.budget_results_
            scored = results["candidates_scored"]
            mean, table = results["mean_held_out_balanced_accuracy"][:scored], \
                results["held_out_balanced_accuracy_per_fold"]
            print(f"{name} {n}: {results['folds_scored']} folds, within 1 point: "
                  f"{auto.BUDGETS[fewest_within(mean, auto.TOLERANCE, sizes)]}, within 1 point or 1 SE: "
                  f"{auto.BUDGETS[fewest_within(mean, auto.TOLERANCE, sizes, table)]}; mean held-out BAcc "
                  f"{np.round(100 * mean, 2).tolist()}", flush=True)


def summary(table: pd.DataFrame):
    for kind, part in table.groupby("model", sort=False):
        diff = 100 * (part.test_bacc_one_se - part.test_bacc_tolerance)
        print(f"\n{kind}: {len(part)} fits, rules differ on {int((part.budget_tolerance != part.budget_one_se).sum())}")
        print(f"  within 1 point:        test BAcc {100 * part.test_bacc_tolerance.mean():.2f} at "
              f"{part.per_hyperplane_tolerance.mean():.1f} features per hyperplane")
        print(f"  within 1 point or 1 SE: test BAcc {100 * part.test_bacc_one_se.mean():.2f} at "
              f"{part.per_hyperplane_one_se.mean():.1f}")
        print(f"  paired difference {diff.mean():+.2f} +- {diff.std(ddof=1) / np.sqrt(len(diff)):.2f} points")
        per_set = part.assign(diff=diff).groupby("dataset")["diff"].sum()
        print("  per set (sum over splits):", ", ".join(f"{k} {v:+.1f}" for k, v in per_set.items() if v != 0))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", nargs="+", default=list(MODELS), choices=list(MODELS))
    parser.add_argument("--splits", type=int, default=3)
    parser.add_argument("--depth", type=int, default=2)
    parser.add_argument("--time-limit", type=float, default=10)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--out", default=str(RESULTS / "budget_rule.csv"))
    parser.add_argument("--users-sizes", action="store_true", help="only OLCT's choice at bench/scale.py's sizes")
    args = parser.parse_args()
    require_shared()
    if args.users_sizes:
        users_sizes()
        return
    tasks = [(name, seed, kind, args.depth, args.time_limit) for kind in args.models for name in SETS
             for seed in range(args.splits)]
    rows = []
    with ProcessPoolExecutor(args.jobs, mp_context=get_context("spawn"), max_tasks_per_child=1) as pool:
        for row in pool.map(one, tasks):
            print(row, flush=True)
            rows.append(row)
    table = pd.DataFrame(rows)
    table.to_csv(args.out, index=False)
    summary(table)


if __name__ == "__main__":
    main()
