"""Index-set labels as ``.lp`` / ``.mps`` names take them: safe characters, one name per label."""

from __future__ import annotations

import numpy as np

__all__ = ["safe_labels"]


def safe_labels(names) -> np.ndarray:
    """Index-set labels usable in ``.lp`` / ``.mps`` names, one-to-one with ``names``.

    A label that is already safe (letters, digits, ``_`` and ``.``) is kept as it is; in the others every other
    character becomes ``_`` (``"mean radius"`` -> ``"mean_radius"``), and a result that another label already
    has (or a repeat) gets the first free suffix ``_1``, ``_2`` ... So ``["x-1", "x_1"]`` gives
    ``["x_1_1", "x_1"]``: the label a user wrote keeps its name, and no two labels share one.

    >>> safe_labels(["x-1", "x_1", "a b", "a_b_1", "a"]).tolist()
    ['x_1_1', 'x_1', 'a_b', 'a_b_1', 'a']
    """
    import re

    text = [str(name) for name in names]
    taken = {s for s in text if re.fullmatch(r"[A-Za-z0-9_.]+", s)}
    kept = set()
    out = []
    for label in text:
        if label in taken and label not in kept:
            kept.add(label)
        else:                                   # unsafe, or a repeat of a label already given
            base = re.sub(r"[^A-Za-z0-9_.]", "_", label) or "_"
            label, k = base, 1
            while label in taken:
                label, k = f"{base}_{k}", k + 1
            taken.add(label)
        out.append(label)
    return np.array(out)
