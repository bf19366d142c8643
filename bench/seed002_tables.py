"""Seed 002, Tables 3.2 (depth 2, larger sets) and 3.3 (depth 3): OLCT (V0 as in the seed, and our default V3),
MARGOT and OCT-H, test balanced accuracy beside the seed's.

Protocol: one 80/20 stratified split (seed 0), as the seed; HiGHS, one thread; ``--time-limit`` seconds per
final fit (the seed: 3600 s on Gurobi). Scaled down from the seed: no 4-fold cross-validation of ``C`` /
``alpha`` (the seed's grids of 25 and 12 configurations at 300 s each); every model runs at our defaults
(``C = 1``; OCT-H ``alpha = 0``). Of Table 3.2's sets we have german (german_numer: 1000 x 24), phishing,
splice, svmguide1 and svmguide3; a2a and a4a (not in the seed's table) stand in for a5a / a6a.

    python bench/seed002_tables.py --table 3.2 [--time-limit 300]
    python bench/seed002_tables.py --table 3.3 [--time-limit 300]
    python bench/seed002_tables.py --table 3.2 --summary-only

``--cv`` tunes as the seed does, scaled down, and writes ``..._cv.csv``: 4-fold stratified cross-validation on
the training split, scored by balanced accuracy, ``--cv-time-limit`` seconds per fold fit; ``C`` in
{10^-2, ..., 10^2} shared by the layers (the diagonal of the seed's 5^depth per-layer grid) for OLCT and
MARGOT, ``alpha`` in {0} U {2^-8, ..., 2^2} (the seed's 12 values) for OCT-H; then the final fit on the whole
training split with the chosen value. ``--models`` picks the rows:

    python bench/seed002_tables.py --table 3.3 --cv --datasets wholesale --models MARGOT OCT-H

``--splits K`` repeats each fit on K stratified 80/20 splits (seeds 0 .. K-1) and writes ``..._splits.csv``: how
far one split's test balanced accuracy moves from another's (the seed reports one split of its own).
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import pandas as pd
from sklearn.metrics import balanced_accuracy_score
from sklearn.model_selection import train_test_split

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import load_numeric, require_shared  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"

#: The seed's balanced accuracies (%): Table 3.2 (depth 2) and Table 3.3 (depth 3).
SEED = {
    "3.2": {"german_numer": (69.76, 69.76, 65.60), "phishing": (94.44, 93.93, 50.00), "splice": (88.14, 83.16, 80.26),
            "svmguide1": (94.98, 94.62, 94.52), "svmguide3": (66.86, 67.91, 63.62),
            "a2a": (None, None, None), "a4a": (None, None, None)},
    "3.3": {"parkinsons": (89.83, 88.28, 83.28), "wholesale": (88.69, 88.69, 87.86), "haberman": (58.06, 54.03, 61.18),
            "ionosphere": (81.78, 83.78, 80.67), "spectf": (63.53, 59.09, 53.28)},
}
DEPTH = {"3.2": 2, "3.3": 3}


def models(depth):
    from optitrees import MARGOTClassifier, OCTHClassifier, OLCTClassifier

    dense = dict(max_depth=depth, max_features=None)       # the seed's models, not the held-out budget (default)
    return {"OLCT-V0": OLCTClassifier(tangents="V0", **dense), "OLCT": OLCTClassifier(**dense),
            "MARGOT": MARGOTClassifier(**dense), "OCT-H": OCTHClassifier(**dense)}


#: The cross-validated grids of ``--cv`` (see the module docstring).
GRIDS = {"OLCT-V0": {"C": [10.0 ** i for i in range(-2, 3)]}, "OLCT": {"C": [10.0 ** i for i in range(-2, 3)]},
         "MARGOT": {"C": [10.0 ** i for i in range(-2, 3)]},
         "OCT-H": {"alpha": [0.0] + [2.0 ** i for i in range(-8, 3)]}}


def tuned(est, model, Xtr, ytr, args):
    """``est`` with its grid parameter chosen by 4-fold cross-validation (``--cv-time-limit`` s per fit), and
    the cross-validation's table (parameter, mean and standard error of the validation balanced accuracy)."""
    from sklearn.model_selection import GridSearchCV, StratifiedKFold

    search = GridSearchCV(est.set_params(time_limit=args.cv_time_limit), GRIDS[model], scoring="balanced_accuracy",
                          cv=StratifiedKFold(4, shuffle=True, random_state=0), refit=False)
    search.fit(Xtr, ytr)
    res = search.cv_results_
    table = [(p, 100 * m, 100 * s / 2) for p, m, s in zip(res["params"], res["mean_test_score"], res["std_test_score"])]
    return est.set_params(**search.best_params_), table


def results_path(args) -> Path:
    suffix = ("_cv" if args.cv else "") + ("_splits" if args.splits > 1 else "")
    return RESULTS / f"seed002_table{args.table.replace('.', '_')}{suffix}.csv"


