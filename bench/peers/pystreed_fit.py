"""Fit STreeD (pystreed) in its own environment: an optimal classification tree on binarized features.

Reads an ``.npz`` with ``X``, ``y``, ``X_test``, ``depth``, ``time_limit``; writes a JSON with the training
and test accuracy, whether STreeD proved its tree optimal (on its binarized features: quantile
thresholds, ``n_thresholds`` per continuous feature), and the fit's wall time.

    <venv>/bin/python bench/peers/pystreed_fit.py data.npz out.json
"""

import json
import sys
import time

import numpy as np


def main(src, out):
    from pystreed import STreeDClassifier

    d = np.load(src)
    t0 = time.perf_counter()
    model = STreeDClassifier(max_depth=int(d["depth"]), cost_complexity=0.0, time_limit=float(d["time_limit"]),
                             n_thresholds=10)
    model.fit(d["X"], d["y"])
    seconds = time.perf_counter() - t0
    with open(out, "w") as f:
        json.dump({"seconds": seconds, "train": float(np.mean(model.predict(d["X"]) == d["y"])),
                   "test": float(np.mean(model.predict(d["X_test"]) == d["y_test"])),
                   "proven": bool(model.fit_result.is_optimal())}, f)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
