"""The oblique regression tree under ``monotonic_cst`` and under a feature-cost budget, beside scikit-learn's
``DecisionTreeRegressor`` and ``HistGradientBoostingRegressor`` under the same monotone constraint, each also
without it.

Sets (75/25 splits, ``--splits``; categorical columns one-hot) and constraints: abalone, rings rising with
``Shell_weight`` and ``Diameter``; cpu_small, user time falling with ``runqsz`` (the run queue) and rising with
``freeswap``. ``--rows`` caps the training rows (a stratified-by-decile sample; all of them by default: 3,132 and
6,144). Feature costs: each column costs 1, 2 or 3 (drawn once per set with seed 0, as ``bench/feature_costs.py``),
budget ``--budget``.

Models (``--time-limit`` seconds for the MIP, one thread): ``LOTR`` (``LossOptimalTreeRegressor(max_depth=2)``: one
oblique split, linear leaves, absolute loss) ``free``, ``mono`` and ``budget``; scikit-learn's CART of depth
``--cart-depth`` and its gradient boosting (default settings), ``free`` and ``mono``.

Violations: optitrees' checker (:func:`optitrees.monotonicity.check_monotonic`, a proof for the linear-leaf tree and
CART); for gradient boosting a search (300 test rows moved through 24 values of each constrained feature). Reports
test RMSE and R^2, violations, what the features read cost (and whether within the budget), seconds, status; rows
go to ``bench/results/regressor_constraints.csv``.

    python bench/regressor_constraints.py [--sets abalone cpu_small] [--splits 2] [--time-limit 30] [--budget 4]
                                          [--summary-only]
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import done_keys, load_raw, run_in_processes, run_then_summarize, study_parser  # noqa: E402
from constraints import _numeric  # noqa: E402
from monotone import searched_violations  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"
SETS = ("abalone", "cpu_small")
CONSTRAINTS = {"abalone": {"Shell_weight": 1, "Diameter": 1}, "cpu_small": {"runqsz": -1, "freeswap": 1}}
MODELS = (("LOTR", "free"), ("LOTR", "mono"), ("LOTR", "budget"), ("CART", "free"), ("CART", "mono"),
          ("HGB", "free"), ("HGB", "mono"))


def split(name: str, seed: int, rows: int | None):
    """``(X, y, X_test, y_test, column names)``: numeric features, the target as floats."""
    from sklearn.model_selection import train_test_split

    X, y = load_raw(name)
    X = _numeric(X)
    y = pd.to_numeric(y).to_numpy(float)
    deciles = np.searchsorted(np.quantile(y, np.linspace(0.1, 0.9, 9)), y)
    a, b = train_test_split(np.arange(len(y)), test_size=0.25, stratify=deciles, random_state=seed)
    if rows is not None and rows < len(a):
        a, _ = train_test_split(a, train_size=rows, stratify=deciles[a], random_state=seed)
    names = [str(c) for c in X.columns]
    return X.to_numpy(float)[a], y[a], X.to_numpy(float)[b], y[b], names


def signs(name: str, names: list) -> np.ndarray:
    out = np.zeros(len(names), np.int64)
    for feature, sign in CONSTRAINTS[name].items():
        out[names.index(feature)] = sign
    return out


def costs(n_features: int) -> np.ndarray:
    return np.random.default_rng(0).integers(1, 4, size=n_features).astype(float)


def fit_one(task) -> dict:
    import warnings

    from sklearn.metrics import mean_squared_error, r2_score

    from optitrees.monotonicity import check_monotonic
    from optitrees.trees import from_sklearn

    name, seed, model, kind, rows, cart_depth, time_limit, budget = task
    X, y, Xt, yt, names = split(name, seed, rows)
    cst, cost = signs(name, names), costs(X.shape[1])
    row = dict(dataset=name, seed=seed, rows=len(y), model=model, kind=kind, time_limit=time_limit, budget=budget,
               status="", returned="")
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if model == "LOTR":
            from optitrees import LossOptimalTreeRegressor

            extra = {"mono": dict(monotonic_cst=cst), "budget": dict(feature_costs=cost, max_feature_cost=budget)}
            reg = LossOptimalTreeRegressor(max_depth=2, time_limit=time_limit, threads=1, random_state=seed,
                                           **extra.get(kind, {})).fit(X, y)
            row.update(status=reg.fit_report_.outcome.value, returned=reg.fit_report_.returned)
            read = (reg.tree_.weights != 0).any(axis=0)
        elif model == "CART":
            from sklearn.tree import DecisionTreeRegressor

            reg = DecisionTreeRegressor(max_depth=cart_depth, random_state=seed,
                                        monotonic_cst=cst if kind == "mono" else None).fit(X, y)
            read = reg.feature_importances_ > 0
        else:
            from sklearn.ensemble import HistGradientBoostingRegressor

            reg = HistGradientBoostingRegressor(random_state=seed,
                                                monotonic_cst=cst if kind == "mono" else None).fit(X, y)
            read = np.ones(X.shape[1], bool)
        seconds = time.perf_counter() - t0
        if model == "HGB":
            violations, exact = searched_violations(reg.predict, Xt, cst), False
        else:
            check = check_monotonic(from_sklearn(reg) if model == "CART" else reg.tree_, cst, Xt)
            violations, exact = len(check.violations), check.exact
    predicted = reg.predict(Xt)
    row.update(seconds=seconds, test_rmse=float(np.sqrt(mean_squared_error(yt, predicted))),
               test_r2=float(r2_score(yt, predicted)), violations=violations, exact=exact,
               cost=float(cost @ read), within_budget=bool(cost @ read <= budget + 1e-9))
    return row


def run(args) -> None:
    out = RESULTS / args.out
    done = done_keys(out, ("dataset", "seed", "model", "kind"))
    tasks = [(name, seed, model, kind, args.rows, args.cart_depth, args.time_limit, args.budget)
             for name in args.sets for seed in range(args.splits) for model, kind in MODELS]
    tasks = [t for t in tasks if (t[0], t[1], t[2], t[3]) not in done]
    run_in_processes(tasks, fit_one, out, args.workers, lambda row: f"{row['dataset']} {row['model']} {row['kind']}: "
                     f"test RMSE {row['test_rmse']:.3f}, {row['violations']} violations, cost {row['cost']:g} in "
                     f"{row['seconds']:.1f} s ({row['status']})")


def summary(args) -> None:
    table = pd.read_csv(RESULTS / args.out)
    mono = table[table.kind == "mono"]
    print(f"{len(mono)} monotone fits; violations found: "
          + ", ".join(f"{m} {int(v.sum())}" for m, v in mono.groupby("model").violations))
    budgeted = table[table.kind == "budget"]
    print(f"{len(budgeted)} budgeted fits; within the budget: {int(budgeted.within_budget.sum())}/{len(budgeted)}")
    cols = ["test_rmse", "test_r2", "violations", "cost", "seconds"]
    print(table.groupby(["dataset", "model", "kind"])[cols].mean().round(3).to_string())


def main() -> None:
    parser = study_parser(__doc__, SETS, "regressor_constraints.csv")
    parser.add_argument("--rows", type=int, help="at most this many training rows (default: all)")
    parser.add_argument("--cart-depth", type=int, default=2)
    parser.add_argument("--budget", type=float, default=4.0)
    run_then_summarize(parser.parse_args(), run, summary)


if __name__ == "__main__":
    main()
