"""Fair trees: optitrees' OCT and OCT-H held to a parity notion, beside STreeD's and ODTlearn's fair trees and
fairlearn's reductions, on data with a natural group.

Sets and groups: adult (sex) trained on 1,000 rows sampled from ``adult`` and on all 30,162, tested on
``adult_test``; german (female, from ``personal_status_sex`` A92, against the others); heart (sex); heart_failure
(sex), each split 75/25 (``--splits``). The second groups: ``adult_1k_race`` (the same rows as ``adult_1k``; White
against the others) and ``german_age`` (the same split as ``german``; age 25 or younger). The group column stays a
feature (STreeD reads it from ``X``).
Notions (``--notions``) with bound ``--bounds``, depth ``--depth``, ``--time-limit`` seconds per fit, one thread:
demographic parity, true- and false-positive rate parity, equalized odds, and conditional statistical parity
(``csp``: demographic parity among the rows of each value of a legitimate feature; adult's education in three bands,
german's checking account, heart's chest-pain type, heart failure's high blood pressure; its codes are appended to
the features of optitrees' models, ODTlearn takes them as its ``legit_factor``, ``ExpGrad`` as fairlearn's
``control_features``; STreeD and ``ThresholdOptimizer`` have no such notion).

* ``OCT fair`` / ``OCT-H fair`` / ``OLCT fair``: ``OCTClassifier`` / ``OCTHClassifier`` /
  ``OLCTClassifier(fairness=...)``;
* ``OCT fair 0/1``: ``OCTClassifier(fairness=...)`` on ODTlearn's 0/1 features (below): the same features ODTlearn
  reads, and thresholds as coarse as STreeD's;
* ``ORS fair`` / ``OGRS fair``: ``RiskScoreClassifier(n_rules=5)`` on ODTlearn's 0/1 features (below) /
  ``GeneralizedRiskScoreClassifier(n_rules=3)`` on the numeric ones, with ``fairness=...`` (their tangent models);
* ``STreeD fair``: ``STreeDGroupFairnessClassifier`` (demographic parity and equal opportunity only: its two
  notions), exact dynamic programming on its binarized features;
* ``ODTlearn fair``: FairSPOCT / FairEOppOCT / FairPEOCT / FairEOddsOCT / FairCSPOCT with CBC, on ODTlearn's binarized
  features, in its own environment (``--odtlearn-python``, a venv with ``odtlearn`` and ``mip==1.15.0``; left
  out at 30,000 rows: its flow MIP has a column per row and node. Its build is outside CBC's clock: at depth 3 a
  30 s fit on adult's 1,000 rows took over 4 minutes);
* references that are not one readable model: fairlearn's ``ExponentiatedGradient`` (a randomized mixture) and
  ``ThresholdOptimizer`` (group-specific thresholds) around a CART of the same depth (``... CART``) and around an
  l1-logistic regression on standardized features, ``C = 0.1`` (``... L1-LR``);
* ``OCT`` without the constraint (once per split).

optitrees' trees minimize the training error, as STreeD and ODTlearn do; ``--class-weight balanced`` has them minimize
the class-balanced error instead, the training side of the balanced accuracy the table reports. ODTlearn then
minimizes its own balanced error (``obj_mode="balance"``) and the references' CART and l1-logistic regression take
``class_weight="balanced"``; STreeD's fair tree and the risk scores take no weights. Each row's ``class_weight``
says what that model minimized, and the summary sets a model beside another per weighting (``OCT fair
(balanced)`` beside ``ODTlearn fair (balanced)`` and ``STreeD fair``).

Reports per fit: training and test disparity of the notion (fairlearn's metric), test balanced accuracy, seconds,
status, gap and whether the solver's model came back; training and test accuracy beside; for optitrees' models,
their training loss against the constant model's (``beats_constant``): the (class-weighted) error of a label tree,
the (class-weighted) log loss of OLCT and the risk scores. Rows are appended to ``bench/results/constraints.csv``;
``--figure`` draws each set's accuracy-disparity frontier from them (``<out>_frontier.png``).

    python bench/constraints.py [--sets adult_1k german heart heart_failure adult_30k] [--notions dp tpr fpr eo]
                                [--bounds 0.05] [--models "OCT fair" "ODTlearn fair" ...] [--depth 2]
                                [--splits 2] [--time-limit 60] [--class-weight balanced]
                                [--odtlearn-python /path/to/venv/bin/python]
                                [--out constraints.csv] [--summary-only] [--figure]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import (  # noqa: E402
    append_row,
    binary_target,
    load_raw,
    one_thread_env,
    require_columns,
    run_then_summarize,
)

RESULTS = Path(__file__).resolve().parent / "results"
PEERS = Path(__file__).resolve().parent / "peers"
NOTIONS = {"dp": "demographic_parity", "tpr": "true_positive_rate_parity", "fpr": "false_positive_rate_parity",
           "eo": "equalized_odds", "csp": "conditional_statistical_parity"}
CSP = "conditional_statistical_parity"
METRICS = {"demographic_parity": "demographic_parity_difference",
           "true_positive_rate_parity": "true_positive_rate_difference",
           "false_positive_rate_parity": "false_positive_rate_difference",
           "equalized_odds": "equalized_odds_difference"}
STREED_TASKS = {"demographic_parity": "group-fairness", "true_positive_rate_parity": "equality-of-opportunity"}
COLUMNS = ("dataset", "seed", "rows", "model", "notion", "bound", "depth", "time_limit", "class_weight", "status",
           "gap", "from_solver", "train_loss", "constant_loss", "beats_constant", "seconds", "train_disparity",
           "test_disparity", "train_bacc", "test_bacc", "train_acc", "test_acc")
SETS = ("adult_1k", "german", "heart", "heart_failure", "adult_30k", "adult_1k_race", "german_age")
FAIR_MODELS = ("OCT fair", "OCT fair 0/1", "OCT-H fair", "OLCT fair", "ORS fair", "OGRS fair", "STreeD fair",
               "ODTlearn fair", "ExpGrad CART", "ThresholdOpt CART", "ExpGrad L1-LR", "ThresholdOpt L1-LR")


def _group(name: str, X: pd.DataFrame) -> np.ndarray:
    if name == "adult_1k_race":                                                 # race: White against the others
        return (X["race"].astype(str).str.strip() != "White").to_numpy().astype(int)
    if name == "german_age":                                                    # age: 25 or younger
        return (pd.to_numeric(X["age"]) <= 25).to_numpy().astype(int)
    if name.startswith("adult"):
        return (X["sex"].astype(str).str.strip() == "Female").to_numpy().astype(int)
    if name == "german":
        return (X["personal_status_sex"].astype(str) == "A92").to_numpy().astype(int)
    return (pd.to_numeric(X["sex"]) == 0).to_numpy().astype(int)            # heart, heart_failure: 0 = female


def _legitimate(name: str, X: pd.DataFrame) -> np.ndarray:
    """The legitimate feature of conditional statistical parity, as integer codes: adult's education (``education_num``
    9 or less, 10-12, 13 or more), german's checking account (``checking_status`` A11-A14), heart's chest-pain type
    (``cp``), heart failure's ``high_blood_pressure``."""
    if name.startswith("adult"):
        return np.digitize(pd.to_numeric(X["education_num"]).to_numpy(), [10, 13])
    if name.startswith("german"):
        return X["checking_status"].astype(str).map({"A11": 0, "A12": 1, "A13": 2, "A14": 3}).to_numpy().astype(int)
    return pd.to_numeric(X["cp" if name == "heart" else "high_blood_pressure"]).to_numpy().astype(int)


