"""Fit STreeD (pystreed) in its own environment: an optimal classification or regression tree on binarized features.

Reads an ``.npz`` with ``X``, ``y``, ``X_test``, ``y_test``, ``depth``, ``time_limit`` and optionally
``task`` (``"classification"``, the default, or ``"regression"``); writes a JSON with the fit's wall time,
whether STreeD proved its tree optimal (on its binarized features: quantile thresholds, ``n_thresholds`` per
continuous feature) and the scores: training and test accuracy, or the test RMSE and R^2 (constant leaves).

    <venv>/bin/python bench/peers/pystreed_fit.py data.npz out.json
"""

import json
import sys
import time

import numpy as np


def main(src, out):
    d = np.load(src)
    regression = "task" in d and str(d["task"]) == "regression"
    if regression:
        from pystreed import STreeDRegressor as Model
    else:
        from pystreed import STreeDClassifier as Model
    t0 = time.perf_counter()
    model = Model(max_depth=int(d["depth"]), cost_complexity=0.0, time_limit=float(d["time_limit"]), n_thresholds=10)
    model.fit(d["X"], d["y"])
    result = {"seconds": time.perf_counter() - t0, "proven": bool(model.fit_result.is_optimal())}
    pred, y = model.predict(d["X_test"]), d["y_test"]
    if regression:
        result.update(rmse=float(np.sqrt(np.mean((pred - y) ** 2))),
                      r2=float(1 - np.sum((pred - y) ** 2) / np.sum((y - y.mean()) ** 2)))
    else:
        result.update(train=float(np.mean(model.predict(d["X"]) == d["y"])), test=float(np.mean(pred == y)))
    with open(out, "w") as f:
        json.dump(result, f)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
