"""What a study is: data sources, models with their grids, seeds and the protocol, read from TOML or built in code."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

__all__ = ["DataSource", "ModelSpec", "Study", "load_config"]


@dataclass(frozen=True)
class DataSource:
    """One dataset of a study: a scikit-learn bundled set (``name``), a manifest entry (``name`` and
    ``manifest``), a CSV (``csv``, ``target``) or a LIBSVM file (``libsvm``); loaded where the fit runs.
    ``positive`` makes a binary task of it: those labels against the rest; ``drop_missing`` drops the rows
    with a missing feature."""

    name: str
    csv: str | None = None
    target: str | None = None
    libsvm: str | None = None
    manifest: str | None = None
    one_hot: bool = False
    positive: tuple | None = None
    drop_missing: bool = False

    def load(self):
        """``(X, y)`` as numpy arrays (:func:`optitrees.datasets.load`); with ``positive``, ``y`` is 1 for those
        labels (compared as text, so ``"2"`` matches 2) and 0 for the others."""
        from .. import datasets

        if self.csv is not None:
            X, y = datasets.load(csv=self.csv, target=self.target, one_hot=self.one_hot)
        elif self.libsvm is not None:
            X, y = datasets.load(libsvm=self.libsvm)
        else:
            X, y = datasets.load(self.name, manifest=self.manifest, one_hot=self.one_hot)
        X, y = datasets.select(X, y, self.positive, self.drop_missing)
        return X.to_numpy(float), y.to_numpy()

    def digest(self) -> str:
        """A hash of the data as loaded (features and labels) and of how they were loaded; not of where the
        files lie, so a study's folder can move."""
        X, y = self.load()
        h = hashlib.sha256()
        options = {k: v for k, v in asdict(self).items() if k not in ("csv", "libsvm", "manifest")}
        h.update(json.dumps(options, sort_keys=True, default=str).encode())
        h.update(repr(X.shape).encode())
        h.update(np.ascontiguousarray(X, dtype=np.float64).tobytes())
        # every label as JSON with its type: no separator a label could hold, and 1000 (a number) is not "1e3"
        h.update(json.dumps([[type(v).__name__, v] for v in y.tolist()], default=str).encode())
        return h.hexdigest()


@dataclass(frozen=True)
class ModelSpec:
    """One model of a study: a label, the command-line model name (``optitrees.cli.MODELS``), fixed parameters,
    the grid cross-validated on each training split (``{parameter: [values]}``, empty: no search) and
    whether features are standardized first (a ``StandardScaler`` in a pipeline)."""

    label: str
    model: str
    params: dict = field(default_factory=dict)
    grid: dict = field(default_factory=dict)
    standardize: bool = False

    def estimator(self, seed: int, time_limit=None):
        """The estimator of one fit: ``params``, ``random_state=seed``, one solver thread and ``time_limit``
        where the estimator has these parameters."""
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler

        from ..estimators.registry import ESTIMATORS

        if self.model not in ESTIMATORS:
            raise ValueError(f"model {self.label!r}: unknown model {self.model!r}; models: {', '.join(ESTIMATORS)}")
        cls = ESTIMATORS[self.model]
        if not all(isinstance(v, (list, tuple)) and len(v) for v in self.grid.values()):
            raise ValueError(f"model {self.label!r}: every grid entry must be a non-empty list of values")
        known = cls().get_params(deep=False)
        unknown = sorted((set(self.params) | set(self.grid)) - set(known))
        if unknown:
            raise ValueError(f"model {self.label!r}: {cls.__name__} has no parameters {unknown}")
        params = dict(self.params)
        for name, value in (("random_state", seed), ("threads", 1), ("time_limit", time_limit)):
            if name in known and name not in params and value is not None:
                params[name] = value
        est = cls(**params)
        return make_pipeline(StandardScaler(), est) if self.standardize else est

    def search_grid(self) -> dict:
        """The grid with the names a pipeline needs."""
        if not self.standardize:
            return {k: list(v) for k, v in self.grid.items()}
        return {f"{self._step}__{k}": list(v) for k, v in self.grid.items()}

    @property
    def _step(self) -> str:
        from ..estimators.registry import ESTIMATORS

        return ESTIMATORS[self.model].__name__.lower()


