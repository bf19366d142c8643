"""Risk scores: ORS (V0..V3) against FasterRisk, and OGRS against stump-binarized ORS.

Part 1 (binary features): ORS with each tangent set V0..V3 at T = 3, 5, 7
rules, A = -5..5, against FasterRisk (PyPI ``fasterrisk``, same sparsity and
score bounds) on the binary datasets of ``../shared/datasets``: ``rs_mushroom``
and ``rs_adult`` (binary indicators), ``rs_mammo`` (indicators plus one
integer column, one-hot encoded here) and ``tic-tac-toe`` (one-hot, Table 4.1).
80/20 stratified split, seed 0. Printed: test AUC, training logistic loss
(the model's own probabilities; FasterRisk's divide the score by its
multiplier), time, final gap (FasterRisk is a heuristic: no gap).

Part 2 (continuous features, Table 4.2): OGRS at T = 3, 5 against the seed's
baseline: binarize each feature with the one-split stump of least log-loss
(``x_j >= b_j``), then fit ORS on those indicators. Printed: test AUC, time, gap.

Every MIP uses HiGHS, one thread, ``--time-limit`` seconds.

Needs ``pip install fasterrisk`` (it pins old pandas / scikit-learn; install it
in a separate environment or reinstall pandas>=2, scikit-learn>=1.6 after). Its
one numpy-2 incompatibility (``ndarray.tostring``) is patched at load time.

    python bench/risk_scores.py [--part 1 2] [--time-limit 15]
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeClassifier

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import binary_target, load_numeric, load_raw, require_shared  # noqa: E402

BINARY = ("rs_mammo", "rs_mushroom", "rs_adult", "tic-tac-toe")
CONTINUOUS = ("breast", "diabetes", "heart", "ionosphere", "parkinsons", "sonar", "spectf", "heart_failure",
              "wholesale", "haberman")
RESULTS = Path(__file__).resolve().parent / "results"


def binary_data(name):
    X, y = load_raw(name)
    X = pd.get_dummies(X, columns=[c for c in X.columns if X[c].nunique() > 2 or not
                                   pd.api.types.is_numeric_dtype(X[c])], dtype=float)
    return X.to_numpy(float), binary_target(name, y)


def logloss(p, y01):
    p = np.clip(p, 1e-15, 1 - 1e-15)
    return float(-(y01 * np.log(p) + (1 - y01) * np.log(1 - p)).sum())


def fit_ors(Xtr, ytr, Xte, yte, T, tangents, time_limit):
    from optitrees import RiskScoreClassifier

    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = RiskScoreClassifier(n_rules=T, tangents=tangents, time_limit=time_limit, threads=1,
                                  random_state=0).fit(Xtr, ytr)
    elapsed = time.perf_counter() - t0
    r = clf.solver_result_
    return dict(auc=roc_auc_score(yte, clf.predict_proba(Xte)[:, 1]), train_loss=clf.objective_, time=elapsed,
                gap=np.nan if r.gap is None else r.gap, status=r.status, source=r.returned)


def _fasterrisk():
    """FasterRisk's classes, with its one call removed in numpy 2 (``ndarray.tostring``) mapped to ``tobytes``."""
    import importlib
    import inspect

    import fasterrisk.rounding as rounding

    if ".tostring()" in inspect.getsource(rounding):
        src = inspect.getsource(rounding).replace(".tostring()", ".tobytes()")
        exec(compile(src, rounding.__file__, "exec"), rounding.__dict__)
        import fasterrisk.fasterrisk

        importlib.reload(fasterrisk.fasterrisk)
    from fasterrisk.fasterrisk import RiskScoreClassifier, RiskScoreOptimizer

    return RiskScoreClassifier, RiskScoreOptimizer


def fit_fasterrisk(Xtr, ytr, Xte, yte, T):
    FRClassifier, RiskScoreOptimizer = _fasterrisk()

    t0 = time.perf_counter()
    opt = RiskScoreOptimizer(X=Xtr, y=np.where(ytr == 1, 1, -1), k=T, lb=-5, ub=5)
    opt.optimize()
    multipliers, intercepts, coefs = opt.get_models()
    clf = FRClassifier(multipliers[0], intercepts[0], coefs[0])
    elapsed = time.perf_counter() - t0
    return dict(auc=roc_auc_score(yte, clf.predict_prob(Xte)), train_loss=logloss(clf.predict_prob(Xtr), ytr),
                time=elapsed, gap=np.nan, status="heuristic", source="fasterrisk")


