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

What JSON cannot hold is listed under ``"not_saved``" with its type and left
out of the loaded estimator: the scikit-learn forests some estimators keep
beside their model (``forest_``, ``cart_``: their rules and trees are saved,
and prediction does not use the forests) and a user's ``constraints`` hook (a
Python callable; the loaded estimator has ``constraints=None``).

**Loading an untrusted file is safe by construction.** A file can name only the
classes of an allow-list (:mod:`optitrees.persistence._allowed`: the estimators
of the registry, nine model classes, seven enums), looked up by their whole saved
name, never by walking a module's attributes. Every field is read against its
class's schema (type, dtype, dimensions, sizes) before anything is built; a
fitted entry must be a known fitted attribute and cannot hide a method or a
parameter; nesting, string and array sizes are bounded (:class:`Limits`).
Finally the loaded model predicts two rows; a model that cannot is refused.
Whatever is wrong with a file, the error is :class:`ModelFormatError`.

A scikit-learn ``Pipeline`` ending in an optitrees estimator saves too: the
estimator as above, the steps before it by skops (:mod:`._pipeline`), read back
trusting only scikit-learn's own types. With ``set_output(transform="pandas")``
on the pipeline, the estimator sees (and prints) the transformers' column names.

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

import io
import json
import os
import tempfile
import warnings
from pathlib import Path

import numpy as np

from .._version import __version__
from ..estimators._consistency import check_consistent
from ._allowed import ESTIMATOR_CLASSES, _lookup, qualified, read_estimator, without_paths
from ._pipeline import is_pipeline, preprocessing_entry, read_pipeline, split_pipeline
from ._schema import STR, DictOf, Limits, ModelFormatError, Reader
from ._writer import NotJSON, encode

__all__ = ["FORMAT", "FORMAT_VERSION", "ModelFormatError", "Limits", "save_model", "load_model", "to_json_dict",
           "from_json_dict"]

#: The ``"format"`` entry of every saved model.
FORMAT = "optitrees-model"
#: The version of the document layout this library writes; it reads this version and older ones.
FORMAT_VERSION = 2

_DOCUMENT_KEYS = {"format", "version", "optitrees", "estimator", "params", "fitted", "not_saved", "pipeline"}


def to_json_dict(estimator) -> dict:
    """The JSON document of a fitted optitrees estimator, or of a fitted ``Pipeline`` ending in one (what
    :func:`save_model` writes)."""
    from sklearn.utils.validation import check_is_fitted

    if is_pipeline(estimator):
        before, name, last = split_pipeline(estimator)
        if qualified(type(last)) not in ESTIMATOR_CLASSES:
            raise TypeError(f"save_model takes a Pipeline ending in an optitrees estimator, got one ending in "
                            f"{type(last).__name__}")
        return dict(to_json_dict(last), pipeline=preprocessing_entry(before, name))
    if qualified(type(estimator)) not in ESTIMATOR_CLASSES:
        raise TypeError(f"save_model takes a fitted optitrees estimator, got {type(estimator).__name__}")
    check_is_fitted(estimator)
    params = estimator.get_params(deep=False)
    saved_params, fitted, not_saved = {}, {}, {}
    for name, value in params.items():
        if name == "solver_options":              # options naming files stay out: a loaded model's fit writes none
            value, dropped = without_paths(value)
        else:
            dropped = []
        for key in dropped:
            not_saved[f"params.{name}.{key}"] = "a file or folder name (a loaded model's fit does not write there)"
        try:
            saved_params[name] = encode(value)
        except NotJSON as exc:
            not_saved[f"params.{name}"] = str(exc) if value is not None else "None"
    for name, value in vars(estimator).items():
        if name in params or name.startswith("_"):
            continue
        try:
            fitted[name] = encode(value)
        except NotJSON as exc:
            not_saved[name] = str(exc)
    return {"format": FORMAT, "version": FORMAT_VERSION, "optitrees": __version__,
            "estimator": qualified(type(estimator)), "params": saved_params, "fitted": fitted,
            "not_saved": not_saved}


