"""Fit FasterRisk in its own environment (it pins numpy < 2, pandas 1.5, scikit-learn 1.2).

Reads an ``.npz`` with ``X`` (n x p), ``y`` (values in {-1, +1}), ``k``, ``lb``,
``ub``; writes a JSON with the best model's ``multiplier``, ``intercept``,
``coefficients`` and the fit's wall time. The benchmark scripts call it with the
peer environment's interpreter (``--peer-python``), so this project and the peer
never share packages.

    <venv>/bin/python bench/peers/fasterrisk_fit.py data.npz out.json
"""

import json
import sys
import time

import numpy as np


def main(src, out):
    from fasterrisk.fasterrisk import RiskScoreOptimizer

    d = np.load(src)
    t0 = time.perf_counter()
    opt = RiskScoreOptimizer(X=d["X"].astype(float), y=d["y"].astype(float), k=int(d["k"]), lb=float(d["lb"]),
                             ub=float(d["ub"]))
    opt.optimize()
    multipliers, intercepts, coefs = opt.get_models()
    seconds = time.perf_counter() - t0
    with open(out, "w") as f:
        json.dump({"multiplier": float(multipliers[0]), "intercept": float(intercepts[0]),
                   "coefficients": [float(c) for c in coefs[0]], "seconds": seconds}, f)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
