"""What each stage of the default OLCT fit buys: the fit with one stage switched off, beside the default, in the
same run (the evidence a fit plan decides from).

Stages switched off, one at a time:

* ``no held-out budget``: ``max_features=None`` (no choice of the features per split on held-out folds);
* ``greedy start only``: ``warm_start="greedy"`` (no TAO / TMO starts);
* ``no start refinement``: ``Shares(start_refinement=0)``;
* ``no neighbourhood rounds``: ``Shares(neighbourhood=0)`` (the full MIP gets the time);
* ``small start share``: ``Shares(starts=0.1, tmo_starts=0.15)`` (the starts keep running, on less time).

On Table 3.1's ten sets, one stratified split per ``--splits``, at two sizes: ``--small`` training rows (60 by
default, the rest held out) with ``--small-limit`` seconds (5), and the whole 75% training split with ``--limit``
seconds (10). Each fit in a fresh process, two at a time, one solver thread. Reported per configuration: the exact
training objective against the default's (the fit's own objective, 3.12 with the logistic loss), test balanced
accuracy, the seconds of the solve and of the starts (``fit_report_.stages``), and who returned the model.

    python bench/stages.py [--splits 1] [--small 60] [--small-limit 5] [--limit 10] [--sets breast ...]
                           [--configs default ...]
                           [--only-small | --only-full] [--out stages.csv] [--summary-only] [--before other.csv]

At the users' sizes: ``--sets adult --small 30000 --small-limit 60 --only-small`` (30,000 training rows of adult,
60 s). Rows go to ``bench/results/<out>`` (a run resumes).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).parent))
from _data import load_numeric, run_in_processes, run_then_summarize  # noqa: E402

RESULTS = Path(__file__).parent / "results"
TABLE_3_1 = ("breast", "climate", "haberman", "heart", "ionosphere", "parkinsons", "sonar", "spectf", "tic-tac-toe",
             "wpbc")
#: configuration -> (estimator parameters, Shares overrides)
CONFIGS = {
    "default": ({}, {}),
    "no held-out budget": ({"max_features": None}, {}),
    "greedy start only": ({"warm_start": "greedy"}, {}),
    "no start refinement": ({}, {"start_refinement": 0.0}),
    "no neighbourhood rounds": ({}, {"neighbourhood": 0.0}),
    "small start share": ({}, {"starts": 0.1, "tmo_starts": 0.15}),
}


def fit_task(task) -> dict:
    """One fit: ``task = (set, split, size, config, limit)``; ``size`` is the training rows or ``None`` (all)."""
    import os
    import warnings
    from dataclasses import replace

    for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[k] = "1"
    from sklearn.metrics import balanced_accuracy_score
    from sklearn.model_selection import train_test_split

    from optitrees import OLCTClassifier
    from optitrees.budget import Shares

    name, split, size, config, limit = task
    params, shares = CONFIGS[config]
    X, y, _ = load_numeric(name)
    if size is None:
        X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=split, stratify=y)
    else:
        X_train, X_test, y_train, y_test = train_test_split(X, y, train_size=size, random_state=split, stratify=y)
    est = OLCTClassifier(max_depth=2, time_limit=limit, threads=1, random_state=split, **params)
    if shares:
        est._shares = replace(Shares(), **shares)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X_train, y_train)
    seconds = time.perf_counter() - start
    stages = est.fit_report_.stages
    return dict(dataset=name, split=split, rows=len(y_train), limit=limit, config=config,
                objective=float(est.objective_), test_bacc=balanced_accuracy_score(y_test, est.predict(X_test)),
                seconds=seconds, solve=float(stages.get("solve", 0.0)), starts=float(stages.get("starts", 0.0)),
                method=str(est.fit_report_.method), stages=str({k: round(v, 2) for k, v in stages.items()}))


def run(args) -> None:
    RESULTS.mkdir(exist_ok=True)
    done = set()
    out = RESULTS / args.out
    if out.exists():
        old = pd.read_csv(out)
        done = set(zip(old.dataset, old.split, old.limit, old.config))
    sizes = ((args.small, args.small_limit),) if args.only_small else ((None, args.limit),) if args.only_full else \
        ((args.small, args.small_limit), (None, args.limit))
    tasks = [(name, split, size, config, limit) for size, limit in sizes
             for name in args.sets for split in range(args.splits) for config in CONFIGS
             if (name, split, limit, config) not in done and config in args.configs]
    run_in_processes(tasks, fit_task, out, 2, lambda r: f"{r['dataset']} {r['rows']} rows {r['config']}: "
                     f"{r['objective']:.3f}, {100 * r['test_bacc']:.1f} in {r['seconds']:.1f} s "
                     f"(solve {r['solve']:.1f} s)")


def summary(args) -> None:
    table = pd.read_csv(RESULTS / args.out)
    table["test_bacc"] *= 100
    for limit, part in table.groupby("limit"):
        default = part[part.config == "default"].set_index(["dataset", "split"])
        print(f"\nOLCT depth 2, {limit:g} s, {part.rows.min()}-{part.rows.max()} training rows, "
              f"{len(default)} fits per configuration; against the default fit:")
        print(f"  {'configuration':25s} {'objective':>10s} {'lower/higher':>13s} {'test BAcc':>10s} "
              f"{'solve s':>8s} {'starts s':>9s}")
        for config in CONFIGS:
            rows = part[part.config == config].set_index(["dataset", "split"]).merge(
                default, left_index=True, right_index=True, suffixes=("", "_default"))
            if rows.empty:
                continue
            relative = (rows.objective - rows.objective_default) / rows.objective_default.abs()
            lower, higher = int((relative < -1e-6).sum()), int((relative > 1e-6).sum())
            print(f"  {config:25s} {100 * relative.mean():+9.2f}% {lower:>6d}/{higher:<6d} "
                  f"{(rows.test_bacc - rows.test_bacc_default).mean():+9.2f} {rows.solve.median():8.2f} "
                  f"{rows.starts.median():9.2f}")


def compare(args) -> None:
    """The default fit of ``--out`` against the default fit of ``--before`` (another run, e.g. the code before a
    change), paired by set and split."""
    after, before = (pd.read_csv(RESULTS / name) for name in (args.out, args.before))
    keys = ["dataset", "split", "limit"]
    pairs = after[after.config == "default"].merge(before[before.config == "default"], on=keys,
                                                   suffixes=("", "_before"))
    relative = (pairs.objective - pairs.objective_before) / pairs.objective_before.abs()
    print(f"\nthe default OLCT (depth 2) of {args.out} against {args.before}, {len(pairs)} fits paired by set and "
          f"split, {pairs.rows.min()}-{pairs.rows.max()} training rows:")
    print(f"  training objective {100 * relative.mean():+.2f}% (lower on {int((relative < -1e-6).sum())}, higher on "
          f"{int((relative > 1e-6).sum())}); test balanced accuracy "
          f"{100 * (pairs.test_bacc - pairs.test_bacc_before).mean():+.2f} points; median solve "
          f"{pairs.solve.median():.2f} s against {pairs.solve_before.median():.2f}, median starts "
          f"{pairs.starts.median():.2f} s against {pairs.starts_before.median():.2f}; share of the fit in the solve "
          f"{(pairs.solve / pairs.seconds).median():.0%} against {(pairs.solve_before / pairs.seconds_before).median():.0%}")
    per_set = pairs.assign(d=100 * (pairs.test_bacc - pairs.test_bacc_before)).groupby("dataset").d.mean()
    print("  test balanced accuracy per set: " + ", ".join(f"{k} {v:+.1f}" for k, v in per_set.items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--splits", type=int, default=1)
    parser.add_argument("--small", type=int, default=60)
    parser.add_argument("--small-limit", type=float, default=5.0)
    parser.add_argument("--limit", type=float, default=10.0)
    parser.add_argument("--sets", nargs="+", default=list(TABLE_3_1), help="shared sets (default: Table 3.1's)")
    parser.add_argument("--configs", nargs="+", default=list(CONFIGS), choices=list(CONFIGS))
    parser.add_argument("--only-small", action="store_true", help="only the --small training rows")
    parser.add_argument("--only-full", action="store_true", help="only the whole training split")
    parser.add_argument("--out", default="stages.csv")
    parser.add_argument("--summary-only", action="store_true")
    parser.add_argument("--before", help="compare the default fit of --out with the one in this results file")
    args = parser.parse_args()
    if args.before:
        compare(args)
        return
    run_then_summarize(args, run, summary)


if __name__ == "__main__":
    main()
