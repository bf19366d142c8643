"""Personalized rule sets against forests and a tree: seed 004, Tables II and III and Fig. 2.

Heart (Cleveland, 303 rows; missing cells replaced by the feature's most
frequent value, as the seed does), Breast (WDBC, 569) and Diabetes (Pima,
768). Protocol of the seed: 10 x repeated stratified 5-fold CV, AUC on the
held-out fold. Models:

* RF (no constraints): 100 trees, ``max_features`` and ``min_samples_leaf``
  tuned by 3-fold CV on the training part;
* RF (simpler): at most 5 trees of depth at most 3 (trees in {3, 5}, depth
  in {2, 3}, tuned the same way);
* decision tree: depth in {2, ..., 8, None} and ``min_samples_leaf`` in {1, 5, 10}, tuned;
* ``RuleSetClassifier`` with M = 3, 5, 10, 15, 20 rules of a 100-tree forest
  of depth 3, eq. (2) with weights 2/1 ("weighted") and, from the same fitted
  rules, the plain average of eq. (1) ("plain", Fig. 2's dashed lines).

Rules of the baselines (Table III) are their leaves, summed over the trees.
Table entries are mean +- std over the 10 repetitions of the 5-fold mean AUC.

Unseen sets (``--unseen``): the same protocol on binary sets the seed did not use (Table 3.1 sets of seed 002:
ionosphere, sonar, spectf, parkinsons, climate, wholesale), written to ``results/rule_sets_unseen.csv``.

Run: python bench/rule_sets.py [--repeats 10] [--jobs 2] [--unseen [--datasets ionosphere sonar ...]]
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

import pandas as pd
from joblib import Parallel, delayed
from sklearn.ensemble import RandomForestClassifier
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import GridSearchCV, RepeatedStratifiedKFold
from sklearn.tree import DecisionTreeClassifier

sys.path.insert(0, str(Path(__file__).parent))
from _data import load_with_missing, require_shared  # noqa: E402

from optitrees import RuleSetClassifier  # noqa: E402

OUT = Path(__file__).parent / "results" / "rule_sets.csv"
DATASETS = {"Heart": "heart", "Breast": "breast", "Diabetes": "diabetes"}
#: Binary sets seed 004 did not use (``--unseen``).
UNSEEN = ("ionosphere", "sonar", "spectf", "parkinsons", "climate", "wholesale")
M_VALUES = (3, 5, 10, 15, 20)
#: Seed 004, Table II (AUC) and Table III (rules).
SEED_AUC = {"RF (no constraints)": (0.90, 0.99, 0.83), "RF (simpler)": (0.87, 0.98, 0.79),
            "Decision tree": (0.79, 0.94, 0.73), "Proposed (3 rules)": (0.82, 0.97, 0.70),
            "Proposed (5 rules)": (0.85, 0.98, 0.74), "Proposed (10 rules)": (0.89, 0.99, 0.79),
            "Proposed (15 rules)": (0.90, 0.99, 0.80), "Proposed (20 rules)": (0.90, 0.99, 0.80)}
SEED_RULES = {"RF (no constraints)": (1230, 1105, 969), "RF (simpler)": (27, 29, 26), "Decision tree": (24, 18, 21)}


def load(name):
    X, y, _ = load_with_missing(name)
    frame = pd.DataFrame(X)
    return frame.fillna(frame.mode().iloc[0]).to_numpy(float), y


def _leaves(model):
    trees = getattr(model, "estimators_", [model])
    return int(sum(t.get_n_leaves() for t in trees))


def _tuned(estimator, grid, X, y, seed):
    return GridSearchCV(estimator, grid, cv=3, scoring="roc_auc").fit(X, y).best_estimator_


def run_fold(dataset, repeat, fold, train, test, X, y):
    seed = 1000 * repeat + fold
    Xtr, ytr, Xte, yte = X[train], y[train], X[test], y[test]
    rows = []

    def add(method, proba, rules, seconds):
        rows.append({"dataset": dataset, "repeat": repeat, "fold": fold, "method": method,
                     "auc": roc_auc_score(yte, proba), "rules": rules, "seconds": seconds})

    t = time.perf_counter()
    rf = _tuned(RandomForestClassifier(100, random_state=seed, n_jobs=1),
                {"max_features": ["sqrt", 0.5], "min_samples_leaf": [1, 5]}, Xtr, ytr, seed)
    add("RF (no constraints)", rf.predict_proba(Xte)[:, 1], _leaves(rf), time.perf_counter() - t)
    t = time.perf_counter()
    small = _tuned(RandomForestClassifier(random_state=seed, n_jobs=1),
                   {"n_estimators": [3, 5], "max_depth": [2, 3]}, Xtr, ytr, seed)
    add("RF (simpler)", small.predict_proba(Xte)[:, 1], _leaves(small), time.perf_counter() - t)
    t = time.perf_counter()
    dt = _tuned(DecisionTreeClassifier(random_state=seed),
                {"max_depth": [2, 3, 4, 5, 6, 7, 8, None], "min_samples_leaf": [1, 5, 10]}, Xtr, ytr, seed)
    add("Decision tree", dt.predict_proba(Xte)[:, 1], _leaves(dt), time.perf_counter() - t)
    for m in M_VALUES:
        t = time.perf_counter()
        clf = RuleSetClassifier(n_rules=m, random_state=seed).fit(Xtr, ytr)
        seconds = time.perf_counter() - t
        n = clf.rule_set_.n_rules
        add(f"Proposed ({m} rules)", clf.predict_proba(Xte)[:, 1], n, seconds)
        plain = replace(clf.rule_set_, correct_weight=1.0, incorrect_weight=1.0)
        add(f"Plain average ({m} rules)", plain.proba(Xte), n, seconds)
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--datasets", nargs="*")
    parser.add_argument("--unseen", action="store_true", help="the sets seed 004 did not use")
    args = parser.parse_args()
    require_shared()
    datasets = args.datasets or list(UNSEEN if args.unseen else DATASETS)
    out = OUT.with_name("rule_sets_unseen.csv") if args.unseen else OUT
    tasks = []
    for dataset in datasets:
        X, y = load(DATASETS.get(dataset, dataset))
        cv = RepeatedStratifiedKFold(n_splits=5, n_repeats=args.repeats, random_state=0)
        for k, (train, test) in enumerate(cv.split(X, y)):
            tasks.append(delayed(run_fold)(dataset, k // 5, k % 5, train, test, X, y))
    t0 = time.perf_counter()
    rows = [r for chunk in Parallel(n_jobs=args.jobs)(tasks) for r in chunk]
    frame = pd.DataFrame(rows)
    OUT.parent.mkdir(exist_ok=True)
    frame.to_csv(out, index=False)
    print(f"{len(tasks)} folds in {time.perf_counter() - t0:.0f} s; rows in {out}")
    report(frame, datasets)


def report(frame, datasets):
    per_repeat = frame.groupby(["dataset", "method", "repeat"])["auc"].mean()
    mean = per_repeat.groupby(["dataset", "method"]).mean().unstack("dataset")
    std = per_repeat.groupby(["dataset", "method"]).std().unstack("dataset")
    methods = list(SEED_AUC) + [f"Plain average ({m} rules)" for m in M_VALUES]
    print("\nTable II, AUC: ours mean +- std over repetitions / seed 004")
    print("| method | " + " | ".join(datasets) + " |")
    print("|---" * (len(datasets) + 1) + "|")
    for method in methods:
        cells = []
        for d in datasets:
            seed = SEED_AUC.get(method) if d in DATASETS else None
            ref = f" / {seed[list(DATASETS).index(d)]:.2f}" if seed else ""
            cells.append(f"{mean.loc[method, d]:.3f} +- {std.loc[method, d]:.3f}{ref}")
        print(f"| {method} | " + " | ".join(cells) + " |")
    rules = frame.groupby(["dataset", "method"])["rules"].mean().unstack("dataset")
    print("\nTable III, mean number of rules (leaves): ours / seed 004")
    print("| method | " + " | ".join(datasets) + " |")
    print("|---" * (len(datasets) + 1) + "|")
    for method in SEED_RULES:
        cells = [f"{rules.loc[method, d]:.0f}" + (f" / {SEED_RULES[method][list(DATASETS).index(d)]}"
                                                  if d in DATASETS else "") for d in datasets]
        print(f"| {method} | " + " | ".join(cells) + " |")
    seconds = frame.groupby(["dataset", "method"])["seconds"].mean().unstack("dataset")
    print("\nmean fit seconds per fold:")
    print(seconds.loc[[m for m in methods if m in seconds.index and not m.startswith("Plain")]].round(2).to_string())


if __name__ == "__main__":
    main()
