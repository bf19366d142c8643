"""Does every estimator keep ``time_limit``? Fit seconds against the limit, on real data of ordinary size.

Each fit runs in its own process (a fresh interpreter: no warm caches, and
the peak resident memory is the fit's own), with one solver thread. A fit
passes when it takes at most ``1.05 * limit + 1`` seconds (the library's
promise). The table gives the fit seconds, the limit, the returned method,
the fit's outcome and its stage timings (``fit_report_``) so an overrun shows
where the time went, the peak memory of the fit's process and of the largest
child it forked (HiGHS runs there where processes fork; a child's resident
pages include those it still shares with the fit's process), and how long
the process lived after ``fit`` returned (a solver thread a fit left at its
deadline kept the interpreter from exiting until it stopped). Rows are
appended to ``results/budget.csv`` as they finish.

Run: python bench/budget.py [--datasets phishing a2a_test adult] [--limits 2 5 30] [--depths 2 3 4]
                            [--estimators OCT TAO ...] [--rows 30000]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).parent))
from _data import require_shared  # noqa: E402

RESULTS = Path(__file__).parent / "results"
OUT = RESULTS / "budget.csv"

#: Estimator name -> (constructor expression, whether it has a depth). ``{d}`` is the depth, ``{L}`` the limit.
ESTIMATORS = {
    "LossOptimal": ("LossOptimalTreeClassifier(max_depth={d}, time_limit={L}, threads=1)", True),
    "OLCT": ("OLCTClassifier(max_depth={d}, time_limit={L}, threads=1)", True),
    "OLCTCV": ("OLCTClassifierCV(max_depth={d}, time_limit={L}, threads=1)", True),
    "MARGOT": ("MARGOTClassifier(max_depth={d}, time_limit={L}, threads=1)", True),
    "OCT": ("OCTClassifier(max_depth={d}, time_limit={L}, threads=1)", True),
    "OCTH": ("OCTHClassifier(max_depth={d}, time_limit={L}, threads=1)", True),
    "RiskScore": ("RiskScoreClassifier(n_rules=5, time_limit={L}, threads=1)", False),
    "GeneralizedRiskScore": ("GeneralizedRiskScoreClassifier(n_rules=3, time_limit={L}, threads=1)", False),
    "TAO": ("TAOClassifier(max_depth={d}, time_limit={L})", True),
    "TAOOblique": ("TAOClassifier(max_depth={d}, oblique=True, time_limit={L})", True),
    # the tree-wide feature budget chosen on held-out folds (max_total_features="auto")
    "TAOObliqueTreeWide": ("TAOClassifier(max_depth={d}, oblique=True, max_features=3, max_total_features='auto', "
                           "time_limit={L})", True),
    "OLCTTreeWide": ("OLCTClassifier(max_depth={d}, max_features=3, max_total_features='auto', time_limit={L}, "
                     "threads=1)", True),
    "OCTHTreeWide": ("OCTHClassifier(max_depth={d}, max_features=3, max_total_features='auto', time_limit={L}, "
                     "threads=1)", True),
    "TMO": ("TMOClassifier(max_depth={d}, time_limit={L})", True),
    "C45": ("C45Classifier(time_limit={L})", False),
    "UCTDT": ("UCTDTClassifier(time_limit={L})", False),
    "RuleSet": ("RuleSetClassifier(time_limit={L})", False),
    "ContextualTree": ("ContextualTreeClassifier(time_limit={L})", False),
    "ContextualTreeRegressor": ("ContextualTreeRegressor(time_limit={L})", False),
    # the regressors fit the 0/1 labels as a numeric target
    "TAORegressor": ("TAORegressor(max_depth={d}, time_limit={L})", True),
    "OptimalTreeRegressor": ("OptimalTreeRegressor(max_depth={d}, time_limit={L})", True),
    "LossOptimalTreeRegressor": ("LossOptimalTreeRegressor(max_depth={d}, time_limit={L}, threads=1)", True),
    "LossOptimalTreeRegressorSquared": (
        "LossOptimalTreeRegressor(max_depth={d}, loss='squared', time_limit={L}, threads=1)", True),
}

_CHILD = r"""
import json, resource, sys, time, warnings
sys.path.insert(0, {bench!r})
import numpy as np
from _data import load_numeric
from optitrees import *
X, y, _ = load_numeric({data!r})
if {rows} < len(y):
    keep = np.random.default_rng(0).choice(len(y), {rows}, replace=False)
    X, y = X[keep], y[keep]
