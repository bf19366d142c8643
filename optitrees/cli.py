"""The ``optitrees`` command: fit any estimator, save and load it, predict, export, write its MIP, run studies.

::

    optitrees fit MODEL (--dataset NAME | --csv FILE | --libsvm FILE) [--PARAM VALUE ...] [--save model.json]
    optitrees predict model.json (--csv FILE | --libsvm FILE | --dataset NAME) [--output predictions.csv]
    optitrees export model.json --format {text,json,sql,lp,mps} [--output FILE] (.lp / .mps need the data)
    optitrees load model.json
    optitrees write MODEL DATA OUTPUT.lp|.mps
    optitrees solvers
    optitrees study CONFIG.toml [--n-jobs N | --dask-workers N | --scheduler ADDRESS]

Every estimator parameter is an option of ``fit`` (``--max-depth 3``, ``--C 10,1``, ``--warm-start tao``),
its default and its description in ``optitrees fit MODEL --help``. A user error (a missing file, an unknown
column, a string column without ``--one-hot``, a wrong output suffix) is one line on stderr and exit code 2.
"""

from __future__ import annotations

import argparse
import ast
import inspect
import json
import re
import sys
import time
import warnings
from pathlib import Path

import numpy as np

__all__ = ["main", "MODELS"]

#: Command-line names of the estimators.
MODELS = {"olct": "OLCTClassifier", "margot": "MARGOTClassifier", "loss-optimal": "LossOptimalTreeClassifier",
          "oct": "OCTClassifier", "octh": "OCTHClassifier", "risk-score": "RiskScoreClassifier",
          "generalized-risk-score": "GeneralizedRiskScoreClassifier", "tao": "TAOClassifier",
          "tmo": "TMOClassifier", "c45": "C45Classifier", "uct-dt": "UCTDTClassifier", "rule-set": "RuleSetClassifier",
          "contextual-tree": "ContextualTreeClassifier", "contextual-tree-regressor": "ContextualTreeRegressor",
          "cart-regressor": "CARTRegressor", "tao-regressor": "TAORegressor",
          "optimal-tree-regressor": "OptimalTreeRegressor"}

#: Parameters a command line cannot give (Python objects).
_NOT_OPTIONS = {"constraints"}


class UserError(Exception):
    """An error of the command's user: printed as one line, exit code 2."""


class _Parser(argparse.ArgumentParser):
    """argparse whose errors are one line on stderr (no usage block) and exit code 2."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message}\n")


def _estimator_class(model: str):
    import optitrees

    if model not in MODELS:
        raise UserError(f"unknown model {model!r}; models: {', '.join(MODELS)}")
    return getattr(optitrees, MODELS[model])


def _parameter_docs(cls) -> dict:
    """``name -> first sentence of its description`` from the class docstring's Parameters section."""
    doc = inspect.getdoc(cls) or ""
    section = doc.split("Parameters\n----------\n", 1)[-1].split("\n\nAttributes\n", 1)[0]
    docs = {}
    for match in re.finditer(r"^(\w+) : ([^\n]*)\n((?:    [^\n]*\n?)*)", section, flags=re.M):
        text = " ".join(line.strip() for line in match.group(3).splitlines()).strip()
        sentence = text.split(". ")[0].rstrip(".")
        docs[match.group(1)] = (match.group(2).strip(), sentence)
    return docs


def parse_value(text: str):
    """A command-line value: a Python literal (``3``, ``0.5``, ``None``, ``(8, 4)``, ``'V0'``), ``true`` /
    ``false``, a comma list of numbers (``10,1``), or else the text itself."""
    lowered = text.strip().lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if lowered == "none":
        return None
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        pass
    if "," in text:
        parts = [p.strip() for p in text.split(",")]
        try:
            return [ast.literal_eval(p) for p in parts]
        except (ValueError, SyntaxError):
            return parts
    return text


def _add_data_options(p):
    src = p.add_argument_group("data (one of)")
    src.add_argument("--dataset", help="a scikit-learn bundled set (breast_cancer, iris, wine, digits, diabetes), "
                                       "or with --manifest one of the manifest's datasets (default: none)")
    src.add_argument("--csv", help="a CSV file with a header row (.gz allowed)")
    src.add_argument("--libsvm", help="a LIBSVM file (plain or .gz)")
    p.add_argument("--manifest", help="a directory with MANIFEST.json (for --dataset)")
    p.add_argument("--target", help="the label column of the CSV (default: the last column)")
    p.add_argument("--one-hot", action="store_true", help="one-hot encode non-numeric columns (default: an error)")