@dataclass(frozen=True)
class Study:
    """A grid of fits: every dataset x seed x model.

    For each seed the data are split once (stratified, ``test_size`` held out); a model with a grid is
    cross-validated on the training part (``cv`` stratified folds, scored by balanced accuracy), refitted on
    the whole training part with the best values, and scored on the test part. ``time_limit`` is given to
    every fit (the folds' and the final one) of estimators that take one.
    """

    datasets: tuple
    models: tuple
    seeds: tuple = (0,)
    test_size: float = 0.25
    cv: int = 3
    time_limit: float | None = None

    def __post_init__(self):
        if not self.datasets or not self.models or not self.seeds:
            raise ValueError("a study needs at least one dataset, one model and one seed")
        if len(set(self.seeds)) != len(self.seeds):
            raise ValueError(f"seeds must be distinct (a seed names a row with the dataset and the model): "
                             f"{list(self.seeds)}")
        labels = [m.label for m in self.models]
        if len(set(labels)) != len(labels):
            raise ValueError(f"model labels must be distinct: {labels}")
        names = [d.name for d in self.datasets]
        if len(set(names)) != len(names):
            raise ValueError(f"dataset names must be distinct: {names}")
        if not 0 < self.test_size < 1:
            raise ValueError(f"test_size must be in (0, 1), got {self.test_size}")
        if self.cv < 2 and any(m.grid for m in self.models):
            raise ValueError(f"a grid needs cv >= 2 folds, got {self.cv}")


def load_config(path) -> tuple[Study, Path]:
    """A study from a TOML file and the CSV its results go to (``results``, default beside the file)::

        [study]
        seeds = [0, 1]
        test_size = 0.25
        cv = 3
        time_limit = 10
        results = "results.csv"

        [[datasets]]
        name = "iris"                                   # or csv = "x.csv", target = "y"; or manifest = "dir"
        positive = ["virginica"]                        # optional: these labels against the rest

        [[models]]
        label = "tao-d2"
        model = "tao"                                   # a model of `optitrees fit`
        params = { max_depth = 2 }
        grid = { alpha = [0.0, 0.01] }
        standardize = false

    Relative paths are read from the TOML file's folder.
    """
    try:
        import tomllib
    except ModuleNotFoundError:        # Python 3.10
        import tomli as tomllib

    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no such file: {path}")
    try:
        config = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{path} is not TOML: {exc}") from None
    base = path.parent
    unknown = set(config) - {"study", "datasets", "models"}
    if unknown:
        raise ValueError(f"{path}: unknown sections {sorted(unknown)} (expected [study], [[datasets]], [[models]])")
    settings = dict(config.get("study", {}))
    results = base / settings.pop("results", path.stem + "_results.csv")

    def resolve(entry, key):
        return str(base / entry[key]) if entry.get(key) is not None else None

    datasets = []
    for entry in config.get("datasets", []):
        name = entry.get("name") or Path(entry.get("csv") or entry.get("libsvm") or "").name
        if not name:
            raise ValueError(f"{path}: a dataset needs a name, a csv or a libsvm entry: {entry}")
        datasets.append(DataSource(name=name, csv=resolve(entry, "csv"), target=entry.get("target"),
                                   libsvm=resolve(entry, "libsvm"), manifest=resolve(entry, "manifest"),
                                   one_hot=bool(entry.get("one_hot", False)),
                                   positive=tuple(entry["positive"]) if "positive" in entry else None,
                                   drop_missing=bool(entry.get("drop_missing", False))))
    models = []
    for entry in config.get("models", []):
        if "model" not in entry:
            raise ValueError(f"{path}: a model needs a 'model' entry (a model of `optitrees fit`): {entry}")
        models.append(ModelSpec(label=entry.get("label", entry["model"]), model=entry["model"],
                                params=dict(entry.get("params", {})), grid=dict(entry.get("grid", {})),
                                standardize=bool(entry.get("standardize", False))))
    try:
        study = Study(datasets=tuple(datasets), models=tuple(models), **{
            k: (tuple(v) if k == "seeds" else v) for k, v in settings.items()})
    except TypeError as exc:
        raise ValueError(f"{path}: [study] {exc}") from None
    return study, results


def params_text(params: dict) -> str:
    """Chosen grid values as compact JSON (a results column)."""
    return json.dumps({k.split("__")[-1]: v for k, v in sorted(params.items())}, default=str)