def _numeric(X: pd.DataFrame) -> pd.DataFrame:
    categorical = [c for c in X.columns if not pd.api.types.is_numeric_dtype(X[c])]
    return pd.get_dummies(X, columns=categorical, dtype=float) if categorical else X.astype(float)


def split(name: str, seed: int):
    """``(X, y, group, X_test, y_test, group_test, raw, raw_test)``: numeric features (one-hot), labels 0/1, groups."""
    from sklearn.model_selection import train_test_split

    if name.startswith("adult"):
        X, y = load_raw("adult")
        Xt, yt = load_raw("adult_test")
        y, yt = binary_target("adult", y), (yt.astype(str).str.strip().str.rstrip(".") == ">50K").to_numpy().astype(int)
        both = _numeric(pd.concat([X, Xt], ignore_index=True))
        raw, raw_test = X.reset_index(drop=True), Xt.reset_index(drop=True)
        Xn, Xtn = both.iloc[:len(X)].to_numpy(), both.iloc[len(X):].to_numpy()
        if name.startswith("adult_1k"):
            rows, _ = train_test_split(np.arange(len(y)), train_size=1000, stratify=y, random_state=seed)
            Xn, y, raw = Xn[rows], y[rows], raw.iloc[rows].reset_index(drop=True)
        return Xn, y, _group(name, raw), Xtn, yt, _group(name, raw_test), raw, raw_test
    base = name.removesuffix("_age")
    X, y = load_raw(base)
    y = binary_target(base, y)
    Xn = _numeric(X).to_numpy()
    g = _group(name, X)
    a, b = train_test_split(np.arange(len(y)), test_size=0.25, stratify=y, random_state=seed)
    return Xn[a], y[a], g[a], Xn[b], y[b], g[b], X.iloc[a].reset_index(drop=True), X.iloc[b].reset_index(drop=True)


