"""Soft trees for uncertain measurements: seed 000, ch. 3 (Tables 3.2-3.5).

Part ``lvef``: the single-variable illustration of 3.4.1 on LVEF-like data
(the Data Science Bowl measurements are not available: 500 values drawn from
N(50, 13), clipped to [10, 80], eligibility ``LVEF < 35``, noise N(0, 0.1 mean)).
Prints Table 3.2 (leaf class probabilities of a one-split tree learned on the
noisy data with standard propagation and with STP, u_t = 0.1) and Table 3.3
(hard and soft-evaluation probabilities, u_e = 0.1, of the noisy points that the
tree learned on the clean data misclassifies).

Part ``experiments``: Experiments 1 (noise on the training data) and 2 (noise
on the test data) of 3.3.2 on the Table 3.1 datasets we have (heart disease
with its ordinal features, Pima diabetes, breast cancer Wisconsin, Haberman,
Parkinson's, SPECTF) and the five synthetic sets of Table 3.1 (scikit-learn's
``make_classification``, shifted to positive values since the noise and the
uncertainty scale with each feature's mean). Per dataset: ``--permutations`` stratified 70/30
splits (the seed: 30), the confidence factor set once so C4.5 averages 15
leaves in cross-validation (10 or 5 when a dataset cannot reach 15), noise
N(0, n mean(x_j)) per feature; the uncertainty factors of SS, STP and SE tuned
by ``--folds``-fold CV on the training part over ``--grid`` (the seed: 10 folds).
Prints the standardized metrics of Tables 3.4-3.5 (by C4.5 without noise:
subtract its mean over the permutations, divide by its standard deviation;
averaged over datasets) and the absolute differences to C4.5, beside the seed's.
PLT and UDT (other authors' methods in the seed's tables) are not run.

Run: python bench/soft_trees.py [--part lvef experiments] [--permutations 5] [--jobs 2]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from sklearn.datasets import make_classification
from sklearn.model_selection import StratifiedKFold, StratifiedShuffleSplit

sys.path.insert(0, str(Path(__file__).parent))
from _data import load_with_missing, require_shared  # noqa: E402

from optitrees import C45Classifier  # noqa: E402

OUT = Path(__file__).parent / "results" / "soft_trees.csv"
NOISE = [0.0, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5]
METHODS = ["C4.5", "SS", "STP", "SE"]
REAL = ["heart", "diabetes", "breast", "haberman", "parkinsons", "spectf"]
#: Table 3.1's synthetic sets: (variables, instances per set, classes).
SYNTHETIC = {"synthetic1": (15, 500, 2), "synthetic2": (15, 400, 2), "synthetic3": (20, 300, 2),
             "synthetic4": (25, 200, 3), "synthetic5": (20, 250, 3)}
#: Seed 000, Tables 3.4 (Experiment 1) and 3.5 (Experiment 2), rows for C4.5, SS, STP, SE over NOISE.
SEED = {
    1: {"leaves_std": {"C4.5": [0.00, 0.44, 0.72, 1.09, 1.42, 1.75, 2.03], "SS": [-0.48, -0.78, -0.81, -0.41, -0.01, 0.40, 0.75],
                       "STP": [-1.11, -2.19, -2.06, -1.95, -0.90, -1.01, -0.16], "SE": [0.00, 0.44, 0.72, 1.09, 1.42, 1.75, 2.03]},
        "leaves_diff": {"SS": [-2.9, -5.1, -5.6, -5.4, -5.4, -5.3, -5.0], "STP": [-5.4, -8.4, -8.6, -9.3, -8.9, -9.3, -8.7],
                        "SE": [0.0] * 7},
        "acc_std": {"C4.5": [0.00, -0.52, -0.87, -1.27, -1.59, -1.65, -2.06], "SS": [0.26, -0.14, -0.39, -0.79, -1.05, -1.23, -1.40],
                    "STP": [0.32, -0.03, -0.30, -0.70, -0.86, -1.06, -1.24], "SE": [-0.60, -0.57, -0.87, -1.27, -1.59, -1.81, -1.94]},
        "acc_diff": {"SS": [0.8, 1.2, 1.7, 1.6, 1.8, 1.3, 2.1], "STP": [0.9, 1.6, 2.0, 1.9, 2.3, 1.9, 2.6],
                     "SE": [-2.0, -0.3, 0.0, -0.1, 0.0, -0.5, 0.3]}},
    2: {"leaves_std": {"C4.5": [0.0] * 7, "SS": [-0.48, -1.10, -1.07, -0.81, -0.93, -0.81, -0.77],
                       "STP": [-1.11, -1.73, -1.89, -2.05, -1.90, -2.16, -1.98], "SE": [0.0] * 7},
        "leaves_diff": {"SS": [-2.9, -4.3, -4.3, -3.4, -4.0, -3.5, -3.4], "STP": [-5.4, -7.0, -7.3, -7.7, -7.5, -7.7, -7.5],
                        "SE": [0.0] * 7},
        "acc_std": {"C4.5": [0.00, -0.97, -1.38, -2.01, -2.59, -3.06, -3.50], "SS": [0.26, -0.50, -0.82, -1.45, -1.85, -2.27, -2.62],
                    "STP": [0.32, -0.40, -0.72, -1.18, -1.54, -1.91, -2.15], "SE": [-0.60, -0.85, -1.19, -1.79, -2.32, -2.78, -3.19]},
        "acc_diff": {"SS": [0.8, 1.5, 2.0, 1.8, 2.2, 2.4, 2.7], "STP": [0.9, 1.7, 2.1, 2.5, 3.2, 3.4, 4.1],
                     "SE": [-2.0, -0.2, 0.0, -0.1, -0.1, -0.2, -0.1]}},
}
PARAM = {"SS": "search_uncertainty", "STP": "propagation_uncertainty", "SE": "evaluation_uncertainty"}


# ----------------------------------------------------------------------------------------------- LVEF (3.4.1)
def lvef_part(seed=0):
    rng = np.random.default_rng(seed)
    x = np.clip(rng.normal(50, 13, 500), 10, 80)
    y = (x < 35).astype(int)
    noisy = x + rng.normal(0, 0.1 * x.mean(), x.size)
    stump = {"max_depth": 1, "pruning": False, "laplace": False}
    hard = C45Classifier(**stump).fit(noisy[:, None], y)
    stp = C45Classifier(**stump, propagation_uncertainty=0.1).fit(noisy[:, None], y)
    print("Table 3.2 - class probabilities at the leaves of a one-split tree on noisy LVEF-like data")
    print("(seed: standard 0.000/1.000 | 0.981/0.018, STP 0.310/0.790 | 0.979/0.021)")
    rows = {}
    for name, clf in (("standard", hard), ("STP u_t=0.1", stp)):
        p = clf.leaf_probabilities()[clf.tree_.is_leaf]
        rows[name] = {"p(y=0|n_L)": p[0, 0], "p(y=1|n_L)": p[0, 1], "p(y=0|n_R)": p[1, 0], "p(y=1|n_R)": p[1, 1],
                      "threshold": clf.tree_.threshold[0]}
    print(pd.DataFrame(rows).T.round(3).to_string())
    clean = C45Classifier(**stump).fit(x[:, None], y)
    wrong = np.flatnonzero(clean.predict(noisy[:, None]) != y)
    soft = C45Classifier(**stump, evaluation_uncertainty=0.1).fit(x[:, None], y)
    table = pd.DataFrame({"kind": np.where(y[wrong] == 1, "false negative", "false positive"),
                          "patient": wrong, "LVEF": x[wrong].round(1), "noisy": noisy[wrong].round(1),
                          "hard p(y=1)": clean.predict_proba(noisy[wrong, None])[:, 1],
                          "SE p(y=1)": soft.predict_proba(noisy[wrong, None])[:, 1]}).sort_values(["kind", "patient"])
    print(f"\nTable 3.3 - points misclassified after noise (tree learned on clean data, threshold "
          f"{clean.tree_.threshold[0]:.2f}); hard evaluation gives 0/1, SE (u_e = 0.1) moderates them")
    print("(seed: 6 FN with SE p(y=1) 0.09-0.49, 6 FP with SE p(y=1) 0.51-0.84)")
    print(table.groupby("kind").head(6).round(2).to_string(index=False))
    for kind, d in table.groupby("kind"):
        print(f"{kind}: {len(d)} points, SE p(y=1) from {d['SE p(y=1)'].min():.2f} to {d['SE p(y=1)'].max():.2f} "
              f"(hard: all {d['hard p(y=1)'].iloc[0]:.0f})")


# ------------------------------------------------------------------------------------ Experiments 1, 2 (3.3)
def load_dataset(name, permutation):
    if name in SYNTHETIC:
        p, n, k = SYNTHETIC[name]
        X, y = make_classification(n_samples=n, n_features=p, n_informative=min(p, 5), n_redundant=2,
                                   n_classes=k, n_clusters_per_class=2, random_state=permutation)
        return X - X.min(axis=0) + X.std(axis=0), y       # positive, like measurements (noise scales with the mean)
    X, y, names = load_with_missing(name)
    if name == "heart":                                   # the seed keeps ordinal features only
        keep = [j for j, c in enumerate(names) if c not in ("cp", "restecg", "slope", "thal")]
        X = X[:, keep]
    return X, y


def add_noise(X, factor, scale, rng):
    return X if factor == 0 else X + rng.normal(size=X.shape) * factor * scale


def confidence_for_15_leaves(name, grid=(0.005, 0.01, 0.05, 0.1, 0.15, 0.2, 0.25, 0.35, 0.5)):
    X, y = load_dataset(name, 0)
    leaves = []
    for cf in grid:
        sizes = [C45Classifier(cf).fit(X[tr], y[tr]).n_leaves_
                 for tr, _ in StratifiedKFold(10, shuffle=True, random_state=0).split(X, y)]
        leaves.append(np.mean(sizes))
    leaves = np.array(leaves)
    target = 15 if leaves.max() >= 15 else 10 if leaves.max() >= 10 else 5
    return grid[int(np.argmin(np.abs(leaves - target)))], target


def _fit(method, u, cf, X, y):
    kwargs = {} if method in ("C4.5", "SE") else {PARAM[method]: u}
    return C45Classifier(cf, **kwargs).fit(X, y)


def _score(clf, method, u, X, y):
    clf.evaluation_uncertainty = u if method == "SE" else 0.0
    return float(np.mean(clf.predict(X) == y))


def run_permutation(name, permutation, cf, grid, n_folds):
    X, y = load_dataset(name, permutation)
    split = StratifiedShuffleSplit(1, test_size=0.3, random_state=permutation)
    tr, te = next(split.split(X, y))
    rng = np.random.default_rng(permutation)
    scale = np.abs(np.nanmean(X[tr], axis=0))
    folds = list(StratifiedKFold(n_folds, shuffle=True, random_state=permutation).split(X[tr], y[tr]))
    rows = []
    for experiment in (1, 2):
        clean_cache = {}
        for noise in NOISE:
            noisy_train = add_noise(X[tr], noise, scale, rng) if experiment == 1 else X[tr]
            test = add_noise(X[te], noise, scale, rng) if experiment == 2 else X[te]
            for method in METHODS:
                t0 = time.perf_counter()
                u_best = 0.0
                if method != "C4.5":
                    cv = {u: [] for u in grid}
                    for k, (a, b) in enumerate(folds):
                        fold_train = noisy_train[a] if experiment == 1 else X[tr][a]
                        fold_valid = X[tr][b] if experiment == 1 else add_noise(X[tr][b], noise, scale, rng)
                        for u in grid:
                            key = (method, k, 0.0 if method == "SE" else u)
                            if experiment == 2 and key in clean_cache:
                                clf = clean_cache[key]
                            else:
                                clf = _fit(method, u, cf, fold_train, y[tr][a])
                                if experiment == 2:
                                    clean_cache[key] = clf
                            cv[u].append(_score(clf, method, u, fold_valid, y[tr][b]))
                    u_best = max(grid, key=lambda u: np.mean(cv[u]))
                clf = _fit(method, u_best, cf, noisy_train, y[tr])
                rows.append({"dataset": name, "permutation": permutation, "experiment": experiment, "noise": noise,
                             "method": method, "u": u_best, "leaves": clf.n_leaves_,
                             "accuracy": _score(clf, method, u_best, test, y[te]) * 100,
                             "time": time.perf_counter() - t0})
    return rows


def experiments_part(datasets, permutations, grid, n_folds, jobs):
    settings = {name: confidence_for_15_leaves(name) for name in datasets}
    for name, (cf, target) in settings.items():
        print(f"{name}: confidence factor {cf} (target {target} leaves)", flush=True)
    tasks = [(name, k) for name in datasets for k in range(permutations)]
    results = Parallel(n_jobs=jobs)(delayed(run_permutation)(name, k, settings[name][0], grid, n_folds)
                                    for name, k in tasks)
    frame = pd.DataFrame([r for rows in results for r in rows])
    OUT.parent.mkdir(exist_ok=True)
    frame.to_csv(OUT, index=False)
    return frame


def summary(frame):
    lines = []
    for experiment in (1, 2):
        d = frame[frame.experiment == experiment]
        base = frame[(frame.experiment == experiment) & (frame.noise == 0) & (frame.method == "C4.5")]
        stats = base.groupby("dataset")[["leaves", "accuracy"]].agg(["mean", "std"])
        means = d.groupby(["dataset", "method", "noise"])[["leaves", "accuracy"]].mean().reset_index()
        for metric in ("leaves", "accuracy"):
            sd = stats[(metric, "std")].replace(0, np.nan)
            means[f"{metric}_std"] = (means[metric] - means.dataset.map(stats[(metric, "mean")])) / means.dataset.map(sd)
        c45 = means[means.method == "C4.5"].set_index(["dataset", "noise"])
        means["leaves_diff"] = means.leaves - c45.leaves.reindex(list(zip(means.dataset, means.noise))).to_numpy()
        means["acc_diff"] = means.accuracy - c45.accuracy.reindex(list(zip(means.dataset, means.noise))).to_numpy()
        means = means.rename(columns={"accuracy_std": "acc_std"})
        which = "training" if experiment == 1 else "test"
        lines.append(f"\nExperiment {experiment} (noise on the {which} data): ours / seed 000 Table 3.{3 + experiment}, "
                     f"mean over {means.dataset.nunique()} datasets")
        for metric, title in (("leaves_std", "no. leaves standardized by C4.5 at noise 0"),
                              ("leaves_diff", "difference in no. leaves to C4.5 at the same noise"),
                              ("acc_std", "accuracy standardized by C4.5 at noise 0"),
                              ("acc_diff", "difference in accuracy (%) to C4.5 at the same noise")):
            table = means.groupby(["method", "noise"])[metric].mean().unstack("noise")
            lines.append(f"  {title}")
            lines.append("    method  " + "  ".join(f"{n:>12}" for n in NOISE))
            for method in METHODS:
                seed = SEED[experiment][metric].get(method)
                if method not in table.index or (seed is None and metric.endswith("diff")):
                    continue
                ours = table.loc[method].reindex(NOISE).to_numpy()
                cells = [f"{o:5.2f} /{s:6.2f}" if seed else f"{o:5.2f} /   -  " for o, s in zip(ours, seed or [0] * 7)]
                lines.append(f"    {method:6}  " + "  ".join(f"{c:>12}" for c in cells))
        tuned = d[d.method != "C4.5"].groupby("method").u.mean()
        lines.append("  mean tuned uncertainty factor: " + ", ".join(f"{m} {v:.3f}" for m, v in tuned.items()))
        secs = d.groupby("method").time.mean()
        lines.append("  mean seconds per model (with tuning): " + ", ".join(f"{m} {v:.2f}" for m, v in secs.items()))
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", nargs="+", default=["lvef", "experiments"])
    parser.add_argument("--datasets", nargs="+", default=REAL + list(SYNTHETIC))
    parser.add_argument("--permutations", type=int, default=5)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--grid", nargs="+", type=float, default=[0.02, 0.05, 0.1, 0.2])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--summary-only", action="store_true")
    args = parser.parse_args()
    if "lvef" in args.part:
        lvef_part()
    if "experiments" in args.part:
        if not args.summary_only:
            require_shared()
            experiments_part(args.datasets, args.permutations, args.grid, args.folds, args.jobs)
        print(summary(pd.read_csv(OUT)))


if __name__ == "__main__":
    main()