def part1(args):
    rows = []
    for name in BINARY:
        X, y = binary_data(name)
        Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.2, random_state=0, stratify=y)
        for T in (3, 5, 7):
            fr = fit_fasterrisk(Xtr, ytr, Xte, yte, T)
            rows.append(dict(dataset=name, n=len(y), p=X.shape[1], T=T, method="FasterRisk", **fr))
            for tangents in ("V0", "V1", "V2", "V3"):
                r = fit_ors(Xtr, ytr, Xte, yte, T, tangents, args.time_limit)
                rows.append(dict(dataset=name, n=len(y), p=X.shape[1], T=T, method=f"ORS-{tangents}", **r))
            print(f"done {name} T={T}", flush=True)
    df = pd.DataFrame(rows)
    df.to_csv(RESULTS / "risk_scores_ors.csv", index=False)
    print(f"\nPart 1: ORS vs FasterRisk, A = -5..5, HiGHS {args.time_limit:g} s, 1 thread, split seed 0")
    print("| dataset (n x p) | T | method | test AUC | train log-loss | time s | gap | solution |")
    print("|---|---|---|---|---|---|---|---|")
    for r in df.itertuples():
        gap = "-" if np.isnan(r.gap) else f"{100 * r.gap:.1f}%"
        print(f"| {r.dataset} ({r.n} x {r.p}) | {r.T} | {r.method} | {r.auc:.4f} | {r.train_loss:.1f} | "
              f"{r.time:.1f} | {gap} | {r.source} |")


def stump_binarize(Xtr, ytr, Xte):
    """Each feature as 1{x_j >= b_j}, b_j the split of a depth-1 log-loss tree (the seed's baseline)."""
    cols_tr, cols_te = [], []
    for j in range(Xtr.shape[1]):
        stump = DecisionTreeClassifier(max_depth=1, criterion="log_loss").fit(Xtr[:, [j]], ytr)
        if stump.tree_.node_count < 3:
            continue
        b = stump.tree_.threshold[0]
        cols_tr.append(Xtr[:, j] > b)
        cols_te.append(Xte[:, j] > b)
    return np.column_stack(cols_tr).astype(float), np.column_stack(cols_te).astype(float)


def part2(args):
    from optitrees import GeneralizedRiskScoreClassifier, RiskScoreClassifier

    rows = []
    for name in CONTINUOUS:
        X, y, _ = load_numeric(name)
        Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.2, random_state=0, stratify=y)
        Btr, Bte = stump_binarize(Xtr, ytr, Xte)
        for T in (3, 5):
            if T > X.shape[1]:
                print(f"skip {name} T={T}: only {X.shape[1]} features (each is used at most once)")
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                t0 = time.perf_counter()
                g = GeneralizedRiskScoreClassifier(n_rules=T, time_limit=args.time_limit, threads=1,
                                                   random_state=0).fit(Xtr, ytr)
                tg = time.perf_counter() - t0
                t0 = time.perf_counter()
                b = RiskScoreClassifier(n_rules=min(T, Btr.shape[1]), time_limit=args.time_limit, threads=1,
                                        random_state=0).fit(Btr, ytr)
                tb = time.perf_counter() - t0
            for method, clf, Xt, t in (("OGRS", g, Xte, tg), ("stump+ORS", b, Bte, tb)):
                r = clf.solver_result_
                rows.append(dict(dataset=name, n=len(y), p=X.shape[1], T=T, method=method,
                                 auc=roc_auc_score(yte, clf.predict_proba(Xt)[:, 1]), train_loss=clf.objective_,
                                 time=t, gap=np.nan if r.gap is None else r.gap, source=r.returned))
            print(f"done {name} T={T}", flush=True)
    df = pd.DataFrame(rows)
    df.to_csv(RESULTS / "risk_scores_ogrs.csv", index=False)
    print(f"\nPart 2: OGRS vs stump-binarized ORS (V3), max points 5, HiGHS {args.time_limit:g} s "
          "(OGRS: plus up to a quarter of it for its greedy start), split seed 0")
    print("| dataset (n x p) | T | OGRS AUC / time s / gap | stump+ORS AUC / time s / gap |")
    print("|---|---|---|---|")
    for (name, T), g in df.groupby(["dataset", "T"], sort=False):
        cells = []
        for method in ("OGRS", "stump+ORS"):
            r = g[g["method"] == method].iloc[0]
            gap = "-" if np.isnan(r.gap) else f"{100 * r.gap:.0f}%"
            cells.append(f"{r.auc:.4f} / {r.time:.1f} / {gap}")
        print(f"| {name} ({g.iloc[0].n} x {g.iloc[0].p}) | {T} | " + " | ".join(cells) + " |")
    for method in ("OGRS", "stump+ORS"):
        m = df[df["method"] == method]
        print(f"{method}: mean test AUC {m['auc'].mean():.4f}")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--part", nargs="+", type=int, default=[1, 2])
    p.add_argument("--time-limit", type=float, default=15.0)
    args = p.parse_args(argv)
    require_shared()
    RESULTS.mkdir(exist_ok=True)
    if 1 in args.part:
        part1(args)
    if 2 in args.part:
        part2(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
