"""Fitted estimators saved as JSON and loaded back, without pickle.

:func:`save_model` writes one JSON document: the format's name and version,
the optitrees version that wrote it, the estimator's class and parameters, and
every fitted attribute it can express in JSON. Numbers keep their exact float
values (JSON's shortest round-trip text; the positions of ``nan`` and infinities listed beside an array);
arrays keep their dtype and shape; the library's own model objects
(:class:`~optitrees.trees.Tree`, :class:`~optitrees.scorecard.ScoreCard`,
:class:`~optitrees.rule_set.RuleSet`, fit reports, policy networks ...) are
written field by field. :func:`load_model` rebuilds an estimator that predicts
exactly as the saved one did.

What JSON cannot hold is listed under ``"not_saved"`` with its type and left
out of the loaded estimator: the scikit-learn forests some estimators keep
beside their model (``forest_``, ``cart_``: their rules and trees are saved,
and prediction does not use the forests) and a user's ``constraints`` hook (a
Python callable; the loaded estimator has ``constraints=None``). Only classes
of optitrees are rebuilt from a file, with their fields set directly (no
constructor or other code runs), so loading an untrusted file runs no code of
its choosing.

>>> import io
>>> from sklearn.datasets import load_iris
>>> from optitrees import TAOClassifier
>>> from optitrees.persistence import save_model, load_model
>>> X, y = load_iris(return_X_y=True)
>>> clf = TAOClassifier(max_depth=2, random_state=0).fit(X, y)
>>> buffer = io.StringIO()
>>> save_model(clf, buffer)
>>> _ = buffer.seek(0)
>>> bool((load_model(buffer).predict(X) == clf.predict(X)).all())
True
"""

from __future__ import annotations

import dataclasses
import enum
import importlib
import io
import json
from pathlib import Path

import numpy as np

__all__ = ["FORMAT", "FORMAT_VERSION", "ModelFormatError", "save_model", "load_model", "to_json_dict",
           "from_json_dict"]

#: The ``"format"`` entry of every saved model.
FORMAT = "optitrees-model"
#: The version of the document layout this library writes; it reads this version and older ones.
FORMAT_VERSION = 1

_ROOT = "optitrees"


class ModelFormatError(ValueError):
    """A file is not a saved optitrees model, or was written by a newer format than this library reads."""


class _NotJSON(Exception):
    """A value JSON cannot hold (its type is reported under ``not_saved``)."""


# ------------------------------------------------------------------ values
def _float(x: float):
    x = float(x)
    if np.isfinite(x):
        return x
    return {"__float__": "nan" if np.isnan(x) else ("inf" if x > 0 else "-inf")}


def _own_class(cls) -> bool:
    return cls.__module__ == _ROOT or cls.__module__.startswith(_ROOT + ".")


