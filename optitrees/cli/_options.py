"""The options of ``optitrees``: the estimators by command-line name, their parameters as options (defaults and
descriptions from their docstrings), the data options, and the one-line user error."""

from __future__ import annotations

import ast
import inspect
import re

from ..estimators.registry import ESTIMATORS

__all__ = ["MODELS", "UserError", "parse_value"]

class UserError(Exception):
    """An error of the command's user: printed as one line, exit code 2."""


#: Command-line names of the estimators (the registry's, as class names).
MODELS = {name: cls.__name__ for name, cls in ESTIMATORS.items()}

#: Parameters a command line cannot give (Python objects).
_NOT_OPTIONS = {"constraints"}


def _estimator_class(model: str):
    if model not in ESTIMATORS:
        raise UserError(f"unknown model {model!r}; models: {', '.join(ESTIMATORS)}")
    return ESTIMATORS[model]


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
    p.add_argument("--drop-missing", action="store_true",
                   help="drop the rows that miss a feature (default: keep them; only c45 takes missing values)")
    p.add_argument("--positive", type=lambda text: tuple(t.strip() for t in text.split(",")), metavar="LABELS",
                   help="a binary target: these labels (comma-separated) against the rest (default: the labels)")


def _load(args):
    from .. import datasets

    sources = [s for s in (args.dataset, args.csv, args.libsvm) if s is not None]
    if len(sources) != 1:
        raise UserError("give the data: exactly one of --dataset, --csv or --libsvm")
    X, y = datasets.load(args.dataset, args.csv, args.target, libsvm=args.libsvm, manifest=args.manifest,
                         one_hot=args.one_hot)
    attrs = dict(X.attrs)
    X, y = datasets.select(X, y, getattr(args, "positive", None), getattr(args, "drop_missing", False))
    X.attrs.update(attrs)
    return X, y


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
