"""Build and hand-off overhead of the OLCT formulation, and solve cost of its variants.

Run: ``python bench/overhead.py [--quick] [--skip-pyomo]``

Prints, measured in one run on synthetic data of the size of "phishing"
(N = 11055, p = 68), depth 2, tangents V0 and V3:

(a) a plain baseline: the same constraint matrix built by hand with numpy/scipy
    and handed to highspy (``passModel``);
(b) the library: ``formulations.olct(...)`` + ``to_highs()`` (what ``solve`` does);
(c) ``to_pyomo()``;
(d) writing ``.mps``;
peak memory (growth of the resident set while one stage runs, measured in a
forked child, and the process's max RSS);
(e) time to proven optimality and node count on small breast-cancer instances
    (depth 2, V1, standardized features) for both formulation variants
    (margins inline vs score variables ``s[t, i]``).
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time

import highspy
import numpy as np
import scipy.sparse as sp

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from optitrees import solvers  # noqa: E402
from optitrees.formulations import olct  # noqa: E402
from optitrees.formulations.tangents import logistic_tangents  # noqa: E402


def _rss_mib():
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def _child(fn, queue):
    start = _rss_mib()
    fn()
    queue.put(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 - start)


def measure(fn, repeat=2):
    """Best wall time of ``repeat`` runs, then the peak RSS growth of one run in a forked child."""
    import multiprocessing as mp

    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    ctx = mp.get_context("fork")
    queue = ctx.Queue()
    proc = ctx.Process(target=_child, args=(fn, queue))
    proc.start()
    peak = queue.get()
    proc.join()
    return out, min(times), peak


def baseline_depth2(X, y, tangents, W=10.0):
    """Hand-written OLCT depth-2 matrix (margins inline), passed to highspy. Same layout as the library."""
    n, p = X.shape
    B = W * np.abs(X).max() + 1.0
    S = W * np.abs(X).max(axis=1) + B
    eps = max(1e-5, 1e-5 * (S.max() + 1.0))
    lines = logistic_tangents(tangents)
    # columns: z (n,2) | w (3,p) | b (3) | w_pos (3,p) | w_neg (3,p) | xi (n,2)
    ow = 2 * n
    ob = ow + 3 * p
    op, on = ob + 3, ob + 3 + 3 * p
    ox = on + 3 * p
    ncol = ox + 2 * n
    I = sp.identity(n, format="csr")
    YX = sp.csr_matrix(y[:, None] * X)
    Yc = sp.csr_matrix(y[:, None])

    def zero(r, c):
        return sp.csr_matrix((r, c))

    def node_block(t, coef):  # coef * y_i (w_t x_i + b_t) as columns w | b
        wcols = [zero(n, p)] * 3
        wcols[t] = YX.multiply(coef[:, None]).tocsr()
        bcols = [zero(n, 1)] * 3
        bcols[t] = Yc.multiply(coef[:, None]).tocsr()
        return sp.hstack(wcols + bcols)

    blocks, lo, up = [], [], []
    # routing
    blocks.append(sp.hstack([sp.kron(I, np.ones((1, 2))), zero(n, ncol - 2 * n)]))
    lo.append(np.ones(n)), up.append(np.ones(n))
    # l1 split and bound
    Ip = sp.identity(3 * p, format="csr")
    blocks.append(sp.hstack([zero(3 * p, ow), Ip, zero(3 * p, 3), -Ip, Ip, zero(3 * p, 2 * n)]))
    lo.append(np.zeros(3 * p)), up.append(np.zeros(3 * p))
    S3 = sp.kron(sp.identity(3), np.ones((1, p)))
    blocks.append(sp.hstack([zero(3, ow + 3 * p + 3), S3, S3, zero(3, 2 * n)]))
    lo.append(np.full(3, -np.inf)), up.append(np.full(3, W))
    # forwarding at the root: a + S z_left <= S ; a - (S + eps) z_right >= eps - S - eps
    zl = sp.csr_matrix((S, (np.arange(n), 2 * np.arange(n))), (n, 2 * n))
    zr = sp.csr_matrix((-(S + eps), (np.arange(n), 2 * np.arange(n) + 1)), (n, 2 * n))
    a_root = node_block(0, y)
    blocks.append(sp.hstack([zl, a_root, zero(n, 6 * p + 2 * n)]))
    lo.append(np.full(n, -np.inf)), up.append(S)
    blocks.append(sp.hstack([zr, a_root, zero(n, 6 * p + 2 * n)]))
    lo.append(np.full(n, -S)), up.append(np.full(n, np.inf))
    # tangents: xi[i,h] - a_k s[t,i] - M z-terms >= c_k - M
    for t in range(3):
        h = 0 if t == 0 else 1
        for a_k, c_k in zip(lines.slopes, lines.intercepts):
            M = np.zeros(n) if t == 0 else np.maximum(0.0, c_k + abs(a_k) * S)
            zt = zero(n, 2 * n) if t == 0 else sp.csr_matrix((-M, (np.arange(n), 2 * np.arange(n) + (t - 1))), (n, 2 * n))
            xi = sp.csr_matrix((np.ones(n), (np.arange(n), 2 * np.arange(n) + h)), (n, 2 * n))
            blocks.append(sp.hstack([zt, node_block(t, np.full(n, -a_k)), zero(n, 6 * p), xi]))
            lo.append(c_k - M), up.append(np.full(n, np.inf))
    A = sp.vstack(blocks, format="csr")
    A.eliminate_zeros()
    cost = np.zeros(ncol)
    cost[op:ox] = 1.0
    cost[ox:] = 1.0
    col_lo = np.concatenate([np.zeros(2 * n), np.full(3 * p, -W), np.full(3, -B), np.zeros(6 * p), np.zeros(2 * n)])
    col_up = np.concatenate([np.ones(2 * n), np.full(3 * p, W), np.full(3, B), np.full(6 * p, W), np.full(2 * n, np.inf)])
    integrality = np.r_[np.ones(2 * n, np.int32), np.zeros(ncol - 2 * n, np.int32)]
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.passModel(ncol, A.shape[0], A.nnz, int(highspy.MatrixFormat.kRowwise), int(highspy.ObjSense.kMinimize), 0.0,
                cost, col_lo, col_up, np.concatenate(lo), np.concatenate(up), A.indptr.astype(np.int32),
                A.indices.astype(np.int32), A.data, integrality)
    return h, A


def library(X, y, tangents, score_variables=False):
    f = olct(X, y, depth=2, tangents=tangents, score_variables=score_variables)
    h = f.to_highs(names=False)  # what solve() does
    return f, h


def overhead(n, p, skip_pyomo):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, p))
    y = np.where(X[:, :5].sum(axis=1) + rng.normal(size=n) > 0, 1.0, -1.0)
    print(f"## build and hand-off, synthetic N={n}, p={p}, depth 2 (margins inline; baseline (a) is the inline matrix)")
    print(f"{'set':4s} {'rows':>9s} {'nnz':>10s} {'(a) base s':>10s} {'(b) lib s':>10s} {'(b)/(a)':>8s} "
          f"{'(b) names s':>11s} {'(c) pyomo s':>11s} {'(d) mps s':>9s} {'peak a MiB':>10s} {'peak b MiB':>10s}")
    for tangents in ("V0", "V3"):
        (hb, A), ta, ma = measure(lambda: baseline_depth2(X, y, tangents))
        (f, hl), tb, mb = measure(lambda: library(X, y, tangents))
        assert f.matrix.shape == A.shape and f.matrix.nnz == A.nnz, "baseline and library matrices differ"
        assert abs(f.matrix - A).max() < 1e-9, "baseline and library coefficients differ"
        del hb, hl
        t0 = time.perf_counter()
        f.to_highs(names=True)
        tn = time.perf_counter() - t0 + f.build_time
        if skip_pyomo:
            tc = float("nan")
        else:
            t0 = time.perf_counter()
            m = f.to_pyomo()
            tc = time.perf_counter() - t0
            del m
        with tempfile.TemporaryDirectory() as d:
            t0 = time.perf_counter()
            f.write(os.path.join(d, "olct.mps"))
            td = time.perf_counter() - t0
        print(f"{tangents:4s} {f.n_rows:9d} {f.matrix.nnz:10d} {ta:10.2f} {tb:10.2f} {tb / ta:8.2f} {tn:11.2f} "
              f"{tc:11.1f} {td:9.2f} {ma:10.0f} {mb:10.0f}")
        sv = measure(lambda: library(X, y, tangents, score_variables=True))
        print(f"     score-variable variant: {sv[0][0].n_rows} rows, {sv[0][0].matrix.nnz} nnz, "
              f"build + hand-off {sv[1]:.2f}s, peak {sv[2]:.0f} MiB")
    print(f"process max RSS: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")


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
    args = ap.parse_args()
    if args.quick:
        overhead(500, 10, args.skip_pyomo)
        solve_variants([(60, 4)], 20)
    else:
        overhead(11055, 68, args.skip_pyomo)
        solve_variants([(120, 6), (160, 8), (200, 10)], args.time_limit)


if __name__ == "__main__":
    main()
