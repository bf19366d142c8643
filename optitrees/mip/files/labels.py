"""Index-set labels as a model file writes them in column and row names (numpy and the standard library only)."""

from __future__ import annotations

import itertools
import re

import numpy as np

__all__ = ["file_labels", "file_names"]

_SAFE = re.compile(r"[A-Za-z0-9_.]*")


def file_labels(labels) -> np.ndarray:
    """An index set's labels as a file writes them: as given when they are safe for ``.lp`` / ``.mps`` names
    (integers always are), else through :func:`~optitrees.mip.safe_labels`."""
    from .._labels import safe_labels

    labels = np.asarray(labels)
    text = labels.astype(str)
    if labels.dtype.kind in "iub":
        return text
    values = text.tolist()
    if len(set(values)) == len(values) and all(_SAFE.fullmatch(s) for s in values):
        return text
    return safe_labels(values)


def file_names(f, groups) -> list[str]:
    """``group(label,label)`` of every entry of ``groups`` (variable or constraint groups of ``f``, in order), each
    set's labels made safe once (:func:`file_labels`): the names the compiled writer gives, one Python string
    each."""
    labels = {name: file_labels(values).tolist() for name, values in f.sets.items()}
    return [f"{g.name}({','.join(index)})" for g in groups for index in itertools.product(*(labels[d] for d in g.dims))]
