"""A scikit-learn ``Pipeline`` ending in an optitrees estimator, saved without pickle.

The estimator is written as any model file (:mod:`optitrees.persistence`). The steps before it (imputers,
scalers, encoders, column transformers ...) are written by skops (``skops.io``, a safe format for scikit-learn
objects), base64-encoded under ``"pipeline"``, and read back trusting only skops's own list of scikit-learn
types (and ``numpy.dtype``): a step of any other type is refused by name, never built.
"""

from __future__ import annotations

import base64
import binascii
import io
import zipfile

from ._schema import ModelFormatError

__all__ = ["is_pipeline", "split_pipeline", "preprocessing_entry", "read_pipeline"]

#: types trusted beyond skops's defaults: numpy's dtype objects (skops 0.16 lists them as untrusted)
_ALSO_TRUSTED = ["numpy.dtype"]


def is_pipeline(obj) -> bool:
    from sklearn.pipeline import Pipeline

    return isinstance(obj, Pipeline)


def split_pipeline(pipeline):
    """``(steps before the estimator as a Pipeline or None, the estimator's step name, the estimator)``."""
    from sklearn.pipeline import Pipeline

    steps = pipeline.steps
    name, last = steps[-1]
    return (Pipeline(steps[:-1]) if len(steps) > 1 else None), name, last


def preprocessing_entry(before, name: str) -> dict:
    """The ``"pipeline"`` entry of a model file: the final step's name and the steps before it (skops)."""
    import skops.io as sio

    entry = {"final_step": name, "format": "skops"}
    if before is not None:
        entry["steps"] = base64.b64encode(sio.dumps(before)).decode("ascii")
    return entry


def _check_archive_size(raw: bytes, source: str, budget: int) -> None:
    """Refuse a skops archive (a zip) whose members unpack to more than ``budget`` bytes, before skops reads it
    (zipfile reads a member no further than its declared size, so the declared sizes bound the unpacking)."""
    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as archive:
            unpacked = sum(info.file_size for info in archive.infolist())
    except (zipfile.BadZipFile, ValueError, OSError) as exc:
        raise ModelFormatError(f"{source}: the pipeline's steps are not a skops archive ({exc})") from None
    if unpacked > budget:
        raise ModelFormatError(f"{source}: the pipeline's steps unpack to {unpacked:,} bytes, more than the "
                               f"{budget:,} the file may take to load (Limits.memory_per_byte)")


def read_pipeline(entry, estimator, source: str, budget: int):
    """The Pipeline of a ``"pipeline"`` entry with ``estimator`` as its last step; its skops archive may unpack to
    at most ``budget`` bytes."""
    from sklearn.pipeline import Pipeline

    if not (isinstance(entry, dict) and entry.get("format") == "skops" and isinstance(entry.get("final_step"), str)
            and set(entry) <= {"final_step", "format", "steps"}):
        raise ModelFormatError(f"{source}: the 'pipeline' entry is not one optitrees writes")
    if "steps" not in entry:
        return Pipeline([(entry["final_step"], estimator)])
    import skops.io as sio

    try:
        raw = base64.b64decode(entry["steps"], validate=True) if isinstance(entry["steps"], str) else None
    except (binascii.Error, ValueError):
        raw = None
    if raw is None:
        raise ModelFormatError(f"{source}: the pipeline's steps are not base64 text")
    _check_archive_size(raw, source, budget)
    try:
        untrusted = [t for t in sio.get_untrusted_types(data=raw) if t not in _ALSO_TRUSTED]
    except Exception as exc:                  # skops's own reading of a malformed archive
        raise ModelFormatError(f"{source}: the pipeline's steps are not a skops archive ({exc})") from None
    if untrusted:
        raise ModelFormatError(f"{source}: the pipeline's steps hold types outside scikit-learn's trusted ones: "
                               f"{', '.join(untrusted[:5])}")
    try:
        before = sio.loads(raw, trusted=_ALSO_TRUSTED)
    except Exception as exc:
        raise ModelFormatError(f"{source}: the pipeline's steps do not load ({type(exc).__name__}: {exc})") from None
    if not isinstance(before, Pipeline):
        raise ModelFormatError(f"{source}: the pipeline's steps are not a Pipeline")
    _check_steps(before, source)
    return Pipeline([*before.steps, (entry["final_step"], estimator)])


def _estimators_in(obj):
    """``obj`` and every estimator among its parameters, at any depth (a ColumnTransformer's transformers ...)."""
    from sklearn.base import BaseEstimator

    yield obj
    for value in obj.get_params(deep=True).values():
        if isinstance(value, BaseEstimator):
            yield value


def _check_steps(pipeline, source: str) -> None:
    """Refuse steps that are not what their type says: an instance attribute hiding a method of the class (a
    trusted function planted as a scaler's ``transform``) or a ``memory`` that would make a later fit write a
    cache to a folder."""
    for step in _estimators_in(pipeline):
        cls = type(step)
        hidden = sorted(name for name in vars(step) if callable(getattr(cls, name, None)))
        if hidden:
            raise ModelFormatError(f"{source}: the pipeline's {cls.__name__} has attributes {hidden} hiding its own "
                                   "methods")
        if getattr(step, "memory", None) is not None:
            raise ModelFormatError(f"{source}: the pipeline's {cls.__name__} names a cache folder (memory=...): a "
                                   "later fit would write there")