def _encode(value):
    """A JSON value for ``value``; raises :class:`_NotJSON` for what has no JSON form here."""
    if isinstance(value, enum.Enum):          # before str: the library's text enums are strings too
        if not _own_class(type(value)):
            raise _NotJSON(type(value).__name__)
        return {"__enum__": _qualified(type(value)), "value": _encode(value.value)}
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, np.integer)) and not isinstance(value, np.bool_):
        return int(value)
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, (float, np.floating)):
        return _float(value)
    if isinstance(value, np.ndarray):
        if value.dtype == object:
            return {"__ndarray__": [_encode(v) for v in value.ravel().tolist()], "dtype": "object",
                    "shape": list(value.shape)}
        if value.dtype.kind not in "biuf":
            if value.dtype.kind == "U":
                return {"__ndarray__": value.ravel().tolist(), "dtype": value.dtype.str, "shape": list(value.shape)}
            raise _NotJSON(f"ndarray of {value.dtype}")
        out = {"__ndarray__": value.ravel().tolist(), "dtype": value.dtype.str, "shape": list(value.shape)}
        if value.dtype.kind == "f" and not np.all(np.isfinite(value)):
            # JSON has no nan / inf: those entries are null, their flat positions listed by kind
            flat = value.ravel()
            for kind, mask in (("nan", np.isnan(flat)), ("inf", flat == np.inf), ("-inf", flat == -np.inf)):
                where = np.flatnonzero(mask)
                if where.size:
                    out[kind] = where.tolist()
            out["__ndarray__"] = np.where(np.isfinite(flat), flat, 0.0).tolist()
        return out
    if isinstance(value, tuple):
        return {"__tuple__": [_encode(v) for v in value]}
    if isinstance(value, list):
        return [_encode(v) for v in value]
    if isinstance(value, dict):
        if all(isinstance(k, str) for k in value):
            if any(k.startswith("__") for k in value):
                return {"__dict__": [[k, _encode(v)] for k, v in value.items()]}
            return {k: _encode(v) for k, v in value.items()}
        return {"__dict__": [[_encode(k), _encode(v)] for k, v in value.items()]}
    if isinstance(value, np.random.Generator):
        return {"__generator__": type(value.bit_generator).__name__, "state": _encode(value.bit_generator.state)}
    cls = type(value)
    if _own_class(cls) and (dataclasses.is_dataclass(value) or hasattr(value, "__dict__")):
        fields = ({f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
                  if dataclasses.is_dataclass(value) else dict(vars(value)))
        return {"__object__": _qualified(cls), "fields": {k: _encode(v) for k, v in fields.items()}}
    raise _NotJSON(f"{cls.__module__}.{cls.__qualname__}")


def _qualified(cls) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


# modules of saved classes that have since moved (files written before the move still load)
_MOVED_MODULES = {
    "optitrees.algorithms.policy_network": "optitrees.algorithms.contextual.policy_network",
    "optitrees.algorithms.contextual_bandit": "optitrees.algorithms.contextual.bandit",
    "optitrees.algorithms.risk_search": "optitrees.algorithms.risk_scores.beam_search",
    "optitrees.algorithms.regression_pruning": "optitrees.algorithms.regression.t_test_pruning",
    "optitrees.algorithms.uct_dt": "optitrees.algorithms.uct_dt.tree_search",
    "optitrees.algorithms.c45": "optitrees.algorithms.c45.induction",
}


def _own(qualified: str):
    """The optitrees class named ``module:QualName`` (nothing outside the library is imported); a module
    that has moved is read at its new place (:data:`_MOVED_MODULES`)."""
    module, _, name = qualified.partition(":")
    module = _MOVED_MODULES.get(module, module)
    if not (module == _ROOT or module.startswith(_ROOT + ".")):
        raise ModelFormatError(f"the file names a class outside optitrees: {qualified!r}")
    try:
        obj = importlib.import_module(module)
        for part in name.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError) as exc:
        raise ModelFormatError(f"this optitrees has no class {qualified!r} ({exc})") from None
    if not isinstance(obj, type):
        raise ModelFormatError(f"{qualified!r} is not a class")
    return obj


def _decode(value):
    if isinstance(value, list):
        return [_decode(v) for v in value]
    if not isinstance(value, dict):
        return value
    if "__float__" in value:
        return float(value["__float__"])
    if "__ndarray__" in value:
        dtype = value["dtype"]
        items = value["__ndarray__"]
        if dtype == "object":
            arr = np.empty(len(items), dtype=object)
            arr[:] = [_decode(v) for v in items]
            return arr.reshape(value["shape"])
        arr = np.array(items, dtype=np.dtype(dtype))
        for kind, number in (("nan", np.nan), ("inf", np.inf), ("-inf", -np.inf)):
            if kind in value:
                arr[np.asarray(value[kind], np.int64)] = number
        return arr.reshape(value["shape"])
    if "__tuple__" in value:
        return tuple(_decode(v) for v in value["__tuple__"])
    if "__dict__" in value:
        return {_decode(k): _decode(v) for k, v in value["__dict__"]}
    if "__enum__" in value:
        return _own(value["__enum__"])(_decode(value["value"]))
    if "__generator__" in value:
        bit_generator = getattr(np.random, value["__generator__"], None)
        if not (isinstance(bit_generator, type) and issubclass(bit_generator, np.random.BitGenerator)):
            raise ModelFormatError(f"unknown random bit generator {value['__generator__']!r}")
        gen = bit_generator()
        gen.state = _decode(value["state"])
        return np.random.Generator(gen)
    if "__object__" in value:
        cls = _own(value["__object__"])
        obj = cls.__new__(cls)
        for name, field in value["fields"].items():
            object.__setattr__(obj, name, _decode(field))
        return obj
    return {k: _decode(v) for k, v in value.items()}


