"""Readable and strong: test balanced accuracy against the features a person reads, per model and feature budget.

Table 3.1's ten binary sets (seed 002) x ``--splits`` stratified 75/25 splits, depth ``--depth``. Each fit runs
in a fresh process (2 at a time, one solver thread each) and records its test balanced accuracy, the most
features any printed hyperplane holds (splits, and the leaf models of OLCT / MARGOT) and the distinct features
the whole model reads:

* optitrees at a budget of ``--budgets`` features per hyperplane (``0`` = no budget, ``-1`` = ``"auto"``, chosen
  on held-out folds, OLCT's default; MARGOT, OCT-H and TAO take integers only): OLCT, MARGOT (HFS), OCT-H,
  oblique TAO, and OLCT, OCT-H and oblique TAO with a tree-wide budget chosen on held-out folds
  (``max_total_features="auto"``) (``--models`` picks some), each at ``--time-limit`` seconds;
* axis-aligned models (one feature per split): scikit-learn's CART, imodels' FIGS with as many splits as the
  tree (``2^d - 1`` rules), and OCT by ConTree (optitrees' exact search; ConTree is the peer's own engine);
* the l1-logistic regression path (standardized features, 40 values of ``C``), at each model's own count of
  distinct features: the least regularized point of the path with at most that many (``l1@F`` columns);
* interpret's EBM as the ceiling (every feature and pair; 2 outer bags, not 14, to keep its fits to seconds).

Outputs ``bench/results/frontier_d{depth}.csv`` (one row per fit, appended as fits end: a run resumes) and prints, per model and budget, the mean test
balanced accuracy, features per hyperplane and in all, wins / ties / losses against the l1 path restricted to the
same total features (ties within 0.5 points), and the mean rank among the models with at most 3 features per
hyperplane.

    python bench/frontier.py [--depth 2] [--splits 3] [--time-limit 10] [--budgets 1 2 3 5 0] [--models OLCT ...]
                             [--out frontier_d2.csv] [--summary-only]
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import load_numeric, run_then_summarize  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"
SETS = ("breast", "climate", "haberman", "heart", "ionosphere", "parkinsons", "sonar", "spectf", "tic-tac-toe",
        "wholesale")
#: "..., tree-wide" is the model with ``max_total_features="auto"``: the features the whole tree reads chosen on
#: held-out folds among the first ones of the l1-logistic path
BUDGETED = ("OLCT", "MARGOT", "OCT-H", "TAO oblique", "OLCT, tree-wide", "OCT-H, tree-wide", "TAO oblique, tree-wide")
PEERS = ("CART", "FIGS", "OCT (ConTree)", "EBM")
L1_GRID = np.logspace(-3, 2, 40)
TIE = 0.005
#: ``fit_report_.returned`` of a MIP estimator's model that came from its solver (not one of its starts)
FROM_SOLVER = ("solver", "refined", "neighbourhood")
#: ``--budgets`` code of ``max_features="auto"`` (the budget chosen on held-out folds; OLCT's default)
AUTO = -1
#: The peers that come from another package (``pip install ".[bench]"``), by the module each needs
PEER_PACKAGES = {"FIGS": "imodels", "EBM": "interpret"}


def _installed(models) -> list:
    """``models`` without the peers whose package is not installed (each named once, with the fix)."""
    import importlib.util

    kept = []
    for kind in models:
        package = PEER_PACKAGES.get(kind)
        if package is not None and importlib.util.find_spec(package) is None:
            print(f"{kind} skipped: {package} is not installed (pip install \".[bench]\")", flush=True)
            continue
        kept.append(kind)
    return kept


def _split(name, seed):
    from sklearn.model_selection import train_test_split

    X, y, _ = load_numeric(name)
    return train_test_split(X, y, test_size=0.25, stratify=y, random_state=seed)


def _model(kind, budget, depth, time_limit, seed):
    from optitrees import MARGOTClassifier, OCTClassifier, OCTHClassifier, OLCTClassifier, TAOClassifier

    k = None if budget == 0 else "auto" if budget == AUTO else int(budget)
    common = dict(time_limit=time_limit, random_state=seed, threads=1)
    if kind in ("OLCT", "OLCT, tree-wide"):
        return OLCTClassifier(max_depth=depth, max_features=k, **common,
                              max_total_features="auto" if kind.endswith("tree-wide") else None)
    if kind == "MARGOT":
        return MARGOTClassifier(max_depth=depth, max_features=k, **common)
    if kind in ("OCT-H", "OCT-H, tree-wide"):
        return OCTHClassifier(max_depth=depth, max_features=k, **common,
                              max_total_features="auto" if kind.endswith("tree-wide") else None)
    if kind in ("TAO oblique", "TAO oblique, tree-wide"):
        return TAOClassifier(max_depth=depth, oblique=True, max_features=k, time_limit=time_limit, random_state=seed,
                             max_total_features="auto" if kind.endswith("tree-wide") else None)
    if kind == "OCT (ConTree)":
        return OCTClassifier(max_depth=depth, **common)
    if kind == "CART":
        from sklearn.tree import DecisionTreeClassifier

        return DecisionTreeClassifier(max_depth=depth, random_state=seed)
    if kind == "FIGS":
        from imodels import FIGSClassifier

        return FIGSClassifier(max_rules=2**depth - 1, random_state=seed)
    if kind == "EBM":
        from interpret.glassbox import ExplainableBoostingClassifier

        # 2 outer bags instead of 14: with 14 one fit on 263 rows of ionosphere ran past 15 minutes on one core
        return ExplainableBoostingClassifier(random_state=seed, n_jobs=1, outer_bags=2)
    raise ValueError(kind)


def _readability(model, kind, X):
    """(most features in one printed hyperplane, distinct features the model reads)."""
    if kind == "EBM":
        return np.nan, X.shape[1]
    if kind == "CART":
        t = model.tree_
        used = t.feature[t.feature >= 0]
        return (1 if used.size else 0), len(np.unique(used))
    if kind == "FIGS":
        used = [node.feature for tree in model.trees_ for node in _figs_nodes(tree) if node.left is not None]
        return (1 if used else 0), len(set(used))
    tree = model.tree_
    rows = tree.weights != 0
    per_node = rows.sum(axis=1)
    return int(per_node.max(initial=0)), int(rows.any(axis=0).sum())


def _figs_nodes(node):
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack += [c for c in (n.left, n.right) if c is not None]


def fit_one(task):
    """One fit in its own process: the row of the results table."""
    import warnings

    from sklearn.metrics import balanced_accuracy_score

    name, seed, kind, budget, depth, time_limit = task
    X, X_test, y, y_test = _split(name, seed)
    model = _model(kind, budget, depth, time_limit, seed)
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(X, y)
    seconds = time.perf_counter() - t0
    per_hyperplane, total = _readability(model, kind, X)
    report = getattr(model, "fit_report_", None)
    return dict(dataset=name, seed=seed, model=kind, budget=budget, depth=depth, seconds=seconds,
                test_bacc=balanced_accuracy_score(y_test, model.predict(X_test)),
                train_bacc=balanced_accuracy_score(y, model.predict(X)), per_hyperplane=per_hyperplane,
                features=total, returned=getattr(report, "returned", ""))


def l1_path(name, seed):
    """Test balanced accuracy of the l1-logistic path at each count of features ``0..p`` (``nan`` where the path
    has no point with exactly that many or fewer beyond the previous count)."""
    import warnings

    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import balanced_accuracy_score
    from sklearn.preprocessing import StandardScaler

    X, X_test, y, y_test = _split(name, seed)
    scaler = StandardScaler().fit(X)
    Xs, Xt = scaler.transform(X), scaler.transform(X_test)
    best = {}                                     # features -> test bacc of the least regularized point with them
    for C in L1_GRID:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            lr = LogisticRegression(penalty="l1", C=C, solver="liblinear", max_iter=2000, random_state=0).fit(Xs, y)
        nnz = int(np.count_nonzero(lr.coef_))
        best[nnz] = balanced_accuracy_score(y_test, lr.predict(Xt))
    p = X.shape[1]
    out, last = np.full(p + 1, np.nan), np.nan
    for k in range(p + 1):
        if k in best:
            last = best[k]
        out[k] = last
    return out


def run(args):
    """Every fit not yet in the results file, each row appended as it ends (an interrupted run resumes); then the
    l1 path of each split beside every row."""
    from concurrent.futures import as_completed

    out = _results_file(args)
    done = set()
    if out.exists():
        old = pd.read_csv(out)
        done = set(zip(old.dataset, old.seed, old.model, old.budget))
    models = _installed(args.models)
    tasks = [(name, seed, kind, budget, args.depth, args.time_limit)
             for name in SETS for seed in range(args.splits)
             for kind, budgets in [*[(k, args.budgets) for k in BUDGETED], *[(k, [1]) for k in PEERS]]
             if kind in models
             for budget in budgets if (name, seed, kind, budget) not in done]
    # the MIP fits first, the quick ones next, EBM (the slowest per fit on wide sets) last
    tasks.sort(key=lambda t: (t[2] == "EBM", t[2] in ("CART", "FIGS", "TAO oblique", "TAO oblique, tree-wide")))
    with ProcessPoolExecutor(max_workers=2, max_tasks_per_child=1) as pool:
        futures = [pool.submit(fit_one, task) for task in tasks]
        for k, future in enumerate(as_completed(futures)):
            row = future.result()
            pd.DataFrame([row]).to_csv(out, mode="a", header=not out.exists(), index=False)
            if k % 20 == 0:
                print(f"{k + 1}/{len(tasks)} {row['dataset']} {row['model']} {row['budget']}: "
                      f"{row['test_bacc']:.3f} in {row['seconds']:.1f} s", flush=True)


def with_l1_path(table: pd.DataFrame) -> pd.DataFrame:
    """``l1_at_features``: the l1 path's test balanced accuracy at each row's count of distinct features."""
    paths = {(name, seed): l1_path(name, seed) for name, seed in set(zip(table.dataset, table.seed))}
    table = table.copy()
    table["l1_at_features"] = [paths[(r.dataset, r.seed)][min(int(r.features), len(paths[(r.dataset, r.seed)]) - 1)]
                               for r in table.itertuples()]
    return table


def _results_file(args) -> Path:
    return RESULTS / (args.out or f"frontier_d{args.depth}.csv")


def summary(args):
    depth = args.depth
    table = with_l1_path(pd.read_csv(_results_file(args)))
    table["label"] = np.where(table.model.isin(BUDGETED),
                              table.model + " @" + table.budget.astype(int).astype(str)
                              .replace({"0": "dense", str(AUTO): "auto"}), table.model)
    rows = []
    for label, part in table.groupby("label", sort=False):
        per_set = part.groupby("dataset")[["test_bacc", "l1_at_features"]].mean()
        diff = per_set.test_bacc - per_set.l1_at_features
        rows.append(dict(model=label, fits=len(part), mean_test_bacc=100 * part.test_bacc.mean(),
                         per_hyperplane=part.per_hyperplane.mean(), max_per_hyperplane=part.per_hyperplane.max(),
                         features=part.features.mean(), l1_same_features=100 * part.l1_at_features.mean(),
                         vs_l1_WTL=f"{int((diff > TIE).sum())}/{int((diff.abs() <= TIE).sum())}/{int((diff < -TIE).sum())}",
                         median_s=part.seconds.median(), from_solver=float(part.returned.isin(FROM_SOLVER).mean())))
    out = pd.DataFrame(rows).sort_values("mean_test_bacc", ascending=False)
    print(f"depth {depth}: {table.seed.nunique()} splits x {table.dataset.nunique()} sets")
    print(out.round(3).to_string(index=False))
    readable = table[(table.model.isin(BUDGETED) & (table.budget == 3)) | table.model.isin(("CART", "FIGS", "OCT (ConTree)"))]
    per_set = readable.pivot_table(index="dataset", columns="label", values="test_bacc", aggfunc="mean")
    ranks = per_set.rank(axis=1, ascending=False).mean().sort_values()
    print("\nmean rank per set among the models with at most 3 features per hyperplane (budget 3, axis-aligned peers)")
    print(ranks.round(2).to_string())
    print("\nmean test balanced accuracy per set (%)")
    print((100 * table.pivot_table(index="dataset", columns="label", values="test_bacc", aggfunc="mean"))
          .round(1).to_string())


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--depth", type=int, default=2)
    parser.add_argument("--splits", type=int, default=3)
    parser.add_argument("--time-limit", type=float, default=10.0)
    parser.add_argument("--budgets", type=int, nargs="+", default=[1, 2, 3, 5, 0])
    parser.add_argument("--models", nargs="+", default=[*BUDGETED, *PEERS], choices=[*BUDGETED, *PEERS])
    parser.add_argument("--out", help="results file in bench/results (default: frontier_d{depth}.csv)")
    parser.add_argument("--summary-only", action="store_true")
    run_then_summarize(parser.parse_args(), run, summary)


if __name__ == "__main__":
    main()