def _notion(notion: str, bound: float, legitimate: int | None = None):
    """optitrees' notion; conditional statistical parity reads its legitimate feature from column ``legitimate``."""
    from optitrees.fairness import (ConditionalStatisticalParity, DemographicParity, EqualizedOdds,
                                    FalsePositiveRateParity, TruePositiveRateParity)

    if notion == CSP:
        return ConditionalStatisticalParity(bound, legitimate=legitimate)
    return {"demographic_parity": DemographicParity, "true_positive_rate_parity": TruePositiveRateParity,
            "false_positive_rate_parity": FalsePositiveRateParity, "equalized_odds": EqualizedOdds}[notion](bound)


def _fairlearn_constraint(notion: str, bound: float):
    from fairlearn.reductions import (DemographicParity, EqualizedOdds, FalsePositiveRateParity,
                                      TruePositiveRateParity)

    return {"demographic_parity": DemographicParity, "true_positive_rate_parity": TruePositiveRateParity,
            "false_positive_rate_parity": FalsePositiveRateParity, "equalized_odds": EqualizedOdds,
            CSP: DemographicParity}[notion](difference_bound=bound)      # conditional: given control_features


def fit_one(task) -> dict | None:
    """One fit in its own process: its row, or ``None`` where the model does not apply."""
    import warnings

    name, seed, model, notion, bound, depth, time_limit, odtlearn_python, class_weight = task
    class_weight = weighting(model, class_weight)
    X, y, g, Xt, yt, gt, raw, raw_test = split(name, seed)
    L, Lt = (_legitimate(name, raw), _legitimate(name, raw_test)) if notion == CSP else (None, None)
    row = {**dict.fromkeys(COLUMNS, np.nan),              # every column of the CSV; figures not measured stay empty
           **dict(dataset=name, seed=seed, rows=len(y), model=model, notion=notion, bound=bound, depth=depth,
                  time_limit=time_limit, class_weight=class_weight or "none", status="")}
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if model in ("OCT fair", "OCT fair 0/1", "OCT-H fair", "OLCT fair", "OCT"):
            from optitrees import OCTClassifier, OCTHClassifier, OLCTClassifier

            if model == "OCT fair 0/1":
                X, Xt = _binarized(raw, raw_test)
            X, Xt, j = _with_legitimate(X, Xt, L, Lt)
            cls = {"OCT-H fair": OCTHClassifier, "OLCT fair": OLCTClassifier}.get(model, OCTClassifier)
            fairness = None if model == "OCT" else _notion(notion, bound, j)
            clf = cls(max_depth=depth, fairness=fairness, time_limit=time_limit, threads=1, random_state=seed,
                      class_weight=class_weight)
            clf.fit(X, y, sensitive_features=g)
            train, test = clf.predict(X), clf.predict(Xt)
            report = clf.fit_report_
            row.update(status=report.outcome.value, gap=report.gap, from_solver=report.returned != "start",
                       **against_constant(clf, X, y, class_weight, probabilistic=model == "OLCT fair"))
        elif model in ("ORS fair", "OGRS fair"):
            from optitrees import GeneralizedRiskScoreClassifier, RiskScoreClassifier

            if model == "ORS fair":
                X, Xt = _binarized(raw, raw_test)
            X, Xt, j = _with_legitimate(X, Xt, L, Lt)
            if model == "ORS fair":
                clf = RiskScoreClassifier(n_rules=5, fairness=_notion(notion, bound, j), time_limit=time_limit,
                                          threads=1, random_state=seed)
            else:
                clf = GeneralizedRiskScoreClassifier(n_rules=3, fairness=_notion(notion, bound, j),
                                                     time_limit=time_limit, threads=1, random_state=seed)
            clf.fit(X, y, sensitive_features=g)
            train, test = clf.predict(X), clf.predict(Xt)
            report = clf.fit_report_
            row.update(status=report.outcome.value, gap=report.gap, from_solver=report.returned != "start",
                       **against_constant(clf, X, y, None, probabilistic=True))
        elif model == "STreeD fair":
            if notion not in STREED_TASKS:
                return None
            from pystreed import STreeDGroupFairnessClassifier

            Xs, Xts = np.column_stack([g, X]), np.column_stack([gt, Xt])
            clf = STreeDGroupFairnessClassifier(optimization_task=STREED_TASKS[notion], sensitive_feature=0,
                                                discrimination_limit=bound, max_depth=depth, time_limit=time_limit)
            clf.fit(Xs, y)
            train, test = clf.predict(Xs), clf.predict(Xts)
            row.update(status="proven optimal" if clf.fit_result.is_optimal() else "not proven optimal")
        elif model == "ODTlearn fair":
            if odtlearn_python is None or name == "adult_30k":
                return None
            B, Bt = _binarized(raw, raw_test)
            with tempfile.TemporaryDirectory() as folder:
                src, out = Path(folder) / "in.npz", Path(folder) / "out.json"
                np.savez(src, X=B, y=y, group=g, X_test=Bt, notion=notion, bound=bound, depth=depth,
                         legitimate=np.zeros(len(y), dtype=int) if L is None else L,
                         time_limit=int(time_limit), obj_mode="balance" if class_weight == "balanced" else "acc")
                subprocess.run([odtlearn_python, str(PEERS / "odtlearn_fair_fit.py"), str(src), str(out)],
                               check=True, env=one_thread_env(), timeout=time_limit * 3 + 600)
                result = json.loads(out.read_text())
            row.update(status=result["status"], gap=result["gap"])
            if result["train"] is None:                           # no tree: no scores
                return {**row, "seconds": result["seconds"]}
            train, test = np.array(result["train"]), np.array(result["test"])
        else:
            from fairlearn.postprocessing import ThresholdOptimizer
            from fairlearn.reductions import ExponentiatedGradient
            from sklearn.linear_model import LogisticRegression
            from sklearn.preprocessing import StandardScaler
            from sklearn.tree import DecisionTreeClassifier

            if model.endswith("L1-LR"):                          # scaled here: the reductions pass sample_weight
                scaler = StandardScaler().fit(X)
                X, Xt = scaler.transform(X), scaler.transform(Xt)
                base = LogisticRegression(penalty="l1", C=0.1, solver="liblinear", class_weight=class_weight)
            else:
                base = DecisionTreeClassifier(max_depth=depth, random_state=seed, class_weight=class_weight)
            if model.startswith("ExpGrad"):                     # conditional parity: DP given control_features
                clf = ExponentiatedGradient(base, _fairlearn_constraint(notion, bound))
                clf.fit(X, y, sensitive_features=g, **({} if L is None else {"control_features": L}))
                train, test = clf.predict(X, random_state=seed), clf.predict(Xt, random_state=seed)
            elif notion == CSP:                                   # ThresholdOptimizer takes no control features
                return None
            else:                                                 # fairlearn's names for the four notions are ours
                clf = ThresholdOptimizer(estimator=base, constraints=notion, predict_method="predict_proba",
                                         objective="balanced_accuracy_score").fit(X, y, sensitive_features=g)
                train = clf.predict(X, sensitive_features=g, random_state=seed)
                test = clf.predict(Xt, sensitive_features=gt, random_state=seed)
    row["seconds"] = time.perf_counter() - t0
    return {**row, **scores(notion, y, train, g, yt, test, gt, L, Lt)}


