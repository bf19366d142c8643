"""Defaults that never hand back a useless model, measured with the models themselves on every shared binary set.

Two checks, each fit in a fresh process (2 at a time, one solver thread each), on every binary classification set
of ``../shared/datasets`` (the ``*_test`` files are test halves, not sets; other encodings of a set listed,
:data:`OTHER_ENCODINGS`, are left out; heart with its binary rule) x
``--splits`` stratified 75/25 splits:

* **tree-wide budget** (``max_total_features="auto"``, the features the whole tree reads chosen on held-out
  folds) against the same model without one, for OLCT, OCT-H and oblique TAO at 3 features per hyperplane
  (``max_features=3``), depth 2, ``--time-limit`` seconds. Target: the mean over the sets of (budget - none) test
  balanced accuracy at least -1 point, and no set below -3 points (each set's figure the mean over its splits);
* **MARGOT's defaults** (``MARGOTClassifier()`` with ``--time-limit`` instead of its 60 s: a shorter limit is the
  harder case) against the constant model (50 points) and a one-split CART (``max_depth=1``). Target: above 50
  on every split where the one-split model is.

    python bench/auto_defaults.py [--splits 1] [--time-limit 10] [--sets breast ...] [--out auto_defaults.csv]
                                  [--label after] [--only-auto] [--models OLCT OCT-H] [--per-set] [--summary-only]
    python bench/auto_defaults.py --rules --splits 5

``--rules`` pairs the tree-wide rule before (the candidate of best held-out mean) and after (the fewest features
non-inferior to no budget) on oblique TAO, which runs no solver and reads no clock, so both rules' budgets are
fitted the same way on the same splits (``bench/results/auto_defaults_rules.csv``): on single splits of the small
sets the MIP fits' own run-to-run spread (10 s of a busy machine) is as large as the differences measured.

Rows are appended to ``bench/results/<out>`` as fits end (a run resumes); ``--label`` tags a run (``before`` /
``after`` a change of the rule) so both stay in one file and the summary compares them.
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import load_numeric, manifest, require_shared  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"
TREE_WIDE = ("OLCT", "OCT-H", "TAO oblique")
ONE_SPLIT = "CART depth 1"
MARGOT = "MARGOT default"
PER_HYPERPLANE = 3


#: Other encodings of a set already in the list (german's numeric codings, risk-slim's binarized copies)
OTHER_ENCODINGS = ("german_numer", "german_numeric", "rs_adult", "rs_breastcancer", "rs_mammo", "rs_mushroom",
                   "rs_spambase")


def binary_sets() -> list[str]:
    """Every binary set of the manifest (and heart, read as disease / none): no test halves, one encoding each."""
    return sorted(info["name"] for info in manifest().values()
                  if not info["name"].endswith("_test") and info["name"] not in OTHER_ENCODINGS
                  and (info["task"] == "binary" or info["name"] == "heart"))


def _split(name, seed):
    from sklearn.model_selection import train_test_split

    X, y, _ = load_numeric(name)
    return train_test_split(X, y, test_size=0.25, stratify=y, random_state=seed)


def _model(kind: str, budget: str, time_limit: float, seed: int):
    from sklearn.tree import DecisionTreeClassifier

    from optitrees import MARGOTClassifier, OCTHClassifier, OLCTClassifier, TAOClassifier

    total = "auto" if budget == "auto" else None
    if kind == "OLCT":
        return OLCTClassifier(max_features=PER_HYPERPLANE, max_total_features=total, time_limit=time_limit,
                              random_state=seed, threads=1)
    if kind == "OCT-H":
        return OCTHClassifier(max_features=PER_HYPERPLANE, max_total_features=total, time_limit=time_limit,
                              random_state=seed, threads=1)
    if kind == "TAO oblique":
        return TAOClassifier(oblique=True, max_features=PER_HYPERPLANE, max_total_features=total,
                             time_limit=time_limit, random_state=seed)
    if kind == MARGOT:
        return MARGOTClassifier(time_limit=time_limit, random_state=seed, threads=1)
    if kind == ONE_SPLIT:
        return DecisionTreeClassifier(max_depth=1, random_state=seed)
    raise ValueError(kind)


def fit_one(task) -> dict:
    """One fit in its own process: its row of the results table."""
    import warnings

    from sklearn.metrics import balanced_accuracy_score

    import optitrees

    name, seed, kind, budget, time_limit, label = task
    X, X_test, y, y_test = _split(name, seed)
    model = _model(kind, budget, time_limit, seed)
    t0 = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.fit(X, y)
    seconds = time.perf_counter() - t0
    tree = getattr(model, "tree_", None)
    features = int((tree.weights != 0).any(axis=0).sum()) if hasattr(tree, "weights") else \
        len(np.unique(tree.feature[tree.feature >= 0]))
    report = getattr(model, "fit_report_", None)
    return dict(label=label, version=optitrees.__version__, dataset=name, rows=len(y) + len(y_test), seed=seed,
                model=kind, budget=budget, time_limit=time_limit, seconds=round(seconds, 2),
                test_bacc=balanced_accuracy_score(y_test, model.predict(X_test)),
                train_bacc=balanced_accuracy_score(y, model.predict(X)), features=features,
                constant=bool(len(np.unique(model.predict(X_test))) == 1),
                returned=getattr(report, "returned", ""), outcome=str(getattr(report, "outcome", "")),
                warnings=";".join(sorted({type(w.message).__name__ for w in caught})))


def rules_one(task) -> dict:
    """Oblique TAO (deterministic: no solver, no clock) on one split: the held-out table of the tree-wide choice
    (``total_budget_results_``) and the test balanced accuracy of every candidate fitted as a fixed
    ``max_total_features``, so any rule reading the table is scored by fits made the same way."""
    import json
    import warnings

    from sklearn.metrics import balanced_accuracy_score

    from optitrees import TAOClassifier
    from optitrees.estimators import _auto_budget as auto

    name, seed = task
    X, X_test, y, y_test = _split(name, seed)

    def test_score(total):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = TAOClassifier(oblique=True, max_features=PER_HYPERPLANE, max_total_features=total,
                                  random_state=seed).fit(X, y)
        return model, 100 * balanced_accuracy_score(y_test, model.predict(X_test))

    chosen, _ = test_score("auto")
    results = chosen.total_budget_results_
    scores = {str(k): test_score(k)[1] for k in auto.TOTAL_BUDGETS}
    return dict(dataset=name, seed=seed, rows=len(y) + len(y_test), chosen=str(chosen.max_total_features_),
                test=json.dumps(scores), table=json.dumps(np.asarray(results["held_out_balanced_accuracy_per_fold"])
                                                         .tolist()))


#: The rules compared offline on the saved tables: name -> (rule on (means, table) -> candidate index)
def _rules():
    from optitrees.algorithms.fold_search import fewest_non_inferior, fewest_within
    from optitrees.estimators import _auto_budget as auto

    sizes = auto.features(auto.TOTAL_BUDGETS)
    return {
        "best mean": lambda means, table: int(np.argmax(means)),
        "non-inferior, margin 1": lambda means, table: fewest_non_inferior(means, 0, 0.01, sizes, table),
        "non-inferior, margin 0.5": lambda means, table: fewest_non_inferior(means, 0, 0.005, sizes, table),
        "non-inferior, margin 0": lambda means, table: fewest_non_inferior(means, 0, 0.0, sizes, table),
        "within 1 of best": lambda means, table: fewest_within(means, 0.01, sizes),
        "no budget": lambda means, table: 0,
    }


def rules(args) -> None:
    """``--rules``: oblique TAO's held-out tables and every candidate's test score, ``--splits`` splits of every
    set (``bench/results/auto_defaults_rules.csv``), then the rules compared on them."""
    out = RESULTS / "auto_defaults_rules.csv"
    tasks = [(name, seed) for name in args.sets for seed in range(args.splits)]
    with ProcessPoolExecutor(max_workers=2, max_tasks_per_child=1) as pool:
        table = pd.DataFrame(list(pool.map(rules_one, tasks)))
    table.to_csv(out, index=False)
    rules_summary(table)


def rules_summary(table: pd.DataFrame) -> None:
    import json

    from optitrees.estimators import _auto_budget as auto

    keys = [str(k) for k in auto.TOTAL_BUDGETS]
    rows = []
    for r in table.itertuples():
        scores, folds = json.loads(r.test), np.asarray(json.loads(r.table), float)
        if folds.ndim != 2 or folds.shape[1] != len(keys):
            continue
        row = dict(dataset=r.dataset, seed=r.seed)
        for rule, pick in _rules().items():
            k = pick(folds.mean(axis=0), folds)
            row[rule] = scores[keys[k]] - scores[keys[0]]
            row[rule + " features"] = np.inf if auto.TOTAL_BUDGETS[k] is None else auto.TOTAL_BUDGETS[k]
        rows.append(row)
    frame = pd.DataFrame(rows)
    per_set = frame.groupby("dataset").mean(numeric_only=True)
    print(f"oblique TAO, {frame.seed.nunique()} splits x {len(per_set)} sets: tree-wide budget - no budget, test "
          "balanced accuracy points (per set, mean over its splits)")
    for rule in _rules():
        diff = per_set[rule]
        budgeted = np.isfinite(frame[rule + " features"])
        print(f"  {rule:26s} mean {diff.mean():+.2f}  worst {diff.idxmin():12s} {diff.min():+.2f}  sets below -3: "
              f"{int((diff < -3).sum())}  a budget in {100 * budgeted.mean():.0f}% of fits "
              f"(median {np.median(frame[rule + ' features'][budgeted]) if budgeted.any() else float('nan'):g})")
    print(per_set[[rule for rule in _rules() if rule != "no budget"]].round(2).to_string())


def tasks_for(args, done) -> list:
    configs = [(kind, budget) for kind in TREE_WIDE for budget in ("none", "auto")] + [(MARGOT, ""), (ONE_SPLIT, "")]
    if args.only_auto:
        configs = [(kind, "auto") for kind in TREE_WIDE]
    if args.models:
        configs = [(kind, budget) for kind, budget in configs if kind in args.models]
    return [(name, seed, kind, budget, args.time_limit, args.label)
            for name in args.sets for seed in range(args.splits) for kind, budget in configs
            if (args.label, name, seed, kind, budget) not in done]


def run(args) -> None:
    out = RESULTS / args.out
    done = set()
    if out.exists():
        old = pd.read_csv(out, keep_default_na=False)
        done = set(zip(old.label, old.dataset, old.seed, old.model, old.budget))
    tasks = tasks_for(args, done)
    tasks.sort(key=lambda t: t[2] == ONE_SPLIT)
    with ProcessPoolExecutor(max_workers=2, max_tasks_per_child=1) as pool:
        futures = [pool.submit(fit_one, task) for task in tasks]
        for k, future in enumerate(as_completed(futures)):
            row = future.result()
            pd.DataFrame([row]).to_csv(out, mode="a", header=not out.exists(), index=False)
            print(f"{k + 1}/{len(tasks)} {row['dataset']} {row['model']} {row['budget']}: "
                  f"{100 * row['test_bacc']:.1f} ({row['features']} features) in {row['seconds']:.1f} s", flush=True)


def summary(args) -> None:
    table = pd.read_csv(RESULTS / args.out, keep_default_na=False)
    table["test_bacc"] = 100 * table.test_bacc
    none = table[table.budget == "none"].set_index(["dataset", "seed", "model"])
    print(f"tree-wide budget (auto) - no budget, test balanced accuracy points, {PER_HYPERPLANE} features per "
          f"hyperplane, depth 2; per set the mean over its splits")
    for label, part in table[table.budget == "auto"].groupby("label", sort=False):
        auto = part.set_index(["dataset", "seed", "model"])
        joined = auto.merge(none, left_index=True, right_index=True, suffixes=("", "_none"))
        joined["diff"] = joined.test_bacc - joined.test_bacc_none
        for kind, rows in joined.groupby(level="model"):
            per_set = rows.groupby(level="dataset")["diff"].mean()
            worst = per_set.idxmin()
            print(f"  {label:8s} {kind:12s} sets {len(per_set):2d}  mean {per_set.mean():+.2f}  "
                  f"worst {worst} {per_set.min():+.2f}  sets below -3: {int((per_set < -3).sum())}  "
                  f"features {rows.features.mean():.1f} vs {rows.features_none.mean():.1f}  "
                  f"seconds {rows.seconds.median():.1f} vs {rows.seconds_none.median():.1f}")
        if args.per_set:
            wide = joined.reset_index().pivot_table(index="dataset", columns="model", values="diff", aggfunc="mean")
            print(wide.round(2).to_string())
    margot = table[table.model == MARGOT].set_index(["dataset", "seed"])
    stump = table[table.model == ONE_SPLIT].set_index(["dataset", "seed"])
    if len(margot):
        pair = margot.merge(stump, left_index=True, right_index=True, suffixes=("", "_stump"))
        informative = pair.test_bacc_stump > 50
        useless = informative & (pair.test_bacc <= 50)
        print(f"\nMARGOT defaults ({pair.time_limit.iloc[0]:g} s): {len(pair)} fits, {int(pair.constant.sum())} "
              f"constant; at or below 50 where a one-split CART is above: {int(useless.sum())} of "
              f"{int(informative.sum())}; mean test balanced accuracy {pair.test_bacc.mean():.1f} against "
              f"{pair.test_bacc_stump.mean():.1f} for the one-split CART")
        if useless.any():
            print(pair[useless][["test_bacc", "test_bacc_stump", "returned", "outcome"]].round(1).to_string())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--splits", type=int, default=1)
    parser.add_argument("--time-limit", type=float, default=10.0)
    parser.add_argument("--sets", nargs="+")
    parser.add_argument("--out", default="auto_defaults.csv")
    parser.add_argument("--label", default="before")
    parser.add_argument("--only-auto", action="store_true", help="fit only the tree-wide budgets (a rule's rerun)")
    parser.add_argument("--models", nargs="+", choices=TREE_WIDE + (MARGOT, ONE_SPLIT),
                        help="fit only these models (e.g. OLCT OCT-H for a multi-split run of the MIP trees)")
    parser.add_argument("--per-set", action="store_true", help="print every set's difference")
    parser.add_argument("--rules", action="store_true", help="pair the two tree-wide rules on oblique TAO")
    parser.add_argument("--summary-only", action="store_true")
    args = parser.parse_args()
    require_shared()
    args.sets = args.sets or binary_sets()
    if args.rules:
        if args.summary_only:
            rules_summary(pd.read_csv(RESULTS / "auto_defaults_rules.csv"))
        else:
            rules(args)
        return
    if not args.summary_only:
        run(args)
    summary(args)


if __name__ == "__main__":
    main()
