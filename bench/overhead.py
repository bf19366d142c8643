"""Build and hand-off overhead of the OLCT formulation, and solve cost of its variants.

Run: ``python bench/overhead.py [--quick] [--skip-pyomo] [--data synthetic phishing] [--skip-solves]
> bench/results/overhead.txt``

Prints, measured in one run on synthetic data of the size of "phishing"
(N = 11055, p = 68: Gaussian features, so nearly every coefficient is a distinct
17-digit number) and on phishing itself (features in {-1, 0, 1}; skipped when
``../shared`` is absent), depth 2, tangents V0 and V3:

(a) a plain baseline: the same constraint matrix written out by hand as numpy
    COO arrays and handed to highspy (``passModel``), for both variants;
(b) the library: ``formulations.olct(...)`` + ``to_highs()`` (what ``solve`` does);
(c) ``to_pyomo()`` (default variant; best of two constructions, the model freed after each is timed),
    and (c+) ``to_pyomo()`` followed by reading every row's expression once, as a writer or a solver
    interface does (rows are made from the sparse matrix on first read);
(d) writing ``.mps`` and ``.lp`` with ``Formulation.write`` (from the arrays), each also as a multiple of
    (b), beside HiGHS's own writer (names passed, then ``writeModel``) on the same model and beside the
    time to write as many bytes from memory to the same directory (the floor of any writer);
    times are the best of three runs (HiGHS's writer: two);
peak memory (growth of the resident set during one build + hand-off, measured
in a freshly spawned interpreter so no earlier allocation is reused), and of one
``.mps`` / ``.lp`` write there (after a small model's write has loaded numba and
polars, the peak reset through ``/proc/self/clear_refs`` once the model is built;
memory the build freed may be reused), beside the matrix's own size;
(e) time to proven optimality and node count on small breast-cancer instances
    (depth 2, V1, standardized features) for both formulation variants
    (margins inline vs score variables ``s[t, i]``).
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import tempfile
import time

import highspy
import numpy as np
import scipy.sparse as sp
from pyomo.environ import Constraint

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from _data import SHARED  # noqa: E402
from optitrees import solvers  # noqa: E402
from optitrees.mip import new_highs  # noqa: E402
from optitrees.formulations import olct  # noqa: E402
from optitrees.formulations.tangents import logistic_tangents  # noqa: E402


def _status_mib(field):
    """``VmRSS`` or ``VmHWM`` (peak RSS of this address space; unlike ru_maxrss it resets on exec)."""
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    raise RuntimeError(f"{field} not in /proc/self/status")


def _data(n, p, name="synthetic"):
    if name == "phishing":
        from _data import load_numeric

        X, y, _ = load_numeric("phishing")
        return X, np.where(y == 1, 1.0, -1.0)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, p))
    y = np.where(X[:, :5].sum(axis=1) + rng.normal(size=n) > 0, 1.0, -1.0)
    return X, y


def _memory_probe(stage, n, p, tangents, score_variables, name, queue):
    """Runs in a fresh (spawned) interpreter: peak RSS growth of one build + hand-off (``stage`` "baseline" or
    "library"), or of one write of the library's model (``stage`` "mps" or "lp")."""
    X, y = _data(n, p, name)
    if stage in ("mps", "lp"):
        with tempfile.TemporaryDirectory() as d:
            library(X[:100], y[:100], tangents, score_variables)[0].write(os.path.join(d, f"warm.{stage}"))
            f, _ = library(X, y, tangents, score_variables)       # (a small write loads numba's cache and polars)
            gc.collect()
            with open("/proc/self/clear_refs", "w") as fh:     # resets VmHWM to the current resident set
                fh.write("5")
            start = _status_mib("VmHWM")
            f.write(os.path.join(d, f"olct.{stage}"))
            queue.put(_status_mib("VmHWM") - start)
        return
    start = _status_mib("VmHWM")
    fn = baseline_depth2 if stage == "baseline" else library
    fn(X, y, tangents, score_variables)
    queue.put(_status_mib("VmHWM") - start)


def peak_memory(stage, n, p, tangents, score_variables, name):
    import multiprocessing as mp

    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    proc = ctx.Process(target=_memory_probe, args=(stage, n, p, tangents, score_variables, name, queue))
    proc.start()
    peak = queue.get()
    proc.join()
    return peak


