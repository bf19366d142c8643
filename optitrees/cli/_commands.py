"""What each ``optitrees`` command does (the parser is in :mod:`optitrees.cli`)."""

from __future__ import annotations

import csv
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np

from ..readable import printable
from ._options import UserError, _estimator, _estimator_class, _load

def _fit(args):
    from sklearn.base import is_regressor
    from sklearn.metrics import accuracy_score, balanced_accuracy_score, r2_score
    from sklearn.model_selection import train_test_split

    from ..persistence import save_model

    cls = _estimator_class(args.model)
    est = _estimator(args, cls)
    if args.save is not None:
        _check_suffix(args.save, (".json",), "--save")
    X, y = _load(args)
    encoding = getattr(X, "attrs", {}).get("one_hot")
    regression = is_regressor(est)
    if args.test_size > 0:
        Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=args.test_size, random_state=args.seed,
                                              stratify=None if regression else y)
    else:
        Xtr, Xte, ytr, yte = X, None, y, None
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # every note is in the fit report printed below
        est.fit(Xtr, ytr)
    elapsed = time.perf_counter() - t0
    if encoding:          # the one-hot columns' raw column and category: SQL is written over the raw table
        est.feature_encoding_ = {n: encoding[n] for n in X.columns if n in encoding}
    print(f"{type(est).__name__}, {len(Xtr)} training rows, {X.shape[1]} features")
    print(printable(f"{est.export_text()}\n{est.fit_report_}", keep_newlines=True))   # the data's names, escaped
    print(f"fit time {elapsed:.1f}s")
    if Xte is not None:
        pred = est.predict(Xte)
        if regression:
            print(f"test R^2: {r2_score(yte, pred):.4f}")
        else:
            print(f"test accuracy: {accuracy_score(yte, pred):.4f}, "
                  f"test balanced accuracy: {balanced_accuracy_score(yte, pred):.4f}")
    if args.save is not None:
        save_model(est, args.save)
        print(f"saved {args.save}")
    return 0


def _check_suffix(path, suffixes, option):
    if not str(path).endswith(suffixes):
        raise UserError(f"{option} {path}: the file name must end in {' or '.join(suffixes)}")
    parent = Path(path).parent
    if not parent.exists():
        raise UserError(f"{option} {path}: the folder {parent} does not exist")


def _saved(path):
    from ..persistence import load_model

    return load_model(path)


def _final(model):
    """``(steps before the estimator, the estimator)`` of a saved Pipeline; ``([], model)`` otherwise."""
    steps = getattr(model, "steps", None)
    return ([] if steps is None else steps[:-1]), (model if steps is None else steps[-1][1])


def _features_for(est, args):
    """The rows to predict, in the saved model's features (a CSV's target column, if named, is dropped)."""
    import pandas as pd

    from .. import datasets

    if args.csv is not None:
        frame = datasets.read_csv_frame(args.csv)
        if args.target is not None:
            if args.target not in frame.columns:
                raise UserError(f"{args.csv} has no column {args.target!r}")
            frame = frame.drop(columns=[args.target])
    else:
        frame, _ = _load(args)
    if _final(est)[0]:                      # a pipeline: its own steps encode the raw columns it names
        names = getattr(est, "feature_names_in_", None)
        if names is None:
            return frame.to_numpy()
        absent = [n for n in names if n not in frame.columns]
        if absent:
            raise UserError(f"the data has no column {absent[0]!r} the pipeline reads")
        return frame[list(names)]
    names = getattr(est, "feature_names_in_", None)
    if names is None:
        if frame.shape[1] != est.n_features_in_:
            raise UserError(f"the model takes {est.n_features_in_} features, the data has {frame.shape[1]} columns")
        return frame.to_numpy(float)
    text = [c for c in frame.columns if not pd.api.types.is_numeric_dtype(frame[c])]
    if text:
        frame = pd.get_dummies(frame, columns=text, dtype=float)     # as --one-hot encoded the training data
    # a one-hot column is 0 where its category is absent from these rows only when the model's own encoding
    # (recorded by fit --one-hot) says which raw text column it came from and that column is here; any other
    # missing column is an error naming it, never a column of zeros
    encoding = getattr(est, "feature_encoding_", None) or {}
    missing = [n for n in names if n not in frame.columns]
    absent = [n for n in missing if not (n in encoding and encoding[n][0] in text)]
    if absent:
        raise UserError(f"the data has no column {printable(absent[0])!r} the model uses"
                        + (f" ({len(absent) - 1} more missing)" if len(absent) > 1 else ""))
    return frame.reindex(columns=list(names), fill_value=0.0)


#: first characters that make a spreadsheet read a cell as a formula (OWASP's list)
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _prediction_table(predictions):
    """The predictions as a one-column table safe to open in a spreadsheet: a text label beginning like a formula
    (``=HYPERLINK(...)``) gets a leading ``'``; returns the table and how many labels were so escaped."""
    import pandas as pd

    values = pd.Series(predictions, name="prediction")
    if pd.api.types.is_numeric_dtype(values) or pd.api.types.is_bool_dtype(values):
        return values.to_frame(), 0
    formula = values.map(lambda v: isinstance(v, str) and v.startswith(_FORMULA_STARTS))
    return values.where(~formula, "'" + values.astype(str)).to_frame(), int(formula.sum())


