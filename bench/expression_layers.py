"""Which expression layer to write formulations in: the library's matrix ``Formulation`` beside linopy and pyoframe.

Each layer (the matrix one, the library's expressions of :mod:`optitrees.mip.expressions`, linopy, pyoframe)
builds the same model, the core of OLCT at depth 2 (seed 002, 3.12: every row that grows with the data)
on ``--rows`` generated rows of ``--features`` standardized features, and hands it to HiGHS:

* routing (3.6a): ``z[i, 2] + z[i, 3] = 1``;
* scores: ``s[t, i] = y_i (w_t x_i + b_t)`` for the three hyperplanes;
* the l1 split (3.16): ``w = w_pos - w_neg``, ``sum_j (w_pos + w_neg) <= W``;
* forwarding at the root (3.7): ``y_i s[1, i] <= M_i (1 - z[i, 2])``, ``y_i s[1, i] >= eps - (M_i + eps)(1 - z[i, 3])``;
* logistic tangents (3.15) at the two leaf hyperplanes: ``xi[l, i] >= a_k + b_k s[l, i] - N_ki (1 - z[i, l])``;
* objective ``sum xi + lam sum (w_pos + w_neg)``.

Every layer runs in a fresh process (linopy and pyoframe from ``--peer-python``, a virtual environment with both);
reported per layer: the lines of its builder (this file's function), seconds to build the expressions, seconds to
reach a HiGHS model (``optitrees.mip.to_highs``; linopy's ``to_highspy``; pyoframe writes into HiGHS as it
builds), peak resident memory, rows, columns and nonzeros (which must agree).

    python bench/expression_layers.py [--rows 30000] [--features 100] [--peer-python /path/to/venv/bin/python]
"""

from __future__ import annotations

import argparse
import inspect
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

RESULTS = Path(__file__).resolve().parent / "results"
W, B, EPS, LAM = 10.0, 10.0, 1e-3, 0.1
TANGENT_POINTS = np.array([-2.0, -0.5, 0.5, 2.0])


def data(rows: int, features: int):
    """Standardized features, labels in {-1, +1}, the score bounds ``S_i`` and the tangent lines ``(a_k, b_k)``."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(rows, features))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] + rng.normal(size=rows) > 0, 1.0, -1.0)
    S = W * np.abs(X).max(axis=1) + B
    slope = -1.0 / (1.0 + np.exp(TANGENT_POINTS))
    intercept = np.log1p(np.exp(-TANGENT_POINTS)) - slope * TANGENT_POINTS
    return X, y, S, intercept, slope


def build_matrix(X, y, S, a, b):
    """The library's matrix layer: index arithmetic on column arrays."""
    from optitrees.mip import Formulation

    n, p = X.shape
    K = len(a)
    f = Formulation(name="olct_core")
    f.add_set("I", np.arange(n)), f.add_set("J", np.arange(p)), f.add_set("T", [1, 2, 3]), f.add_set("L", [2, 3])
    f.add_set("K", np.arange(K))
    z = f.add_variables("z", ("I", "L"), 0.0, 1.0, domain="binary")
    w = f.add_variables("w", ("T", "J"), -W, W)
    bb = f.add_variables("b", ("T",), -B, B)
    wp = f.add_variables("w_pos", ("T", "J"), 0.0, W)
    wn = f.add_variables("w_neg", ("T", "J"), 0.0, W)
    s = f.add_variables("s", ("T", "I"), -S[None, :], S[None, :])
    xi = f.add_variables("xi", ("L", "I"), 0.0, np.inf)
    f.add_constraints("routing", ("I",), [(z.columns, 1.0)], lower=1.0, upper=1.0)
    wcols = np.broadcast_to(w.columns[:, None, :], (3, n, p)).reshape(3 * n, p)
    wvals = np.broadcast_to((y[:, None] * X)[None], (3, n, p)).reshape(3 * n, p)
    f.add_constraints("score", ("T", "I"), [(wcols, wvals), (np.repeat(bb.columns, n), np.tile(y, 3)),
                                            (s.columns, -1.0)], lower=0.0, upper=0.0)
    f.add_constraints("l1_split", ("T", "J"), [(w.columns, 1.0), (wp.columns, -1.0), (wn.columns, 1.0)],
                      lower=0.0, upper=0.0)
    f.add_constraints("l1_bound", ("T",), [(wp.columns, 1.0), (wn.columns, 1.0)], upper=W)
    f.add_constraints("forward_left", ("I",), [(s.columns[0], y), (z.columns[:, 0], S)], upper=S)
    f.add_constraints("forward_right", ("I",), [(s.columns[0], y), (z.columns[:, 1], -(S + EPS))], lower=-S)
    N = a[:, None] + np.abs(b)[:, None] * S[None, :]                                   # (K, n)
    rows = (K, 2, n)
    f.add_constraints("tangent", ("K", "L", "I"), [
        (np.broadcast_to(xi.columns[None], rows), 1.0),
        (np.broadcast_to(s.columns[None, 1:], rows), np.broadcast_to(-b[:, None, None], rows)),
        (np.broadcast_to(z.columns.T[None], rows), np.broadcast_to(-N[:, None, :], rows))],
        lower=np.broadcast_to((a[:, None] - N)[:, None, :], rows).ravel())
    f.add_objective(xi, 1.0)
    f.add_objective(wp, LAM), f.add_objective(wn, LAM)
    return f