def run(args):
    out = results_path(args)
    rows = pd.read_csv(out).to_dict("records") if out.exists() and args.resume else []
    done = {(r["dataset"], r["model"], r.get("split", 0)) for r in rows}
    depth = DEPTH[args.table]
    for name, split in ((n, s) for n in args.datasets or SEED[args.table] for s in range(args.splits)):
        X, y, _ = load_numeric(name)
        Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.2, random_state=split, stratify=y)
        for model, est in models(depth).items():
            if (name, model, split) in done or (args.models and model not in args.models):
                continue
            est.set_params(threads=1, random_state=0)
            extra = {}
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                if args.cv:
                    t0 = time.perf_counter()
                    est, table = tuned(est, model, Xtr, ytr, args)
                    (key,) = GRIDS[model]
                    value = est.get_params()[key]
                    extra = dict(cv_param=key, cv_value=value, cv_seconds=time.perf_counter() - t0,
                                 cv_bacc=max(m for _, m, _ in table),
                                 cv_table="; ".join(f"{p[key]:g}: {m:.2f} +- {se:.2f}" for p, m, se in table))
                    print(f"{name} {model}: {extra['cv_table']} -> {key} = {value:g}", flush=True)
                est.set_params(time_limit=args.time_limit)
                t0 = time.perf_counter()
                est.fit(Xtr, ytr)
            seconds = time.perf_counter() - t0
            r = est.fit_report_
            rows.append(dict(dataset=name, n=len(y), p=X.shape[1], model=model, depth=depth, split=split,
                             test_bacc=100 * balanced_accuracy_score(yte, est.predict(Xte)),
                             train_bacc=100 * balanced_accuracy_score(ytr, est.predict(Xtr)), time=seconds,
                             objective=r.objective, greedy=r.starts.get("greedy"), bound=r.bound,
                             method=r.method, outcome=str(r.outcome), distinct=r.distinct_rows, **extra))
            print(f"{name} {model} split {split}: BAcc {rows[-1]['test_bacc']:.2f} in {seconds:.0f} s by {r.method}",
                  flush=True)
            RESULTS.mkdir(exist_ok=True)
            pd.DataFrame(rows).to_csv(out, index=False)
    return out


def summary(table, path):
    frame = pd.read_csv(path)
    if frame.get("split", pd.Series([0])).nunique() > 1:
        spread = frame.groupby(["dataset", "model"]).test_bacc.agg(["mean", "std", "min", "max", "count"])
        columns = dict(zip(("OLCT-V0", "MARGOT", "OCT-H"), range(3)))
        spread["seed (one split)"] = [SEED[table][d][columns[m]] if m in columns else None for d, m in spread.index]
        print(f"Table {table}: test balanced accuracy (%) over {frame.split.nunique()} stratified 80/20 splits")
        print(spread.round(2).to_string())
        return
    ours = frame.pivot_table(index="dataset", columns="model", values="test_bacc", aggfunc="first")
    seed = pd.DataFrame({name: dict(zip(("seed OLCT-V0", "seed MARGOT", "seed OCT-H"), values))
                         for name, values in SEED[table].items()}).T
    joined = ours.join(seed, how="left")
    cols = [c for c in ("OLCT-V0", "seed OLCT-V0", "OLCT", "MARGOT", "seed MARGOT", "OCT-H", "seed OCT-H")
            if c in joined]
    print(f"Table {table}: test balanced accuracy (%), ours beside the seed's")
    print(joined[cols].round(2).to_string())
    times = frame.pivot_table(index="dataset", columns="model", values="time", aggfunc="first")
    print("\nfit seconds")
    print(times.round(0).to_string())
    methods = frame.pivot_table(index="dataset", columns="model", values="method", aggfunc="first")
    print("\nreturned model from")
    print(methods.to_string())
    if "cv_value" in frame:
        chosen = frame.assign(chosen=frame.cv_param + " = " + frame.cv_value.map("{:g}".format))
        print("\nchosen by 4-fold cross-validation")
        print(chosen.pivot_table(index="dataset", columns="model", values="chosen", aggfunc="first").to_string())


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--table", choices=tuple(SEED), default="3.2")
    parser.add_argument("--datasets", nargs="+")
    parser.add_argument("--time-limit", type=float, default=300.0)
    parser.add_argument("--models", nargs="+", choices=tuple(GRIDS))
    parser.add_argument("--cv", action="store_true", help="tune C / alpha by 4-fold cross-validation first")
    parser.add_argument("--cv-time-limit", type=float, default=15.0, help="seconds per cross-validation fit")
    parser.add_argument("--splits", type=int, default=1, help="stratified 80/20 splits (seeds 0 .. K-1)")
    parser.add_argument("--resume", action="store_true")
    parser.add_argument("--summary-only", action="store_true")
    args = parser.parse_args()
    path = results_path(args)
    if not args.summary_only:
        require_shared()
        path = run(args)
    summary(args.table, path)


if __name__ == "__main__":
    main()
