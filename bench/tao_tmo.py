"""CART / TAO / TMO / OCT test accuracy at depth 2, 3, 4: the protocol of seed 002's Tables 3.4-3.6.

Each dataset is split 64/16/20 (train / validation / test, stratified) for 5
seeds. CART is scikit-learn's with only ``max_depth`` set; TAO starts from it;
TMO runs Algorithm 3 (a forest of 100 trees, CR = 0.75, 5 generations); OCT's
``alpha`` is chosen among 3 values drawn log-uniformly in [1e-3, 1] by
validation accuracy (OCT uses ConTree as its exact engine where it applies, the
MIP otherwise). The seed gave every method 600 s (Gurobi for OCT); here TMO and
each OCT fit get ``--time-limit`` seconds. Rows are appended to
``results/tao_tmo.csv`` as they finish, so an interrupted run resumes.

Run: python bench/tao_tmo.py [--datasets ...] [--depths 2 3 4] [--seeds 0 1 2 3 4] [--jobs 2]
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
from _data import load_numeric, load_raw, manifest, require_shared  # noqa: E402

RESULTS = Path(__file__).parent / "results"
OUT = RESULTS / "tao_tmo.csv"
#: Table name -> our dataset (wpbc is the seed's "Breast 194 x 33"; digits is scikit-learn's 1797 x 64 test part
#: of optdigits, the seed's is the 3823 x 63 training part).
DATASETS = {"A2a": "a2a", "A4a": "a4a", "Biodeg": "biodeg", "Breast": "wpbc", "Diabetes": "diabetes",
            "Digits": "digits", "Heart": "heart", "Ionosphere": "ionosphere", "Libras": "libras",
            "Parkinsons": "parkinsons", "Phishing": "phishing", "Spam": "spambase", "Spectf": "spectf",
            "Sonar": "sonar"}
#: Binary sets the seed did not use (the same protocol on unseen data): ``--datasets unseen`` runs them all.
UNSEEN = {name: name for name in ("banknote", "climate", "german", "haberman", "heart_failure", "mammo", "splice",
                                  "svmguide1", "tic-tac-toe", "wholesale")}
#: Seed 002, Tables 3.4 (depth 2), 3.5 (depth 3), 3.6 (depth 4): mean test accuracy (%) of CART, TAO, TMO, OCT.
SEED = {
    2: {"A2a": (81.02, 81.02, 80.93, 78.81), "A4a": (82.28, 82.28, 82.34, 82.28), "Biodeg": (74.41, 76.30, 77.73, 74.79),
        "Breast": (70.77, 71.28, 71.28, 74.36), "Diabetes": (72.08, 72.08, 72.21, 69.61),
        "Digits": (94.72, 94.72, 94.93, 93.59), "Heart": (70.74, 70.74, 71.48, 67.41),
        "Ionosphere": (89.86, 90.70, 90.70, 87.32), "Libras": (95.0, 95.28, 95.0, 94.44),
        "Parkinsons": (83.59, 84.62, 83.59, 82.05), "Phishing": (90.75, 90.75, 91.43, 90.15),
        "Spam": (85.41, 85.99, 86.47, 83.71), "Spectf": (75.19, 78.52, 78.15, 77.41), "Sonar": (69.52, 70.0, 72.38, 66.67)},
    3: {"A2a": (80.79, 80.75, 80.97, 78.90), "A4a": (81.9, 82.22, 82.68, 80.08), "Biodeg": (78.1, 78.1, 79.91, 74.41),
        "Breast": (69.74, 74.36, 67.69, 72.31), "Diabetes": (69.87, 71.43, 74.42, 69.35),
        "Digits": (96.44, 96.81, 96.89, 92.55), "Heart": (78.15, 78.52, 81.85, 79.45),
        "Ionosphere": (90.99, 90.99, 87.32, 88.45), "Libras": (93.89, 94.72, 95.28, 94.44),
        "Parkinsons": (81.54, 86.15, 90.77, 86.67), "Phishing": (90.59, 91.23, 91.92, 89.43),
        "Spam": (87.84, 88.47, 89.73, 88.56), "Spectf": (72.59, 72.22, 71.85, 78.15), "Sonar": (72.86, 75.71, 69.52, 70.95)},
    4: {"A2a": (80.66, 81.1, 81.20, 80.57), "A4a": (82.22, 82.11, 82.13, 80.44), "Biodeg": (81.23, 80.85, 80.85, 80.09),
        "Breast": (67.18, 68.72, 72.31, 77.44), "Diabetes": (70.78, 70.65, 72.21, 69.61),
        "Digits": (97.15, 97.23, 97.39, 97.31), "Heart": (75.56, 75.93, 78.89, 73.70),
        "Ionosphere": (88.45, 89.01, 86.76, 84.51), "Libras": (95.0, 95.0, 93.61, 94.72),
        "Parkinsons": (83.59, 84.1, 85.64, 86.67), "Phishing": (91.67, 91.67, 92.15, np.nan),
        "Spam": (89.75, 90.16, 90.47, 89.88), "Spectf": (72.59, 73.33, 73.33, 78.52), "Sonar": (70.0, 67.62, 69.52, 68.10)},
}
METHODS = ("CART", "TAO", "TMO", "OCT")


def load(name):
    """Features and class indices (multi-class where the data is: libras, digits)."""
    if name == "digits":
        from sklearn.datasets import load_digits

        return load_digits(return_X_y=True)
    if manifest()[name]["task"] == "multiclass" and name != "heart":
        X, y = load_raw(name)
        return X.to_numpy(float), np.unique(y.astype(str), return_inverse=True)[1]
    X, y, _ = load_numeric(name)
    return X, y


def run_one(table_name, depth, seed, time_limit, methods=METHODS):
    from sklearn.model_selection import train_test_split
    from sklearn.tree import DecisionTreeClassifier

    from optitrees import OCTClassifier, TAOClassifier, TMOClassifier

    X, y = load({**DATASETS, **UNSEEN}[table_name])
    Xtv, Xte, ytv, yte = train_test_split(X, y, test_size=0.2, random_state=seed, stratify=y)
    Xtr, Xva, ytr, yva = train_test_split(Xtv, ytv, test_size=0.2, random_state=seed, stratify=ytv)
    rows = []

    def record(method, clf, seconds, **extra):
        rows.append(dict(dataset=table_name, n=len(y), p=X.shape[1], depth=depth, seed=seed, method=method,
                         train=float(np.mean(clf.predict(Xtr) == ytr)), test=float(np.mean(clf.predict(Xte) == yte)),
                         time=seconds, **extra))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        cart = DecisionTreeClassifier(max_depth=depth).fit(Xtr, ytr)
        record("CART", cart, time.perf_counter() - t0)
        if "TAO" in methods:
            t0 = time.perf_counter()
            tao = TAOClassifier(max_depth=depth, random_state=seed).fit(Xtr, ytr)
            record("TAO", tao, time.perf_counter() - t0)
        if "TMO" in methods:
            t0 = time.perf_counter()
            tmo = TMOClassifier(max_depth=depth, time_limit=time_limit, random_state=seed).fit(Xtr, ytr)
            record("TMO", tmo, time.perf_counter() - t0, generations=len(tmo.fitness_history_) - 1,
                   tmo_method=tmo.fit_report_.method)
        if "OCT" not in methods:
            return rows
        alphas = np.sort(10 ** np.random.default_rng(seed).uniform(-3, 0, 3))
        t0 = time.perf_counter()
        fits = [OCTClassifier(max_depth=depth, alpha=a, time_limit=time_limit, threads=1, random_state=seed)
                .fit(Xtr, ytr) for a in alphas]
        best = int(np.argmax([np.mean(f.predict(Xva) == yva) for f in fits]))
        oct_ = fits[best]
        record("OCT", oct_, time.perf_counter() - t0, alpha=alphas[best],
               certified=oct_.fit_report_.certified_by or "", oct_method=oct_.method_)
    return rows


def summary(df):
    methods = [m for m in METHODS if m in set(df.method)]
    lines = []
    for depth, part in df.groupby("depth"):
        lines.append(f"\nDepth {depth}: mean test accuracy (%) +- std over seeds (ours / seed 002's table)")
        lines.append("| dataset | n x p | " + " | ".join(methods) + " | OCT certified |")
        lines.append("|---|---|" + "---|" * (len(methods) + 1))
        for name in {**DATASETS, **UNSEEN}:
            d = part[part.dataset == name]
            if d.empty:
                continue
            cells = []
            for m in methods:
                acc = 100 * d[d.method == m].test
                ref = SEED[depth].get(name, (np.nan,) * len(METHODS))[METHODS.index(m)]
                cells.append(f"{acc.mean():.2f} +- {acc.std(ddof=0):.2f} / {ref:.2f}")
            cert = d[d.method == "OCT"].certified.fillna("").astype(str) if "certified" in d else d.method[:0]
            lines.append(f"| {name} | {d.n.iloc[0]} x {d.p.iloc[0]} | " + " | ".join(cells)
                         + f" | {int((cert != '').sum())}/{len(cert)} |")
        wins = {m: 0 for m in methods}
        seed_wins = {m: 0 for m in METHODS}
        for name in {**DATASETS, **UNSEEN}:
            d = part[part.dataset == name]
            if d.empty:
                continue
            means = d.groupby("method").test.mean()
            for m in methods:
                wins[m] += means[m] >= means.max() - 1e-12
            if name not in SEED[depth]:
                continue
            ref = np.array(SEED[depth][name])
            for k, m in enumerate(METHODS):
                seed_wins[m] += bool(np.nanmax(ref) - ref[k] <= 1e-12)
        lines.append("best mean test accuracy (ties count), ours: " + ", ".join(f"{m} {wins[m]}" for m in methods)
                     + "; seed: " + ", ".join(f"{m} {seed_wins[m]}" for m in METHODS))
        train = part.groupby("method").train.mean()
        lines.append("mean training accuracy: " + ", ".join(f"{m} {100 * train[m]:.2f}" for m in methods))
        if {"CART", "TMO"} <= set(methods):
            means = part.groupby(["dataset", "method"]).test.mean().unstack()
            lines.append(f"TMO at least CART's mean test accuracy on {int((means.TMO >= means.CART - 1e-12).sum())} "
                         f"of {len(means)} sets (mean difference {100 * (means.TMO - means.CART).mean():+.2f} points)")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS),
                        help="Table names (A2a ...), unseen set names, or 'unseen' for all of those")
    parser.add_argument("--depths", nargs="+", type=int, default=[2, 3, 4])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2, 3, 4])
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--methods", nargs="+", default=list(METHODS), choices=METHODS)
    parser.add_argument("--out", default=str(OUT), help="results file (rows appended; a run resumes)")
    parser.add_argument("--summary-only", action="store_true")
    args = parser.parse_args()
    require_shared()
    RESULTS.mkdir(exist_ok=True)
    if "unseen" in args.datasets:
        args.datasets = [d for d in args.datasets if d != "unseen"] + list(UNSEEN)
    out = Path(args.out)
    done = pd.read_csv(out) if out.exists() else pd.DataFrame(columns=["dataset", "depth", "seed"])
    finished = set(zip(done.dataset, done.depth, done.seed))
    todo = [(d, k, s) for k in args.depths for d in args.datasets for s in args.seeds if (d, k, s) not in finished]
    if not args.summary_only and todo:
        from joblib import Parallel, delayed

        for rows in Parallel(n_jobs=args.jobs, return_as="generator_unordered")(
                delayed(run_one)(d, k, s, args.time_limit, args.methods) for d, k, s in todo):
            pd.DataFrame(rows).to_csv(out, mode="a", header=not out.exists(), index=False)
            print(f"done {rows[0]['dataset']} depth {rows[0]['depth']} seed {rows[0]['seed']}: "
                  + ", ".join(f"{r['method']} {r['test']:.3f}" for r in rows), flush=True)
    print(summary(pd.read_csv(out)))


if __name__ == "__main__":
    main()
