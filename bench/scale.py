"""The tree learners and score cards at the sizes users bring, each beside its peer in the same run.

Part ``trees`` (adult: the training file one-hot encoded together with adult_test, 104 columns; training
subsamples of N = 1k, 4k, 16k, 30k rows and N = 100k rows drawn from adult's 30,162 with the six numeric
columns jittered; test: adult_test, 15,060 rows). Pairs, ours / peer:

* ``C45Classifier`` (``laplace=False``, J48's estimate) / scikit-learn's entropy tree / Weka's J48 (``-C 0.25
  -M 2``; its own "time taken to build model", the JVM start excluded; ``same %``: test points on which
  ours and J48 agree); ours and scikit-learn's each the fastest of ``--repeat`` (7) fits;
* ``OCTClassifier`` depth 2 and 3 / pycontree alone, with the same time limit, and STreeD (pystreed, in its
  own environment, on its quantile binarization with 10 thresholds per continuous feature);
* ``OCTClassifier`` depth 2 with ``class_weight="balanced"`` (``--learners oct2w``; no peer takes weights):
  ConTree on the weights as repeated rows, rounded down where they have no small common unit, then the MIP
  / the MIP alone (``exact_search="mip"``); train and test columns are balanced accuracies here;
* ``TAOClassifier`` and ``TMOClassifier`` depth 3 / scikit-learn's CART of depth 3.

Part ``risk``: ``RiskScoreClassifier`` at T = 3, 5, 7 on rs_adult and rs_mushroom (all rows), and on
10^6 rows drawn from rs_adult (rows resampled: the card sees them merged into weighted distinct rows),
beside FasterRisk (its own environment, ``--peer-python``).

Part ``loss``: ``OLCTClassifier`` depth 2 (its defaults; ``--dense``: ``max_features=None``), or with ``--estimator
olct-cv`` ``OLCTClassifierCV`` (``C`` chosen on held-out folds within the fit), 60 s per fit, at 4k-28k
training rows of a2a_test, a4a_test, phishing, spambase and adult (the rest of each set, 600 rows or more, is
the test set),
against the greedy tree it starts from (``max_features``: the features per hyperplane the fit chose): exact
training objective and its terms (each layer's weighted loss, the leaves' last, and the penalty), test balanced
accuracy and log loss, lower bound; ``--class-weight
balanced`` fits with balanced class weights (scored with them); ``--splits 0 1 2`` fits each set and N on
each of these random train / test splits (one test split's balanced accuracy moves by about half a point
between two trees that differ little).

Every fit runs in a forked child: ``peak MiB`` is the growth of its resident set (its own child processes
included, e.g. ConTree's); in parts ``trees`` and ``loss`` until the fit returns (the scoring after it left
out), the modules a fit imports loaded before the fork. ``k``: the slope of log(time) over log(N) of each
learner.

Run: python bench/scale.py --part trees [--sizes 1000 4000 16000 30000 100000] [--time-limit 60]
     python bench/scale.py --part risk --peer-python /work/venvs/fasterrisk/bin/python [--sets rs_adult ...] [--merge]
     python bench/scale.py --part loss [--estimator olct-cv] [--time-limit 60] [--loss-sets phishing ...]
                                       [--class-weight balanced] [--splits 0 1 2] [--merge]
     python bench/scale.py --part trees --summary-only
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import re
import resource
import subprocess
import sys
import tempfile
import time
import traceback
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import SHARED, binary_target, load_numeric, manifest, one_thread_env, require_shared  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"
PEERS = Path(__file__).resolve().parent / "peers"
SIZES = (1000, 4000, 16000, 30000, 100000)


# ------------------------------------------------------------------ running one fit
def _status_mib(field):
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return float("nan")


_FIT_END_HWM = []     # the child's peak resident set when its fit returned (set by ``timed``)


def _map_file_pages():
    """Map into this process's page tables every page of its file-backed mappings (the interpreter's and the
    libraries' code and data) that it may read.

    A forked child shares its parent's pages, but the kernel copies only the page-table entries of anonymous
    memory at a fork: the first time the child runs a library's code (a fit's HiGHS, liblinear, glum), those
    pages join its resident set and looked like memory the fit took (10 MiB of the 53 MiB peak of an OLCT fit
    on a2a, 4,000 rows). With them mapped first (``MADV_POPULATE_READ``, Linux 5.14+), the peak's growth is
    the fit's own memory."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.madvise.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
    populate_read = 22
    with open("/proc/self/maps") as fh:
        for line in fh:
            fields = line.split()
            if len(fields) < 6 or not fields[5].startswith("/") or "r" not in fields[1]:
                continue
            start, end = (int(a, 16) for a in fields[0].split("-"))
            libc.madvise(start, end - start, populate_read)      # a failure (an old kernel) leaves it as it was