def _with_legitimate(X, Xt, L, Lt):
    """``(X, X_test, column)``: conditional statistical parity's legitimate codes appended as the last column of
    both (its index ``column``), or the features unchanged and ``None`` for the other notions."""
    if L is None:
        return X, Xt, None
    return np.column_stack([X, L]), np.column_stack([Xt, Lt]), np.shape(X)[1]


def weighting(model: str, class_weight: str | None) -> str | None:
    """The class weighting ``model`` minimizes its error under with ``--class-weight class_weight``: ``None`` for the
    models that take no weights (STreeD's fair tree, the risk scores)."""
    return None if model in ("STreeD fair", "ORS fair", "OGRS fair") else class_weight


def weights(table: pd.DataFrame) -> pd.Series:
    """Each row's class weighting, ``none`` where it has none (or the CSV predates the column)."""
    return table.class_weight.fillna("none") if "class_weight" in table else pd.Series("none", table.index)


def label(table: pd.DataFrame) -> pd.Series:
    """Each row's model, with its class weighting when it is not ``none``: ``OCT fair (balanced)``."""
    weight = weights(table)
    return table.model.where(weight == "none", table.model + " (" + weight + ")")


def against_constant(clf, X, y, class_weight, probabilistic: bool) -> dict:
    """``{"train_loss", "constant_loss", "beats_constant"}``: the model's training loss (the error of its labels, or
    the log loss of its probabilities; each row weighted by its class's ``class_weight``) and the best constant
    model's (the majority class; the base rate)."""
    from sklearn.metrics import log_loss
    from sklearn.utils.class_weight import compute_sample_weight

    weight = compute_sample_weight(class_weight, y) if class_weight else np.ones(len(y))
    share = float(weight @ y / weight.sum())
    if probabilistic:
        loss = log_loss(y, clf.predict_proba(X)[:, 1], sample_weight=weight)
        constant = log_loss(y, np.full(len(y), share), sample_weight=weight)
    else:
        loss = float(weight @ (clf.predict(X) != y) / weight.sum())
        constant = min(share, 1.0 - share)
    return dict(train_loss=loss, constant_loss=constant, beats_constant=bool(loss < constant - 1e-12))