def build_expressions(X, y, S, a, b):
    """The library's expressions (optitrees.mip.expressions), compiled to the matrix layer."""
    from optitrees.mip import Formulation
    from optitrees.mip.expressions import Data

    n, p = X.shape
    f = Formulation(name="olct_core")
    f.add_set("I", np.arange(n)), f.add_set("J", np.arange(p)), f.add_set("T", [1, 2, 3]), f.add_set("L", [2, 3])
    f.add_set("K", np.arange(len(a)))
    z = f.add_variables("z", ("I", "L"), 0.0, 1.0, domain="binary")
    w, bb = f.add_variables("w", ("T", "J"), -W, W), f.add_variables("b", ("T",), -B, B)
    wp, wn = f.add_variables("w_pos", ("T", "J"), 0.0, W), f.add_variables("w_neg", ("T", "J"), 0.0, W)
    s = f.add_variables("s", ("T", "I"), -S[None, :], S[None, :])
    xi = f.add_variables("xi", ("L", "I"), 0.0, np.inf)
    x, yy, M, a_, b_ = Data(X, ("I", "J")), Data(y, ("I",)), Data(S, ("I",)), Data(a, ("K",)), Data(b, ("K",))
    f.add_constraints("routing", z.sum("L") == 1)
    f.add_constraints("score", yy * ((w * x).sum("J") + bb) - s == 0)
    f.add_constraints("l1_split", w - wp + wn == 0)
    f.add_constraints("l1_bound", (wp + wn).sum("J") <= W)
    f.add_constraints("forward_left", yy * s.sel(T=1) + M * z.sel(L=2) <= M)
    f.add_constraints("forward_right", yy * s.sel(T=1) - (M + EPS) * z.sel(L=3) >= -M)
    N = Data(np.abs(b), ("K",)) * M + a_
    f.add_constraints("tangent", xi - b_ * s.sel(T=[2, 3]).rename(T="L") - N * z >= a_ - N)
    f.minimize(xi.sum() + LAM * (wp.sum() + wn.sum()))
    return f


def to_solver_matrix(f):
    from optitrees.mip import to_highs

    return to_highs(f, names=False)


