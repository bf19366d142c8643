"""Values written as JSON: the form :mod:`optitrees.persistence._schema` reads back."""

from __future__ import annotations

import dataclasses
import enum

import numpy as np

from ._allowed import qualified, saved_class, without_paths

__all__ = ["NotJSON", "encode"]


class NotJSON(Exception):
    """A value a model file cannot hold (its type is reported under ``not_saved``)."""


def _float(x: float):
    x = float(x)
    if np.isfinite(x):
        return x
    return {"__float__": "nan" if np.isnan(x) else ("inf" if x > 0 else "-inf")}


def _array(value: np.ndarray):
    if value.dtype == object:
        return {"__ndarray__": [encode(v) for v in value.ravel().tolist()], "dtype": "object",
                "shape": list(value.shape)}
    if value.dtype.kind not in "biufU":
        raise NotJSON(f"ndarray of {value.dtype}")
    out = {"__ndarray__": value.ravel().tolist(), "dtype": value.dtype.str, "shape": list(value.shape)}
    if value.dtype.kind == "f" and not np.all(np.isfinite(value)):
        # JSON has no nan / inf: those entries are 0, their flat positions listed by kind
        flat = value.ravel()
        for kind, mask in (("nan", np.isnan(flat)), ("inf", flat == np.inf), ("-inf", flat == -np.inf)):
            where = np.flatnonzero(mask)
            if where.size:
                out[kind] = where.tolist()
        out["__ndarray__"] = np.where(np.isfinite(flat), flat, 0.0).tolist()
    return out


def encode(value):
    """A JSON value for ``value``; raises :class:`NotJSON` for what a model file cannot hold (a class outside the
    allow-list of :mod:`optitrees.persistence._allowed` among them)."""
    if isinstance(value, enum.Enum):          # before str: the library's text enums are strings too
        if not saved_class(type(value)):
            raise NotJSON(type(value).__name__)
        return {"__enum__": qualified(type(value)), "value": encode(value.value)}
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, np.integer)) and not isinstance(value, np.bool_):
        return int(value)
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, (float, np.floating)):
        return _float(value)
    if isinstance(value, np.ndarray):
        return _array(value)
    if isinstance(value, tuple):
        return {"__tuple__": [encode(v) for v in value]}
    if isinstance(value, list):
        return [encode(v) for v in value]
    if isinstance(value, dict):
        if all(isinstance(k, str) and not k.startswith("__") for k in value):
            return {k: encode(v) for k, v in value.items()}
        return {"__dict__": [[encode(k), encode(v)] for k, v in value.items()]}
    if isinstance(value, np.random.Generator):
        return {"__generator__": type(value.bit_generator).__name__, "state": encode(value.bit_generator.state)}
    cls = type(value)
    if saved_class(cls):
        fields = ({f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
                  if dataclasses.is_dataclass(value) else dict(vars(value)))
        if "solver_options" in fields and hasattr(value, "get_params"):   # an estimator inside a model
            fields["solver_options"] = without_paths(fields["solver_options"])[0]    # no option naming a file
        return {"__object__": qualified(cls), "fields": {k: encode(v) for k, v in fields.items()}}
    raise NotJSON(f"{cls.__module__}.{cls.__qualname__}")
