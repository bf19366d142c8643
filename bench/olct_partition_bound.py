"""Would a partition bound tighten OLCT's lower bound? The sum of the optima over random groups of the rows.

For every tree ``T`` of the model class, OLCT's objective splits over any partition of the rows into ``m`` groups:
``sum_i loss_i(T) + lam R(T) = sum_g (sum_{i in g} loss_i(T) + (lam / m) R(T))``, and each term is at least the
optimum of its group's problem (the same ``W``, ``B``, ``eps`` and tangents, the penalty ``lam / m``). So the sum
of the groups' MIP bounds (valid before their proofs) bounds the whole optimum, in the MIP's objective and so in
the exact one. ``octh_partition_bound.py`` tried k-means groups for OCT-H, where three oblique splits separate
any few dozen nearby rows; here the groups are stratified random samples, each as hard per row as the whole set
but small enough for the solver to prove (``certify_rows.py``). Their weakness is the other one: a small group's
tree overfits it, so its loss per row is below the whole set's.

Prints per set and group size the partition bound, the groups proven, the seconds, and the gap it gives beside
the one the 300 s fit of ``mip_strength.py`` reported (its stored row, ``--against``). Depth 2, the defaults
(``C = 1``, V3, no feature budget as in ``mip_strength.py``), a stratified 75/25 split (seed 0), one thread.

    python bench/olct_partition_bound.py [--sets haberman,heart] [--groups 32 64] [--seconds 20] [--jobs 2]
        [--out bench/results/olct_partition_bound.csv]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from multiprocessing import get_context
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import require_shared  # noqa: E402
from mip_strength import TABLE_3_1, _split  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"
AGAINST = "depth2-300s forwarded margins (41b0632)"


def stratified_groups(y: np.ndarray, size: int, seed: int = 0) -> list:
    """``ceil(n / size)`` groups of row indices, each class's shuffled rows dealt round-robin (equal class mixes)."""
    m = int(np.ceil(len(y) / size))
    rng = np.random.default_rng(seed)
    order = np.concatenate([rng.permutation(np.flatnonzero(y == c)) for c in np.unique(y)])
    return [np.sort(order[g::m]) for g in range(m)]


def run_one(task: dict) -> dict:
    """The partition bound of one set at one group size, in this (fresh) process."""
    import os

    from optitrees import OLCTClassifier, solvers
    from optitrees.formulations.loss_optimal.model import build

    warnings.simplefilter("ignore")
    quiet = os.open(os.devnull, os.O_WRONLY)
    os.dup2(quiet, 1)
    X, y = _split(task["set"], 2)
    problem = OLCTClassifier(max_depth=2, max_features=None).build_formulation(X, y).problem
    groups = stratified_groups(problem.data.y, task["group"])
    m, total, proven, t0 = len(groups), 0.0, 0, time.perf_counter()
    for rows in groups:
        part = problem.on_rows(rows)
        part = replace(part, spec=replace(part.spec, lam=part.spec.lam / m))
        result = solvers.solve(build(part), time_limit=task["seconds"], threads=1, progress=False)
        total += float(result.bound) if result.bound is not None else 0.0
        proven += str(result.status) == "optimal"
    return dict(set=task["set"], rows=len(y), features=X.shape[1], group=task["group"], groups=m, proven=proven,
                seconds_per_group=task["seconds"], seconds=time.perf_counter() - t0, partition_bound=total)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default=",".join(TABLE_3_1))
    parser.add_argument("--groups", type=int, nargs="+", default=[32, 64])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--against", default=AGAINST, help="the mip_strength.csv label to compare with")
    parser.add_argument("--out", default=str(RESULTS / "olct_partition_bound.csv"))
    args = parser.parse_args(argv)
    require_shared()
    tasks = [dict(set=name, group=g, seconds=args.seconds) for name in args.sets.split(",") for g in args.groups]
    fits = pd.read_csv(RESULTS / "mip_strength.csv")
    fits = fits[(fits["label"] == args.against) & (fits["model"] == "OLCT")].set_index("set")
    rows = []
    with ProcessPoolExecutor(args.jobs, mp_context=get_context("spawn"), max_tasks_per_child=1) as pool:
        for row in pool.map(run_one, tasks):
            if row["set"] in fits.index:
                fit = fits.loc[row["set"]]
                value = float(fit["exact_objective"])
                row.update(fit_objective=value, fit_bound=float(fit["fit_bound"]), fit_gap=float(fit["fit_gap"]),
                           partition_gap=100 * (value - row["partition_bound"]) / value,
                           best_gap=100 * (value - max(row["partition_bound"], float(fit["fit_bound"]))) / value)
            rows.append(row)
            print(json.dumps({k: (round(v, 3) if isinstance(v, float) else v) for k, v in row.items()}), flush=True)
    table = pd.DataFrame(rows)
    table.to_csv(args.out, index=False)
    if "best_gap" in table:
        best = table.loc[table.groupby("set")["best_gap"].idxmin()]
        print(best[["set", "rows", "features", "group", "proven", "groups", "fit_gap", "partition_gap",
                    "best_gap"]].round(1).to_string(index=False))
        print(f"median gap: fit {best['fit_gap'].median():.1f}% -> with the partition bound "
              f"{best['best_gap'].median():.1f}%")


if __name__ == "__main__":
    main()