def _child(conn, fn, spawns):
    try:
        _FIT_END_HWM.clear()
        _map_file_pages()
        start = _status_mib("VmRSS")
        out = fn()
        # the fit's peak, not that of the scoring after it (a test set of 26,000 rows, the greedy tree refit)
        own = (_FIT_END_HWM[0] if _FIT_END_HWM else _status_mib("VmHWM")) - start
        children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        # a spawned peer (a fresh interpreter, a JVM) counts whole; a forked child's pages shared with this
        # process at the fork are not its own
        out["peak_mib"] = children if spawns else max(own, children - start)
        conn.send(out)
    except BaseException:
        conn.send({"error": traceback.format_exc(limit=3)})
    finally:
        conn.close()


def isolated(fn, spawns=False) -> dict:
    """``fn()`` (a dict) run in a forked child, with its peak memory growth (``spawns``: of the peer process
    ``fn`` starts)."""
    ctx = multiprocessing.get_context("fork")
    receive, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(send, fn, spawns))
    proc.start()
    send.close()
    out = receive.recv()
    proc.join()
    if "error" in out:
        print(out["error"], file=sys.stderr)
    return out


def timed(make_and_fit):
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = make_and_fit()
    seconds = time.perf_counter() - t0
    if not _FIT_END_HWM:
        _FIT_END_HWM.append(_status_mib("VmHWM"))
    return model, seconds


def best_of(repeat, make_and_fit):
    """:func:`timed`, the fastest of ``repeat`` fits (the same model each time): a fit of a tenth of a second
    varies by 20% from run to run on a shared machine."""
    runs = [timed(make_and_fit) for _ in range(max(1, repeat))]
    return min(runs, key=lambda run: run[1])


# ------------------------------------------------------------------ adult
def adult_frames():
    """adult and adult_test one-hot encoded together (rows with a missing cell dropped)."""
    frames = [pd.read_csv(SHARED / manifest()[name]["file"]).dropna() for name in ("adult", "adult_test")]
    ys = [binary_target(name, f["target"]) for name, f in zip(("adult", "adult_test"), frames)]
    X = pd.concat([f.drop(columns=["target"]) for f in frames])
    categorical = [c for c in X.columns if not pd.api.types.is_numeric_dtype(X[c])]
    X = pd.get_dummies(X, columns=categorical, dtype=float)
    n = len(frames[0])
    numeric = [X.columns.get_loc(c) for c in frames[0].columns if c != "target" and c not in categorical]
    return X.to_numpy(float)[:n], ys[0], X.to_numpy(float)[n:], ys[1], numeric


def adult_sample(X, y, numeric, n, seed=0):
    """``n`` training rows: a subsample, or (beyond adult's size) rows drawn with the numeric columns jittered."""
    rng = np.random.default_rng(seed)
    if n <= len(y):
        idx = rng.choice(len(y), n, replace=False)
        return X[idx], y[idx]
    idx = rng.choice(len(y), n, replace=True)
    Xs = X[idx].copy()
    scale = X[:, numeric].std(axis=0)
    Xs[:, numeric] = np.round(Xs[:, numeric] + rng.normal(size=(n, len(numeric))) * 0.02 * scale, 0)
    return Xs, y[idx]


def write_arff(path, X, y):
    header = ["@relation adult"] + [f"@attribute x{j} numeric" for j in range(X.shape[1])]
    header += ["@attribute class {c0,c1}", "@data"]
    body = pd.DataFrame(X).astype(object)
    body["class"] = np.where(y == 1, "c1", "c0")
    with open(path, "w") as fh:
        fh.write("\n".join(header) + "\n")
        body.to_csv(fh, header=False, index=False, float_format="%.10g")