# ------------------------------------------------------------------ estimators
def to_json_dict(estimator) -> dict:
    """The JSON document of a fitted optitrees estimator (what :func:`save_model` writes)."""
    from sklearn.utils.validation import check_is_fitted

    from . import __version__
    from .estimators._base import OptitreesEstimator

    if not isinstance(estimator, OptitreesEstimator):
        raise TypeError(f"save_model takes a fitted optitrees estimator, got {type(estimator).__name__}")
    check_is_fitted(estimator)
    params = estimator.get_params(deep=False)
    saved_params, fitted, not_saved = {}, {}, {}
    for name, value in params.items():
        try:
            saved_params[name] = _encode(value)
        except _NotJSON as exc:
            not_saved[f"params.{name}"] = str(exc) if value is not None else "None"
    for name, value in vars(estimator).items():
        if name in params or name.startswith("__"):
            continue
        try:
            fitted[name] = _encode(value)
        except _NotJSON as exc:
            not_saved[name] = str(exc)
    return {"format": FORMAT, "version": FORMAT_VERSION, "optitrees": __version__,
            "estimator": _qualified(type(estimator)), "params": saved_params, "fitted": fitted,
            "not_saved": not_saved}


def from_json_dict(document: dict, source: str = "the document"):
    """The estimator of a :func:`to_json_dict` document (``source`` names it in errors)."""
    from .estimators._base import OptitreesEstimator

    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise ModelFormatError(f"{source} is not a saved optitrees model (no \"format\": \"{FORMAT}\" entry)")
    version = document.get("version")
    if not isinstance(version, int) or version < 1:
        raise ModelFormatError(f"{source} has no valid format version: {version!r}")
    if version > FORMAT_VERSION:
        raise ModelFormatError(f"{source} was written in model format {version} (by optitrees "
                               f"{document.get('optitrees', '?')}); this optitrees reads format {FORMAT_VERSION} "
                               "and older: upgrade optitrees to load it")
    for key in ("estimator", "params", "fitted"):
        if key not in document:
            raise ModelFormatError(f"{source} has no {key!r} entry")
    cls = _own(document["estimator"])
    if not issubclass(cls, OptitreesEstimator):
        raise ModelFormatError(f"{document['estimator']!r} is not an optitrees estimator")
    params = {k: _decode(v) for k, v in document["params"].items()}
    unknown = set(params) - set(cls().get_params(deep=False))
    if unknown:
        raise ModelFormatError(f"{source}: {cls.__name__} has no parameters {sorted(unknown)}")
    estimator = cls(**params)
    for name, value in document["fitted"].items():
        setattr(estimator, name, _decode(value))
    return estimator


def save_model(estimator, file) -> None:
    """Write a fitted estimator as JSON to ``file`` (a path or a text file object).

    Raises
    ------
    TypeError
        Not an optitrees estimator. ``sklearn.exceptions.NotFittedError``: not fitted.
    """
    document = to_json_dict(estimator)
    if isinstance(file, (str, Path)):
        path = Path(file)
        if path.parent and not path.parent.exists():
            raise FileNotFoundError(f"cannot write {path}: its folder {path.parent} does not exist")
        with open(path, "w", encoding="utf-8") as out:
            json.dump(document, out, allow_nan=False)
    else:
        json.dump(document, file, allow_nan=False)


def load_model(file):
    """The estimator saved by :func:`save_model` in ``file`` (a path or a text file object).

    Raises
    ------
    FileNotFoundError
        No such file.
    ModelFormatError
        Not JSON, not a saved model, or written in a newer format than this library reads.
    """
    source = str(file) if isinstance(file, (str, Path)) else getattr(file, "name", "the file")
    if isinstance(file, (str, Path)) and not Path(file).is_file():
        raise FileNotFoundError(f"no such file: {file}")
    try:
        if isinstance(file, (str, Path)):
            with open(file, encoding="utf-8") as src:
                document = json.load(src)
        else:
            document = json.load(file if not isinstance(file, (bytes, bytearray)) else io.BytesIO(file))
    except json.JSONDecodeError as exc:
        raise ModelFormatError(f"{source} is not JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}") from None
    return from_json_dict(document, source)
