"""Fit one of ODTlearn's fair trees in its own environment (odtlearn with python-mip 1.15, whose CBC it solves with).

Reads an ``.npz`` with binarized ``X``, ``y``, ``group`` (0/1), ``X_test``, ``notion`` (``demographic_parity``,
``true_positive_rate_parity``, ``false_positive_rate_parity``, ``equalized_odds``,
``conditional_statistical_parity``), ``legitimate`` (the legitimate feature's codes), ``bound``, ``depth``,
``time_limit`` and ``obj_mode`` (``acc``: the error; ``balance``: the class-balanced error); writes a JSON with the
wall time, CBC's status and gap, and the training and test predictions (``null`` when CBC found no tree).

    <venv>/bin/python bench/peers/odtlearn_fair_fit.py data.npz out.json
"""

import json
import sys
import time

import numpy as np

CLASSES = {"demographic_parity": "FairSPOCT", "true_positive_rate_parity": "FairEOppOCT",
           "false_positive_rate_parity": "FairPEOCT", "equalized_odds": "FairEOddsOCT",
           "conditional_statistical_parity": "FairCSPOCT"}


def main(src, out):
    import odtlearn.fair_oct as fair

    d = np.load(src)
    model = getattr(fair, CLASSES[str(d["notion"])])(
        solver="cbc", positive_class=1, depth=int(d["depth"]), time_limit=int(d["time_limit"]), _lambda=0.0,
        fairness_bound=max(float(d["bound"]), 1e-6), num_threads=1, verbose=False,
        obj_mode=str(d["obj_mode"]) if "obj_mode" in d else "acc")
    t0 = time.perf_counter()
    legitimate = d["legitimate"] if "legitimate" in d else np.zeros(len(d["y"]))
    model.fit(d["X"], d["y"], protect_feat=d["group"].reshape(-1, 1), legit_factor=legitimate)
    seconds = time.perf_counter() - t0
    gap = getattr(model, "optim_gap", None)
    status = getattr(getattr(model._solver, "model", None), "status", "")
    result = {"seconds": seconds, "gap": float("nan") if gap is None else float(gap), "status": str(status)}
    try:
        result.update(train=model.predict(d["X"]).astype(int).tolist(),
                      test=model.predict(d["X_test"]).astype(int).tolist())
    except TypeError:                            # CBC found no tree in its time: ODTlearn's predict fails on it
        result.update(train=None, test=None, status="no tree found")
    with open(out, "w") as f:
        json.dump(result, f)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