def run_j48(jar, X, y, Xte, yte):
    with tempfile.TemporaryDirectory() as tmp:
        train, test = f"{tmp}/train.arff", f"{tmp}/test.arff"
        write_arff(train, X, y)
        write_arff(test, Xte, yte)
        base = ["java", "-Xmx8g", "-cp", jar, "weka.classifiers.trees.J48", "-C", "0.25", "-M", "2", "-t", train,
                "-T", test]
        model = subprocess.run(base + ["-no-cv"], capture_output=True, text=True, check=True).stdout
        seconds = float(re.search(r"Time taken to build model:\s*([\d.]+)", model).group(1))
        leaves = int(re.search(r"Number of Leaves\s*:\s*(\d+)", model).group(1))
        pred = subprocess.run(base + ["-p", "0"], capture_output=True, text=True, check=True).stdout
        labels = np.array([int(m.group(1)) for m in re.finditer(r"^\s*\d+\s+\d+:c\d+\s+\d+:c(\d+)", pred, re.M)])
    return dict(time=seconds, leaves=leaves, test=float(np.mean(labels == yte)), labels=labels.tolist())


def run_streed(peer_python, X, y, Xte, yte, depth, time_limit):
    with tempfile.TemporaryDirectory() as tmp:
        src, out = Path(tmp) / "data.npz", Path(tmp) / "out.json"
        np.savez(src, X=X, y=y, X_test=Xte, y_test=yte, depth=depth, time_limit=time_limit)
        subprocess.run([peer_python, str(PEERS / "pystreed_fit.py"), str(src), str(out)], check=True,
                       capture_output=True, env=one_thread_env())
        result = json.loads(out.read_text())
    result["time"] = result.pop("seconds")
    return result