def scores(notion, y, train, g, yt, test, gt, L=None, Lt=None) -> dict:
    """Disparities by fairlearn's metric of the notion; conditional statistical parity's is the largest of
    ``demographic_parity_difference`` over the rows of each legitimate value ``L``."""
    from fairlearn import metrics
    from sklearn.metrics import accuracy_score, balanced_accuracy_score

    if notion == CSP:                # a stratum with one group (or one row, which fairlearn refuses) differs by 0
        def metric(truth, predicted, sensitive_features, strata):
            rows = [strata == v for v in np.unique(strata)]
            return max([0.0] + [metrics.demographic_parity_difference(truth[r], predicted[r],
                                                                      sensitive_features=sensitive_features[r])
                                for r in rows if np.unique(sensitive_features[r]).size > 1])
    else:
        def metric(truth, predicted, sensitive_features, strata):
            return getattr(metrics, METRICS[notion])(truth, predicted, sensitive_features=sensitive_features)
    return dict(train_disparity=metric(y, train, g, L), test_disparity=metric(yt, test, gt, Lt),
                train_bacc=balanced_accuracy_score(y, train), test_bacc=balanced_accuracy_score(yt, test),
                train_acc=accuracy_score(y, train), test_acc=accuracy_score(yt, test))


def _binarized(raw: pd.DataFrame, raw_test: pd.DataFrame, bins: int = 4):
    """ODTlearn's 0/1 features: each categorical value, and ``value <= level`` of quantile levels of the numbers."""
    both = pd.concat([raw, raw_test], ignore_index=True)
    columns = []
    for c in both.columns:
        if pd.api.types.is_numeric_dtype(both[c]) and both[c].nunique() > 2:
            levels = np.unique(np.quantile(raw[c].astype(float), np.linspace(0, 1, bins + 1)[1:-1]))
            columns += [(both[c].astype(float) <= v).astype(int).rename(f"{c}<={v:g}") for v in levels]
        else:
            columns.append(pd.get_dummies(both[c].astype(str), prefix=c, dtype=int))
    B = pd.concat(columns, axis=1).to_numpy()
    return B[:len(raw)], B[len(raw):]


