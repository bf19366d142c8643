"""Monotone trees: optitrees' models under ``monotonic_cst`` beside scikit-learn's ``DecisionTreeClassifier`` and
``HistGradientBoostingClassifier`` under the same constraint, each also without it.

Sets and constraints (the positive class's score): german, bad credit rising with ``duration`` and
``credit_amount`` and falling with ``age`` (75/25 splits, ``--splits``); adult, income over 50K rising with ``age``
and ``capital_gain``, trained on 1,000 sampled rows and on all 30,162 and tested on ``adult_test``. Numeric features,
categorical ones one-hot (as ``bench/constraints.py``). Models (depth ``--depth``, ``--time-limit`` seconds for the
MIPs, one thread): ``OCT``, ``OCT-H``, ``OLCT``, ``TAO`` (axis-aligned), scikit-learn's CART of the same depth and
its gradient boosting (default settings), each ``mono`` and ``free``.

Violations: optitrees' checker (:func:`optitrees.monotonicity.check_monotonic`: a proof for the axis-aligned trees,
linear-leaf trees, OCT-H's trees in the form its MIP holds, and CART; a search on a free OCT-H) on every tree; for
gradient boosting, a search: 300 test rows each moved through 24 values of each constrained feature, a fall (rise)
of ``predict_proba`` against the constraint counted. Reports
test balanced accuracy, violations, seconds, status; rows go to ``bench/results/monotone.csv``.

    python bench/monotone.py [--sets german adult_1k adult_30k] [--depth 2] [--splits 2] [--time-limit 30]
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
from constraints import _numeric, split  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"
SETS = ("german", "adult_1k", "adult_30k")
CONSTRAINTS = {"german": {"duration": 1, "credit_amount": 1, "age": -1},
               "adult": {"age": 1, "capital_gain": 1}}
MODELS = ("OCT", "OCT-H", "OLCT", "TAO", "CART", "HGB")


def columns(name: str) -> list[str]:
    """The numeric columns ``split`` gives for a set (one-hot names for categorical ones)."""
    base = "adult" if name.startswith("adult") else name
    X, _ = load_raw(base)
    if base == "adult":
        Xt, _ = load_raw("adult_test")
        X = pd.concat([X, Xt], ignore_index=True)
    return [str(c) for c in _numeric(X).columns]


def signs(name: str) -> np.ndarray:
    cols = columns(name)
    out = np.zeros(len(cols), np.int64)
    for feature, sign in CONSTRAINTS["adult" if name.startswith("adult") else name].items():
        out[cols.index(feature)] = sign
    return out


def searched_violations(predict_score, X, cst, rows=300, steps=24) -> int:
    """Rows (of ``rows`` sampled) whose score moves against the constraint along a constrained feature."""
    sample = X[np.random.default_rng(0).choice(len(X), min(rows, len(X)), replace=False)]
    bad = 0
    for j in np.flatnonzero(cst):
        grid = np.unique(np.quantile(X[:, j], np.linspace(0, 1, steps)))
        moved = np.repeat(sample, len(grid), axis=0)
        moved[:, j] = np.tile(grid, len(sample))
        values = predict_score(moved).reshape(len(sample), len(grid))
        bad += int(np.any(cst[j] * np.diff(values, axis=1) < -1e-12, axis=1).sum())
    return bad


def fit_one(task) -> dict:
    import warnings

    from sklearn.metrics import balanced_accuracy_score

    from optitrees.monotonicity import check_monotonic
    from optitrees.trees import from_sklearn

    name, seed, model, constrained, depth, time_limit = task
    X, y, _, Xt, yt, _, _, _ = split(name, seed)
    cst = signs(name)
    row = dict(dataset=name, seed=seed, rows=len(y), model=model, constrained=constrained, depth=depth,
               time_limit=time_limit, status="")
    given = cst if constrained else None
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if model in ("OCT", "OCT-H", "OLCT"):
            from optitrees import OCTClassifier, OCTHClassifier, OLCTClassifier

            cls = {"OCT": OCTClassifier, "OCT-H": OCTHClassifier, "OLCT": OLCTClassifier}[model]
            clf = cls(max_depth=depth, time_limit=time_limit, threads=1, random_state=seed,
                      monotonic_cst=given).fit(X, y)
            row.update(status=clf.fit_report_.outcome.value)
        elif model == "TAO":
            from optitrees import TAOClassifier

            clf = TAOClassifier(max_depth=depth, random_state=seed, monotonic_cst=given).fit(X, y)
        elif model == "CART":
            from sklearn.tree import DecisionTreeClassifier

            clf = DecisionTreeClassifier(max_depth=depth, random_state=seed, monotonic_cst=given).fit(X, y)
        else:
            from sklearn.ensemble import HistGradientBoostingClassifier

            clf = HistGradientBoostingClassifier(random_state=seed, monotonic_cst=given).fit(X, y)
        seconds = time.perf_counter() - t0
        if model == "HGB":
            violations, exact = searched_violations(lambda Z: clf.predict_proba(Z)[:, 1], Xt, cst), False
        else:
            check = check_monotonic(from_sklearn(clf) if model == "CART" else clf, cst, Xt)
            violations, exact = len(check.violations), check.exact
    row.update(seconds=seconds, test_bacc=balanced_accuracy_score(yt, clf.predict(Xt)), violations=violations,
               exact=exact)
    return row


def run(args) -> None:
    out = RESULTS / args.out
    done = done_keys(out, ("dataset", "seed", "model", "constrained"))
    tasks = [(name, seed, model, constrained, args.depth, args.time_limit)
             for name in args.sets for seed in range(1 if name == "adult_30k" else args.splits)
             for model in MODELS for constrained in (True, False)]
    tasks = [t for t in tasks if (t[0], t[1], t[2], t[3]) not in done]
    run_in_processes(tasks, fit_one, out, args.workers, lambda row: f"{row['dataset']} {row['model']} "
                     f"{'mono' if row['constrained'] else 'free'}: test bacc {100 * row['test_bacc']:.1f}, "
                     f"{row['violations']} violations in {row['seconds']:.1f} s ({row['status']})")


def summary(args) -> None:
    table = pd.read_csv(RESULTS / args.out)
    table["test_bacc"] *= 100
    mono = table[table.constrained]
    print(f"{len(mono)} constrained fits; violations found: "
          + ", ".join(f"{m} {int(v.sum())}" for m, v in mono.groupby("model").violations))
    means = table.groupby(["dataset", "model", "constrained"])[["test_bacc", "violations", "seconds"]].mean()
    print(means.round(2).to_string())
    cells = table.pivot_table(index=["dataset", "seed", "model"], columns="constrained", values="test_bacc")
    cost = (cells[True] - cells[False]).groupby(level=["dataset", "model"]).mean()
    print("\nmono - free, test balanced accuracy (points):")
    print(cost.round(2).unstack().to_string())


def main() -> None:
    parser = study_parser(__doc__, SETS, "monotone.csv")
    parser.add_argument("--depth", type=int, default=2)
    run_then_summarize(parser.parse_args(), run, summary)


if __name__ == "__main__":
    main()