def part_trees(args):
    from pycontree import ConTree
    from sklearn.tree import DecisionTreeClassifier

    from optitrees import C45Classifier, OCTClassifier, TAOClassifier, TMOClassifier

    Xall, yall, Xte, yte, numeric = adult_frames()
    # one small fit of each learner first, so no measured fit pays for the imports it triggers
    Xw, yw = Xall[:300], yall[:300]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for warm in (C45Classifier(), OCTClassifier(max_depth=2, time_limit=5), TAOClassifier(max_depth=2),
                     TMOClassifier(max_depth=2, n_estimators=4, n_generations=1)):
            warm.fit(Xw, yw)
        # C4.5 loads its compiled scan at a process's second fit of 2,000+ rows: numba's import and the kernel
        # (from numba's cache, or compiled on a machine's first run) are loaded before the forks too, as imports are
        for _ in range(2):
            C45Classifier().fit(Xall[:2500], yall[:2500])
    rows = []
    out = RESULTS / "scale_trees.csv"
    earlier = pd.read_csv(out) if args.merge and out.exists() else None
    for n in args.sizes:
        X, y = adult_sample(Xall, yall, numeric, n)
        base = dict(n=n, p=X.shape[1])

        def c45():
            m, t = best_of(args.repeat, lambda: C45Classifier(laplace=False).fit(X, y))
            return dict(time=t, train=m.score(X, y), test=m.score(Xte, yte), leaves=m.n_leaves_,
                        pred=m.predict(Xte).tolist())

        def sk_entropy():
            m, t = best_of(args.repeat, lambda: DecisionTreeClassifier(criterion="entropy", random_state=0).fit(X, y))
            return dict(time=t, train=m.score(X, y), test=m.score(Xte, yte), leaves=int(m.get_n_leaves()))

        if "c45" in args.learners:
            ours = isolated(c45)
            pred = np.array(ours.pop("pred", []))
            rows.append({**base, "learner": "C4.5", "impl": "optitrees", **ours})
            rows.append({**base, "learner": "C4.5", "impl": "sklearn entropy", **isolated(sk_entropy)})
        if "c45" in args.learners and Path(args.weka_jar).exists():
            j48 = isolated(lambda: run_j48(args.weka_jar, X, y, Xte, yte), spawns=True)
            labels = np.array(j48.pop("labels"))
            rows.append({**base, "learner": "C4.5", "impl": "J48", **j48,
                         "same": float(np.mean(labels == pred)) if len(pred) == len(labels) else np.nan})
        print(f"N={n} C4.5 done", flush=True)
        for depth in [d for d in (2, 3) if f"oct{d}" in args.learners]:
            def oct_fit(depth=depth):
                m, t = timed(lambda: OCTClassifier(max_depth=depth, time_limit=args.time_limit, threads=1).fit(X, y))
                r = m.fit_report_
                return dict(time=t, train=m.score(X, y), test=m.score(Xte, yte), objective=r.objective,
                            proven=r.certified_by is not None, bound=r.bound, method=r.method)

            def contree_fit(depth=depth):
                m, t = timed(lambda: ConTree(max_depth=depth, time_limit=args.time_limit).fit(X, y))
                return dict(time=t, train=float(np.mean(m.predict(X) == y)),
                            test=float(np.mean(m.predict(Xte) == yte)),
                            proven=bool(m._config.is_within_time_limit()))

            rows.append({**base, "learner": f"OCT d{depth}", "impl": "optitrees", **isolated(oct_fit)})
            rows.append({**base, "learner": f"OCT d{depth}", "impl": "pycontree", **isolated(contree_fit)})
            if args.streed_python:
                streed = isolated(lambda depth=depth: run_streed(args.streed_python, X, y, Xte, yte, depth,
                                                                 args.time_limit), spawns=True)
                rows.append({**base, "learner": f"OCT d{depth}", "impl": "pystreed", **streed})
            print(f"N={n} OCT d{depth} done", flush=True)

        def cart():
            m, t = timed(lambda: DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y))
            return dict(time=t, train=m.score(X, y), test=m.score(Xte, yte))

        def tao():
            m, t = timed(lambda: TAOClassifier(max_depth=3, random_state=0).fit(X, y))
            return dict(time=t, train=m.score(X, y), test=m.score(Xte, yte), objective=m.objective_)

        def tmo():
            m, t = timed(lambda: TMOClassifier(max_depth=3, random_state=0, time_limit=args.tmo_time_limit).fit(X, y))
            return dict(time=t, train=m.score(X, y), test=m.score(Xte, yte), objective=m.objective_)

        if "oct2w" in args.learners:
            def weighted_oct(search):
                from sklearn.metrics import balanced_accuracy_score

                m, t = timed(lambda: OCTClassifier(max_depth=2, class_weight="balanced", exact_search=search,
                                                   time_limit=args.time_limit, threads=1).fit(X, y))
                r = m.fit_report_
                return dict(time=t, train=balanced_accuracy_score(y, m.predict(X)),
                            test=balanced_accuracy_score(yte, m.predict(Xte)), objective=r.objective,
                            proven=r.certified_by is not None, bound=r.bound, method=r.method)

            for search, impl in (("auto", "optitrees"), ("mip", "optitrees, MIP only")):
                rows.append({**base, "learner": "OCT d2 balanced", "impl": impl,
                             **isolated(lambda search=search: weighted_oct(search))})
            print(f"N={n} OCT d2 balanced done", flush=True)
        if "tao" in args.learners or "tmo" in args.learners:
            rows.append({**base, "learner": "depth-3 tree", "impl": "sklearn CART", **isolated(cart)})
        if "tao" in args.learners:
            rows.append({**base, "learner": "depth-3 tree", "impl": "TAO", **isolated(tao)})
        if "tmo" in args.learners:
            rows.append({**base, "learner": "depth-3 tree", "impl": "TMO", **isolated(tmo)})
        print(f"N={n} TAO/TMO done", flush=True)
        frame = pd.DataFrame(rows)
        if earlier is not None:                     # keep the earlier run's rows of the pairs not rerun
            frame = pd.concat([earlier[~earlier.set_index(["n", "learner", "impl"]).index.isin(
                frame.set_index(["n", "learner", "impl"]).index)], frame], ignore_index=True)
        frame.to_csv(out, index=False)
    return out