def build_linopy(X, y, S, a, b):
    """linopy: variables and data as xarray objects aligned by dimension name."""
    import linopy
    import pandas as pd
    import xarray as xr

    n, p = X.shape
    I, J = pd.RangeIndex(n, name="I"), pd.RangeIndex(p, name="J")
    T, L, K = pd.Index([1, 2, 3], name="T"), pd.Index([2, 3], name="L"), pd.RangeIndex(len(a), name="K")
    x, yy, M = xr.DataArray(X, coords=[I, J]), xr.DataArray(y, coords=[I]), xr.DataArray(S, coords=[I])
    a_, b_ = xr.DataArray(a, coords=[K]), xr.DataArray(b, coords=[K])
    m = linopy.Model()
    z = m.add_variables(binary=True, coords=[I, L], name="z")
    w = m.add_variables(lower=-W, upper=W, coords=[T, J], name="w")
    bb = m.add_variables(lower=-B, upper=B, coords=[T], name="b")
    wp = m.add_variables(lower=0, upper=W, coords=[T, J], name="w_pos")
    wn = m.add_variables(lower=0, upper=W, coords=[T, J], name="w_neg")
    s = m.add_variables(lower=-M, upper=M, coords=[T, I], name="s")
    xi = m.add_variables(lower=0, coords=[L, I], name="xi")
    m.add_constraints(z.sum("L") == 1, name="routing")
    m.add_constraints(yy * ((w * x).sum("J") + bb) - s == 0, name="score")
    m.add_constraints(w - wp + wn == 0, name="l1_split")
    m.add_constraints((wp + wn).sum("J") <= W, name="l1_bound")
    m.add_constraints(yy * s.sel(T=1) + M * z.sel(L=2) <= M, name="forward_left")
    m.add_constraints(yy * s.sel(T=1) - (M + EPS) * z.sel(L=3) >= -M, name="forward_right")
    N = a_ + abs(b_) * M
    leaf_s = s.sel(T=[2, 3]).rename(T="L")
    m.add_constraints(xi - b_ * leaf_s - N * z >= a_ - N, name="tangent")
    m.add_objective(xi.sum() + LAM * (wp.sum() + wn.sum()))
    return m


def linopy_to_solver(m):
    from linopy.io import to_highspy

    return to_highspy(m)


def build_pyoframe(X, y, S, a, b):
    """pyoframe: variables and data as polars frames joined on their index columns, written into HiGHS."""
    import polars as pl
    import pyoframe as pf

    n, p = X.shape
    i, j = np.arange(n), np.arange(p)
    rows = pl.DataFrame({"I": i})
    x = pl.DataFrame({"I": np.repeat(i, p), "J": np.tile(j, n), "x": X.ravel()}).to_expr()
    yy = pl.DataFrame({"I": i, "y": y}).to_expr()
    M = pl.DataFrame({"I": i, "M": S}).to_expr()
    m = pf.Model("highs")
    T, L = pl.DataFrame({"T": [1, 2, 3]}), pl.DataFrame({"L": [2, 3]})
    m.z = pf.Variable(rows, L, vtype=pf.VType.BINARY)
    m.w = pf.Variable(T, pl.DataFrame({"J": j}), lb=-W, ub=W)
    m.b = pf.Variable(T, lb=-B, ub=B)
    m.w_pos = pf.Variable(T, pl.DataFrame({"J": j}), lb=0, ub=W)
    m.w_neg = pf.Variable(T, pl.DataFrame({"J": j}), lb=0, ub=W)
    m.s = pf.Variable(T, rows, lb=-W * 1e3, ub=W * 1e3)
    m.xi = pf.Variable(L, rows, lb=0)
    m.routing = m.z.sum("L") == 1
    m.score = yy * ((m.w * x).sum("J") + m.b.over("I")) - m.s == 0
    m.l1_split = m.w - m.w_pos + m.w_neg == 0
    m.l1_bound = (m.w_pos + m.w_neg).sum("J") <= W
    root = m.s.pick(T=1)
    m.forward_left = yy * root + M * m.z.pick(L=2) <= M
    m.forward_right = yy * root - (M + EPS) * m.z.pick(L=3) >= -1 * M
    K = pl.DataFrame({"K": np.arange(len(a)), "a": a, "b": b})
    a_, b_ = K.select("K", "a").to_expr(), K.select("K", "b").to_expr()
    absb = K.select("K", pl.col("b").abs()).to_expr()
    N = absb * M + a_.over("I")
    leaf_s = m.s.filter(pl.col("T") >= 2).rename({"T": "L"})
    m.tangent = m.xi.over("K") - b_ * leaf_s - N * m.z + N.over("L") - a_.over("L", "I") >= 0
    m.minimize = m.xi.sum() + LAM * (m.w_pos.sum() + m.w_neg.sum())
    return m


