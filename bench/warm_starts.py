"""Which warm start a MIP tree should use by default: greedy, TAO, TMO or the best of them.

For OLCT (logistic, default tangents), MARGOT (hinge + l2) and OCT-H at depth
2 and 3 on five Table 3.1 datasets (80/20 split, seed 0, HiGHS, 1 thread,
``--time-limit`` per fit, the default refinement on), each ``warm_start``
setting reports the exact training objective of the returned model relative to
the plain greedy tree's, which method produced it, the fit time and the test
balanced accuracy. The default of ``warm_start=True`` is the setting with the
best objective within the budget (ties: the cheaper start).

Run: python bench/warm_starts.py [--time-limit 10]
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).parent))
from _data import load_numeric, require_shared  # noqa: E402

DATASETS = ("breast", "ionosphere", "sonar", "spectf", "heart")
STARTS = ("greedy", "tao", "tmo", "best")
OUT = Path(__file__).parent / "results" / "warm_starts.csv"


def families():
    from optitrees import MARGOTClassifier, OCTHClassifier, OLCTClassifier

    return {"OLCT": OLCTClassifier, "MARGOT": MARGOTClassifier,
            "OCT-H": lambda **kw: OCTHClassifier(alpha=0.01, **kw)}


def run(args):
    from sklearn.metrics import balanced_accuracy_score
    from sklearn.model_selection import train_test_split

    rows = pd.read_csv(OUT).to_dict("records") if args.resume and OUT.exists() else []
    done = {(r["dataset"], r["depth"], r["family"], r["warm_start"]) for r in rows}
    for name in args.datasets:
        X, y, _ = load_numeric(name)
        Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.2, random_state=0, stratify=y)
        for depth in args.depths:
            for family, make in families().items():
                if family not in args.families:
                    continue
                for start in STARTS:
                    if (name, depth, family, start) in done:
                        continue
                    est = make(max_depth=depth, warm_start=start, time_limit=args.time_limit, threads=1,
                               random_state=0)
                    t0 = time.perf_counter()
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        est.fit(Xtr, ytr)
                    r = est.solver_result_
                    rows.append(dict(dataset=name, depth=depth, family=family, warm_start=start,
                                     fit_time=time.perf_counter() - t0, status=r.status, method=est.method_,
                                     greedy=est.greedy_objective_, start=est.warm_start_objective_,
                                     solver_exact=r.objectives.get("solver", np.nan), returned=est.objective_,
                                     test_ba=balanced_accuracy_score(yte, est.predict(Xte))))
                    print(rows[-1], flush=True)
                    OUT.parent.mkdir(exist_ok=True)
                    pd.DataFrame(rows).to_csv(OUT, index=False)


def report():
    df = pd.read_csv(OUT)
    df["ratio"] = df.returned / df.greedy
    df["beats"] = df.returned < df.greedy - 1e-9 * df.greedy.abs()
    df["start_ratio"] = df.start / df.greedy
    print("Per family and warm start (over datasets and depths): returned model beats the greedy tree in the exact "
          "objective; median and mean exact(returned) / exact(greedy); the start's own ratio; fit time; test BA")
    print("| family | warm_start | beats greedy | median ratio | mean ratio | start ratio (median) | "
          "returned by (method: runs) | median fit s | max fit s | mean test BA |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for (fam, start), g in df.groupby(["family", "warm_start"], sort=False):
        methods = ", ".join(f"{k}: {v}" for k, v in g.method.value_counts().items())
        print(f"| {fam} | {start} | {int(g.beats.sum())}/{len(g)} | {g.ratio.median():.3f} | {g.ratio.mean():.3f} | "
              f"{g.start_ratio.median():.3f} | {methods} | {g.fit_time.median():.1f} | {g.fit_time.max():.1f} | "
              f"{g.test_ba.mean():.3f} |")
    wide = df.pivot_table(index=["dataset", "depth", "family"], columns="warm_start", values="returned")
    best = wide.le(wide.min(axis=1) * (1 + 1e-9), axis=0).mean()
    print("\nshare of instances where the setting's returned model is the best of the four: "
          + ", ".join(f"{k} {v:.0%}" for k, v in best.items()))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--time-limit", type=float, default=10.0)
    parser.add_argument("--depths", nargs="+", type=int, default=[2, 3])
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS))
    parser.add_argument("--families", nargs="+", default=["OLCT", "MARGOT", "OCT-H"])
    parser.add_argument("--resume", action="store_true", help="keep the rows of an earlier run's CSV")
    parser.add_argument("--report", action="store_true", help="only print the saved runs")
    args = parser.parse_args()
    require_shared()
    if not args.report:
        run(args)
    report()


if __name__ == "__main__":
    main()