def exponents(frame):
    out = {}
    for (learner, impl), d in frame.groupby(["learner", "impl"]):
        d = d[d.time > 0]
        if d.n.nunique() >= 2:
            out[(learner, impl)] = float(np.polyfit(np.log(d.n), np.log(d.time), 1)[0])
    return out


def summary_trees(path):
    frame = pd.read_csv(path)
    k = exponents(frame)
    cols = [c for c in ("time", "peak_mib", "train", "test", "leaves", "objective", "bound", "proven", "same")
            if c in frame]
    table = frame.pivot_table(index=["learner", "impl"], columns="n", values="time", aggfunc="first")
    print("fit seconds (k: time ~ N^k)")
    table["k"] = [k.get(idx, np.nan) for idx in table.index]
    print(table.round(3).to_string())
    for learner, d in frame.groupby("learner", sort=False):
        print(f"\n{learner}")
        print(d[["n", "impl"] + cols].round(4).to_string(index=False))


# ------------------------------------------------------------------ risk scores
def part_risk(args):
    from risk_scores import fit_fasterrisk, fit_ors, risk_data
    from sklearn.model_selection import train_test_split

    rows = []
    out = RESULTS / "scale_risk.csv"
    earlier = pd.read_csv(out) if args.merge and out.exists() else None
    sets = []
    for name in [s for s in ("rs_adult", "rs_mushroom") if s in args.sets]:
        X, y = risk_data(name)
        sets.append((name, X, y))
    if "rs_adult_1e6" in args.sets:
        X, y = risk_data("rs_adult")
        idx = np.random.default_rng(0).choice(len(y), 10**6, replace=True)
        sets.append(("rs_adult x10^6", X[idx], y[idx]))
    for name, X, y in sets:
        Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.2, stratify=y, random_state=0)
        for T in (3, 5, 7):
            ours = isolated(lambda: fit_ors(Xtr, ytr, Xte, yte, T, args.time_limit))
            rows.append(dict(dataset=name, n=len(ytr), p=X.shape[1], T=T, impl="optitrees", **ours))
            if args.peer_python:
                peer = isolated(lambda: fit_fasterrisk(args.peer_python, Xtr, ytr, Xte, yte, T), spawns=True)
                rows.append(dict(dataset=name, n=len(ytr), p=X.shape[1], T=T, impl="fasterrisk", **peer))
            print(f"{name} T={T} done", flush=True)
            frame = pd.DataFrame(rows)
            if earlier is not None:                 # keep the earlier run's rows of the sets not rerun
                frame = pd.concat([earlier[~earlier.dataset.isin(frame.dataset)], frame], ignore_index=True)
            frame.to_csv(out, index=False)
    return out


def summary_risk(path):
    frame = pd.read_csv(path)
    cols = [c for c in ("dataset", "n", "T", "impl", "time", "peak_mib", "train_loss", "auc", "gap", "status")
            if c in frame]
    print(frame[cols].round(4).to_string(index=False))


# ------------------------------------------------------------------ loss-optimal trees
#: Training sizes leave at least 600 rows to test on (earlier runs fitted a2a 30k, a4a 27k, phishing 11k and adult
#: 30k and scored them on 2,000 rows, most of them training rows, where fewer than 500 were left; those rows are
#: no longer in the results).
LOSS_SETS = (("a2a_test", (4000, 16000, 28000)), ("a4a_test", (4000, 16000, 25000)), ("phishing", (4000, 9000)),
             ("spambase", (4000,)), ("adult", (4000, 16000, 28000)))
MIN_TEST_ROWS = 600


def greedy_model(fitted, X, y):
    """An estimator holding the greedy start of ``fitted`` (the tree the MIP starts from), for its test scores,
    and the fit's problem."""
    from sklearn.base import clone

    g = clone(fitted)
    g._validate_params()
    problem, _ = g._prepare(X, y, None)
    if hasattr(fitted, "C_"):                     # OLCTClassifierCV: the greedy tree at the C it chose
        g.C_ = fitted.C_
        problem = problem.with_C(fitted.C_)
    g._store(problem, g._family.finalize(problem, g._starts(problem, None, ("greedy",))["greedy"]))
    return g, problem


