"""What the MIP adds to its starts, with and without its neighbourhood rounds
(:mod:`optitrees.estimators.mip_fit.neighbourhood`).

Each instance is fitted in fresh processes, in up to three configurations (``--configs``): ``after``, the estimator
at its defaults (the best start refined on every row, then the rounds with half the solve's time, then the full
MIP from their best tree; HiGHS's sub-MIP heuristics off); ``rounds``, the same without the start's refinement
(``Shares.start_refinement = 0``); and ``before``, as before the rounds (the whole solve's time to the full MIP; RENS,
RINS and the root's reduced-cost heuristic on, but for OLCT's RENS and RINS, which were off). Per fit: the exact
training objective of the returned model, of the best start (``best_start``, the refined start among them) and of
the best start before its refinement (``best_start_unrefined``), the fit's bound, what produced the returned model
(``method``), the rounds and how many found a better tree, and test balanced accuracy. ``beats_best_start`` is the
issue's measure: the MIP stage (its rounds, its full solve and their refinement by TAO) returned a model of lower
exact objective than every start, the refined one included.

Seed 002 protocol: Table 3.1's sets, depth 2, a stratified 75/25 split (seed 0; ``--splits 0 1 2`` for more),
one-hot features, ``C = 1``, dense hyperplanes (``max_features=None``, the seed's models); HiGHS on one thread
(``threads=1``). At the users' sizes (``--sets phishing,adult,a2a_test,spambase --rows 4000 30000``) the training
rows are a stratified sample of the 75% part.

    python bench/neighbourhood.py [--sets parkinsons,haberman] [--models OLCT,MARGOT,OCT-H] [--seconds 30]
        [--rows 4000] [--splits 0 1 2] [--configs after rounds before] [--jobs 2]
        [--out bench/results/neighbourhood.csv]
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
import warnings
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from multiprocessing import get_context
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import binary_target, load_raw, require_shared  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"
TABLE_3_1 = ("breast", "climate", "haberman", "heart", "ionosphere", "parkinsons", "sonar", "spectf", "tic-tac-toe",
             "wholesale")
MODELS = {"OLCT": "OLCTClassifier", "MARGOT": "MARGOTClassifier", "OCT-H": "OCTHClassifier"}
POSITIVE = {"breast": ["M", "4"], "climate": ["1"], "haberman": ["2"], "heart": ["1", "2", "3", "4"],
            "ionosphere": ["g"], "parkinsons": ["1"], "sonar": ["M"], "spectf": ["1"], "tic-tac-toe": ["positive"],
            "wholesale": ["2"]}


def _split(name: str, rows: int | None, seed: int = 0):
    from sklearn.model_selection import train_test_split

    frame, target = load_raw(name)
    X = pd.get_dummies(frame, dtype=float).to_numpy(float)
    y = np.isin(target.astype(str), POSITIVE[name]).astype(int) if name in POSITIVE else binary_target(name, target)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.25, random_state=seed, stratify=y)
    if rows is not None and rows < len(ytr):
        Xtr, _, ytr, _ = train_test_split(Xtr, ytr, train_size=rows, random_state=seed, stratify=ytr)
    return Xtr, ytr, Xte, yte


def run_one(task: dict) -> dict:
    """One fit in this (fresh) process; its figures."""

    from sklearn.metrics import balanced_accuracy_score

    import optitrees

    warnings.simplefilter("ignore")
    quiet = os.open(os.devnull, os.O_WRONLY)          # HiGHS's console output of the polishing LPs
    os.dup2(quiet, 1)
    Xtr, ytr, Xte, yte = _split(task["set"], task["rows"], task["split"])
    params = dict(max_depth=2, time_limit=task["seconds"], threads=1, random_state=0, max_features=None)
    if task["config"] == "before":
        sub_mips = task["model"] != "OLCT"
        params["solver_options"] = {"mip_heuristic_run_rens": sub_mips, "mip_heuristic_run_rins": sub_mips,
                                    "mip_heuristic_run_root_reduced_cost": True}
    est = getattr(optitrees, MODELS[task["model"]])(**params)
    if task["config"] == "before":
        est._shares = replace(est._shares, neighbourhood=0.0, start_refinement=0.0)
    elif task["config"] == "rounds":
        est._shares = replace(est._shares, start_refinement=0.0)
    t0 = time.perf_counter()
    est.fit(Xtr, ytr)
    seconds = time.perf_counter() - t0
    # a HiGHS thread left running after the fit keeps this process alive at exit (HiGHS 1.16 checks no time limit
    # in a sub-MIP's presolve): record it, and end the process shortly after its result is sent
    lingering = any(t.name == "optitrees-highs" and t.is_alive() for t in threading.enumerate())
    threading.Timer(5.0, os._exit, (0,)).start() if lingering else None
    r = est.fit_report_
    rounds = r.checks.get("neighbourhood_rounds", [])
    best_start = min(r.starts.values())
    grown = min(v for k, v in r.starts.items() if "+" not in k)       # the best start before its refinement
    beats = bool(r.objective < best_start - 1e-9 * max(1.0, best_start))
    return dict(set=task["set"], split=task["split"], model=task["model"], rows=len(ytr), features=Xtr.shape[1],
                config=task["config"],
                time_limit=task["seconds"], fit_s=round(seconds, 2), method=r.method, objective=r.objective,
                best_start=best_start, best_start_unrefined=grown, beats_best_start=beats,
                bound=r.bound, bound_source=r.bound_source, fit_gap=r.gap, mip_rows=r.mip_rows,
                nodes=est.solver_result_.node_count, rounds=len(rounds),
                rounds_improved=sum(x["improved"] for x in rounds),
                free_rows=" ".join(str(x["free_rows"]) for x in rounds),
                test_bacc=float(balanced_accuracy_score(yte, est.predict(Xte))), highs_alive_after_fit=lingering,
                start_scaled_into_class=any("scaled into the MIP's class" in note for note in r.notes))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", default=",".join(TABLE_3_1))
    ap.add_argument("--models", default="OLCT,MARGOT,OCT-H")
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--rows", type=int, nargs="*", default=[None])
    ap.add_argument("--configs", nargs="*", default=["after", "before"], choices=["after", "rounds", "before"])
    ap.add_argument("--splits", type=int, nargs="*", default=[0], help="seeds of the 75/25 splits")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", default=str(RESULTS / "neighbourhood.csv"))
    args = ap.parse_args(argv)
    require_shared()
    tasks = [dict(set=s, model=m, rows=n, seconds=args.seconds, config=c, split=k) for k in args.splits
             for n in args.rows for s in args.sets.split(",") for m in args.models.split(",") for c in args.configs]
    rows = []
    with ProcessPoolExecutor(args.jobs, mp_context=get_context("spawn"), max_tasks_per_child=1) as pool:
        for row in pool.map(run_one, tasks):
            rows.append(row)
            print(f"{row['set']:>12} {row['model']:>6} {row['rows']:>6} {row['config']:>6}: {row['method']:>18} "
                  f"{row['objective']:10.4f} (best start {row['best_start']:10.4f}) rounds {row['rounds']} "
                  f"improved {row['rounds_improved']} test BAcc {row['test_bacc']:.3f} {row['fit_s']:.1f} s",
                  flush=True)
    frame = pd.DataFrame(rows)
    out = Path(args.out)
    if out.exists():
        frame = pd.concat([pd.read_csv(out), frame], ignore_index=True)
    frame.to_csv(out, index=False)
    print(frame.groupby(["model", "config"])[["beats_best_start", "test_bacc", "fit_gap"]].mean().round(3))


if __name__ == "__main__":
    main()