def _predict(args):
    est = _saved(args.model_file)
    X = _features_for(est, args)
    out, escaped = _prediction_table(est.predict(X))
    # RFC 4180 rows ending in "\r\n": a label holding a comma, a quote, a newline or a carriage return is quoted,
    # so it stays one cell of one row (with rows ending in "\n", a lone "\r" went out unquoted and split a row)
    options = dict(index=False, quoting=csv.QUOTE_MINIMAL, lineterminator="\r\n")
    if args.output is None:
        out.to_csv(sys.stdout, **options)
    else:
        _check_suffix(args.output, (".csv",), "--output")
        out.to_csv(args.output, **options)
        print(f"wrote {len(out)} predictions to {args.output}")
    if escaped:
        print(f"optitrees: note: {escaped} predictions begin like a spreadsheet formula; written with a leading "
              "' so no spreadsheet runs them", file=sys.stderr)
    return 0


def _export(args):
    from .. import export

    before, est = _final(_saved(args.model_file))
    fmt = args.format
    if before and fmt == "sql":
        raise UserError(f"the model's pipeline transforms the columns first ({', '.join(n for n, _ in before)}): "
                        "its SQL would read the transformed columns, not your table's; no SQL is written")
    if before and fmt in ("lp", "mps"):
        raise UserError(f"the model's pipeline transforms the columns first: the .{fmt} of its fit needs the "
                        "transformed data; write it from Python (build_formulation on the transformed X)")
    if fmt in ("lp", "mps"):
        if not hasattr(est, "build_formulation"):
            raise UserError(f"{type(est).__name__} is not fitted by a MIP: there is no .{fmt} to write")
        if args.output is None:
            raise UserError(f"--format {fmt} writes a file: give --output NAME.{fmt}")
        _check_suffix(args.output, (f".{fmt}",), "--output")
        X, y = _load(args)
        f = est.build_formulation(X, y)
        f.write(args.output)
        print(f.summary())
        print(f"wrote {args.output}")
        return 0
    if fmt == "text":
        text = est.export_text()
    elif fmt == "json":
        text = json.dumps(est.to_dict(), indent=2, default=str)
    else:
        text = (est.export_sql(table=args.table) if hasattr(est, "export_sql")
                else export.export_sql(est, table=args.table))
    if args.output is None:
        # a terminal never sees a name raw; piped SQL stays the exact SQL (a label's newline is its literal's)
        print(printable(text, keep_newlines=True) if fmt == "text" or sys.stdout.isatty() else text)
    else:
        _check_suffix(args.output, {"text": (".txt",), "json": (".json",), "sql": (".sql",)}[fmt], "--output")
        Path(args.output).write_text(text + "\n")
        print(f"wrote {args.output}")
    return 0


def _load_command(args):
    before, est = _final(_saved(args.model_file))
    lines = []
    if before:
        lines.append(f"Pipeline: {' -> '.join(type(step).__name__ for _, step in before)} -> {type(est).__name__}")
    params = {k: v for k, v in est.get_params(deep=False).items()}
    lines.append(f"{type(est).__name__}({', '.join(f'{k}={v!r}' for k, v in params.items())})")
    lines.append(est.export_text())
    report = getattr(est, "fit_report_", None)
    if report is not None:
        lines.append(str(report))
    print(printable("\n".join(lines), keep_newlines=True))      # nothing from the file reaches the terminal raw
    return 0


def _write(args):
    cls = _estimator_class(args.model)
    est = _estimator(args, cls)
    if not hasattr(est, "build_formulation"):
        raise UserError(f"{args.model} is not fitted by a MIP: there is no model to write")
    _check_suffix(args.output, (".lp", ".mps"), "output")
    X, y = _load(args)
    if getattr(est, "_binary", False) and len(np.unique(np.asarray(y))) != 2:
        raise UserError(f"{args.model} writes the MIP of two classes, found {len(np.unique(np.asarray(y)))} (a "
                        "multi-class fit solves one MIP per class against the rest); give a binary target, or "
                        "use --model oct or octh")
    f = est.build_formulation(X, y)
    f.write(args.output)
    print(f.summary())
    print(f"wrote {args.output}")
    return 0


def _solvers(_args):
    from ..solvers import available
    from ..solvers.highs import HighsBackend
    from ..solvers.pyomo_backend import PYOMO_SOLVERS, PyomoBackend

    have = available()
    for name, spec in PYOMO_SOLVERS.items():
        if name in have:
            version = HighsBackend.version() if name == "highs" else PyomoBackend(spec).version()
            state = f"available{' ' + version if version else ''}"
        else:
            state = f"missing ({spec.install_hint})"
        print(f"{name:8s} {state}")
    return 0


def _study(args):
    from ..study import run_config

    if args.scheduler is None and args.dask_workers is None:
        table = run_config(args.config, n_jobs=args.n_jobs, progress=not args.quiet)
    else:
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise UserError("a Dask cluster needs dask.distributed: pip install 'optitrees[dask]'") from None
        if args.scheduler is not None:
            with Client(args.scheduler) as client:
                table = run_config(args.config, client=client, progress=not args.quiet)
        else:
            with LocalCluster(n_workers=args.dask_workers, threads_per_worker=1, processes=True,
                              dashboard_address=None) as cluster, Client(cluster) as client:
                table = run_config(args.config, client=client, progress=not args.quiet)
    print(table.to_string(index=False))
    return 0
