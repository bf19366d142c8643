"""MARGOT's squared norm: exact on SCIP (MIQP), outer approximation on HiGHS (MILP re-solves).

Run: python examples/margot_scip_vs_highs.py   (SCIP comes with pip install "optitrees[scip]")
"""

import numpy as np
from sklearn.datasets import load_breast_cancer

from optitrees import MARGOTClassifier, solvers

X, y = load_breast_cancer(return_X_y=True)
rng = np.random.default_rng(0)
rows = rng.choice(len(y), 40, replace=False)
X, y = X[rows][:, [0, 1, 7, 21]], y[rows]

fits = {"highs": MARGOTClassifier(max_depth=2, C=2.0, mip_gap=0, time_limit=60, refine=False).fit(X, y)}
if "scip" in solvers.available():
    fits["scip"] = MARGOTClassifier(max_depth=2, C=2.0, solver="scip", mip_gap=0, time_limit=60,
                                    refine=False).fit(X, y)
for name, clf in fits.items():
    r = clf.solver_result_
    error = r.checks.get("l2_relative_error")
    how = "exact MIQP" if error is None else f"outer approximation, {r.checks['oa_rounds']} rounds, error {error:.1e}"
    print(f"{name:6s} {r.status:8s} objective {r.objective:.6f}  ({how}, {clf.fit_report_.seconds:.1f}s)")
print(fits["highs"].export_text())