def write_bytes(path, nbytes, chunk=np.zeros(1 << 23, np.uint8)):
    """Write ``nbytes`` from memory to ``path`` in 8 MB chunks: what any writer of a file that size pays."""
    with open(path, "wb") as fh:
        for start in range(0, nbytes, len(chunk)):
            fh.write(memoryview(chunk[:min(len(chunk), nbytes - start)]))


def measure(fn, repeat=3):
    """Best wall time of ``repeat`` runs and the last result."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return out, min(times)


def baseline_depth2(X, y, tangents, score_variables=True, W=10.0):
    """The OLCT depth-2 matrix written out by hand as COO arrays, handed to highspy.

    Same columns and rows as the library (checked by the caller), built with
    nothing but numpy/scipy: this is the cost floor the library is held to.
    """
    n, p = X.shape
    B = W * np.abs(X).max() + 1.0
    S = W * np.abs(X).max(axis=1) + B
    eps = max(1e-5, 1e-5 * (S.max() + 1.0))
    lines = logistic_tangents(tangents)
    i = np.arange(n)
    # columns: z (n,2) | w (3,p) | b (3) | w_pos (3,p) | w_neg (3,p) | [s (3,n)] | xi (n,2)
    ow = 2 * n
    ob = ow + 3 * p
    op, on = ob + 3, ob + 3 + 3 * p
    os_ = on + 3 * p
    ox = os_ + (3 * n if score_variables else 0)
    ncol = ox + 2 * n
    R, Cc, V, lo, up = [], [], [], [], []
    nrow = 0

    def rows(count, cols, vals, lower, upper):
        nonlocal nrow
        cols = np.asarray(cols)
        k = cols.shape[1] if cols.ndim == 2 else 1
        R.append(np.repeat(np.arange(nrow, nrow + count), k))
        Cc.append(cols.ravel())
        V.append(np.broadcast_to(vals, cols.shape).ravel())
        lo.append(np.broadcast_to(lower, (count,)))
        up.append(np.broadcast_to(upper, (count,)))
        nrow += count

    def margin(t, factor):
        """columns and values of factor_i * y_i (x_i w_t + b_t): inline or via s[t, i]."""
        if score_variables:
            return (os_ + t * n + i)[:, None], factor[:, None]
        cols = np.hstack([np.broadcast_to(ow + t * p + np.arange(p), (n, p)), np.full((n, 1), ob + t)])
        vals = (factor * y)[:, None] * np.hstack([X, np.ones((n, 1))])
        return cols, vals

    rows(n, np.column_stack([2 * i, 2 * i + 1]), 1.0, 1.0, 1.0)                                  # routing
    j = np.arange(3 * p)
    rows(3 * p, np.column_stack([ow + j, op + j, on + j]), np.array([1.0, -1.0, 1.0]), 0.0, 0.0)  # l1 split
    rows(3, np.column_stack([op + j.reshape(3, p), on + j.reshape(3, p)]), 1.0, -np.inf, W)      # l1 bound
    if score_variables:
        for t in range(3):
            cols = np.hstack([np.broadcast_to(ow + t * p + np.arange(p), (n, p)), np.full((n, 1), ob + t),
                              (os_ + t * n + i)[:, None]])
            vals = np.hstack([y[:, None] * X, y[:, None], -np.ones((n, 1))])
            rows(n, cols, vals, 0.0, 0.0)
    mc, mv = margin(0, y)
    rows(n, np.hstack([mc, (2 * i)[:, None]]), np.hstack([mv, S[:, None]]), -np.inf, S)             # 3.7a
    rows(n, np.hstack([mc, (2 * i + 1)[:, None]]), np.hstack([mv, -(S + eps)[:, None]]), -S, np.inf)  # 3.7b
    for t in range(3):                                                                           # 3.15
        h = 0 if t == 0 else 1
        for a_k, c_k in zip(lines.slopes, lines.intercepts):
            mc, mv = margin(t, np.full(n, -a_k))
            cols, vals = np.hstack([mc, (ox + 2 * i + h)[:, None]]), np.hstack([mv, np.ones((n, 1))])
            if t == 0:
                rows(n, cols, vals, c_k, np.inf)
            else:
                M = np.maximum(0.0, c_k + abs(a_k) * S)
                rows(n, np.hstack([cols, (2 * i + t - 1)[:, None]]), np.hstack([vals, -M[:, None]]), c_k - M, np.inf)
    V, R, Cc = np.concatenate(V), np.concatenate(R), np.concatenate(Cc)
    nonzero = V != 0                                   # zero features (phishing's 0s) are not coefficients
    A = sp.csr_matrix((V[nonzero], (R[nonzero], Cc[nonzero])), shape=(nrow, ncol))
    cost = np.zeros(ncol)
    cost[op:os_] = 1.0
    cost[ox:] = 1.0
    col_lo = np.concatenate([np.zeros(2 * n), np.full(3 * p, -W), np.full(3, -B), np.zeros(6 * p),
                             np.tile(-S, 3) if score_variables else [], np.zeros(2 * n)])
    col_up = np.concatenate([np.ones(2 * n), np.full(3 * p, W), np.full(3, B), np.full(6 * p, W),
                             np.tile(S, 3) if score_variables else [], np.full(2 * n, np.inf)])
    integrality = np.r_[np.ones(2 * n, np.int32), np.zeros(ncol - 2 * n, np.int32)]
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.passModel(ncol, nrow, A.nnz, int(highspy.MatrixFormat.kRowwise), int(highspy.ObjSense.kMinimize), 0.0,
                cost, col_lo, col_up, np.concatenate(lo), np.concatenate(up), A.indptr.astype(np.int32),
                A.indices.astype(np.int32), A.data, integrality)
    return h, A


def library(X, y, tangents, score_variables=True):
    f = olct(X, y, depth=2, tangents=tangents, score_variables=score_variables)
    h = f.to_highs(names=False)  # what solve() does
    return f, h


def highs_write(f, path):
    """HiGHS's own writer, for comparison: the model with its names passed, then ``writeModel``."""
    h = new_highs()
    f.to_highs(names=True, highs=h)
    h.writeModel(path)


