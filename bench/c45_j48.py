"""C45Classifier against Weka's J48 (C4.5 release 8) on identical folds, measured in the same run.

For each dataset: 3 repetitions of stratified 10-fold cross-validation. J48
runs with its defaults (``-C 0.25 -M 2``: CF 25%, subtree raising, no Laplace)
from Weka's jar (Debian package ``weka``, ``--weka-jar``); ours runs twice:
``laplace=False`` (J48's estimate) and the default ``laplace=True`` (the
seed's C4.5 with the Laplace correction, 2.2.3). Missing values are kept
(heart: 6 cells, wpbc: 4 cells); "heart-nominal" declares cp, restecg, slope
and thal nominal (multiway tests) to both. Reported: mean test accuracy (%), mean number
of leaves, and the share of test points on which ours (``laplace=False``) and
J48 predict the same class.

Run: python bench/c45_j48.py [--datasets ...] [--weka-jar /usr/share/java/weka.jar]
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.datasets import load_iris
from sklearn.model_selection import RepeatedStratifiedKFold

sys.path.insert(0, str(Path(__file__).parent))
from _data import load_with_missing, require_shared  # noqa: E402

from optitrees import C45Classifier  # noqa: E402

OUT = Path(__file__).parent / "results" / "c45_j48.csv"
DATASETS = ["iris", "heart", "heart-nominal", "wpbc", "diabetes", "breast", "haberman", "ionosphere", "sonar", "balance", "mammo"]


#: Nominal columns (by name) of the datasets given with a "-nominal" suffix.
NOMINAL = {"heart": ("cp", "restecg", "slope", "thal")}


def load(name):
    """``(X, y, nominal column indices)``."""
    if name == "iris":
        X, y = load_iris(return_X_y=True)
        return X, y, []
    base = name.removesuffix("-nominal")
    X, y, names = load_with_missing(base)
    nominal = [names.index(c) for c in NOMINAL[base]] if name.endswith("-nominal") else []
    return X, y, nominal


def _attribute(j, column, nominal):
    if j not in nominal:
        return f"@attribute x{j} numeric"
    values = sorted({repr(float(v)) for v in column if not np.isnan(v)})
    return f"@attribute x{j} {{{','.join(values)}}}"


def write_arff(path, X, y, n_classes, nominal=(), X_all=None):
    X_all = X if X_all is None else X_all
    lines = ["@relation data"] + [_attribute(j, X_all[:, j], nominal) for j in range(X.shape[1])]
    lines.append("@attribute class {" + ",".join(f"c{k}" for k in range(n_classes)) + "}")
    lines.append("@data")
    for row, label in zip(X, y):
        cells = ["?" if np.isnan(v) else repr(float(v)) for v in row]
        lines.append(",".join(cells + [f"c{label}"]))
    Path(path).write_text("\n".join(lines) + "\n")


def run_j48(jar, train, test):
    """(test predictions as class indices, number of leaves)."""
    base = ["java", "-cp", jar, "weka.classifiers.trees.J48", "-C", "0.25", "-M", "2", "-t", train, "-T", test]
    pred = subprocess.run(base + ["-p", "0"], capture_output=True, text=True, check=True).stdout
    labels = [int(m.group(1)) for m in re.finditer(r"^\s*\d+\s+\d+:c\d+\s+\d+:c(\d+)", pred, re.M)]
    model = subprocess.run(base, capture_output=True, text=True, check=True).stdout
    leaves = int(re.search(r"Number of Leaves\s*:\s*(\d+)", model).group(1))
    return np.array(labels), leaves


def run(names, jar):
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            X, y, nominal = load(name)
            K = int(y.max()) + 1
            folds = RepeatedStratifiedKFold(n_splits=10, n_repeats=3, random_state=0)
            for k, (tr, te) in enumerate(folds.split(X, y)):
                train, test = f"{tmp}/train.arff", f"{tmp}/test.arff"
                write_arff(train, X[tr], y[tr], K, nominal, X)
                write_arff(test, X[te], y[te], K, nominal, X)
                j48_pred, j48_leaves = run_j48(jar, train, test)
                like = C45Classifier(laplace=False, categorical_features=nominal).fit(X[tr], y[tr])
                ours = C45Classifier(categorical_features=nominal).fit(X[tr], y[tr])
                like_pred = like.predict(X[te])
                rows.append({"dataset": name, "fold": k, "n": len(y), "p": X.shape[1],
                             "j48_acc": np.mean(j48_pred == y[te]), "j48_leaves": j48_leaves,
                             "c45_acc": np.mean(like_pred == y[te]), "c45_leaves": like.n_leaves_,
                             "c45_laplace_acc": ours.score(X[te], y[te]), "c45_laplace_leaves": ours.n_leaves_,
                             "same_predictions": np.mean(like_pred == j48_pred)})
            print(f"done {name}", flush=True)
    return pd.DataFrame(rows)


def summary(frame):
    g = frame.groupby("dataset", sort=False)
    out = pd.DataFrame({
        "n x p": g.apply(lambda d: f"{d.n.iloc[0]} x {d.p.iloc[0]}"),
        "J48 acc": g.j48_acc.mean() * 100, "ours acc": g.c45_acc.mean() * 100,
        "ours+Laplace acc": g.c45_laplace_acc.mean() * 100,
        "J48 leaves": g.j48_leaves.mean(), "ours leaves": g.c45_leaves.mean(),
        "ours+Laplace leaves": g.c45_laplace_leaves.mean(),
        "same predictions %": g.same_predictions.mean() * 100,
        "std of fold acc (J48)": g.j48_acc.std() * 100})
    return out.round(2).to_string()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=DATASETS)
    parser.add_argument("--weka-jar", default="/usr/share/java/weka.jar")
    parser.add_argument("--summary-only", action="store_true")
    args = parser.parse_args()
    if not args.summary_only:
        require_shared()
        if not Path(args.weka_jar).exists():
            sys.exit(f"Weka's jar not found at {args.weka_jar} (Debian: apt-get install weka)")
        frame = run(args.datasets, args.weka_jar)
        OUT.parent.mkdir(exist_ok=True)
        frame.to_csv(OUT, index=False)
    print(summary(pd.read_csv(OUT)))


if __name__ == "__main__":
    main()