def run(args) -> None:
    out = RESULTS / args.out
    require_columns(out, COLUMNS)
    done = set()
    if out.exists():
        old = pd.read_csv(out)
        done = set(zip(old.dataset, old.seed, old.model, old.notion.fillna(""), old.bound.fillna(-1.0), old.depth,
                       weights(old)))
    tasks = []
    for name in args.sets:
        for seed in range(1 if name == "adult_30k" else args.splits):
            tasks.append((name, seed, "OCT", "demographic_parity", 1.0, args.depth, args.time_limit, None,
                          args.class_weight))
            for notion in args.notions:
                for bound in args.bounds:
                    for model in args.models:
                        tasks.append((name, seed, model, NOTIONS[notion], bound, args.depth, args.time_limit,
                                      args.odtlearn_python, args.class_weight))
    tasks = [t for t in tasks if (*t[:6], weighting(t[2], t[8]) or "none") not in done]
    with ProcessPoolExecutor(max_workers=args.workers, max_tasks_per_child=1) as pool:
        futures = [pool.submit(fit_one, task) for task in tasks]
        for k, future in enumerate(as_completed(futures)):
            try:
                row = future.result()
            except Exception as exc:                              # a peer that failed: said, not hidden
                print(f"{k + 1}/{len(tasks)} failed: {type(exc).__name__}: {exc}", flush=True)
                continue
            if row is None:
                continue
            append_row(out, row)
            scored = (f"test bacc {100 * row['test_bacc']:.1f}, train disparity {row['train_disparity']:.3f}"
                      if pd.notna(row.get("test_bacc")) else "no model")
            print(f"{k + 1}/{len(tasks)} {row['dataset']} {row['model']} {row['notion']} {row['bound']}: {scored} "
                  f"in {row['seconds']:.1f} s ({row['status']})", flush=True)


def summary(args) -> None:
    table = pd.read_csv(RESULTS / args.out)
    table["test_bacc"] *= 100
    unconstrained = table.model == "OCT"
    table["model"] = label(table)
    free, fair = table[unconstrained].set_index(["dataset", "seed"]), table[~unconstrained]
    scored = fair.dropna(subset=["train_disparity"])                 # a peer that returned no model has no disparity
    kept = scored.train_disparity <= scored.bound + 1e-9
    print(f"{len(fair)} constrained fits; within the bound on the training rows, of those that returned a model: "
          + ", ".join(f"{m} {int(k.sum())}/{len(k)}" for m, k in kept.groupby(scored.model)))
    missing = fair[fair.train_disparity.isna()].model.value_counts()
    if len(missing):
        print("no model returned: " + ", ".join(f"{m} {n}" for m, n in missing.items()))
    if "beats_constant" in fair:
        ours = fair.dropna(subset=["beats_constant"])
        print("training loss below the constant model's: "
              + ", ".join(f"{m} {int(b.astype(bool).sum())}/{len(b)}" for m, b in ours.groupby("model").beats_constant))
    cols = ["test_bacc", "train_disparity", "test_disparity", "seconds"]
    means = fair.groupby(["dataset", "notion", "bound", "model"])[cols].mean().round(3)
    print(means.to_string())
    print("\nwithout the constraint (OCT):")
    print(free.groupby(level="dataset")[cols].mean().round(3).to_string())
    for value, name in (("test_bacc", "test balanced accuracy"), ("test_acc", "test accuracy")):
        if value not in fair:
            continue
        cells = fair.pivot_table(index=["dataset", "depth", "notion", "bound", "seed"], columns="model",
                                 values=value)
        cells *= 100 if value == "test_acc" else 1
        mine = [m for m in cells if m.startswith("OCT fair")]
        peers = [m for m in cells if m.startswith(("STreeD fair", "ODTlearn fair"))]
        for ours in mine:
            for peer in peers:
                shared = cells[[ours, peer]].dropna()
                per_cell = shared.groupby(level=["dataset", "depth", "notion", "bound"]).mean()
                won = (per_cell[ours] >= per_cell[peer] - 0.5).mean()
                print(f"{ours} >= {peer} - 0.5 points of {name} in {100 * won:.0f}% of {len(per_cell)} shared "
                      f"(set, depth, notion, bound) cells")


