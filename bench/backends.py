"""Every backend on every formulation family: the same optimum, an honest status, and files every reader takes.

Ten formulations small enough for every solve to prove optimality (30-40 rows of generated data): OLCT of depth
1 and 2, MARGOT as a MIQP and by outer approximation, the misclassification + logistic tree, OCT, OCT-H, the
optimal risk score (ORS), the generalized risk score (OGRS) and the oblique regression tree. Each is solved by
``optitrees.solvers.solve`` on every installed backend (``mip_gap=0``, 60 s) and compared with the optimum of the
first backend that proved one (HiGHS; SCIP for the MIQP; the risk cards as their tangent models):
status, objective, bound, gap, nodes and seconds, and whether the objective matches. A backend that cannot take
the model (a MIQP on a linear-only solver) is listed with its clear error.

Then the read-back table: each formulation written as ``.lp`` and ``.mps`` and read by HiGHS, SCIP, CBC, GLPK,
Gurobi and CPLEX (where installed), each reader solving it to its own optimum, compared with the optimum of the
model as written (a cut loop's later cuts are not in the file), so a reader reaching it read the file right.
The size-limited Gurobi and CPLEX editions refuse the larger models ("size limits exceeded").

    python bench/backends.py [--families OLCT-d1,OCT] [--backends highs,scip] [--out bench/results/backends.csv]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

RESULTS = Path(__file__).resolve().parent / "results"
BACKENDS = ("highs", "pyomo:highs", "scip", "gurobi", "cplex", "cbc", "glpk")
READERS = ("highs", "scip", "cbc", "glpk", "gurobi", "cplex")


def _data(n=36, p=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    y = np.where(X[:, 0] * X[:, 1] + 0.3 * rng.normal(size=n) > 0, 1, 0)
    return X, y


def families() -> dict:
    """Name -> a formulation built as a user would (the estimators' ``build_formulation`` or the array builders)."""
    from optitrees import (GeneralizedRiskScoreClassifier, OCTClassifier, OCTHClassifier, OLCTClassifier,
                           RiskScoreClassifier)
    from optitrees.formulations import loss_optimal_tree, margot, oblique_regression
    from optitrees.scaling import ScaledData

    X, y = _data()
    Xb = (X > 0).astype(float)
    s = np.where(y == 1, 1.0, -1.0)
    rng = np.random.default_rng(1)
    Xr = rng.normal(size=(30, 3))
    yr = np.where(Xr[:, 0] > 0, 2.0 * Xr[:, 1], -Xr[:, 2]) + 0.1 * rng.normal(size=30)
    spec = oblique_regression.ObliqueRegressionSpec(depth=1, lam=0.1, quadratic=False)
    data = ScaledData.create(Xr, yr, "standard", None, None)
    return {
        "OLCT-d1": lambda: OLCTClassifier(max_depth=1).build_formulation(X, y),
        "OLCT-d2": lambda: OLCTClassifier(max_depth=2).build_formulation(X[:24], y[:24]),
        # 16 rows, 3 features: 142 columns, within the size-limited Gurobi's 200 for a quadratic model
        "MARGOT-exact": lambda: margot(X[:16, :3], s[:16], depth=2, l2_method="exact"),
        "MARGOT-outer": lambda: margot(X[:16, :3], s[:16], depth=2, l2_method="outer"),
        "misclass+logistic": lambda: loss_optimal_tree(X[:24], s[:24], depth=2,
                                                       loss=["misclassification", "logistic"], tangents="V1"),
        "OCT": lambda: OCTClassifier(max_depth=2).build_formulation(Xb, y),
        "OCT-H": lambda: OCTHClassifier(max_depth=2).build_formulation(X[:24], y[:24]),
        # the risk cards as the tangent models (their cutting-plane search runs on HiGHS's LPs only)
        "ORS": lambda: RiskScoreClassifier(n_rules=2, min_score=-2, max_score=2, method="tangents",
                                           tangents="V1").build_formulation(Xb, y),
        "OGRS": lambda: GeneralizedRiskScoreClassifier(n_rules=2, max_score=2, method="tangents",
                                                       tangents="V1").build_formulation(Xb, y),
        "oblique-regression": lambda: oblique_regression.build(
            oblique_regression.ObliqueRegressionProblem.create(spec, data, yr)),
    }


def solve_row(name, build, backend, reference):
    from optitrees import solvers

    row = dict(family=name, backend=backend)
    f = build()
    t0 = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = solvers.solve(f, solver=backend, mip_gap=0, time_limit=60, progress=False)
    except Exception as exc:   # the error a user sees, first line
        row.update(error=f"{type(exc).__name__}: {str(exc).splitlines()[0][:120]}",
                   seconds=time.perf_counter() - t0)
        return row, None
    row.update(status=str(r.status), objective=r.objective, bound=r.bound, gap=r.gap, nodes=r.node_count,
               seconds=time.perf_counter() - t0, message=r.message[:120])
    if reference is not None and r.objective is not None:
        row["matches_highs"] = bool(abs(r.objective - reference) <= 1e-6 * max(1.0, abs(reference)))
        row["violation"] = float(f.violation(r.x, integrality=True)) if r.x is not None else None
    return row, r.objective


def _read_highs(path):
    import highspy

    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("mip_rel_gap", 0.0)
    h.setOptionValue("time_limit", 60.0)
    if h.readModel(str(path)) != highspy.HighsStatus.kOk:
        return None, "read failed"
    h.run()
    return h.getInfo().objective_function_value, str(h.getModelStatus())


def _read_scip(path):
    import pyscipopt

    m = pyscipopt.Model()
    m.hideOutput()
    try:
        m.readProblem(str(path))
    except Exception as exc:
        return None, f"read failed: {str(exc)[:80]}"
    m.setParam("limits/time", 60)
    m.setParam("limits/gap", 0.0)
    m.optimize()
    return (m.getObjVal() if m.getNSols() else None), m.getStatus()


def _read_gurobi(path):
    import gurobipy

    env = gurobipy.Env(params={"OutputFlag": 0})
    try:
        m = gurobipy.read(str(path), env)
    except gurobipy.GurobiError as exc:
        return None, f"read failed: {str(exc)[:80]}"
    m.Params.TimeLimit, m.Params.MIPGap = 60, 0.0
    m.optimize()
    return (m.ObjVal if m.SolCount else None), str(m.Status)


def _read_cplex(path):
    import cplex

    c = cplex.Cplex()
    for stream in (c.set_log_stream, c.set_results_stream, c.set_warning_stream, c.set_error_stream):
        stream(None)
    try:
        c.read(str(path))
    except cplex.exceptions.CplexError as exc:
        return None, f"read failed: {str(exc)[:80]}"
    c.parameters.timelimit.set(60)
    c.parameters.mip.tolerances.mipgap.set(0.0)
    try:
        c.solve()
        return c.solution.get_objective_value(), c.solution.get_status_string()
    except cplex.exceptions.CplexError as exc:
        return None, f"solve failed: {str(exc)[:80]}"


def _read_cbc(path):
    with tempfile.TemporaryDirectory() as d:
        sol = Path(d) / "x.sol"
        p = subprocess.run(["cbc", "-import", str(path), "-sec", "60", "-ratio", "0", "-solve", "-solu", str(sol)],
                           capture_output=True, text=True, timeout=120)
        if not sol.exists():
            return None, f"read failed: {p.stdout.strip().splitlines()[-1][:80] if p.stdout.strip() else ''}"
        head = sol.read_text().splitlines()[0]
        value = float(head.split("objective value")[-1]) if "objective value" in head else None
        return value, head.split("-")[0].strip()


def _read_glpk(path):
    with tempfile.TemporaryDirectory() as d:
        out = Path(d) / "x.out"
        kind = "--lp" if path.suffix == ".lp" else "--freemps"
        p = subprocess.run(["glpsol", kind, str(path), "--tmlim", "60", "-o", str(out)], capture_output=True,
                           text=True, timeout=120)
        if not out.exists():
            return None, f"read failed: {(p.stdout.strip().splitlines() or [''])[-1][:80]}"
        text = out.read_text()
        value = next((float(line.split("=")[1].split()[0]) for line in text.splitlines()
                      if line.startswith("Objective:")), None)
        status = next((line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith("Status:")),
                      "")
        return value, status


def _optimum_as_written(f):
    """The optimum of ``f`` without its strategy (the model a file holds), by HiGHS."""
    import copy

    from optitrees import solvers

    g = copy.copy(f)
    g.strategy = None
    r = solvers.solve(g, solver="highs" if not f.is_quadratic else "scip", mip_gap=0, time_limit=60, progress=False)
    return r.objective if str(r.status) == "optimal" else None


def readers() -> dict:
    import importlib.util

    out = {"highs": _read_highs}
    for name, module, fn in (("scip", "pyscipopt", _read_scip), ("gurobi", "gurobipy", _read_gurobi),
                             ("cplex", "cplex", _read_cplex)):
        if importlib.util.find_spec(module):
            out[name] = fn
    for name, exe, fn in (("cbc", "cbc", _read_cbc), ("glpk", "glpsol", _read_glpk)):
        if shutil.which(exe):
            out[name] = fn
    return out


def main(argv=None):
    from optitrees import solvers

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--families", default=None)
    parser.add_argument("--backends", default=",".join(BACKENDS))
    parser.add_argument("--label", default="")
    parser.add_argument("--out", default=str(RESULTS / "backends.csv"))
    args = parser.parse_args(argv)
    builders = families()
    chosen = args.families.split(",") if args.families else list(builders)
    installed = set(solvers.available())
    rows, files = [], []
    for name in chosen:
        reference = None
        for backend in args.backends.split(","):
            if backend.split(":")[-1] not in installed:
                continue
            row, objective = solve_row(name, builders[name], backend, reference)
            if reference is None and objective is not None and str(row.get("status")) == "optimal":
                reference = objective           # the first backend that proved an optimum (SCIP for a MIQP)
                row["matches_highs"] = True
            rows.append(row)
            print({k: (round(v, 6) if isinstance(v, float) else v) for k, v in row.items()}, flush=True)
        f = builders[name]()
        # a file holds the model as built; a cut loop's later cuts are not in it
        as_written = reference if getattr(f, "strategy", None) is None else _optimum_as_written(f)
        with tempfile.TemporaryDirectory() as d:
            for suffix in (".lp", ".mps"):
                path = Path(d) / f"model{suffix}"
                f.write(path)
                for reader, read in readers().items():
                    try:
                        value, status = read(path)
                    except Exception as exc:
                        value, status = None, f"{type(exc).__name__}: {str(exc)[:80]}"
                    same = value is not None and as_written is not None and \
                        abs(value - as_written) <= 1e-5 * max(1.0, abs(as_written))
                    files.append(dict(family=name, file=suffix, reader=reader, objective=value, status=status,
                                      matches_highs=same))
    table = pd.DataFrame(rows)
    table["label"] = args.label
    files_table = pd.DataFrame(files)
    files_table["label"] = args.label
    out = Path(args.out)
    table.to_csv(out, mode="a", header=not out.exists(), index=False)
    files_out = out.with_name(out.stem + "_files.csv")
    files_table.to_csv(files_out, mode="a", header=not files_out.exists(), index=False)
    pd.set_option("display.width", 250)
    cols = [c for c in ("family", "backend", "status", "objective", "gap", "nodes", "seconds", "matches_highs",
                        "error") if c in table]
    print(table[cols].round(6).to_string(index=False))
    print(files_table.pivot_table(index=["family", "file"], columns="reader", values="matches_highs",
                                  aggfunc="first").to_string())


if __name__ == "__main__":
    main()
