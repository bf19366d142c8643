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
    src.add_argument("--dataset", choices=["breast_cancer", "iris"], help="scikit-learn built-in dataset")
    src.add_argument("--csv", help="CSV file with a header row")
    p.add_argument("--target", help="label column of the CSV (default: last column)")
    p.add_argument("--model", default="olct", choices=sorted(MODELS),
                   help="olct (default), margot, oct or octh (the last two take any number of classes)")
    p.add_argument("--depth", type=int, default=2)
    p.add_argument("--tangents", default="V3", choices=["V0", "V1", "V2", "V3", "adaptive"])
    p.add_argument("--C", type=float, nargs="+", default=[1.0], help="loss weight, one value or one per layer")
    p.add_argument("--univariate", action="store_true", help="axis-aligned splits (olct)")
    p.add_argument("--feature-selection", choices=["hard", "soft"], help="HFS / SFS (margot)")
    p.add_argument("--max-features", type=int, help="HFS budget per node (margot)")
    p.add_argument("--alpha", type=float, help="SFS penalty (margot) or complexity weight (oct, octh)")
    p.add_argument("--min-samples-leaf", type=int, default=1, help="N_min (oct, octh)")
    p.add_argument("--solver", default="highs", help="highs (default), scip, ... (see: optitrees solvers)")


MODELS = {"olct": "OLCTClassifier", "margot": "MARGOTClassifier", "oct": "OCTClassifier", "octh": "OCTHClassifier"}


def _estimator(args):
    """The estimator named by ``--model`` with the model options that apply to it."""
    import optitrees

    C = args.C if len(args.C) > 1 else args.C[0]
    model = args.model
    cls = getattr(optitrees, MODELS[model])
    if model == "olct":
        params = dict(C=C, tangents=args.tangents, univariate=args.univariate)
    elif model == "margot":
        params = dict(C=C, feature_selection=args.feature_selection, max_features=args.max_features,
                      alpha=args.alpha)
    else:
        params = dict(alpha=args.alpha or 0.0, min_samples_leaf=args.min_samples_leaf)
    return cls(max_depth=args.depth, **params)


def _fit(args):
    from sklearn.metrics import balanced_accuracy_score
    from sklearn.model_selection import train_test_split

    from . import datasets

    X, y = datasets.load(args.dataset, args.csv, args.target)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=args.test_size, random_state=args.seed, stratify=y)
    clf = _estimator(args).set_params(solver=args.solver, time_limit=args.time_limit, mip_gap=args.mip_gap,
                                      threads=args.threads, random_state=args.seed, verbose=args.verbose)
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # every note is in the fit report printed below
        clf.fit(Xtr, ytr)
    elapsed = time.perf_counter() - t0
    print(f"{type(clf).__name__} depth {args.depth}, {len(Xtr)} training rows, {X.shape[1]} features")
    print(clf.export_text())
    print(f"solver: {clf.solver_result_.summary()}")
    print(clf.fit_report_)
    print(f"fit time {elapsed:.1f}s")
    print(f"test balanced accuracy: {balanced_accuracy_score(yte, clf.predict(Xte)):.4f}")
    return 0


def _write(args):
    from . import datasets

    X, y = datasets.load(args.dataset, args.csv, args.target)
    est = _estimator(args)
    if est._binary and len(np.unique(np.asarray(y))) != 2:
        raise SystemExit(f"{args.model} needs two classes, found {len(np.unique(np.asarray(y)))}; "
                         "use --model oct or octh")
    # the model fit would solve with --solver (MARGOT: the exact quadratic with scip, tangent cuts with highs)
    f = est.set_params(solver=args.solver).build_formulation(X, y)
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
    parser = argparse.ArgumentParser(prog="optitrees", description="Interpretable classifiers by mixed-integer optimization.")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("fit", help="fit a model, print the tree, solver status and test balanced accuracy")
    _common(p)
    p.add_argument("--time-limit", type=float, default=30.0)
    p.add_argument("--mip-gap", type=float, default=1e-4)
    p.add_argument("--threads", type=int)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--test-size", type=float, default=0.2)
    p.add_argument("--verbose", action="store_true", help="show the solver log")
    p.set_defaults(func=_fit)

    p = sub.add_parser("write", help="write the MIP fit would solve to .lp or .mps, feature names in its index sets")
    _common(p)
    p.add_argument("output", help="file name ending in .lp or .mps")
    p.set_defaults(func=_write)

    p = sub.add_parser("solvers", help="list solvers and whether they are installed")
    p.set_defaults(func=_solvers)

    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