def _load(args):
    from . import datasets

    sources = [s for s in (args.dataset, args.csv, args.libsvm) if s is not None]
    if len(sources) != 1:
        raise UserError("give the data: exactly one of --dataset, --csv or --libsvm")
    return datasets.load(args.dataset, args.csv, args.target, libsvm=args.libsvm,
                         manifest=args.manifest, one_hot=args.one_hot)


def _model_parser(sub, name, help_text, cls):
    """A sub-command whose options are the parameters of ``cls`` (defaults and descriptions in --help)."""
    p = sub.add_parser(name, help=help_text, description=(inspect.getdoc(cls) or "").split("\n")[0].replace("%", "%%"))
    docs = _parameter_docs(cls)
    group = p.add_argument_group(f"{cls.__name__} parameters (Python literals; lists as 10,1)")
    for param, default in cls().get_params(deep=False).items():
        if param in _NOT_OPTIONS:
            continue
        kind, sentence = docs.get(param, ("", ""))
        kind = re.sub(r",?\s*(default=.*|optional)$", "", kind)
        text = f"{sentence + '. ' if sentence else ''}{kind}".strip() + f" (default: {default!r})"
        group.add_argument(f"--{param.replace('_', '-')}", dest=f"param_{param}", type=parse_value, default=default,
                           metavar="VALUE", help=text.replace("%", "%%"))
    return p


def _estimator(args, cls):
    params = {k[len("param_"):]: v for k, v in vars(args).items() if k.startswith("param_")}
    est = cls(**params)
    try:
        est._validate_params()
    except (ValueError, TypeError) as exc:
        message = re.sub(r"The '(\w+)' parameter of", lambda m: f"option --{m.group(1).replace('_', '-')} of",
                         str(exc))
        raise UserError(message) from None
    return est


# ---------------------------------------------------------------- commands
def _fit(args):
    from sklearn.base import is_regressor
    from sklearn.metrics import accuracy_score, balanced_accuracy_score, r2_score
    from sklearn.model_selection import train_test_split

    from .persistence import save_model

    cls = _estimator_class(args.model)
    est = _estimator(args, cls)
    if args.save is not None:
        _check_suffix(args.save, (".json",), "--save")
    X, y = _load(args)
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
    print(f"{type(est).__name__}, {len(Xtr)} training rows, {X.shape[1]} features")
    print(est.export_text())
    print(est.fit_report_)
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
    from .persistence import load_model

    return load_model(path)


def _features_for(est, args):
    """The rows to predict, in the saved model's features (a CSV's target column, if named, is dropped)."""
    import pandas as pd

    from . import datasets

    if args.csv is not None:
        frame = datasets.read_csv_frame(args.csv)
        if args.target is not None:
            if args.target not in frame.columns:
                raise UserError(f"{args.csv} has no column {args.target!r}")
            frame = frame.drop(columns=[args.target])
    else:
        frame, _ = _load(args)
    names = getattr(est, "feature_names_in_", None)
    if names is None:
        if frame.shape[1] != est.n_features_in_:
            raise UserError(f"the model takes {est.n_features_in_} features, the data has {frame.shape[1]} columns")
        return frame.to_numpy(float)
    text = [c for c in frame.columns if not pd.api.types.is_numeric_dtype(frame[c])]
    if text:
        frame = pd.get_dummies(frame, columns=text, dtype=float)     # as --one-hot encoded the training data
    missing = [n for n in names if n not in frame.columns]
    encoded = [n for n in missing if any(n.startswith(f"{c}_") for c in text)]
    if len(missing) > len(encoded):
        absent = [n for n in missing if n not in encoded]
        raise UserError(f"the data has no column {absent[0]!r} the model uses"
                        + (f" ({len(absent) - 1} more missing)" if len(absent) > 1 else ""))
    return frame.reindex(columns=list(names), fill_value=0.0)


def _predict(args):
    import pandas as pd

    est = _saved(args.model_file)
    X = _features_for(est, args)
    out = pd.DataFrame({"prediction": est.predict(X)})
    if args.output is None:
        out.to_csv(sys.stdout, index=False)
    else:
        _check_suffix(args.output, (".csv",), "--output")
        out.to_csv(args.output, index=False)
        print(f"wrote {len(out)} predictions to {args.output}")
    return 0


def _export(args):
    from . import export

    est = _saved(args.model_file)
    fmt = args.format
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
        text = est.export_sql() if hasattr(est, "export_sql") else export.export_sql(est)
    if args.output is None:
        print(text)
    else:
        _check_suffix(args.output, {"text": (".txt",), "json": (".json",), "sql": (".sql",)}[fmt], "--output")
        Path(args.output).write_text(text + "\n")
        print(f"wrote {args.output}")
    return 0