def frontier(args) -> Path:
    """One figure of the accuracy-disparity frontier per set: a panel per notion, test disparity across, test
    balanced accuracy up, one line per model through its bounds (means over the splits that returned a model), the
    unconstrained OCT as a cross on the demographic-parity panel (its rows measure that notion). Written to
    ``bench/results`` as ``<out>_frontier.png``."""
    from itertools import cycle

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    table = pd.read_csv(RESULTS / args.out).dropna(subset=["test_bacc"])
    table["test_bacc"] *= 100
    table["unconstrained"], table["model"] = table.model == "OCT", label(table)
    sets, notions = sorted(table.dataset.unique()), sorted(table[~table.unconstrained].notion.unique())
    several_depths = table.depth.nunique() > 1
    colours = dict(zip(sorted(table.model.unique()), cycle(plt.get_cmap("tab20").colors)))  # a model keeps its colour
    fig, axes = plt.subplots(len(sets), len(notions), figsize=(5 * len(notions), 3.6 * len(sets)), squeeze=False)
    for row, name in zip(axes, sets):
        here = table[table.dataset == name]
        free = here[here.unconstrained]
        for ax, notion in zip(row, notions):
            fair = here[(here.notion == notion) & ~here.unconstrained]
            if fair.empty:
                ax.set_title(f"{name}: {notion} (no fits)")
                ax.axis("off")
                continue
            for (model, depth), fits in fair.groupby(["model", "depth"]):
                means = fits.groupby("bound")[["test_disparity", "test_bacc"]].mean()
                ax.plot(means.test_disparity, means.test_bacc, marker="o" if depth == 2 else "s",
                        color=colours[model], label=f"{model}, depth {depth}" if several_depths else model)
            if len(free) and notion == "demographic_parity":      # the free OCT's rows measure this notion only
                ax.plot(free.test_disparity.mean(), free.test_bacc.mean(), "kx", markersize=9, label="OCT, no bound")
            ax.set_title(f"{name}: {notion}")
            ax.set_xlabel("test disparity")
            ax.set_ylabel("test balanced accuracy")
            ax.legend(fontsize=7)
    fig.tight_layout()
    path = RESULTS / f"{Path(args.out).stem}_frontier.png"
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", nargs="+", default=list(SETS), choices=SETS)
    parser.add_argument("--notions", nargs="+", default=list(NOTIONS), choices=list(NOTIONS))
    parser.add_argument("--bounds", nargs="+", type=float, default=[0.05])
    parser.add_argument("--models", nargs="+", default=list(FAIR_MODELS), choices=FAIR_MODELS)
    parser.add_argument("--depth", type=int, default=2)
    parser.add_argument("--splits", type=int, default=2)
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--class-weight", choices=["balanced"], help="optitrees' trees minimize the balanced error")
    parser.add_argument("--odtlearn-python", help="python of a venv with odtlearn and mip==1.15.0")
    parser.add_argument("--out", default="constraints.csv")
    parser.add_argument("--summary-only", action="store_true")
    parser.add_argument("--figure", action="store_true", help="draw the accuracy-disparity frontier of every set")
    args = parser.parse_args()
    run_then_summarize(args, run, summary)
    if args.figure:
        print(f"frontier: {frontier(args)}")


if __name__ == "__main__":
    main()
