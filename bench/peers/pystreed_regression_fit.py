"""Fit STreeD's optimal regression tree (pystreed ``STreeDRegressor``) in its own environment.

Reads an ``.npz`` with ``X``, ``y``, ``X_test``, ``y_test``, ``depth``, ``time_limit``; writes a JSON with the
test predictions' RMSE and R^2, whether STreeD proved its tree optimal (on its binarized features: quantile
thresholds, ``n_thresholds`` per continuous feature, constant leaves) and the fit's wall time.

    <venv>/bin/python bench/peers/pystreed_regression_fit.py data.npz out.json
"""

import json
import sys
import time

import numpy as np


def main(src, out):
    from pystreed import STreeDRegressor

    d = np.load(src)
    t0 = time.perf_counter()
    model = STreeDRegressor(max_depth=int(d["depth"]), cost_complexity=0.0, time_limit=float(d["time_limit"]),
                            n_thresholds=10)
    model.fit(d["X"], d["y"])
    seconds = time.perf_counter() - t0
    pred = model.predict(d["X_test"])
    y = d["y_test"]
    with open(out, "w") as f:
        json.dump({"seconds": seconds, "rmse": float(np.sqrt(np.mean((pred - y) ** 2))),
                   "r2": float(1 - np.sum((pred - y) ** 2) / np.sum((y - y.mean()) ** 2)),
                   "proven": bool(model.fit_result.is_optimal())}, f)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