def _load_command(args):
    est = _saved(args.model_file)
    params = {k: v for k, v in est.get_params(deep=False).items()}
    print(f"{type(est).__name__}({', '.join(f'{k}={v!r}' for k, v in params.items())})")
    print(est.export_text())
    report = getattr(est, "fit_report_", None)
    if report is not None:
        print(report)
    return 0


def _write(args):
    cls = _estimator_class(args.model)
    est = _estimator(args, cls)
    if not hasattr(est, "build_formulation"):
        raise UserError(f"{args.model} is not fitted by a MIP: there is no model to write")
    _check_suffix(args.output, (".lp", ".mps"), "output")
    X, y = _load(args)
    if getattr(est, "_binary", False) and len(np.unique(np.asarray(y))) != 2:
        raise UserError(f"{args.model} needs two classes, found {len(np.unique(np.asarray(y)))}; "
                        "use --model oct or octh")
    f = est.build_formulation(X, y)
    f.write(args.output)
    print(f.summary())
    print(f"wrote {args.output}")
    return 0


def _solvers(_args):
    from .solvers import available
    from .solvers.highs import HighsBackend
    from .solvers.pyomo_backend import PYOMO_SOLVERS, PyomoBackend

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
    from .study import run_config

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


# ---------------------------------------------------------------- entry point
def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="optitrees", description="Interpretable models learned by optimization.",
                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    fit = sub.add_parser("fit", help="fit a model: print it, its fit report and test scores; --save it as JSON")
    models = fit.add_subparsers(dest="model", required=True, metavar="MODEL", parser_class=_Parser)
    write = sub.add_parser("write", help="write the MIP a model's fit would solve to .lp or .mps")
    write_models = write.add_subparsers(dest="model", required=True, metavar="MODEL", parser_class=_Parser)
    for name in MODELS:
        cls = _estimator_class(name)
        p = _model_parser(models, name, cls.__name__, cls)
        _add_data_options(p)
        p.add_argument("--test-size", type=float, default=0.2, help="share of rows held out (0: fit on all; default: 0.2)")
        p.add_argument("--seed", type=int, default=0, help="seed of the train / test split (default: 0)")
        p.add_argument("--save", help="save the fitted model as JSON to this file (default: not saved)")
        p.set_defaults(func=_fit)
        if hasattr(cls, "build_formulation"):
            p = _model_parser(write_models, name, cls.__name__, cls)
            _add_data_options(p)
            p.add_argument("output", help="file name ending in .lp or .mps")
            p.set_defaults(func=_write)

    p = sub.add_parser("predict", help="predict with a saved model; CSV of predictions to stdout or --output")
    p.add_argument("model_file", help="a model saved by fit --save")
    _add_data_options(p)
    p.add_argument("--output", help="write the predictions to this .csv file (default: stdout)")
    p.set_defaults(func=_predict)

    p = sub.add_parser("export", help="a saved model as text, JSON, SQL, or its MIP as .lp / .mps")
    p.add_argument("model_file", help="a model saved by fit --save")
    p.add_argument("--format", choices=("text", "json", "sql", "lp", "mps"), default="text",
                   help="text, json (the model as a dict), sql (one expression), lp / mps (needs the data)")
    p.add_argument("--output", help="the file to write (default: stdout; required for lp / mps)")
    _add_data_options(p)
    p.set_defaults(func=_export)

    p = sub.add_parser("load", help="load a saved model and print it with its fit report")
    p.add_argument("model_file", help="a model saved by fit --save")
    p.set_defaults(func=_load_command)

    p = sub.add_parser("solvers", help="the solvers optitrees can use, installed or not, with versions")
    p.set_defaults(func=_solvers)

    p = sub.add_parser("study", help="run a study (datasets x seeds x models x grids) from a TOML file")
    p.add_argument("config", help="the study's TOML file (see optitrees.study)")
    p.add_argument("--n-jobs", type=int, default=1, help="parallel fits on this machine (default: 1)")
    p.add_argument("--dask-workers", type=int, help="run on a Dask LocalCluster of this many one-thread workers "
                                                   "(default: no cluster)")
    p.add_argument("--scheduler", help="run on the Dask cluster of this scheduler address, e.g. tcp://host:8786 "
                                       "(default: no cluster)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=_study)
    return parser


def main(argv=None) -> int:
    """Entry point of the ``optitrees`` command; returns the exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    from .datasets import DataFileError
    from .persistence import ModelFormatError

    try:
        args = _parser().parse_args(argv)
        return args.func(args)
    except (UserError, DataFileError, ModelFormatError, FileNotFoundError, IsADirectoryError,
            PermissionError) as exc:
        print(f"optitrees: error: {exc}", file=sys.stderr)
        return 2
    except ValueError as exc:                     # an estimator's own check of the data or its parameters
        print(f"optitrees: error: {str(exc).splitlines()[0]}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