BUILDERS = {"matrix": (build_matrix, to_solver_matrix), "expressions": (build_expressions, to_solver_matrix),
            "linopy": (build_linopy, linopy_to_solver),
            "pyoframe": (build_pyoframe, lambda m: m.poi)}
#: What each layer imports, loaded before the clock starts.
IMPORTS = {"matrix": ("optitrees.mip",), "expressions": ("optitrees.mip.expressions", "pandas"), "linopy": ("linopy", "linopy.io", "xarray", "pandas"),
           "pyoframe": ("pyoframe", "polars")}


def measure(layer: str, rows: int, features: int) -> dict:
    """One layer's build in this process (its imports done first)."""
    import importlib

    for module in IMPORTS[layer]:
        importlib.import_module(module)
    X, y, S, a, b = data(rows, features)
    build, hand_over = BUILDERS[layer]
    t0 = time.perf_counter()
    model = build(X, y, S, a, b)
    built = time.perf_counter() - t0
    highs = hand_over(model)
    seconds = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    if layer == "pyoframe":                                  # a pyoptinterface model: rows and columns only
        n_rows, n_cols, nonzeros = highs.getnumrow(), highs.getnumcol(), float("nan")
    else:
        lp = highs.getLp()
        n_rows, n_cols, nonzeros = lp.num_row_, lp.num_col_, len(lp.a_matrix_.value_)
    lines = len(inspect.getsource(build).strip().splitlines())
    return dict(layer=layer, rows=rows, features=features, builder_lines=lines, build_seconds=built,
                to_highs_seconds=seconds, peak_mb=peak, lp_rows=n_rows, lp_cols=n_cols, nonzeros=nonzeros)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, nargs="+", default=[3000, 30000])
    parser.add_argument("--features", type=int, default=100)
    parser.add_argument("--peer-python", help="python of a venv with linopy and pyoframe")
    parser.add_argument("--layer", choices=list(BUILDERS), help=argparse.SUPPRESS)
    parser.add_argument("--out", default="expression_layers.csv")
    args = parser.parse_args()
    if args.layer:
        print(json.dumps(measure(args.layer, args.rows[0], args.features)))
        return
    import pandas as pd

    found = []
    for rows in args.rows:
        for layer in BUILDERS:
            python = sys.executable if layer in ("matrix", "expressions") else args.peer_python
            if python is None:
                continue
            run = subprocess.run([python, __file__, "--layer", layer, "--rows", str(rows), "--features",
                                  str(args.features)], capture_output=True, text=True,
                                 env={"PYTHONPATH": str(Path(__file__).resolve().parents[1]),
                                      "OMP_NUM_THREADS": "1", "PATH": "/usr/bin:/bin"})
            if run.returncode != 0:
                print(f"{layer} at {rows} rows failed:\n{run.stderr[-2000:]}")
                continue
            found.append(json.loads(run.stdout.strip().splitlines()[-1]))
            print(found[-1], flush=True)
    table = pd.DataFrame(found)
    table.to_csv(RESULTS / args.out, index=False)
    print(table.round(3).to_string(index=False))


if __name__ == "__main__":
    main()