def _probe(estimator, reader: Reader) -> None:
    """Refuse a model whose parts disagree (:func:`~optitrees.estimators._consistency.check_consistent`) or that
    cannot predict two rows of its own width (zeros, then ones), or whose probabilities on them are not
    probabilities of its classes."""
    n = getattr(estimator, "n_features_in_", None)
    if not (isinstance(n, int) and 1 <= n <= 10_000_000):
        reader.fail("fitted.n_features_in_", f"expected a number of features from 1, found {n!r}")
    names = getattr(estimator, "feature_names_in_", None)
    if names is not None and (names.shape != (n,) or not all(isinstance(v, str) for v in names)):
        reader.fail("fitted.feature_names_in_", f"expected {n} feature names")
    try:
        check_consistent(estimator)
    except (ValueError, TypeError, AttributeError) as exc:
        reader.fail("the model", f"its parts disagree: {exc}")
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            predicted = estimator.predict(np.vstack([np.zeros(n), np.ones(n)]))
        if len(predicted) != 2:
            raise ValueError(f"{len(predicted)} predictions for 2 rows")
        if hasattr(estimator, "predict_proba") and getattr(estimator, "classes_", None) is not None:
            _check_probabilities(estimator, np.vstack([np.zeros(n), np.ones(n)]))
    except Exception as exc:                 # whatever fails, the file holds no model that predicts
        reader.fail("the model", f"it cannot predict ({type(exc).__name__}: {exc})")


def _check_probabilities(estimator, rows) -> None:
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            p = np.asarray(estimator.predict_proba(rows), float)
    except AttributeError:                     # a model without probabilities (linear leaves of scores)
        return
    k = len(estimator.classes_)
    if p.shape != (len(rows), k):
        raise ValueError(f"probabilities of shape {p.shape} for {len(rows)} rows and {k} classes")
    if not (np.all(np.isfinite(p)) and p.min() >= 0 and p.max() <= 1 and np.allclose(p.sum(axis=1), 1.0)):
        raise ValueError("probabilities outside [0, 1] or not summing to 1")


def from_json_dict(document: dict, source: str = "the document", limits: Limits = Limits(),
                   file_size: int | None = None):
    """The estimator (or ``Pipeline``) of a :func:`to_json_dict` document (``source`` names it in errors; the
    arrays it builds may take the memory of a file of ``file_size`` bytes, :class:`Limits`).

    Raises
    ------
    ModelFormatError
        Whatever is wrong with the document.
    """
    reader = Reader(source, limits, file_size)
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise ModelFormatError(f"{source} is not a saved optitrees model (no \"format\": \"{FORMAT}\" entry)")
    version = document.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise ModelFormatError(f"{source} has no valid format version: {version!r}")
    if version > FORMAT_VERSION:
        raise ModelFormatError(f"{source} was written in model format {version} (by optitrees "
                               f"{str(document.get('optitrees', '?'))[:40]}); this optitrees reads format "
                               f"{FORMAT_VERSION} and older: upgrade optitrees to load it")
    for key in ("estimator", "params", "fitted"):
        if key not in document:
            raise ModelFormatError(f"{source} has no {key!r} entry")
    unknown = set(document) - _DOCUMENT_KEYS
    if unknown:
        reader.fail("the document", f"unknown entries {sorted(unknown)}")
    DictOf(STR, STR).read(document.get("not_saved", {}), reader, "not_saved", 0)
    cls = _lookup(ESTIMATOR_CLASSES, document["estimator"], reader, "estimator", "an estimator")
    estimator = read_estimator(cls, document["params"], document["fitted"], reader, cls.__name__, 0)
    _probe(estimator, reader)
    if "pipeline" in document:
        return read_pipeline(document["pipeline"], estimator, source, reader.budget)
    return estimator