def objective_terms(model, problem) -> dict:
    """The exact training objective (3.12) of ``model``'s tree in its terms: each layer's weighted loss
    ``C_h sum_i v_i loss(y_i (w_t x_i + b_t))`` (layer 0 the root's, the last one the leaves' that predict) and
    the penalty (the rest of the objective)."""
    from optitrees.formulations.loss_optimal.solution import layer_loss_functions, tree_objective

    spec, data = problem.spec, problem.data
    tree = model.tree_.to_scaled_units(data)
    _, values = tree.path_values(data.X)
    margins = data.y[:, None] * values
    losses = layer_loss_functions(problem, False)
    terms = {f"layer{h}_loss": float(spec.C[h] * data.weighted_sum(losses[h](margins[:, h])))
             for h in range(spec.depth)}
    terms["penalty"] = tree_objective(problem, tree) - sum(terms.values())
    return terms


def held_out_log_loss(model, X, y, balanced):
    """Mean log loss of ``model`` on ``(X, y)``: the fit's own loss, each class weighted as in the fit (equally
    when ``balanced``)."""
    from sklearn.metrics import log_loss
    from sklearn.utils.class_weight import compute_sample_weight

    weight = compute_sample_weight("balanced", y) if balanced else None
    return log_loss(y, model.predict_proba(X), sample_weight=weight, labels=model.classes_)


def loss_results(class_weight, estimator="olct"):
    """The loss part's results file for the estimator and the fits' class weights."""
    stem = "scale_loss" + ("_cv" if estimator == "olct-cv" else "")
    return RESULTS / (stem + ("_balanced.csv" if class_weight == "balanced" else ".csv"))


def model_coefficients(estimator, X, y):
    """Coefficients of the model ``estimator`` would solve for ``(X, y)``, built (its matrix not assembled)."""
    f = estimator.build_formulation(X, y)
    return sum(len(g.vals) for g in f.constraints.values())


def _budget_label(model) -> str:
    """The features per hyperplane ``model`` was fitted with: ``"dense"`` (no budget), or the budget of each
    layer (chosen on held-out folds with ``max_features="auto"``, the default)."""
    chosen = getattr(model, "max_features_", None)
    return "dense" if chosen is None else "/".join(str(b) for b in chosen)


