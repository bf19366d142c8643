"""Loss weights per layer: what ``C_h`` does to OLCT's and MARGOT's test balanced accuracy and to the MIP's gap.

Seed 002 tunes ``C_h in {10^i, i = -2..2}`` for each layer by 4-fold cross-validation (25 configurations at
depth 2, Section 3.3) and certifies with those; the library's default is ``C = 1`` on every layer. This script
fits, on Table 3.1's ten sets x ``--splits`` stratified 75/25 splits at depth ``--depth`` (dense hyperplanes,
``max_features=None``, as the seed's), each configuration of ``--configs``:

* ``default``: ``C = 1`` on every layer;
* ``cv``: :class:`~optitrees.OLCTClassifierCV` with the seed's scalar grid (one ``C`` for every layer);
* ``cv-layers``: the same with the seed's per-layer grid (every combination of ``10^i`` per layer);
* ``C=a,b``: fixed per-layer weights, e.g. ``C=1,0.01``;
* ``margot`` / ``margot C=a,b``: MARGOT at ``C = 1`` or at fixed per-layer weights.

Each fit runs in a fresh process (2 at a time, one solver thread each) and records its test balanced accuracy,
the weights it used, the MIP's relative gap, whether it was proven optimal (``mip_certified``: in the MIP's
objective, the gap within the library's ``mip_gap`` of 1e-4; ``proven``: in the exact objective, the fit's own
proof, ``fit_report_.certified_by``) and where its model came from. Rows are appended to ``--out`` as fits end
(a run resumes).

    python bench/layer_weights.py [--depth 2] [--splits 3] [--time-limit 30]
        [--configs default cv cv-layers C=1,0.01] [--out bench/results/layer_weights.csv] [--summary-only]
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import load_numeric, require_shared  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"
SETS = ("breast", "climate", "haberman", "heart", "ionosphere", "parkinsons", "sonar", "spectf", "tic-tac-toe",
        "wholesale")
#: The seed's grid of loss weights (Section 3.3).
SEED_GRID = (0.01, 0.1, 1.0, 10.0, 100.0)
TIE = 0.005


def _weights(config: str) -> tuple[float, ...] | None:
    """The fixed per-layer weights of a ``C=a,b`` configuration (``None`` for the others)."""
    if "C=" not in config:
        return None
    return tuple(float(c) for c in config.split("C=", 1)[1].split(","))


def _model(config: str, depth: int, time_limit: float, seed: int):
    from optitrees import MARGOTClassifier, OLCTClassifier, OLCTClassifierCV

    common = dict(max_depth=depth, max_features=None, time_limit=time_limit, random_state=seed, threads=1)
    weights = _weights(config)
    if config.startswith("margot"):
        return MARGOTClassifier(**common, **({} if weights is None else {"C": weights}))
    if config == "default":
        return OLCTClassifier(**common)
    if config == "cv":
        return OLCTClassifierCV(**common, Cs=SEED_GRID)
    if config == "cv-layers":
        return OLCTClassifierCV(**common, Cs=list(itertools.product(SEED_GRID, repeat=depth)))
    if weights is not None:
        return OLCTClassifier(**common, C=weights)
    raise ValueError(f"unknown configuration {config!r}")


def fit_one(task):
    """One fit in its own process: the row of the results table."""
    import warnings

    from sklearn.metrics import balanced_accuracy_score
    from sklearn.model_selection import train_test_split

    name, seed, config, depth, time_limit = task
    X, y, _ = load_numeric(name)
    X, X_test, y, y_test = train_test_split(X, y, test_size=0.25, stratify=y, random_state=seed)
    model = _model(config, depth, time_limit, seed)
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(X, y)
    seconds = time.perf_counter() - t0
    report, result = model.fit_report_, model.solver_result_
    weights = getattr(model, "C_", None)
    weights = model._loss_weights() if weights is None else weights
    nonzero = model.tree_.weights != 0
    return dict(dataset=name, seed=seed, config=config, depth=depth, seconds=seconds,
                C=" ".join(f"{c:g}" for c in np.broadcast_to(weights, (depth,))),
                test_bacc=balanced_accuracy_score(y_test, model.predict(X_test)),
                train_bacc=balanced_accuracy_score(y, model.predict(X)),
                per_hyperplane=int(nonzero.sum(axis=1).max(initial=0)), features=int(nonzero.any(axis=0).sum()),
                outcome=str(report.outcome), certified_by=report.certified_by, returned=report.returned,
                mip_gap=None if result.gap is None else 100 * result.gap, nodes=result.node_count,
                objective=report.objective, bound=report.bound)


def run(args, out: Path):
    done = set()
    if out.exists():
        old = pd.read_csv(out)
        done = set(zip(old.dataset, old.seed, old.config, old.depth))
    tasks = [(name, seed, config, args.depth, args.time_limit) for name in SETS for seed in range(args.splits)
             for config in args.configs if (name, seed, config, args.depth) not in done]
    with ProcessPoolExecutor(max_workers=args.jobs, max_tasks_per_child=1) as pool:
        futures = [pool.submit(fit_one, task) for task in tasks]
        for k, future in enumerate(as_completed(futures)):
            row = future.result()
            pd.DataFrame([row]).to_csv(out, mode="a", header=not out.exists(), index=False)
            print(f"{k + 1}/{len(tasks)} {row['dataset']} {row['seed']} {row['config']} C={row['C']}: "
                  f"{row['test_bacc']:.3f}, gap {row['mip_gap']}, {row['outcome']} in {row['seconds']:.1f} s",
                  flush=True)


def summary(out: Path, depth: int):
    from optitrees.solvers.options import DEFAULT_MIP_GAP

    table = pd.read_csv(out)
    table = table[table.depth == depth]
    base = table[table.config == "default"].set_index(["dataset", "seed"]).test_bacc
    rows = []
    for config, part in table.groupby("config", sort=False):
        per_set = part.groupby("dataset").test_bacc.mean()
        diff = per_set - base.groupby("dataset").mean().reindex(per_set.index)
        paired = (part.set_index(["dataset", "seed"]).test_bacc - base).dropna()
        wins, ties, losses = int((diff > TIE).sum()), int((diff.abs() <= TIE).sum()), int((diff < -TIE).sum())
        rows.append(dict(config=config, fits=len(part), mean_test_bacc=100 * part.test_bacc.mean(),
                         vs_default=100 * paired.mean(),
                         vs_default_se=100 * paired.std() / np.sqrt(max(len(paired), 1)),
                         sets_WTL=f"{wins}/{ties}/{losses}",
                         mip_certified=int((part.mip_gap <= 100 * DEFAULT_MIP_GAP).sum()),
                         proven=int(part.certified_by.notna().sum()),
                         median_gap=part.mip_gap.median(), per_hyperplane=part.per_hyperplane.mean(),
                         from_mip=float((part.returned != "start").mean()), median_s=part.seconds.median()))
    print(f"depth {depth}: {table.seed.nunique()} splits x {table.dataset.nunique()} sets")
    print(pd.DataFrame(rows).round(3).to_string(index=False))
    chosen = table[table.config.str.startswith("cv")]
    if len(chosen):
        print("\nweights chosen on held-out folds (fits)")
        print(chosen.groupby(["config", "C"]).size().to_string())
    print("\nmean test balanced accuracy per set (%)")
    print((100 * table.pivot_table(index="dataset", columns="config", values="test_bacc", aggfunc="mean"))
          .round(1).to_string())


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--depth", type=int, default=2)
    parser.add_argument("--splits", type=int, default=3)
    parser.add_argument("--time-limit", type=float, default=30.0)
    parser.add_argument("--configs", nargs="+", default=["default", "cv", "cv-layers", "C=1,0.01"])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--out", default=str(RESULTS / "layer_weights.csv"))
    parser.add_argument("--summary-only", action="store_true")
    args = parser.parse_args()
    require_shared()
    out = Path(args.out)
    if not args.summary_only:
        run(args, out)
    summary(out, args.depth)


if __name__ == "__main__":
    main()
