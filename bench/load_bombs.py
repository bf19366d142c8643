"""Model files built to cost more than their size: each is refused (or handled in linear time) by ``load_model``.

Run: ``python bench/load_bombs.py > bench/results/load_bombs.txt``

Each case is written to a temporary folder, then loaded (and, where it loads, printed, exported to SQL and
asked for 1,000 predictions) in a fresh interpreter, which reports the seconds and the growth of its peak
resident memory over the interpreter after ``import optitrees`` (``VmHWM`` after a reset through
``/proc/self/clear_refs``), beside the file's size and the
budget :class:`optitrees.persistence.Limits` gives a file of that size (24 bytes per byte + 64 MiB). The cases
of issue 71, at the sizes it measured: a text array sized by its declared width, a JSON of empty containers, a
skops archive that unpacks to 1 GB, a chain tree 20,000 splits deep, a score card with points of 1e10, and, as
the baseline, plain fitted models of 30,000 rows (a C4.5 tree and a TAO tree), whose files load within the
budget.
"""

from __future__ import annotations

import base64
import io
import json
import os
import subprocess
import sys
import tempfile
import warnings
import zipfile

import numpy as np

from optitrees import C45Classifier, TAOClassifier
from optitrees.persistence import Limits, to_json_dict
from optitrees.trees import Tree

MEASURE = r"""
import json, sys, time
import numpy as np
import optitrees
from optitrees import export
from optitrees.persistence import ModelFormatError, load_model
def high_water():
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmHWM"))
def resident():
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmRSS"))
with open("/proc/self/clear_refs", "w") as refs:
    refs.write("5")                                  # the peak restarts from the resident set now
base = resident()
t0 = time.perf_counter()
try:
    est = load_model(sys.argv[1])
    n = est.n_features_in_
    est.predict(np.random.default_rng(0).normal(size=(1000, n)))
    text = est.export_text()
    sql = est.export_sql() if hasattr(est, "export_sql") else export.export_sql(est)
    outcome = f"loaded; text {len(text):,} chars, SQL {len(sql):,} chars"
except ModelFormatError as exc:
    outcome = "refused: " + str(exc).split(": ", 1)[1][:110]
seconds = time.perf_counter() - t0
peak = high_water() - base
print(json.dumps({"seconds": seconds, "peak": peak, "outcome": outcome}))
"""


def fitted(n=30_000, p=20, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    y = (X[:, 0] + 0.5 * X[:, 1] * X[:, 2] + rng.normal(scale=0.7, size=n) > 0).astype(int)
    return X, y


def cases(X, y):
    c45 = C45Classifier(pruning=False).fit(X, y)
    tao = TAOClassifier(max_depth=3, random_state=0).fit(X, y)
    yield "C4.5 unpruned, 30,000 rows (baseline)", to_json_dict(c45)
    yield "TAO depth 3, 30,000 rows (baseline)", to_json_dict(tao)

    doc = to_json_dict(tao)
    doc["fitted"]["classes_"] = {"__ndarray__": [""] * 1_000_000, "dtype": "<U4096", "shape": [1_000_000]}
    yield "text array <U4096 x 1e6 (16 GB declared)", doc

    doc = to_json_dict(tao)
    doc["fitted"]["fit_report_"]["fields"]["notes"] = {"__tuple__": [{}] * 30_000_000}
    yield "30 million empty JSON objects", doc

    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        with z.open("schema.json", "w", force_zip64=True) as member:
            block = b"0" * (1 << 24)
            for _ in range(64):
                member.write(block)                               # 1 GiB of zeros
    doc = dict(to_json_dict(tao), pipeline={"final_step": "model", "format": "skops",
                                            "steps": base64.b64encode(archive.getvalue()).decode()})
    yield "skops archive unpacking to 1 GiB", doc

    est = C45Classifier().fit(X[:200, :1], y[:200])
    est.tree_ = _chain(20_000)
    yield "chain tree of depth 20,000", to_json_dict(est)
    est.tree_ = _chain(Limits().tree_depth)
    yield f"chain tree of depth {Limits().tree_depth} (the limit)", to_json_dict(est)

    from optitrees import GeneralizedRiskScoreClassifier

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        card = GeneralizedRiskScoreClassifier(time_limit=5).fit(X[:2000, :5], y[:2000])
    doc = to_json_dict(card)
    doc["fitted"]["score_card_"]["fields"]["points"]["__ndarray__"] = [
        10_000_000_000 * (1 if k % 2 else -1) for k in range(len(doc["fitted"]["score_card_"]["fields"]["points"]
                                                             ["__ndarray__"]))]
    yield "score card with points of 1e10", doc


def _chain(depth):
    n = 2 * depth + 1
    left, right = np.full(n, -1), np.full(n, -1)
    left[0:2 * depth:2], right[0:2 * depth:2] = np.arange(1, n - 1, 2), np.arange(2, n, 2)
    weights = np.zeros((n, 1))
    weights[0:2 * depth:2, 0] = 1.0
    label = np.arange(n) % 2
    return Tree(children_left=left, children_right=right, weights=weights, threshold=np.arange(n) / 1e3,
                value=1.0 + 2.0 * np.eye(2)[label], label=label)      # each leaf's counts favour its label


def main():
    X, y = fitted()
    limits = Limits()
    print(f"{'case':45s} {'file kB':>10s} {'budget':>10s} {'seconds':>8s} {'peak':>10s}  outcome")
    with tempfile.TemporaryDirectory() as folder:
        for name, document in cases(X, y):
            path = os.path.join(folder, "model.json")
            with open(path, "w") as out:
                json.dump(document, out)
            size = os.path.getsize(path)
            run = subprocess.run([sys.executable, "-c", MEASURE, path], capture_output=True, text=True)
            if run.returncode:
                print(f"{name:45s} {size / 2**10:10,.0f}  crashed: {run.stderr.strip().splitlines()[-1][:100]}")
                continue
            r = json.loads(run.stdout)
            print(f"{name:45s} {size / 2**10:10,.0f} {limits.memory_budget(size) / 2**20:9.0f}M {r['seconds']:8.2f} "
                  f"{r['peak'] / 2**20:9.0f}M  {r['outcome']}", flush=True)


if __name__ == "__main__":
    main()
