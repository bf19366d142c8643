"""Would a partition bound give OCT-H a lower bound? The sum of the exact optima over groups of rows.

Every tree's errors on all rows are at least the sum of its errors on disjoint groups of them, so the sum of the
groups' optimal OCT-H objectives (``alpha = 0``, no minimum leaf size: a relaxation) is a valid lower bound on the
whole problem's optimum, and each group's MIP bound is valid even before its proof. The groups are k-means
clusters of ``--group`` rows on the scaled features (nearby rows, where labels mix); groups of one label bound
nothing and are skipped. Prints per set the groups with both labels, how many HiGHS proved optimal within
``--seconds`` each, and the bound in the objective's units and in rows misclassified, beside the identical-rows
bound the fit already reports, and appends them to ``--out``. Depth 2, a stratified 75/25 split (seed 0), one
thread.

    python bench/octh_partition_bound.py [--sets haberman,wholesale,heart,climate] [--group 15] [--seconds 2]
        [--out bench/results/octh_partition_bound.csv]
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import load_numeric, require_shared  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"


def partition_bound(name: str, group: int, seconds: float, depth: int) -> dict:
    from sklearn.cluster import KMeans
    from sklearn.model_selection import train_test_split

    from optitrees import solvers
    from optitrees.formulations.oct.model import OCTProblem, OCTSpec, build
    from optitrees.formulations.oct.solution import identical_rows_bound
    from optitrees.scaling import ScaledData, scale_unit

    X, y, _ = load_numeric(name)
    X, _, y, _ = train_test_split(X, y, test_size=0.25, stratify=y, random_state=0)
    y = np.unique(y, return_inverse=True)[1]
    X01, low, span = scale_unit(X)
    problem = OCTProblem.create(OCTSpec.create(depth, 0.0, 1, int(y.max()) + 1, oblique=True),
                                ScaledData(X01, y, X, low, span, None, np.ones(len(y))))
    clusters = KMeans(max(1, len(y) // group), n_init=3, random_state=0).fit_predict(X01)
    total, mixed, proven, t0 = 0.0, 0, 0, time.perf_counter()
    for c in np.unique(clusters):
        rows = np.flatnonzero(clusters == c)
        if len(np.unique(y[rows])) < 2:
            continue
        mixed += 1
        result = solvers.solve(build(problem.on_rows(rows)), time_limit=seconds, mip_gap=0, threads=1)
        total += max(result.bound or 0.0, 0.0)
        proven += result.status == "optimal"
    identical = identical_rows_bound(problem)
    return dict(set=name, depth=depth, group=group, seconds_per_group=seconds, rows=len(y), features=X.shape[1],
                groups_with_both_labels=mixed, proven=proven,
                bound=total, rows_misclassified=total * problem.L_hat,
                identical_rows_bound=0.0 if identical is None else identical[0],
                seconds=time.perf_counter() - t0)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", default="haberman,wholesale,heart,climate")
    parser.add_argument("--group", type=int, default=15)
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--depth", type=int, default=2)
    parser.add_argument("--out", default=str(RESULTS / "octh_partition_bound.csv"))
    args = parser.parse_args()
    require_shared()
    warnings.simplefilter("ignore")
    for name in args.sets.split(","):
        r = partition_bound(name, args.group, args.seconds, args.depth)
        print(f"{r['set']:<11} {r['rows']:4d} rows x {r['features']:2d}: {r['groups_with_both_labels']:3d} groups of "
              f"~{args.group} with both labels, {r['proven']:3d} proven; bound {r['bound']:.4f} "
              f"({r['rows_misclassified']:.1f} rows), identical rows {r['identical_rows_bound']:.4f}, "
              f"{r['seconds']:.1f} s", flush=True)
        out = Path(args.out)
        pd.DataFrame([r]).to_csv(out, mode="a", header=not out.exists(), index=False)


if __name__ == "__main__":
    main()