def part_loss(args):
    from sklearn.base import clone
    from sklearn.metrics import balanced_accuracy_score

    from optitrees import OLCTClassifier, OLCTClassifierCV

    rows = []
    balanced = args.class_weight == "balanced"
    out = loss_results(args.class_weight, args.estimator)
    earlier = pd.read_csv(out) if args.merge and out.exists() else None
    if earlier is not None:                       # rows written before splits were recorded are split 0
        earlier["split"] = earlier["split"].fillna(0).astype(int) if "split" in earlier else 0
    olct = (OLCTClassifierCV if args.estimator == "olct-cv" else OLCTClassifier)(
        max_depth=2, time_limit=args.time_limit, threads=1, random_state=0,
        class_weight="balanced" if balanced else None, max_features=None if args.dense else "auto")
    # one small fit first, here: the modules a fit imports on its first call (HiGHS, glum, formulaic: 17 MiB
    # of code) are then loaded before the forks, so no fit's peak counts them
    X, y, _ = load_numeric(LOSS_SETS[0][0])
    timed(lambda: clone(olct).set_params(time_limit=2).fit(X[:300], y[:300]))
    for name, sizes in [(name, sizes) for name, sizes in LOSS_SETS if name in args.loss_sets]:
        X, y, _ = load_numeric(name)
        sizes = [n for n in sizes if args.loss_sizes is None or n in args.loss_sizes]
        for n, split in [(n, split) for n in sizes for split in args.splits]:
            rng = np.random.default_rng(split)
            perm = rng.permutation(len(y))
            train, test = perm[:n], perm[n:]
            if len(test) < MIN_TEST_ROWS:
                raise SystemExit(f"{name}: N={n} leaves {len(test)} rows to test on (at least {MIN_TEST_ROWS})")

            def fit(train=train, test=test):
                m, t = timed(lambda: olct.fit(X[train], y[train]))
                r = m.fit_report_
                greedy, problem = greedy_model(m, X[train], y[train])
                nnz = re.search(r"(\d+) (?:nonzeros|coefficients)", m.formulation_summary_)
                return dict(time=t, nnz=int(nnz.group(1)) if nnz else None, objective=r.objective,
                            greedy=r.starts.get("greedy"), max_features=_budget_label(m),
                            bound=r.bound, method=r.method, outcome=str(r.outcome), rows=r.rows,
                            distinct=r.distinct_rows, test_rows=len(test),
                            **({"C": float(m.C_[0]), "folds_scored": m.cv_results_["folds_scored"]}
                               if hasattr(m, "C_") else {}),
                            test_bacc=balanced_accuracy_score(y[test], m.predict(X[test])),
                            greedy_test_bacc=balanced_accuracy_score(y[test], greedy.predict(X[test])),
                            test_logloss=held_out_log_loss(m, X[test], y[test], balanced),
                            greedy_test_logloss=held_out_log_loss(greedy, X[test], y[test], balanced),
                            **objective_terms(m, problem),
                            **{f"greedy_{k}": v for k, v in objective_terms(greedy, problem).items()})

            row = isolated(fit)
            if row.get("nnz") is None:            # a model out of reach is not built by the fit: count it apart
                row["nnz"] = isolated(lambda train=train: dict(nnz=model_coefficients(olct, X[train], y[train])))["nnz"]
            # data and the model's matrix in memory: X in float64, the CSR matrix (value, column index)
            row["data_matrix_mib"] = (X[train].nbytes + 12 * row["nnz"]) / 2**20
            rows.append(dict(dataset=name, n=n, split=split, p=X.shape[1], **row))
            print(f"{name} N={n} split {split} done", flush=True)
            frame = pd.DataFrame(rows)
            if earlier is not None:                 # keep the earlier run's rows of the sets, sizes and splits not rerun
                key = ["dataset", "n", "split"]
                frame = pd.concat([earlier[~earlier.set_index(key).index.isin(frame.set_index(key).index)], frame],
                                  ignore_index=True)
            frame.to_csv(out, index=False)
    return out