def save_model(estimator, file) -> None:
    """Write a fitted estimator, or a fitted ``Pipeline`` ending in one, as JSON to ``file`` (a path or a text
    file object).

    Raises
    ------
    TypeError
        Not an optitrees estimator (or a Pipeline ending in one). ``sklearn.exceptions.NotFittedError``: not fitted.
    """
    document = to_json_dict(estimator)
    if not isinstance(file, (str, Path)):
        json.dump(document, file, allow_nan=False)
        return
    path = Path(file)
    if path.parent and not path.parent.exists():
        raise FileNotFoundError(f"cannot write {path}: its folder {path.parent} does not exist")
    # a temporary file beside the target, renamed over it once complete: a save killed half-way leaves the old
    # model (or no file), never half a model
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent or ".")
    try:
        # the permissions the model had, or those of a new file (mkstemp's are the owner's alone)
        os.chmod(temporary, path.stat().st_mode & 0o7777 if path.exists() else 0o644)
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump(document, out, allow_nan=False)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _read_text(file, source: str, limits: Limits) -> str:
    # never more than the limit is read, whatever the file's size claims (/proc files claim 0, a FIFO none)
    if isinstance(file, (str, Path)):
        if not Path(file).is_file():
            raise ModelFormatError(f"{source} is not a regular file")
        try:
            with open(file, "rb") as src:
                raw = src.read(limits.file_bytes + 1)
        except OSError as exc:
            raise ModelFormatError(f"{source} cannot be read: {exc.strerror or exc}") from None
    elif isinstance(file, (bytes, bytearray)):
        raw = bytes(file)
    else:
        raw = file.read(limits.file_bytes + 1)
    if len(raw) > limits.file_bytes:
        raise ModelFormatError(f"{source} is larger than {limits.file_bytes:,} bytes: not a model file")
    if isinstance(raw, str):
        return raw
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ModelFormatError(f"{source} is not UTF-8 text (a byte {exc.object[exc.start]:#04x} at "
                               f"{exc.start}): not a model file") from None


def load_model(file, limits: Limits = Limits()):
    """The estimator saved by :func:`save_model` in ``file`` (a path, a text or binary file object, or bytes).

    Raises
    ------
    FileNotFoundError
        No such file.
    ModelFormatError
        Not JSON, not a saved model, malformed in any way, or written in a newer format than this library reads.
    """
    source = str(file) if isinstance(file, (str, Path)) else getattr(file, "name", "the file")
    if isinstance(file, (str, Path)) and not Path(file).exists():
        raise FileNotFoundError(f"no such file: {file}")
    text = _read_text(file, source, limits)
    _check_parse_cost(text, source, limits)
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ModelFormatError(f"{source} is not JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}") from None
    except RecursionError:
        raise ModelFormatError(f"{source}: values nested too deep for a model file") from None
    except ValueError as exc:                 # e.g. an integer beyond Python's digit limit
        raise ModelFormatError(f"{source} is not a model file: {exc}") from None
    return from_json_dict(document, source, limits, file_size=len(text))


def _check_parse_cost(text: str, source: str, limits: Limits) -> None:
    """Refuse a text whose JSON values would take more memory than its size allows, before parsing it: every ``{``
    or ``[`` counts as a container (72 bytes with its pointer), every pair of quotes as a string (56 bytes), every
    comma as an item (32 bytes: a float and its pointer), every character 4 bytes (a string of astral characters);
    characters inside strings count too, so the estimate only errs high."""
    containers = text.count("{") + text.count("[")
    estimate = 72 * containers + 56 * (text.count('"') // 2) + 32 * (text.count(",") + containers) + 4 * len(text)
    budget = limits.memory_budget(len(text))
    if estimate > budget:
        raise ModelFormatError(f"{source}: its JSON values would take about {estimate:,} bytes, more than the "
                               f"{budget:,} a file of {len(text):,} characters may take to load "
                               "(Limits.memory_per_byte): not a model file")
