"""Multi-class trees: OLCT and MARGOT (one tree per class against the rest), OCT-H, TMO and TAO beside
scikit-learn's CART of the same depth, on iris, wine, digits (scikit-learn) and balance, libras (../shared).

Three stratified 75/25 splits per set (seeds 0-2), depth 2, every model at its defaults with
``--time-limit`` seconds (one thread); test accuracy and balanced accuracy, fit seconds, proven optimal or not.

    python bench/multiclass.py [--time-limit 10] [--seeds 3]
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.datasets import load_digits, load_iris, load_wine
from sklearn.metrics import balanced_accuracy_score
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import SHARED  # noqa: E402
from _rerun import add_models_option, merged, saved_rows, selected  # noqa: E402

from optitrees import MARGOTClassifier, OCTHClassifier, OLCTClassifier, TAOClassifier, TMOClassifier  # noqa: E402
from optitrees.datasets import load_manifest  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"


def datasets():
    for name, loader in (("iris", load_iris), ("wine", load_wine), ("digits", load_digits)):
        X, y = loader(return_X_y=True)
        yield name, X.astype(float), y
    for name in ("balance", "libras"):
        if (SHARED / "MANIFEST.json").exists():
            X, y = load_manifest(SHARED, name)
            yield name, np.asarray(X, float), np.asarray(y)


def models(depth, limit, seed):
    return {
        "CART (scikit-learn)": DecisionTreeClassifier(max_depth=depth, random_state=seed),
        "TAO": TAOClassifier(max_depth=depth, random_state=seed),
        "TMO": TMOClassifier(max_depth=depth, random_state=seed, time_limit=limit),
        "OCT-H": OCTHClassifier(max_depth=depth, time_limit=limit, threads=1, random_state=seed),
        "OLCT one-vs-rest": OLCTClassifier(max_depth=depth, time_limit=limit, threads=1, random_state=seed),
        "MARGOT one-vs-rest": MARGOTClassifier(max_depth=depth, time_limit=limit, threads=1, random_state=seed),
        "OLCT one-vs-rest balanced": OLCTClassifier(max_depth=depth, time_limit=limit, threads=1, random_state=seed,
                                                    class_weight="balanced"),
        "MARGOT one-vs-rest balanced": MARGOTClassifier(max_depth=depth, time_limit=limit, threads=1,
                                                        random_state=seed, class_weight="balanced"),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--time-limit", type=float, default=10.0)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--depth", type=int, default=2)
    add_models_option(parser)
    args = parser.parse_args()
    out = RESULTS / "multiclass.csv"
    kept = saved_rows(out, args.models)
    rows = []
    for name, X, y in datasets():
        for seed in range(args.seeds):
            Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.25, stratify=y, random_state=seed)
            scaler = StandardScaler().fit(Xtr)
            Xtr, Xte = scaler.transform(Xtr), scaler.transform(Xte)
            for label, model in models(args.depth, args.time_limit, seed).items():
                if not selected(label, args.models):
                    continue
                t0 = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    model.fit(Xtr, ytr)
                seconds = time.perf_counter() - t0
                pred = model.predict(Xte)
                report = getattr(model, "fit_report_", None)
                rows.append(dict(dataset=name, n=len(y), p=X.shape[1], classes=len(np.unique(y)), seed=seed,
                                 model=label, seconds=seconds, train_accuracy=model.score(Xtr, ytr),
                                 test_accuracy=float(np.mean(pred == yte)),
                                 test_balanced_accuracy=balanced_accuracy_score(yte, pred),
                                 proven=None if report is None else report.certified_by is not None))
                print(f"{name} seed {seed} {label}: {rows[-1]['test_accuracy']:.3f} in {seconds:.1f} s", flush=True)
    frame = pd.DataFrame(rows)
    frame = merged(kept, frame, ["dataset", "seed", "model"])
    RESULTS.mkdir(exist_ok=True)
    frame.to_csv(out, index=False)
    table = frame.groupby(["dataset", "model"], sort=False).agg(
        test_acc=("test_accuracy", "mean"), test_bacc=("test_balanced_accuracy", "mean"),
        train_acc=("train_accuracy", "mean"), seconds=("seconds", "mean"), max_seconds=("seconds", "max"))
    print(table.round(3).to_string())


if __name__ == "__main__":
    main()