if isinstance(est := {expr}, RiskScoreClassifier):
    X = (X > np.median(X, axis=0)).astype(float)      # ORS scores 0/1 features: each one above its median
warnings.simplefilter("ignore")
t0 = time.perf_counter()
est.fit(X, y)
seconds = time.perf_counter() - t0
report = est.fit_report_
print(json.dumps(dict(seconds=seconds, rows=len(y), distinct=report.distinct_rows, features=X.shape[1],
                      method=report.method, status=report.outcome.value,
                      timings={{k: round(float(v), 2) for k, v in report.stages.items()}},
                      peak_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                      solver_peak_mb=resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,
                      returned_at=time.time())),
      flush=True)
"""


def _append(row):
    """Add a row to ``OUT`` (columns added since earlier runs are added to the file)."""
    frame = pd.DataFrame([row])
    if OUT.exists():
        frame = pd.concat([pd.read_csv(OUT), frame], ignore_index=True)
    frame.to_csv(OUT, index=False)


def run_one(data, rows, expr, limit):
    """The child's report, its ``wall`` seconds, and ``after_fit``: how long the process lived after ``fit``
    returned (exiting waits for a solver thread the fit left running at its deadline)."""
    code = _CHILD.format(bench=str(Path(__file__).parent), data=data, rows=rows, expr=expr)
    t0 = time.perf_counter()
    timeout = max(120.0, 10 * limit + 60)
    try:
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as stopped:
        stdout = stopped.stdout.decode() if isinstance(stopped.stdout, bytes) else (stopped.stdout or "")
        if not stdout.strip():
            return dict(seconds=float("nan"), error=f"killed after {timeout:.0f} s", wall=timeout)
        out = json.loads(stdout.strip().splitlines()[-1])
        out.update(wall=time.perf_counter() - t0, after_fit=time.time() - out.pop("returned_at"),
                   error=f"the process outlived its fit; killed after {timeout:.0f} s")
        return out
    ended = time.time()
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        return dict(seconds=float("nan"), error=proc.stderr.strip().splitlines()[-1][:200], wall=wall)
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    out.update(wall=wall, after_fit=ended - out.pop("returned_at"))
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=["phishing", "a2a_test", "adult"])
    parser.add_argument("--limits", nargs="+", type=float, default=[2.0, 5.0, 30.0])
    parser.add_argument("--depths", nargs="+", type=int, default=[2, 3, 4])
    parser.add_argument("--estimators", nargs="+", default=list(ESTIMATORS))
    parser.add_argument("--rows", type=int, default=30000, help="subsample larger data sets to this many rows")
    args = parser.parse_args(argv)
    require_shared()
    RESULTS.mkdir(exist_ok=True)
    rows = []
    for data in args.datasets:
        for name in args.estimators:
            template, has_depth = ESTIMATORS[name]
            for depth in (args.depths if has_depth else [None]):
                for limit in args.limits:
                    expr = template.format(d=depth, L=limit)
                    out = run_one(data, args.rows, expr, limit)
                    row = dict(data=data, estimator=name, depth=depth, limit=limit, **out)
                    row["ok"] = bool(row["seconds"] <= 1.05 * limit + 1.0)
                    rows.append(row)
                    print(f"{data:9s} {name:24s} d={depth!s:4s} limit {limit:5.1f}  fit {row['seconds']:7.2f} s  "
                          f"{'ok ' if row['ok'] else 'OVER'} exit {row.get('after_fit', float('nan')):6.1f} s after "
                          f"{row.get('method', '')} {row.get('status', '')} "
                          f"{row.get('timings', '')} {row.get('error', '')}", flush=True)
                    _append(row)
    frame = pd.DataFrame(rows)
    print(f"\n{int(frame['ok'].sum())} of {len(frame)} fits within 5% + 1 s of their limit")


if __name__ == "__main__":
    main()
