"""Constants labelled by index-set names, and the alignment of labelled arrays by set name: what the expressions of
:mod:`optitrees.mip.expressions` are built on."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Data", "as_data", "set_labels", "expand"]


@dataclass(frozen=True, eq=False)
class Data:
    """A constant array labelled by index-set names: ``Data(X, ("I", "J"))``; its axes follow ``dims``."""

    values: np.ndarray
    dims: tuple

    def __post_init__(self):
        values = np.asarray(self.values, float)
        dims = tuple(self.dims)
        if values.ndim != len(dims):
            raise ValueError(f"Data over {dims} needs {len(dims)} axes, got an array of shape {values.shape}")
        if len(set(dims)) != len(dims):
            raise ValueError(f"Data names a set twice: {dims}")
        object.__setattr__(self, "values", values)
        object.__setattr__(self, "dims", dims)

    # arithmetic of constants stays a constant, aligned by set name; with variables it is an Expression's
    def _combine(self, other, op):
        if isinstance(other, Data):
            dims = self.dims + tuple(d for d in other.dims if d not in self.dims)
            sizes = dict(zip(other.dims, other.values.shape)) | dict(zip(self.dims, self.values.shape))
            for d, n in zip(other.dims, other.values.shape):
                if sizes[d] != n:
                    raise ValueError(f"the two constants give {d!r} {sizes[d]} and {n} entries")
            shape = tuple(sizes[d] for d in dims)
            return Data(op(expand(self.values, self.dims, dims, shape), expand(other.values, other.dims, dims, shape)),
                        dims)
        if np.ndim(other) == 0 and not hasattr(other, "dims"):
            return Data(op(self.values, float(other)), self.dims)
        return NotImplemented

    def __add__(self, other):
        return self._combine(other, np.add)

    def __radd__(self, other):
        return self._combine(other, lambda a, b: b + a)

    def __sub__(self, other):
        return self._combine(other, np.subtract)

    def __rsub__(self, other):
        return self._combine(other, lambda a, b: b - a)

    def __mul__(self, other):
        return self._combine(other, np.multiply)

    def __rmul__(self, other):
        return self._combine(other, lambda a, b: b * a)

    def __truediv__(self, other):
        return self._combine(other, np.divide)

    def __neg__(self):
        return Data(-self.values, self.dims)


def as_data(value, sets) -> tuple[tuple, np.ndarray, tuple]:
    """``(dims, values, labels)`` of a constant: a number, :class:`Data` or a pandas object (aligned by label)."""
    import pandas as pd

    if isinstance(value, Data):
        return value.dims, value.values, tuple(set_labels(sets, d, n) for d, n in zip(value.dims, value.values.shape))
    if isinstance(value, (pd.Series, pd.DataFrame)):
        axes = [value.index] + ([value.columns] if isinstance(value, pd.DataFrame) else [])
        dims = tuple(axis.name for axis in axes)
        if any(d is None for d in dims):
            raise ValueError("a pandas constant needs its index (and columns) named after index sets")
        aligned = value
        for axis, d in zip(("index", "columns"), dims):
            if sets is None or d not in sets:
                raise ValueError(f"index set {d!r} of a pandas constant is not declared")
            labels = getattr(aligned, axis)
            missing = [v for v in sets[d] if v not in set(labels)]
            if missing:
                raise ValueError(f"the pandas constant has no value for {d} = {missing[:5]}")
            aligned = aligned.reindex(**{axis: list(sets[d])})
        return dims, aligned.to_numpy(float), tuple(np.asarray(sets[d]) for d in dims)
    if np.ndim(value) == 0:
        return (), np.asarray(float(value)), ()
    raise TypeError(f"a constant must be a number, Data(values, dims) or a pandas object with named axes, got "
                    f"{type(value).__name__} (wrap a numpy array as Data(array, dims))")


def set_labels(sets, dim, size):
    """The labels of ``dim`` (its declared set when there is one of ``size``; positions otherwise)."""
    if sets is not None and dim in sets and len(sets[dim]) == size:
        return np.asarray(sets[dim])
    return np.arange(size)


def expand(values, own, dims, shape, trailing=0):
    """``values`` (axes ``own`` then ``trailing`` more) broadcast to ``dims`` (sizes ``shape``) then the trailing
    axes: a view where it can be."""
    order = [own.index(d) for d in dims if d in own] + list(range(len(own), len(own) + trailing))
    moved = np.transpose(values, order) if order != list(range(values.ndim)) else values
    index = tuple(slice(None) if d in own else np.newaxis for d in dims) + (slice(None),) * trailing
    extra = moved.shape[moved.ndim - trailing:] if trailing else ()
    return np.broadcast_to(moved[index], tuple(shape) + tuple(extra))
