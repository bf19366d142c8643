"""Risk scores: ORS against FasterRisk, and OGRS against stump-binarized ORS.

Part 1 (the risk-score data of ``../shared/datasets``): ORS as a user fits it
(``RiskScoreClassifier(n_rules=T)``: search, multiplier, aggregate-loss
cutting planes; points -5..5) at T = 3, 5, 7 against FasterRisk 0.1.10 (same
sparsity and point bounds) on ``rs_mammo`` (indicators, Density one-hot),
``rs_mushroom``, ``rs_adult`` (indicators) and ``rs_breastcancer`` (integer
1-10 features, scored per unit by both). 80/20 stratified split, seed 0
(``--seeds`` repeats on other splits and prints the mean per dataset and T),
``--time-limit`` seconds per fit, 1 thread. Printed: test AUC, training
logistic loss (each card's own probabilities, multiplier included), time,
the certified gap on the exact training loss (FasterRisk is a heuristic: no
gap), the multiplier. ``--methods tangents`` adds the per-point tangent
model at the same multiplier.

FasterRisk pins numpy < 2, pandas 1.5 and scikit-learn 1.2, so it runs in its
own environment through ``bench/peers/fasterrisk_fit.py``::

    python -m venv /tmp/frvenv && /tmp/frvenv/bin/pip install fasterrisk==0.1.10

Part 2 (continuous features, Table 4.2): OGRS at T = 3, 5 against the seed's
baseline: binarize each feature with the one-split stump of least log-loss
(``x_j >= b_j``), then fit ORS on those indicators. Printed: test AUC, time, gap.

    python bench/risk_scores.py --part 1 --peer-python /tmp/frvenv/bin/python [--time-limit 60]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeClassifier

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import binary_target, load_numeric, load_raw, one_thread_env, require_shared  # noqa: E402

DATASETS = ("rs_mammo", "rs_mushroom", "rs_adult", "rs_breastcancer")
INTEGER_VALUED = ("rs_breastcancer",)
CONTINUOUS = ("breast", "diabetes", "heart", "ionosphere", "parkinsons", "sonar", "spectf", "heart_failure",
              "wholesale", "haberman")
RESULTS = Path(__file__).resolve().parent / "results"
PEER = Path(__file__).resolve().parent / "peers" / "fasterrisk_fit.py"


def risk_data(name):
    """Indicators (columns with more than two values one-hot encoded), or the raw integers."""
    X, y = load_raw(name)
    if name not in INTEGER_VALUED:
        X = pd.get_dummies(X, columns=[c for c in X.columns if X[c].nunique() > 2 or not
                                       pd.api.types.is_numeric_dtype(X[c])], dtype=float)
    return X.to_numpy(float), binary_target(name, y)


def logloss(p, y01):
    p = np.clip(p, 1e-15, 1 - 1e-15)
    return float(-(y01 * np.log(p) + (1 - y01) * np.log(1 - p)).sum())


def fit_ors(Xtr, ytr, Xte, yte, T, time_limit, **params):
    from optitrees import RiskScoreClassifier

    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = RiskScoreClassifier(n_rules=T, time_limit=time_limit, threads=1, random_state=0, **params).fit(Xtr, ytr)
    elapsed = time.perf_counter() - t0
    r = clf.solver_result_
    return dict(auc=roc_auc_score(yte, clf.predict_proba(Xte)[:, 1]), train_loss=clf.objective_, time=elapsed,
                gap=np.nan if r.gap is None else r.gap, status=r.status, source=clf.method_,
                multiplier=clf.score_card_.multiplier, rules=clf.score_card_.n_rules)


def fit_fasterrisk(peer_python, Xtr, ytr, Xte, yte, T):
    """FasterRisk in its own interpreter; the card is scored here."""
    with tempfile.TemporaryDirectory() as tmp:
        src, out = Path(tmp) / "data.npz", Path(tmp) / "model.json"
        np.savez(src, X=Xtr, y=np.where(ytr == 1, 1.0, -1.0), k=T, lb=-5.0, ub=5.0)
        subprocess.run([peer_python, str(PEER), str(src), str(out)], check=True, env=one_thread_env())
        model = json.loads(out.read_text())
    score = lambda X: (X @ np.array(model["coefficients"]) + model["intercept"]) / model["multiplier"]  # noqa: E731
    prob = lambda X: 1 / (1 + np.exp(-score(X)))  # noqa: E731
    return dict(auc=roc_auc_score(yte, prob(Xte)), train_loss=logloss(prob(Xtr), ytr), time=model["seconds"],
                gap=np.nan, status="heuristic", source="fasterrisk", multiplier=model["multiplier"],
                rules=int(np.count_nonzero(model["coefficients"])))


def part1(args):
    out = RESULTS / args.out
    rows = pd.read_csv(out).to_dict("records") if args.resume and out.exists() else []
    for r in rows:
        r.setdefault("seed", 0)
    done = {(r["dataset"], r["seed"], r["T"], r["method"]) for r in rows}
    for name in args.datasets:
        X, y = risk_data(name)
        for seed in args.seeds:
            Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.2, random_state=seed, stratify=y)
            for T in args.T:
                base = dict(dataset=name, n=len(y), p=X.shape[1], seed=seed, T=T)
                if args.peer_python and (name, seed, T, "FasterRisk") not in done:
                    rows.append(dict(base, method="FasterRisk",
                                     **fit_fasterrisk(args.peer_python, Xtr, ytr, Xte, yte, T)))
                if (name, seed, T, "ORS") not in done:
                    rows.append(dict(base, method="ORS", **fit_ors(Xtr, ytr, Xte, yte, T, args.time_limit)))
                    m = rows[-1]["multiplier"]
                    if "tangents" in args.methods:
                        rows.append(dict(base, method="ORS-tangents", **fit_ors(
                            Xtr, ytr, Xte, yte, T, args.time_limit, method="tangents", multiplier=m)))
                print(f"done {name} split {seed} T={T}", flush=True)
                RESULTS.mkdir(exist_ok=True)
                pd.DataFrame(rows).to_csv(out, index=False)
    report1(pd.DataFrame(rows), args.time_limit)


def report1(df, time_limit):
    if "seed" not in df:
        df = df.assign(seed=0)
    repeats = df[df.seed != 0]
    df = df[df.seed == 0]
    print(f"\nPart 1: ORS vs FasterRisk, points -5..5, {time_limit:g} s, 1 thread, split seed 0")
    print("| dataset (n x p) | T | method | test AUC | train log-loss | time s | certified gap | multiplier | "
          "returned |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in df.sort_values(["dataset", "T", "method"], key=_dataset_order).itertuples():
        gap = "-" if np.isnan(r.gap) else f"{100 * r.gap:.2f}%"
        print(f"| {r.dataset} ({r.n} x {r.p}) | {r.T} | {r.method} | {r.auc:.4f} | {r.train_loss:.2f} | "
              f"{r.time:.1f} | {gap} | {r.multiplier:.3g} | {r.source} |")
    if "FasterRisk" in set(df.method):
        fr = df[df.method == "FasterRisk"].set_index(["dataset", "T"])
        ors = df[df.method == "ORS"].set_index(["dataset", "T"])
        both = ors.join(fr.add_suffix("_fr"), how="inner")
        print(f"\nORS vs FasterRisk over {len(both)} fits: AUC >= FR - 0.002 in "
              f"{int((both.auc >= both.auc_fr - 0.002).sum())}, train loss <= FR in "
              f"{int((both.train_loss <= both.train_loss_fr + 1e-9).sum())}, certified gap < 5% in "
              f"{int((both.gap < 0.05).sum())}, slowest ORS fit {both.time.max():.1f} s")
    if len(repeats) and "FasterRisk" in set(repeats.method):
        every = pd.concat([df, repeats])
        wide = every.pivot_table(index=["dataset", "T", "seed"], columns="method", values=["auc", "train_loss"])
        wide = wide.dropna()
        print(f"\nSplits {sorted(set(wide.index.get_level_values('seed')))}: mean test AUC and training loss "
              "(ORS - FasterRisk per split)")
        print("| dataset | T | splits | ORS AUC | FasterRisk AUC | mean AUC difference (standard error) | "
              "ORS AUC >= FR - 0.002 | ORS train loss <= FR |")
        print("|---|---|---|---|---|---|---|---|")
        for (name, T), g in wide.groupby(level=["dataset", "T"], sort=False):
            d_auc = g["auc", "ORS"] - g["auc", "FasterRisk"]
            se = f"{d_auc.std(ddof=1) / np.sqrt(len(g)):.4f}" if len(g) > 1 else "-"
            print(f"| {name} | {T} | {len(g)} | {g['auc', 'ORS'].mean():.4f} | {g['auc', 'FasterRisk'].mean():.4f} | "
                  f"{d_auc.mean():+.4f} ({se}) | {int((d_auc >= -0.002).sum())}/{len(g)} | "
                  f"{int((g['train_loss', 'ORS'] <= g['train_loss', 'FasterRisk'] + 1e-9).sum())}/{len(g)} |")


def _dataset_order(column):
    """Datasets in the order of ``DATASETS``, methods FasterRisk first (the sort key of the report)."""
    if column.name == "dataset":
        return column.map({name: k for k, name in enumerate(DATASETS)})
    return column


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
                                 time=t, gap=np.nan if r.gap is None else r.gap,
                                 source=clf.fit_report_.returned))
            print(f"done {name} T={T}", flush=True)
    df = pd.DataFrame(rows)
    df.to_csv(RESULTS / "risk_scores_ogrs.csv", index=False)
    print(f"\nPart 2: OGRS vs stump-binarized ORS, max points 5, HiGHS {args.time_limit:g} s "
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
    p.add_argument("--time-limit", type=float, default=60.0)
    p.add_argument("--datasets", nargs="+", default=list(DATASETS))
    p.add_argument("--T", nargs="+", type=int, default=[3, 5, 7])
    p.add_argument("--seeds", nargs="+", type=int, default=[0], help="train/test split seeds (part 1)")
    p.add_argument("--peer-python", help="interpreter of an environment with fasterrisk==0.1.10")
    p.add_argument("--methods", nargs="*", default=[], help="also 'tangents': the tangent model at ORS's multiplier")
    p.add_argument("--resume", action="store_true", help="keep the fits of an earlier run's CSV")
    p.add_argument("--report", action="store_true", help="only print the saved part-1 table")
    p.add_argument("--out", default="risk_scores_ors.csv", help="part 1's table in bench/results")
    args = p.parse_args(argv)
    if args.report:
        report1(pd.read_csv(RESULTS / args.out), args.time_limit)
        return 0
    require_shared()
    RESULTS.mkdir(exist_ok=True)
    if 1 in args.part:
        part1(args)
    if 2 in args.part:
        part2(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