def overhead(n, p, skip_pyomo, name="synthetic"):
    X, y = _data(n, p, name)
    n, p = X.shape
    print(f"\n## build and hand-off, {name} N={n}, p={p}, depth 2; (a) and (b) build the identical matrix")
    print(f"{'variant':>9s} {'set':4s} {'rows':>8s} {'nnz':>9s} {'(a) base s':>10s} {'(b) lib s':>9s} {'(b)/(a)':>7s} "
          f"{'names s':>7s} {'(c) pyomo s':>11s} {'(c)/(b)':>7s} {'(c+) s':>7s} {'(c+)/(b)':>8s} "
          f"{'(d) mps s':>9s} {'/(b)':>5s} {'lp s':>6s} {'/(b)':>5s} {'HiGHS mps s':>11s} {'HiGHS lp s':>10s} "
          f"{'bytes mps s':>11s} {'bytes lp s':>10s} "
          f"{'mps MB':>6s} {'lp MB':>6s} {'peak a MiB':>10s} {'peak b MiB':>10s} {'matrix MiB':>10s} "
          f"{'write mps MiB':>13s} {'write lp MiB':>12s}")
    for score_variables in (True, False):
        variant = "scores" if score_variables else "inline"
        for tangents in ("V0", "V3"):
            (hb, A), ta = measure(lambda: baseline_depth2(X, y, tangents, score_variables))
            (f, hl), tb = measure(lambda: library(X, y, tangents, score_variables))
            ma = peak_memory("baseline", n, p, tangents, score_variables, name)
            mb = peak_memory("library", n, p, tangents, score_variables, name)
            m_mps = peak_memory("mps", n, p, tangents, score_variables, name)
            m_lp = peak_memory("lp", n, p, tangents, score_variables, name)
            assert f.matrix.shape == A.shape and f.matrix.nnz == A.nnz, "baseline and library matrices differ"
            assert abs(f.matrix - A).max() < 1e-9, "baseline and library coefficients differ"
            assert np.allclose(f.row_lower, hb.getLp().row_lower_), "baseline and library row bounds differ"
            del hb, hl
            t0 = time.perf_counter()
            f.to_highs(names=True)
            tn = time.perf_counter() - t0 + f.build_time
            tc = tr = float("nan")
            if score_variables and not skip_pyomo:  # the default variant; inline V3 has 39M Pyomo terms
                times, read = [], []
                for _ in range(2):                  # the construction; the model is freed after the clock stops
                    gc.collect()                    # (a Pyomo model is cyclic: freed by the collector, not by del)
                    t0 = time.perf_counter()
                    model = f.to_pyomo()
                    times.append(time.perf_counter() - t0)
                    for con in model.component_data_objects(Constraint):
                        con.expr
                    read.append(time.perf_counter() - t0)
                    del model
                gc.collect()
                tc, tr = min(times), min(read)
            written, theirs, size, floor = {}, {}, {}, {}
            with tempfile.TemporaryDirectory() as d:
                for suffix in ("mps", "lp"):
                    path = os.path.join(d, f"olct.{suffix}")
                    written[suffix] = measure(lambda: f.write(path))[1]
                    size[suffix] = os.path.getsize(path) / 1e6
                    def write_highs():                    # names made anew each time: a fresh model's cost
                        f._cache.pop("cn", None), f._cache.pop("rn", None)
                        return highs_write(f, os.path.join(d, f"highs.{suffix}"))
                    theirs[suffix] = measure(write_highs, 2)[1]
                    nbytes = os.path.getsize(path)
                    floor[suffix] = measure(lambda: write_bytes(os.path.join(d, f"bytes.{suffix}"), nbytes))[1]
            td, tl = written["mps"], written["lp"]
            matrix_mib = (f.matrix.data.nbytes + f.matrix.indices.nbytes + f.matrix.indptr.nbytes) / 2 ** 20
            print(f"{variant:>9s} {tangents:4s} {f.n_rows:8d} {f.matrix.nnz:9d} {ta:10.2f} {tb:9.2f} {tb / ta:7.2f} "
                  f"{tn:7.2f} {tc:11.2f} {tc / tb:7.1f} {tr:7.2f} {tr / tb:8.1f} "
                  f"{td:9.2f} {td / tb:5.1f} {tl:6.2f} {tl / tb:5.1f} {theirs['mps']:11.2f} {theirs['lp']:10.2f} "
                  f"{floor['mps']:11.2f} {floor['lp']:10.2f} "
                  f"{size['mps']:6.0f} {size['lp']:6.0f} {ma:10.0f} {mb:10.0f} {matrix_mib:10.0f} "
                  f"{m_mps:13.0f} {m_lp:12.0f}", flush=True)
            f = None                                  # freed before the next build
    print(f"this process's peak RSS: {_status_mib('VmHWM'):.0f} MiB")


