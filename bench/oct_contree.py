"""Axis-aligned OCT against ConTree (pycontree) at depth 2 and 3: training accuracy, proof of optimality, time.

OCT (``alpha = 0``, no minimum leaf size) uses ConTree as its exact engine;
the baseline is pycontree called directly, and OCT's MIP alone
(``exact_search="mip"``, HiGHS, the previous release's only path) is shown
beside them. Datasets: haberman, wholesale, mammo, diabetes, tic-tac-toe
(one-hot), full data, 1 thread.

Run: python bench/oct_contree.py [--time-limit 60] [--mip-time-limit 60]
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).parent))
from _data import load_numeric, require_shared  # noqa: E402

DATASETS = ("haberman", "wholesale", "mammo", "diabetes", "tic-tac-toe")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--mip-time-limit", type=float, default=60.0)
    parser.add_argument("--no-mip", action="store_true", help="skip the MIP-only column")
    args = parser.parse_args()
    require_shared()
    from pycontree import ConTree

    from optitrees import OCTClassifier

    rows = []
    for name in DATASETS:
        X, y, _ = load_numeric(name)
        for depth in (2, 3):
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ref = ConTree(max_depth=depth, time_limit=args.time_limit).fit(X, y)
            t_ref = time.perf_counter() - t0
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ours = OCTClassifier(max_depth=depth, time_limit=args.time_limit, threads=1).fit(X, y)
            t_ours = time.perf_counter() - t0
            row = dict(dataset=name, n=len(y), p=X.shape[1], depth=depth,
                       contree_train=float(np.mean(ref.predict(X) == y)), contree_time=t_ref,
                       contree_proven=bool(ref._config.is_within_time_limit()),
                       oct_train=float(np.mean(ours.predict(X) == y)), oct_time=t_ours,
                       oct_certified=ours.fit_report_.certified_by or "", oct_method=ours.method_)
            if not args.no_mip:
                t0 = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    mip = OCTClassifier(max_depth=depth, exact_search="mip", time_limit=args.mip_time_limit,
                                        threads=1).fit(X, y)
                row.update(mip_train=float(np.mean(mip.predict(X) == y)), mip_time=time.perf_counter() - t0,
                           mip_gap=mip.solver_result_.gap, mip_certified=mip.fit_report_.certified_by or "")
            rows.append(row)
            print(row, flush=True)
    df = pd.DataFrame(rows)
    out = Path(__file__).parent / "results" / "oct_contree.csv"
    out.parent.mkdir(exist_ok=True)
    df.to_csv(out, index=False)
    print("\n| dataset | n x p | depth | ConTree train acc / s / proven | OCT train acc / s / certified by |"
          + (" OCT MIP only train acc / s / gap |" if not args.no_mip else ""))
    print("|---|---|---|---|---|" + ("---|" if not args.no_mip else ""))
    for r in df.itertuples():
        line = (f"| {r.dataset} | {r.n} x {r.p} | {r.depth} | {r.contree_train:.4f} / {r.contree_time:.2f} / "
                f"{'yes' if r.contree_proven else 'no'} | {r.oct_train:.4f} / {r.oct_time:.2f} / "
                f"{r.oct_certified or '-'} |")
        if not args.no_mip:
            gap = "-" if pd.isna(r.mip_gap) else f"{100 * r.mip_gap:.0f}%"
            line += f" {r.mip_train:.4f} / {r.mip_time:.1f} / {gap} |"
        print(line)


if __name__ == "__main__":
    main()