def summary_loss(path, baseline=None):
    """The loss part's table and means; with ``baseline`` (OLCTClassifier's results beside OLCTClassifierCV's),
    the test scores of the two estimators on the same data sets, sizes and splits too."""
    frame = pd.read_csv(path)
    frame["split"] = frame["split"].fillna(0).astype(int) if "split" in frame else 0
    frame["beats_greedy"] = frame.objective < frame.greedy - 1e-9
    if "data_matrix_mib" in frame:
        frame["peak_x"] = frame.peak_mib / frame.data_matrix_mib
    cols = [c for c in ("dataset", "n", "split", "time", "peak_mib", "data_matrix_mib", "peak_x", "greedy", "objective",
                        "bound", "beats_greedy", "method", "test_bacc", "greedy_test_bacc") if c in frame]
    print(frame[cols].round(4).to_string(index=False))
    print(f"\nbeats the greedy tree in {frame.beats_greedy.mean():.0%} of {len(frame)} fits")
    for metric, unit, higher_is_better in (("test_bacc", 100.0, True), ("test_logloss", 1.0, False)):
        if metric in frame and f"greedy_{metric}" in frame:
            diff = unit * (frame[metric] - frame[f"greedy_{metric}"])
            better = int((diff > 0).sum() if higher_is_better else (diff < 0).sum())
            print(f"{metric} - greedy's: {diff.mean():+.4f} +- {diff.std(ddof=1) / np.sqrt(len(diff)):.4f} "
                  f"(mean +- standard error{', points' if unit == 100.0 else ''}; better in {better} of {len(diff)})")
            if frame.split.nunique() > 1:
                for split, d in diff.groupby(frame.split):
                    print(f"  split {split}: {d.mean():+.4f} +- {d.std(ddof=1) / np.sqrt(len(d)):.4f} over {len(d)} fits")
    if "C" in frame:
        print("C chosen on held-out folds (fits): " + ", ".join(f"{c:g}: {k}" for c, k in frame.C.value_counts()
                                                                .sort_index().items())
              + f"; folds scored {frame.folds_scored.min()}-{frame.folds_scored.max()}")
    if baseline is not None and Path(baseline).exists():
        key = ["dataset", "n", "split"]
        both = frame.merge(pd.read_csv(baseline), on=key, suffixes=("", "_c1"))
        for metric, unit in (("test_bacc", 100.0), ("test_logloss", 1.0)):
            diff = unit * (both[metric] - both[f"{metric}_c1"])
            print(f"{metric} - OLCTClassifier's (C = 1) on the same {len(both)} fits: {diff.mean():+.4f} +- "
                  f"{diff.std(ddof=1) / np.sqrt(len(diff)):.4f}")
    terms = [c for c in frame if (c.startswith("layer") and c.endswith("_loss")) or c == "penalty"]
    if terms and all(f"greedy_{c}" in frame for c in terms):
        print("the objective's terms, the returned tree's against the greedy tree's (sum over the fits; "
              "the last layer's loss is that of the leaves that predict):")
        for c in terms:
            print(f"  {c}: {frame[c].sum():.1f} against {frame[f'greedy_{c}'].sum():.1f}; lower in "
                  f"{int((frame[c] < frame[f'greedy_{c}'] - 1e-9).sum())} of {len(frame)} fits")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=("trees", "risk", "loss"), default="trees")
    parser.add_argument("--sizes", nargs="+", type=int, default=list(SIZES))
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--tmo-time-limit", type=float, default=30.0)
    parser.add_argument("--weka-jar", default="/usr/share/java/weka.jar")
    parser.add_argument("--streed-python", help="interpreter of an environment with pystreed")
    parser.add_argument("--peer-python", help="interpreter of an environment with fasterrisk==0.1.10")
    parser.add_argument("--repeat", type=int, default=7,
                        help="C4.5 and scikit-learn's tree: the time is the fastest of this many fits")
    parser.add_argument("--learners", nargs="+", default=["c45", "oct2", "oct3", "oct2w", "tao", "tmo"],
                        help="trees part: which pairs to run")
    parser.add_argument("--sets", nargs="+", default=["rs_adult", "rs_mushroom", "rs_adult_1e6"],
                        help="risk part: which data sets to run")
    parser.add_argument("--loss-sets", nargs="+", default=[name for name, _ in LOSS_SETS],
                        help="loss part: which data sets to run")
    parser.add_argument("--loss-sizes", nargs="+", type=int,
                        help="loss part: only these training sizes of the data sets (default: all of LOSS_SETS)")
    parser.add_argument("--splits", nargs="+", type=int, default=[0],
                        help="loss part: seeds of the train / test splits (each data set and N is fitted on each)")
    parser.add_argument("--estimator", choices=("olct", "olct-cv"), default="olct",
                        help="loss part: OLCTClassifier (C = 1) or OLCTClassifierCV (C chosen on held-out folds; "
                             "results in scale_loss_cv*.csv)")
    parser.add_argument("--dense", action="store_true",
                        help="loss part: max_features=None (the seed's dense hyperplanes), not the held-out budget")
    parser.add_argument("--class-weight", choices=("none", "balanced"), default="none",
                        help="part loss: the fits' class weights (balanced: results in scale_loss_balanced.csv)")
    parser.add_argument("--merge", action="store_true",
                        help="trees part: these rows replace the earlier run's of the same N and pair; "
                             "risk part: of the same data set; loss part: of the same data set, N and split")
    parser.add_argument("--summary-only", action="store_true")
    args = parser.parse_args()
    path = loss_results(args.class_weight, args.estimator) if args.part == "loss" else RESULTS / f"scale_{args.part}.csv"
    if not args.summary_only:
        require_shared()
        RESULTS.mkdir(exist_ok=True)
        path = {"trees": part_trees, "risk": part_risk, "loss": part_loss}[args.part](args)
    if args.part == "loss" and args.estimator == "olct-cv":
        summary_loss(path, loss_results(args.class_weight))
    else:
        {"trees": summary_trees, "risk": summary_risk, "loss": summary_loss}[args.part](path)


if __name__ == "__main__":
    main()