def solve_variants(instances, time_limit):
    from sklearn.datasets import load_breast_cancer

    data = load_breast_cancer()
    print(f"\n## (e) time to proven optimality, breast cancer, depth 2, V1, C=1, time limit {time_limit}s, "
          "1 thread, seed 0")
    print(f"{'rows':>5s} {'feat':>5s} {'variant':>16s} {'build s':>8s} {'solve s':>8s} {'nodes':>8s} {'status':>22s} "
          f"{'objective':>10s} {'gap':>7s}")
    for n, p in instances:
        rng = np.random.default_rng(n + p)
        idx = rng.choice(len(data.target), n, replace=False)
        X = data.data[idx][:, :p]
        X = (X - X.mean(0)) / X.std(0)
        y = np.where(data.target[idx] == 1, 1.0, -1.0)
        for sv in (False, True):
            f = olct(X, y, depth=2, tangents="V1", score_variables=sv)
            r = solvers.solve(f, time_limit=time_limit, mip_gap=1e-4, threads=1, seed=0, progress=False)
            name = "score variables" if sv else "inline margins"
            print(f"{n:5d} {p:5d} {name:>16s} {f.build_time:8.3f} {r.timings['solve']:8.2f} {r.node_count:8d} "
                  f"{r.status:>22s} {r.objective:10.4f} {100 * (r.gap or 0):6.2f}%")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="small sizes (CI smoke run)")
    ap.add_argument("--skip-pyomo", action="store_true")
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--data", nargs="*", default=["synthetic", "phishing"], choices=["synthetic", "phishing"],
                    help="the sets of (a)-(d); none: only (e)")
    ap.add_argument("--skip-solves", action="store_true", help="leave out (e)")
    args = ap.parse_args()
    if args.quick:
        overhead(500, 10, args.skip_pyomo)
        if not args.skip_solves:
            solve_variants([(60, 4)], 20)
    else:
        for name in args.data:
            if name == "synthetic" or (SHARED / "MANIFEST.json").exists():
                overhead(11055, 68, args.skip_pyomo, name)
        if not args.skip_solves:
            solve_variants([(120, 6), (160, 8), (200, 10)], args.time_limit)


if __name__ == "__main__":
    main()
