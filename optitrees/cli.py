"""Command line: ``optitrees fit``, ``optitrees write``, ``optitrees solvers``."""

from __future__ import annotations

import argparse
import sys
import time
import warnings

import numpy as np

__all__ = ["main"]


def _common(p):
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--dataset", choices=["breast_cancer"], help="scikit-learn built-in dataset")
    src.add_argument("--csv", help="CSV file with a header row")
    p.add_argument("--target", help="label column of the CSV (default: last column)")
    p.add_argument("--depth", type=int, default=2)
    p.add_argument("--tangents", default="V0", choices=["V0", "V1", "V2", "V3"])
    p.add_argument("--C", type=float, nargs="+", default=[1.0], help="loss weight, one value or one per layer")
    p.add_argument("--univariate", action="store_true", help="axis-aligned splits")


def _fit(args):
    from sklearn.metrics import balanced_accuracy_score
    from sklearn.model_selection import train_test_split

    from . import OLCTClassifier, datasets

    X, y = datasets.load(args.dataset, args.csv, args.target)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=args.test_size, random_state=args.seed, stratify=y)
    clf = OLCTClassifier(max_depth=args.depth, C=args.C if len(args.C) > 1 else args.C[0], tangents=args.tangents,
                         univariate=args.univariate, solver=args.solver, time_limit=args.time_limit,
                         mip_gap=args.mip_gap, threads=args.threads, random_state=args.seed, verbose=args.verbose)
    t0 = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        clf.fit(Xtr, ytr)
    elapsed = time.perf_counter() - t0
    r = clf.solver_result_
    print(f"OLCT depth {args.depth}, tangents {args.tangents}, {len(Xtr)} training rows, {X.shape[1]} features")
    print(clf.export_text())
    print(f"solver: {r.summary()}")
    for w in caught:
        print(f"note: {w.message}")
    print(f"exact training objective {clf.objective_:.4f} (warm start {clf.warm_start_objective_:.4f})")
    print(f"fit time {elapsed:.1f}s")
    print(f"test balanced accuracy: {balanced_accuracy_score(yte, clf.predict(Xte)):.4f}")
    return 0


def _write(args):
    from . import datasets, formulations

    X, y = datasets.load(args.dataset, args.csv, args.target)
    Xs = datasets.standardize(X)[0]
    classes = np.unique(y)
    if len(classes) != 2:
        raise SystemExit(f"need two classes, found {len(classes)}")
    y_pm = np.where(np.asarray(y) == classes[1], 1, -1)
    f = formulations.olct(Xs, y_pm, depth=args.depth, tangents=args.tangents,
                          C=args.C if len(args.C) > 1 else args.C[0], univariate=args.univariate)
    f.write(args.output)
    print(f.summary())
    print(f"wrote {args.output}")
    return 0


def _solvers(_args):
    from .solvers import available
    from .solvers.registry import PYOMO_SOLVERS

    have = available()
    for name, spec in PYOMO_SOLVERS.items():
        state = "available" if name in have else f"missing ({spec.install_hint})"
        print(f"{name:8s} {state}")
    return 0


def main(argv=None) -> int:
    """Entry point of the ``optitrees`` command."""
    parser = argparse.ArgumentParser(prog="optitrees", description="Optimal logistic classification trees.")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("fit", help="fit an OLCT, print the tree, solver status and test balanced accuracy")
    _common(p)
    p.add_argument("--solver", default="highs")
    p.add_argument("--time-limit", type=float, default=30.0)
    p.add_argument("--mip-gap", type=float, default=1e-4)
    p.add_argument("--threads", type=int)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--test-size", type=float, default=0.2)
    p.add_argument("--verbose", action="store_true", help="show the solver log")
    p.set_defaults(func=_fit)

    p = sub.add_parser("write", help="write the OLCT model of a dataset to .lp or .mps")
    _common(p)
    p.add_argument("output", help="file name ending in .lp or .mps")
    p.set_defaults(func=_write)

    p = sub.add_parser("solvers", help="list solvers and whether they are installed")
    p.set_defaults(func=_solvers)

    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
